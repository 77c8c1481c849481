# Tests/cli/lib.sh -- the harness shared by Tests/cli/run.sh and Tests/cli/plist-extract.sh.
# Sourced, not run:
#
#   SUITE=cli
#   source "$(dirname "$0")/lib.sh"
#
# It changes to the repository root, finds the binary (BIN: $CASTSCOPE, default
# .build/release/castscope) and needs python3; if either is missing it prints one FAIL
# line and `$SUITE: 0 passed, 1 failed` and exits 1. Then it makes a temporary directory
# T (removed on exit) and defines:
#   ok/fail TEXT        count a check and print `ok TEXT` / `FAIL TEXT`
#   run ARGS…           run the binary: stdin from /dev/null (or $RUN_STDIN), exit status
#                       in RC, stdout in $T/out, stderr in $T/err
#   check NAME CMD…     ok if CMD succeeds, else fail with RC and the start of stderr
#   err_has/out_has S   stderr/stdout contains S; out_empty: stdout is empty
#   summary             prints `$SUITE: N passed, M failed`; fails if any check failed
# Each suite keeps its own crash test (no_crash) and rc_is.

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2

PASSED=0
FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "ok $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
summary() {
  echo "$SUITE: $PASSED passed, $FAILED failed"
  [[ $FAILED == 0 ]]
}

BIN=${CASTSCOPE:-.build/release/castscope}
if [[ ! -x $BIN ]]; then
  fail "castscope binary not found at $BIN (build with: swift build -c release)"
  summary
  exit 1
fi
command -v python3 >/dev/null || {
  fail "python3 is needed"
  summary
  exit 1
}

# Output is laid out for COLUMNS when it is set (an interactive shell may export it): the
# checks set it themselves.
unset COLUMNS
T=$(mktemp -d "${TMPDIR:-/tmp}/castscope-$SUITE.XXXXXX")
trap 'rm -rf "$T"' EXIT

# run ARGS…: runs the binary with stdin from /dev/null (unless RUN_STDIN is set); sets RC and
# leaves stdout in $T/out, stderr in $T/err.
run() {
  "$BIN" "$@" <"${RUN_STDIN:-/dev/null}" >"$T/out" 2>"$T/err"
  RC=$?
}

# check NAME CONDITION…: evaluates a test command; on failure shows what the binary printed.
check() {
  local name=$1
  shift
  if "$@"; then
    ok "$name"
  else
    fail "$name (rc=$RC; stderr: $(head -c 300 "$T/err" | tr '\n' '|'))"
  fi
}

err_has() { grep -Fq -- "$1" "$T/err"; }
out_has() { grep -Fq -- "$1" "$T/out"; }
out_empty() { [[ ! -s $T/out ]]; }
