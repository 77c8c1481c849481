#!/usr/bin/env bash
# Real-world acceptance: castscope on every public capture in ../shared/captures/external gives
# the reviewed verdict, client count, device counts and finding set in Tests/realworld/EXPECTED.
#
#   Tests/realworld/run.sh           compare (CASTSCOPE=path overrides the binary)
#   Tests/realworld/run.sh --print   print what castscope says now, for review
#
# The captures are read where they are, never copied. Without them the test fails in CI
# (CI=true) and skips elsewhere, saying so.
set -uo pipefail
cd "$(dirname "$0")/../.."
CASTSCOPE="${CASTSCOPE:-.build/release/castscope}"
EXTERNAL=../shared/captures/external
if [ ! -d "$EXTERNAL" ]; then
    if [ -n "${CI:-}" ]; then
        echo "realworld: FAIL: $EXTERNAL is missing (CI needs ../shared beside the clone)" >&2
        exit 1
    fi
    echo "realworld: SKIP: $EXTERNAL is missing" >&2
    exit 0
fi
if [ ! -x "$CASTSCOPE" ]; then
    echo "realworld: $CASTSCOPE not built (run: swift build -c release)" >&2
    exit 1
fi
if [ "${1:-}" = "--print" ]; then
    exec /usr/bin/python3 Tests/realworld/check.py --print "$CASTSCOPE" "$EXTERNAL"
fi
exec /usr/bin/python3 Tests/realworld/check.py "$CASTSCOPE" "$EXTERNAL" Tests/realworld/EXPECTED
