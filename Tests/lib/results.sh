# Tests/lib/results.sh -- the result counting shared by the shell harnesses (Tests/lib/netns.sh
# for live and probe, Tests/checkapp/run.sh). Sourced, not run:
#
#   # shellcheck source=Tests/lib/results.sh
#   source "$ROOT/Tests/lib/results.sh" || exit 2
#
# Sets the counters PASSED and FAILED and defines:
#   ok TEXT / fail TEXT / note TEXT   one `ok …`, `FAIL …` or `# …` line (ok and fail count)
#   run_py_checks CMD...              runs a Python checker and counts the ok/FAIL lines it prints
#                                     (a checker that prints no result is a failure)
# shellcheck shell=bash

PASSED=0
FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "ok $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
note() { echo "# $*"; }

run_py_checks() {
  local line seen=0
  while IFS= read -r line; do
    case $line in
      "ok "*) ok "${line#ok }"; seen=1 ;;
      "FAIL "*) fail "${line#FAIL }"; seen=1 ;;
      *) echo "$line" ;;
    esac
  done < <("$@" 2>&1)
  ((seen)) || fail "checker printed no result: $*"
}
