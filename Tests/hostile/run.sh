#!/usr/bin/env bash
# The hostile capture corpus (issue 7): every file in Tests/hostile/corpus, listed with what
# it must give in Tests/hostile/corpus/MANIFEST.tsv, through the release binary.
#
# Checks, per file:
#   - the committed file is byte for byte what scripts/gen-hostile-corpus.py writes (so the
#     corpus is regenerated, never hand-edited);
#   - `castscope analyze --format json` ends within 20 s, without a signal, with the listed
#     exit status, in under 10 s and 32 MiB (issue 14: peak RSS < 32 MiB on any capture); when the file could be opened, its counts
#     (records, discovery, malformed, undecodable) are the listed ones and the well-formed
#     announcement comes out as the device "Hostile Lab TV" where listed; when it could not,
#     standard error names the file and the reason;
#   - `castscope analyze` (text), `castscope dump` and `castscope report` (HTML) end without a
#     signal and with the same status as the JSON run.
# Prints `hostile: N passed, M failed`; exits 1 if a check failed.
SUITE=hostile
source "$(dirname "$0")/../cli/lib.sh"

CORPUS=Tests/hostile/corpus
MANIFEST=$CORPUS/MANIFEST.tsv

# The corpus is what the generator writes.
python3 scripts/gen-hostile-corpus.py "$T/corpus" >"$T/gen.err" 2>&1
if diff -r "$CORPUS" "$T/corpus" >"$T/diff" 2>&1; then
  ok "corpus is what scripts/gen-hostile-corpus.py writes"
else
  fail "corpus differs from the generator's output (regenerate it): $(head -c 300 "$T/diff" "$T/gen.err" | tr '\n' '|')"
fi

cases=0
while IFS=$'\t' read -r name file want_rc records discovery malformed undecodable device note; do
  [[ -z $name || $name == \#* ]] && continue
  cases=$((cases + 1))
  path=$CORPUS/$file
  [[ -f $path ]] || { fail "$name: $path missing"; continue; }

  # analyze --format json, timed, with a hard limit.
  timeout -s KILL 20 /usr/bin/time -f "%e %M" -o "$T/time" "$BIN" analyze --format json "$path" \
    </dev/null >"$T/out" 2>"$T/err"
  RC=$?
  if ((RC >= 124)); then
    fail "$name: analyze killed or crashed (rc=$RC; stderr: $(head -c 300 "$T/err" | tr '\n' '|'))"
    continue
  fi
  check "$name: analyze exits $want_rc" test "$RC" = "$want_rc"
  # (GNU time puts "Command exited with non-zero status N" first when the status is not 0.)
  read -r seconds kib < <(tail -n 1 "$T/time" 2>/dev/null) || { seconds=99; kib=0; }
  check "$name: analyze took ${seconds}s, ${kib} KiB (bounds 10 s, 32 MiB)" \
    python3 -c "import sys; sys.exit(0 if float('$seconds') < 10 and int('$kib') < 32 * 1024 else 1)"

  if [[ -s $T/out ]]; then
    python3 - "$T/out" "$records" "$discovery" "$malformed" "$undecodable" "$device" >"$T/counts" 2>&1 <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
c = doc["captures"][0]
want = dict(packets=int(sys.argv[2]), discoveryPackets=int(sys.argv[3]), malformedPackets=int(sys.argv[4]),
            undecodableFrames=int(sys.argv[5]))
got = {k: c[k] for k in want}
names = [d["friendlyName"] for d in doc["devices"]]
problems = [f"{k} {got[k]} (want {want[k]})" for k in want if got[k] != want[k]]
if (sys.argv[6] == "yes") != ("Hostile Lab TV" in names):
    problems.append(f"devices {names} (want the announcement: {sys.argv[6]})")
print("; ".join(problems))
sys.exit(1 if problems else 0)
EOF
    counted=$?
    check "$name: counts and device ($(tr '\n' ' ' <"$T/counts"))" test "$counted" = 0
    # A file unreadable from some point names the frame and byte offset (issue 14); a
    # decompression bomb says it stopped at the limit.
    if [[ $want_rc == 65 ]]; then
      check "$name: stderr names the frame and byte offset of the fault" \
        grep -Eq "unreadable from frame [0-9]+ \(byte offset [0-9]+\)" "$T/err"
    fi
    if [[ $name == *-bomb ]]; then
      check "$name: stderr says the decompression limit stopped it" grep -q "stopped as a decompression bomb" "$T/err"
    fi
  elif ((records > 0)); then
    fail "$name: no JSON report although $records records are readable"
  else
    check "$name: stderr names the file and says why" grep -q "$file: ." "$T/err"
  fi

  for command in "analyze" "dump" "report -o $T/report.html"; do
    # shellcheck disable=SC2086 # the command words are meant to split
    timeout -s KILL 20 "$BIN" $command "$path" </dev/null >"$T/out2" 2>"$T/err2"
    rc=$?
    if ((rc >= 124)); then
      fail "$name: ${command%% *} killed or crashed (rc=$rc; stderr: $(head -c 200 "$T/err2" | tr '\n' '|'))"
    else
      # dump reports a damaged file the same way; report may end 65 only where analyze does.
      check "$name: ${command%% *} exits $rc like the JSON run" test "$rc" = "$want_rc"
    fi
  done
done <"$MANIFEST"

check "the manifest lists the $cases files of the corpus" \
  test "$cases" = "$(find "$CORPUS" -name '*.pcap*' | wc -l)"
summary
