#!/usr/bin/env bash
# Tests/rows/run.sh -- `castscope analyze --format rows` (docs/rows.md) end to end, no root, no
# network:
#
#   Tests/rows/run.sh                                     # from anywhere
#   CASTSCOPE=.build/debug/castscope Tests/rows/run.sh    # another binary (relative: from the repository root)
#
# check_rows.py writes the rows of every bundled capture to a file of its own, validates each
# row against docs/rows.schema.json, compares the rows with each capture's JSON document (`analyze
# --format json`, read independently), checks several files in one run, an unreadable file and
# --merge, then loads every file into DuckDB and checks aggregate queries against the same
# figures computed from the JSON documents (see its docstring).
# Prints one `ok ...` / `FAIL ...` line per check, then `rows: N passed, M failed`; exits 1 if
# any check failed.
#
# Requirements: python3 (PYTHON overrides it) with jsonschema and duckdb from PyPI
# (`make test-deps` installs them).
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
BIN=${CASTSCOPE:-.build/release/castscope}
PY=${PYTHON:-python3}
# shellcheck source=Tests/lib/results.sh
source Tests/lib/results.sh || exit 2

if [[ ! -x $BIN ]]; then
  fail "castscope binary not found at $BIN (build with: swift build -c release)"
elif ! "$PY" -c 'import duckdb, jsonschema' 2>/dev/null; then
  fail "$PY lacks duckdb or jsonschema (make test-deps installs them)"
elif T=$(mktemp -d "${TMPDIR:-/tmp}/castscope-rows.XXXXXX"); then
  PYTHONDONTWRITEBYTECODE=1 run_py_checks "$PY" Tests/rows/check_rows.py "$BIN" "$T"
  rm -rf "$T"
else
  fail "mktemp"
fi
echo "rows: $PASSED passed, $FAILED failed"
((FAILED == 0))
