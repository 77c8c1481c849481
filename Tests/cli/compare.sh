#!/usr/bin/env bash
# Command-line checks for `castscope compare` (issue 18) on the bundled captures: the usage
# errors, both modes and how they are chosen, the four formats, the exit statuses, and the JSON
# against docs/compare.schema.json. The loss counts against ground truth are checked as root by
# Tests/compare/run.sh (namespaces and nft drop counters).
#
# Usage: Tests/cli/compare.sh   (CASTSCOPE overrides the binary, default .build/release/castscope)
set -u

SUITE=compare-cli
# shellcheck source=Tests/cli/lib.sh
source "$(dirname "$0")/lib.sh" || exit 2

lines() { if [[ -s $1 ]]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
no_crash() { ! grep -Eqi 'fatal error|stack dump|stack trace|backtrace|^[[:space:]]*#?[0-9]+ +0x[0-9a-f]+' "$T/err"; }
rc_is() { [[ $RC == "$1" ]]; }
# The three-line usage error every command prints: `castscope compare: …`, USAGE, See.
usage_error() { rc_is 64 && [[ $(lines "$T/err") == 3 ]] && head -n1 "$T/err" | grep -q '^castscope compare: ' && out_empty && no_crash; }
# json EXPR: a Python expression over the document `d` read from $T/out.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$T/out"; }

HEALTHY=captures/healthy-ipv4.pcap
NOCAST=captures/no-cast-queries.pcap
MULTI=captures/multi-device.pcap

# ---------------------------------------------------------------- usage errors (64)
run compare
check "no capture is a usage error" eval 'usage_error && err_has "needs two captures"'
run compare "$HEALTHY"
check "one capture is a usage error" eval 'usage_error && err_has "needs a second capture"'
run compare "$HEALTHY" "$NOCAST" "$MULTI"
check "three captures are a usage error" eval 'usage_error && err_has "is a third"'
run compare --window 0 "$HEALTHY" "$NOCAST"
check "--window 0 is a usage error" eval 'usage_error && err_has "--window needs a number of seconds"'
run compare --window soon "$HEALTHY" "$NOCAST"
check "--window soon is a usage error" eval 'usage_error'
run compare --before-after --same-time "$HEALTHY" "$NOCAST"
check "--before-after with --same-time is a usage error" eval 'usage_error && err_has "contradict"'
run compare - - 
check "both captures from standard input is a usage error" eval 'usage_error && err_has "standard input"'
run compare -o "$MULTI" "$MULTI" "$HEALTHY"
check "-o naming an input is a usage error" eval 'rc_is 64 && out_empty'
run compare --sender 203.0.113.9 "$MULTI" "$MULTI"
check "an unknown --sender is a usage error naming the senders there are" \
  eval 'usage_error && err_has "no sender '"'"'203.0.113.9'"'"'" && err_has "192.0.2.10"'
run compare --device Kitchen "$MULTI" "$MULTI"
check "an unknown --device is a usage error naming the devices there are" \
  eval 'usage_error && err_has "Bedroom TV" && err_has "Downstairs"'
run compare --format yaml "$MULTI" "$MULTI"
check "an unknown format is a usage error" eval 'rc_is 64 && out_empty'

# ---------------------------------------------------------------- files that cannot be read
run compare "$MULTI" "$T/missing.pcap"
check "a missing capture exits 66 with one castscope: line" \
  eval 'rc_is 66 && [[ $(lines "$T/err") == 1 ]] && err_has "missing.pcap" && out_empty && no_crash'
printf 'not a capture\n' >"$T/notes.txt"
run compare "$T/notes.txt" "$MULTI"
check "a text file exits 65" eval 'rc_is 65 && out_empty && no_crash'

# ---------------------------------------------------------------- two points
run compare "$MULTI" "$MULTI"
check "a capture with itself: two points, every message arrived, exit 0" \
  eval 'rc_is 0 && out_has "OK: every Cast message" && out_has "3 of 3 arrived" && out_has "COMPARE_OK"'
run compare --format json "$MULTI" "$MULTI"
cp "$T/out" "$T/self.json"
check "its JSON: mode two-points, offset 0 from both directions, 3 and 3, no loss" \
  eval 'rc_is 0 && json "d[\"mode\"]==\"two-points\" and d[\"clockOffsetMs\"]==0 and d[\"clockOffsetBasis\"]==\"both-directions\" and d[\"queries\"][\"seen\"]==d[\"queries\"][\"arrived\"]==3 and d[\"answers\"][\"arrived\"]==3 and d[\"queries\"][\"lostFrames\"]==[] and [f[\"code\"] for f in d[\"findings\"]]==[\"COMPARE_OK\"]"'
check "its devices are named, its sender found" \
  eval 'json "sorted(x[\"name\"] for x in d[\"devices\"])==[\"Bedroom TV\",\"Downstairs\"] and [x[\"addresses\"] for x in d[\"senders\"]]==[[\"192.0.2.10\"]]"'
RUN_STDIN=$MULTI run compare --format json - "$MULTI"
check "the first capture from standard input" eval 'rc_is 0 && json "d[\"a\"][\"file\"]==\"standard input\" and d[\"queries\"][\"arrived\"]==3"'
run compare --format json --device Downstairs "$MULTI" "$MULTI"
check "--device by friendly name keeps that device's answers" \
  eval 'rc_is 0 && json "[x[\"name\"] for x in d[\"devices\"]]==[\"Downstairs\"] and d[\"answers\"][\"seen\"]==2 and len(d[\"otherDevices\"])==1"'
run compare --format json --same-time "$HEALTHY" "$NOCAST"
cp "$T/out" "$T/forced.json"
check "--same-time lines up captures whose times do not overlap" eval 'rc_is 0 && json "d[\"mode\"]==\"two-points\""'

# ---------------------------------------------------------------- before and after
run compare "$HEALTHY" "$NOCAST"
check "captures of different times are compared as before and after, with the reason" \
  eval 'rc_is 0 && out_has "Before: No problems found" && out_has "do not overlap in time" && out_has "NO_CAST_QUERIES"'
run compare --format json "$HEALTHY" "$NOCAST"
cp "$T/out" "$T/ba.json"
check "its JSON: reason no-overlap, NO_CAST_QUERIES appeared, the TV in both" \
  eval 'rc_is 0 && json "d[\"mode\"]==\"before-after\" and d[\"reason\"]==\"no-overlap\" and [f[\"code\"] for f in d[\"findings\"][\"appeared\"]]==[\"NO_CAST_QUERIES\"] and [x[\"name\"] for x in d[\"devices\"][\"kept\"]]==[\"Living Room TV\"] and d[\"latency\"][0][\"afterMs\"] is None"'
RUN_STDIN=$HEALTHY run compare --format json - "$NOCAST"
check "standard input compared as before and after (read twice through a private copy)" \
  eval 'rc_is 0 && json "d[\"mode\"]==\"before-after\" and d[\"a\"][\"file\"]==\"standard input\"" && ! ls "${TMPDIR:-/tmp}"/castscope-stdin.* >/dev/null 2>&1'
run compare -q --fail-on warning "$HEALTHY" "$NOCAST"
check "--fail-on warning: a warning that appeared exits 1, -q prints nothing" eval 'rc_is 1 && out_empty'
run compare -q --fail-on warning "$NOCAST" "$HEALTHY"
check "the other way round the warning was resolved: exit 0" eval 'rc_is 0 && out_empty'
run compare --before-after --format json "$MULTI" "$MULTI"
cp "$T/out" "$T/asked.json"
check "--before-after on one capture twice: reason asked, nothing changed" \
  eval 'rc_is 0 && json "d[\"reason\"]==\"asked\" and d[\"findings\"][\"appeared\"]==[] and d[\"devices\"][\"appeared\"]==[] and d[\"devices\"][\"disappeared\"]==[]"'

# ---------------------------------------------------------------- formats and output
run compare --format markdown "$MULTI" "$MULTI"
check "markdown: a heading and the directions table" eval 'rc_is 0 && head -n1 "$T/out" | grep -q "^# " && out_has "| Direction |"'
run compare --format markdown "$HEALTHY" "$NOCAST"
check "markdown before and after" eval 'rc_is 0 && out_has "# Before and after" && out_has "NO\_CAST\_QUERIES"'
for pair in "$MULTI $MULTI" "$HEALTHY $NOCAST"; do
  # shellcheck disable=SC2086
  run compare --format html -o "$T/page.html" $pair
  check "html ($pair): well-formed XML, a CSP, nothing loaded, nothing run" \
    eval 'rc_is 0 && out_empty && python3 -c "import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])" <(sed 1d "$T/page.html") && grep -q "Content-Security-Policy" "$T/page.html" && ! grep -Eqi "<script|src=\"http|href=\"http" "$T/page.html"'
done
run compare --format html "$MULTI" "$MULTI"
check "html two points: the timelines with a line per matched pair" \
  eval 'rc_is 0 && [[ $(grep -c "<line x1=\"[0-9.]*\" y1=\"40\"" "$T/out") -ge 6 ]] && out_has "<svg"'
run compare -o "$T/written.txt" "$MULTI" "$MULTI"
check "-o writes the file and nothing to standard output" eval 'rc_is 0 && out_empty && grep -q "3 of 3 arrived" "$T/written.txt"'
run compare -o /nonexistent-dir/x.txt "$MULTI" "$MULTI"
check "-o to a folder that does not exist exits 73" eval 'rc_is 73'

# ---------------------------------------------------------------- the JSON contract
if [[ -f docs/compare.schema.json ]] && python3 -c 'import jsonschema' 2>/dev/null; then
  for doc in self forced ba asked; do
    check "$doc.json validates against docs/compare.schema.json" \
      python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open("docs/compare.schema.json")))' "$T/$doc.json"
  done
else
  fail "docs/compare.schema.json and python3-jsonschema are needed"
fi

summary
