#!/usr/bin/env bash
# Golden tests in tcpdump's TESTLIST style: each line of Tests/golden/TESTLIST is
#   NAME <TAB or spaces> SHELL COMMAND (with $CASTSCOPE for the binary)
# and its expected output is Tests/golden/expected/NAME.out: standard output, then, when not
# empty, a "--- stderr ---" section, then "--- exit N ---" when the status is not 0.
#
#   Tests/golden/run.sh            compare
#   Tests/golden/run.sh --update   rewrite the expected files (review the diff before committing)
#
# Every capture in captures/ must appear in at least one test.
set -uo pipefail
cd "$(dirname "$0")/../.."
export CASTSCOPE="${CASTSCOPE:-.build/release/castscope}"
# The expected outputs are laid out for a pipe: COLUMNS would make analyze fit a terminal.
unset COLUMNS
update=0
[ "${1:-}" = "--update" ] && update=1
list=Tests/golden/TESTLIST
expected_dir=Tests/golden/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$CASTSCOPE" ]; then
    echo "golden: $CASTSCOPE not built (run: swift build -c release)" >&2
    exit 1
fi

passed=0
failed=0
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    name=${line%%[[:space:]]*}
    command=${line#"$name"}
    command="${command#"${command%%[![:space:]]*}"}"
    out="$tmp/$name.out"
    bash -c "$command" >"$out" 2>"$tmp/$name.err" </dev/null
    status=$?
    if [ -s "$tmp/$name.err" ]; then
        { echo "--- stderr ---"; cat "$tmp/$name.err"; } >>"$out"
    fi
    [ "$status" -ne 0 ] && echo "--- exit $status ---" >>"$out"
    if [ "$update" -eq 1 ]; then
        cp "$out" "$expected_dir/$name.out"
        echo "updated $name"
        passed=$((passed + 1))
    elif [ ! -f "$expected_dir/$name.out" ]; then
        echo "FAIL $name: no expected file $expected_dir/$name.out (run with --update and review)"
        failed=$((failed + 1))
    elif diff -u "$expected_dir/$name.out" "$out" >"$tmp/$name.diff"; then
        echo "ok   $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name: output differs from $expected_dir/$name.out"
        head -40 "$tmp/$name.diff" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
done <"$list"

# Every bundled capture must be covered.
for capture in captures/*.pcap captures/*.pcapng; do
    [ -e "$capture" ] || continue
    if ! grep -q "$capture" "$list"; then
        echo "FAIL coverage: $capture is not used by any test in $list"
        failed=$((failed + 1))
    fi
done

echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
