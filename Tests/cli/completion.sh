#!/usr/bin/env bash
# The shell completions and the man page, both generated from the commands' specs:
#   - `castscope completion bash` sourced in a non-interactive bash registers _castscope
#     (complete -p), and with COMP_WORDS/COMP_CWORD set as bash sets them it completes
#     `castscope an<TAB>` to analyze, `analyze --for<TAB>` to --format, `--format <TAB>` to its
#     values, `--format=<TAB>`, `help <TAB>` to the commands, file operands, `live -i <TAB>`;
#   - the zsh script parses (zsh -n) and the fish one too (fish --no-execute), and fish's own
#     `complete -C` gives the same answers;
#   - docs/castscope.1 is what `castscope help --man` prints, and `man -l` renders NAME,
#     SYNOPSIS and a section for every command.
# Prints `ok …` / `FAIL …` per check, then `completion: N passed, M failed`.
# Usage: Tests/cli/completion.sh   (CASTSCOPE overrides the binary, default .build/release/castscope)
set -u

SUITE=completion
# shellcheck source=Tests/cli/lib.sh
source "$(dirname "$0")/lib.sh" || exit 2

RC=0
: >"$T/err"
COMMANDS="analyze report check-plist check-app compare extract live probe dump help completion"

"$BIN" completion bash >"$T/castscope.bash"
# complete_bash WORD…: the candidates bash would offer for the last word (one per line).
complete_bash() {
    bash --norc --noprofile -c '
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _castscope castscope "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$T/castscope.bash" "$@" 2>&1
}
check "bash: the script registers _castscope for castscope (complete -p)" \
    eval '[[ $(bash --norc -c "source $T/castscope.bash; complete -p castscope") == "complete -F _castscope castscope" ]]'
check "bash: castscope an<TAB> completes to analyze" eval '[[ $(complete_bash castscope an) == analyze ]]'
check "bash: castscope <TAB> offers every command" \
    eval '[[ $(complete_bash castscope "" | grep -v -- "^-" | sort | paste -sd" ") == "$(tr " " "\n" <<<"$COMMANDS" | sort | paste -sd" ")" ]]'
check "bash: castscope analyze --for<TAB> completes to --format" \
    eval '[[ $(complete_bash castscope analyze --for) == --format ]]'
check "bash: castscope analyze --format <TAB> lists text json markdown rows" \
    eval '[[ $(complete_bash castscope analyze --format "" | paste -sd" ") == "text json markdown rows" ]]'
check "bash: castscope report --format=<TAB> lists html markdown" \
    eval '[[ $(complete_bash castscope report --format = "" | paste -sd" ") == "html markdown" ]]'
check "bash: castscope analyze --max-<TAB> lists one option per limit" \
    eval '[[ $(complete_bash castscope analyze --max- | wc -l) == 7 ]]'
check "bash: castscope live --max-d<TAB> (live takes the limits too)" \
    eval '[[ $(complete_bash castscope live --max-d) == --max-devices ]]'
check "bash: castscope dump captures/multi-<TAB> completes the file" \
    eval '[[ $(complete_bash castscope dump captures/multi-) == captures/multi-device.pcap ]]'
check "bash: castscope analyze -r captures/multi-<TAB> completes the file" \
    eval '[[ $(complete_bash castscope analyze -r captures/multi-) == captures/multi-device.pcap ]]'
check "bash: castscope help an<TAB> completes the command name" eval '[[ $(complete_bash castscope help an) == analyze ]]'
check "bash: castscope completion <TAB> lists the shells" \
    eval '[[ $(complete_bash castscope completion "" | paste -sd" ") == "bash zsh fish" ]]'
check "bash: castscope live -i l<TAB> offers lo" eval 'complete_bash castscope live -i l | grep -qx lo'
check "bash: castscope probe -i l<TAB> offers lo" eval 'complete_bash castscope probe -i l | grep -qx lo'
check "bash: castscope probe --app<TAB> completes --app-id" eval '[[ $(complete_bash castscope probe --app) == --app-id ]]'
check "bash: castscope analyze --session-gap <TAB> offers nothing (a number)" \
    eval '[[ -z $(complete_bash castscope analyze --session-gap "") ]]'

if command -v zsh >/dev/null; then
    "$BIN" completion zsh >"$T/_castscope"
    check "zsh: the script parses (zsh -n)" zsh -n "$T/_castscope"
    check "zsh: it starts with #compdef castscope" eval '[[ $(head -n1 "$T/_castscope") == "#compdef castscope" ]]'
else
    fail "zsh is not installed (Debian package zsh)"
fi
if command -v fish >/dev/null; then
    "$BIN" completion fish >"$T/castscope.fish"
    check "fish: the script parses (fish --no-execute)" fish --no-execute "$T/castscope.fish"
    complete_fish() { fish --no-config -c "source $T/castscope.fish; complete -C '$1'" | cut -f1; }
    check "fish: castscope an<TAB> completes to analyze" eval '[[ $(complete_fish "castscope an") == analyze ]]'
    check "fish: castscope analyze --for<TAB> completes to --format" \
        eval '[[ $(complete_fish "castscope analyze --for") == --format ]]'
    check "fish: castscope analyze --format <TAB> lists its values" \
        eval '[[ $(complete_fish "castscope analyze --format " | sort | paste -sd" ") == "json markdown rows text" ]]'
else
    fail "fish is not installed (Debian package fish)"
fi

run completion tcsh
check "completion tcsh: exit 64, names the shells" eval '[[ $RC == 64 ]] && err_has "bash, zsh or fish"'

# ---------------------------------------------------------------- man page
run help --man
check "help --man prints the man page, the same as docs/castscope.1 (make man regenerates it)" \
    eval '[[ $RC == 0 ]] && diff -u docs/castscope.1 "$T/out" >"$T/err"'
if command -v man >/dev/null && command -v groff >/dev/null; then
    MANWIDTH=100 man --warnings -l docs/castscope.1 2>"$T/man.err" | col -b >"$T/man.txt"
    check "man -l docs/castscope.1 renders NAME and SYNOPSIS" \
        eval 'grep -qx "NAME" "$T/man.txt" && grep -qx "SYNOPSIS" "$T/man.txt" && grep -q "castscope - why" "$T/man.txt"'
    missing=""
    for c in $COMMANDS; do
        grep -Eq "^   castscope $c\$" "$T/man.txt" || missing="$missing $c"
    done
    check "man: a section for every command" eval '[[ -z "$missing" ]] || { echo "no section for:$missing" >"$T/err"; false; }'
    check "man: every --max- option is documented" eval '[[ $(grep -c -- "^       --max-devices N" "$T/man.txt") == 3 ]]'
    check "man: groff has no warnings" eval '[[ ! -s $T/man.err ]] || { cp "$T/man.err" "$T/err"; false; }'
else
    fail "man and groff are needed (Debian packages man-db, groff-base)"
fi

summary
