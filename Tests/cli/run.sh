#!/usr/bin/env bash
# Command-line checks for castscope: exit codes (sysexits), error messages, stdin, several files,
# cut-off captures, help. Prints one `ok …` / `FAIL …` line per check, then
# `cli: N passed, M failed`; exits non-zero if any check failed.
#
# Usage: Tests/cli/run.sh   (from anywhere; CASTSCOPE overrides the binary, default
#        .build/release/castscope relative to the repository root)
set -u

SUITE=cli
# shellcheck source=Tests/cli/lib.sh
source "$(dirname "$0")/lib.sh" || exit 2

lines() { if [[ -s $1 ]]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
# One line on stderr, starting `castscope:`, and nothing that looks like a crash.
one_error_line() {
  [[ $(lines "$T/err") == 1 ]] && head -n1 "$T/err" | grep -q '^castscope: ' && no_crash
}
no_crash() { ! grep -Eqi 'fatal error|stack dump|stack trace|backtrace|^[[:space:]]*#?[0-9]+ +0x[0-9a-f]+' "$T/err"; }
rc_is() { [[ $RC == "$1" ]]; }

# ---------------------------------------------------------------- usage errors (64)
run
check "no arguments exits 64 with usage on stderr" \
  eval 'rc_is 64 && err_has "USAGE" && out_empty && no_crash'

run frobnicate
check "unknown command exits 64 and names it" \
  eval 'rc_is 64 && head -n1 "$T/err" | grep -q "^castscope: unknown command .frobnicate." && out_empty'

run dump
check "dump without a file exits 64" \
  eval 'rc_is 64 && err_has "castscope dump: no capture file given" && out_empty'

run dump --format xml captures/goodbye.pcap
check "dump --format xml exits 64 and names the format" \
  eval 'rc_is 64 && head -n1 "$T/err" | grep -q "^castscope dump: .*xml" && out_empty'

run dump --format
check "dump --format without a value exits 64" eval 'rc_is 64 && out_empty'

run dump --bogus captures/goodbye.pcap
check "dump with an unknown option exits 64" eval 'rc_is 64 && err_has "--bogus" && out_empty'

# ---------------------------------------------------------------- one grammar (issue 12)
# A usage error is three lines on stderr: the mistake, the usage line, where to read more.
run analyze --bogus x
check "analyze --bogus x: exactly 3 lines on stderr, exit 64, nothing on stdout" \
  eval 'rc_is 64 && [[ $(lines "$T/err") == 3 ]] && out_empty \
    && [[ $(sed -n 1p "$T/err") == "castscope analyze: unknown option '"'"'--bogus'"'"'" ]] \
    && [[ $(sed -n 2p "$T/err") == "USAGE: castscope analyze [OPTIONS] FILE..." ]] \
    && [[ $(sed -n 3p "$T/err") == "See '"'"'castscope analyze --help'"'"'." ]]'
run analyze --fromat json captures/goodbye.pcap
check "analyze --fromat: did you mean '--format'?" \
  eval 'rc_is 64 && [[ $(lines "$T/err") == 3 ]] && head -n1 "$T/err" | grep -qF "(did you mean '"'"'--format'"'"'?)"'
run analyze -merge captures/goodbye.pcap
check "analyze -merge: did you mean '--merge'?" eval 'rc_is 64 && err_has "(did you mean '"'"'--merge'"'"'?)"'
run analyze --format jsn captures/goodbye.pcap
check "analyze --format jsn: did you mean 'json'?" eval 'rc_is 64 && err_has "did you mean '"'"'json'"'"'"'
run anlyze captures/goodbye.pcap
check "anlyze: unknown command, did you mean 'analyze'?, exit 64, 3 lines" \
  eval 'rc_is 64 && [[ $(lines "$T/err") == 3 ]] && err_has "unknown command '"'"'anlyze'"'"' (did you mean '"'"'analyze'"'"'?)" && out_empty'
run help nosuch
check "help nosuch: exit 64, lists the commands" \
  eval 'rc_is 64 && [[ $(lines "$T/err") == 3 ]] && err_has "nosuch" && err_has "analyze, report" && out_empty'
for c in analyze report check-plist extract live probe dump completion; do
  run help "$c"
  cp "$T/out" "$T/help-$c"
  run "$c" --help
  check "help $c is $c --help (exit 0, NAME, USAGE, OPTIONS, -h)" \
    eval 'rc_is 0 && cmp -s "$T/out" "$T/help-$c" && out_has "NAME: castscope $c" && out_has "USAGE: castscope $c" \
      && out_has "-h, --help" && [[ ! -s $T/err ]]'
  check "help $c fits 100 columns" \
    python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$T/out"
done
run help live
check "help live documents -c, -w and the limits" eval 'out_has "-c, --count N" && out_has "-w, --write FILE" && out_has "--max-devices N"'
check "help live documents --metrics, its window and forgetting" \
  eval 'out_has "--metrics [ADDR:]PORT" && out_has "--metrics-window S" && out_has "--metrics-forget S"'
# -o naming an input would empty the capture before it is read.
cp captures/goodbye.pcap "$T/same.pcap"
for cmd in analyze report; do
  run "$cmd" -o "$T/same.pcap" "$T/same.pcap"
  check "$cmd -o X X: refused (exit 64), the capture untouched" \
    eval 'rc_is 64 && cmp -s captures/goodbye.pcap "$T/same.pcap" && grep -q "is also an input" "$T/err"'
done
# --metrics is checked before anything is opened (no root needed for these).
for bad in "--metrics abc" "--metrics 0" "--metrics 2001:db8::1:80" "--metrics [::1]" \
  "--metrics 9150 --metrics-window 5" "--metrics 9150 --metrics-window 100000" "--metrics-window 60" \
  "--metrics-forget 60" "--metrics 9150 --metrics-forget 0" "--metrics 9150 --metrics-window 60 --session-gap 31"; do
  # shellcheck disable=SC2086 # (word splitting wanted)
  run live -i lo $bad
  check "live $bad: usage error, exit 64, 3 lines, the first naming the option" \
    eval 'rc_is 64 && [[ $(lines "$T/err") == 3 ]] && head -n1 "$T/err" | grep -q -- "^castscope live: --metrics" && no_crash'
done
run analyze --max-devices=5 --session-gap=30 -qc5 -- captures/goodbye.pcap
check "--name=value, short clusters with a value (-qc5) and -- parse" eval 'rc_is 0 && out_has "Devices"'
run analyze --merge=yes captures/goodbye.pcap
check "a flag given a value is a usage error" eval 'rc_is 64 && err_has "--merge takes no value"'
run analyze captures/goodbye.pcap
cp "$T/out" "$T/plain.txt"
run analyze -r captures/goodbye.pcap
check "-r FILE reads the capture like an operand" eval 'rc_is 0 && cmp -s "$T/out" "$T/plain.txt"'
run dump -r captures/goodbye.pcap -o "$T/dump.txt"
check "dump -r FILE -o OUT writes the dump to OUT" \
  eval 'rc_is 0 && out_empty && grep -q "^file captures/goodbye.pcap" "$T/dump.txt"'
cp captures/goodbye.pcap "$T/self.pcap"
run dump -o "$T/self.pcap" "$T/self.pcap"
check "dump -o an input is refused (64) and the input kept" eval 'rc_is 64 && cmp -s "$T/self.pcap" captures/goodbye.pcap'
run analyze --color always captures/goodbye.pcap
check "--color always colours the verdict line" eval 'rc_is 0 && head -n1 "$T/out" | grep -q $'"'"'^\e\[1;3[123]m'"'"''
check "… and nothing else changes once the colours are removed" \
  eval 'cmp -s <(sed "s/\x1b\[[0-9;]*m//g" "$T/out") "$T/plain.txt"'
run analyze --color auto captures/goodbye.pcap
check "--color auto: no colour into a file or pipe" eval 'cmp -s "$T/out" "$T/plain.txt"'
if command -v script >/dev/null; then
  script -qec "$BIN analyze captures/goodbye.pcap" /dev/null >"$T/tty" 2>&1
  check "on a terminal the verdict is coloured" eval 'grep -q $'"'"'\e\[1;3[123]m'"'"' "$T/tty"'
  NO_COLOR=1 script -qec "$BIN analyze captures/goodbye.pcap" /dev/null >"$T/tty" 2>&1
  check "NO_COLOR=1 on a terminal: no colour" eval '! grep -q $'"'"'\e\['"'"' "$T/tty"'
fi
run analyze --color sometimes captures/goodbye.pcap
check "--color sometimes is a usage error" eval 'rc_is 64 && err_has "auto, always or never"'
run extract -q -o "$T/q.pcap" captures/goodbye.pcap
check "extract -q: no summary line, the file written" eval 'rc_is 0 && out_empty && [[ -s $T/q.pcap ]]'
run report -q --format markdown captures/goodbye.pcap
check "report -q works" eval 'rc_is 0 && out_has "#"'
run completion bash
check "completion bash prints the script" eval 'rc_is 0 && out_has "complete -F _castscope castscope"'
run completion
check "completion without a shell exits 64" eval 'rc_is 64 && [[ $(lines "$T/err") == 3 ]]'

# ---------------------------------------------------------------- files that cannot be read
run dump "$T/does-not-exist.pcap"
check "missing file exits 66 with one castscope: line and no stack trace" \
  eval 'rc_is 66 && one_error_line && err_has "does-not-exist.pcap" && out_empty'

mkdir -p "$T/a-directory"
run dump "$T/a-directory"
check "a directory exits 66 with one castscope: line" eval 'rc_is 66 && one_error_line && out_empty'

printf 'this is not a capture\njust text\n' >"$T/notes.txt"
run dump "$T/notes.txt"
check "a text file exits 65 with one castscope: line" eval 'rc_is 65 && one_error_line && out_empty'

: >"$T/empty.pcap"
run dump "$T/empty.pcap"
check "an empty file exits 65 with one castscope: line" eval 'rc_is 65 && one_error_line'

# A pcap header (little-endian, microseconds, snaplen 65535) with link type 189 (USB_LINUX), plus one record.
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\xbd\x00\x00\x00' >"$T/usb.pcap"
printf '\x01\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x04\x00\x00\x00\xde\xad\xbe\xef' >>"$T/usb.pcap"
run dump "$T/usb.pcap"
check "an unsupported link type (DLT 189) exits 65 and names the link type" \
  eval 'rc_is 65 && one_error_line && err_has "USB_LINUX" && err_has "189" && out_empty'

# A file that cannot be opened among others: the rest is analysed, and every output says so.
run analyze --format json captures/goodbye.pcap "$T/does-not-exist.pcap"
check "analyze present + missing: exit 66, JSON unreadable[] names the missing file" \
  eval 'rc_is 66 && one_error_line && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
u = d[\"unreadable\"]
assert [c[\"file\"] for c in d[\"captures\"]] == [\"captures/goodbye.pcap\"], d[\"captures\"]
assert len(u) == 1 and u[0][\"file\"].endswith(\"does-not-exist.pcap\") and u[0][\"error\"], u
assert d[\"verdict\"][\"unreadable\"] == 1 and d[\"verdict\"][\"status\"] in (\"warn\", \"fail\"), d[\"verdict\"]
assert \"does-not-exist.pcap\" in d[\"verdict\"][\"headline\"], d[\"verdict\"]
" "$T/out"'
run analyze captures/goodbye.pcap "$T/does-not-exist.pcap"
check "analyze present + missing: the text verdict and a 'Not read' line name it" \
  eval 'rc_is 66 && head -n1 "$T/out" | grep -q "^WARN: .*1 capture not read: .*does-not-exist.pcap" \
    && out_has "Not read $T/does-not-exist.pcap"'
run analyze --format markdown captures/goodbye.pcap "$T/does-not-exist.pcap"
check "analyze --format markdown present + missing: listed as not read" \
  eval 'rc_is 66 && out_has "does-not-exist.pcap\`: not read: "'
run report -o "$T/missing.html" captures/goodbye.pcap "$T/does-not-exist.pcap"
check "report present + missing: the page names the file (no directory) as not read" \
  eval 'rc_is 66 && grep -q "1 capture not read: does-not-exist.pcap" "$T/missing.html" \
    && ! grep -qF "$T" "$T/missing.html"'

# ---------------------------------------------------------------- width (COLUMNS)
# Not a terminal and no COLUMNS: tables as wide as their cells, nothing cut.
run analyze captures/multi-device.pcap
cp "$T/out" "$T/wide.txt"
check "analyze into a pipe: no line is cut with an ellipsis" eval 'rc_is 0 && ! grep -q "…" "$T/wide.txt"'
for columns in 40 60 80 200; do
  COLUMNS=$columns run analyze captures/multi-device.pcap
  check "COLUMNS=$columns: every line fits, nothing cut, the same characters" \
    eval 'rc_is 0 && ! grep -q "…" "$T/out" \
      && python3 -c "import sys; sys.exit(max(len(l) for l in open(sys.argv[1], encoding=\"utf-8\").read().split(\"\n\")) > $columns)" "$T/out" \
      && [[ $(tr -d " \n" <"$T/out" | fold -w1 | sort | tr -d "\n") == $(tr -d " \n" <"$T/wide.txt" | fold -w1 | sort | tr -d "\n") ]]'
done
COLUMNS=60 run analyze -o "$T/file.txt" captures/multi-device.pcap
check "COLUMNS does not apply to -o FILE: the file is laid out as for a pipe" eval 'rc_is 0 && cmp -s "$T/file.txt" "$T/wide.txt"'
COLUMNS=abc run analyze captures/multi-device.pcap
check "COLUMNS that is not a number is ignored" eval 'rc_is 0 && cmp -s "$T/out" "$T/wide.txt"'

# ---------------------------------------------------------------- stdin
run dump captures/goodbye.pcap
cp "$T/out" "$T/file.out"
RUN_STDIN=captures/goodbye.pcap run dump -
cp "$T/out" "$T/stdin.out"
check "dump - reads a capture from standard input" \
  eval 'rc_is 0 && head -n1 "$T/stdin.out" | grep -q "^file standard input: EN10MB" && [[ ! -s $T/err ]]'
check "dump - prints the same packets as reading the file" \
  eval 'diff <(tail -n +2 "$T/file.out") <(tail -n +2 "$T/stdin.out") >/dev/null && [[ $(lines "$T/file.out") -gt 3 ]]'

run dump --format jsonl captures/goodbye.pcap
sed 's|"file":"captures/goodbye.pcap"|"file":"-"|' "$T/out" >"$T/file.jsonl"
RUN_STDIN=captures/goodbye.pcap run dump --format jsonl -
check "dump --format jsonl - matches the file except for \"file\"" \
  eval 'rc_is 0 && [[ -s $T/out ]] && diff "$T/file.jsonl" "$T/out" >/dev/null'

# ---------------------------------------------------------------- several files
run dump captures/healthy-ipv4.pcap
cp "$T/out" "$T/a.out"
run dump captures/ipv6.pcap
cp "$T/out" "$T/b.out"
run dump captures/healthy-ipv4.pcap captures/ipv6.pcap
check "several files print one section each, in order" \
  eval 'rc_is 0 && [[ $(grep -c "^file " "$T/out") == 2 && $(grep -c "^summary: " "$T/out") == 2 ]] \
    && grep -q "^file captures/healthy-ipv4.pcap:" "$T/out" && grep -q "^file captures/ipv6.pcap:" "$T/out" \
    && diff <(cat "$T/a.out" "$T/b.out") "$T/out" >/dev/null'

run dump captures/healthy-ipv4.pcap "$T/does-not-exist.pcap" captures/ipv6.pcap
check "a missing file among good ones: the others are printed, exit 66" \
  eval 'rc_is 66 && one_error_line && diff <(cat "$T/a.out" "$T/b.out") "$T/out" >/dev/null'

# ---------------------------------------------------------------- cut-off capture
# Record boundaries of goodbye.pcap: prints "frame offset caplen" per record.
python3 - captures/goodbye.pcap >"$T/records" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
end = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
offset, frame = 24, 0
while offset + 16 <= len(data):
    caplen = struct.unpack(end + "I", data[offset + 8:offset + 12])[0]
    frame += 1
    print(frame, offset, caplen)
    offset += 16 + caplen
EOF
TOTAL=$(lines "$T/records")
run dump captures/goodbye.pcap
cp "$T/out" "$T/full.out"
# Packet lines (and their record lines) of frames before $1 in a dump's output.
packets_before() {
  awk -v k="$1" '/^ +[0-9]+ [0-9][0-9][0-9][0-9]-/ { if ($1 + 0 >= k) stop = 1 } !stop && /^ / { print }' "$2"
}
cut_check() {  # cut_check FRAME WHERE(data|header)
  local k=$1 where=$2 offset caplen at
  read -r _ offset caplen < <(awk -v k="$k" '$1 == k' "$T/records")
  if [[ $where == data ]]; then at=$((offset + 16 + caplen / 2)); else at=$((offset + 7)); fi
  head -c "$at" captures/goodbye.pcap >"$T/cut.pcap"
  run dump "$T/cut.pcap"
  packets_before "$k" "$T/full.out" >"$T/expected"
  packets_before 1000000000 "$T/out" >"$T/got"
  check "a capture cut inside the $where of frame $k exits 0" eval 'rc_is 0 && no_crash'
  check "… prints the packets before the cut" \
    eval '[[ -s $T/expected ]] && diff "$T/expected" "$T/got" >/dev/null && out_has "summary: $((k - 1)) frames"'
  check "… warns on stderr about the cut" \
    eval 'grep -q "^castscope: warning: .*cut.pcap: capture ends in the middle of a record after frame $((k - 1))" "$T/err"'
}
if [[ $TOTAL -ge 4 ]]; then
  cut_check $((TOTAL / 2 + 1)) data
  cut_check "$TOTAL" header
else
  fail "captures/goodbye.pcap has only $TOTAL records"
fi

# ---------------------------------------------------------------- pcapng with two link types
# An Ethernet and a Linux cooked v2 (`tcpdump -i any`) capture merged into one pcapng, as
# Wireshark writes when it captures on two interfaces: each interface is decoded with its own
# link layer, and the result is the two captures' devices (issue 14; libpcap stopped at the
# second interface and the analysis said NO_MDNS_TRAFFIC "wrong interface").
if command -v mergecap >/dev/null; then
  mergecap -F pcapng -w "$T/mixed.pcapng" captures/healthy-ipv4.pcap captures/any-sll2.pcap
  run dump "$T/mixed.pcapng"
  check "pcapng with two link types: dump decodes both interfaces, all 15 frames, exit 0" \
    eval 'rc_is 0 && out_has "summary: 15 frames" && out_has "[on interface 0 EN10MB]" && out_has "[on interface 1 LINUX_SLL2]" \
        && ! err_has "warning" && no_crash'
  run analyze --format json "$T/mixed.pcapng"
  cp "$T/out" "$T/mixed.json"
  "$BIN" analyze --format json captures/healthy-ipv4.pcap captures/any-sll2.pcap >"$T/separate.json" 2>/dev/null
  check "pcapng with two link types: the devices of both captures, no NO_MDNS_TRAFFIC" \
    eval 'rc_is 0 && python3 - "$T/mixed.json" "$T/separate.json" <<"PY"
import json, sys
mixed, separate = (json.load(open(p)) for p in sys.argv[1:3])
ids = lambda d: sorted(x["id"] for x in d["devices"])
codes = [f["code"] for f in mixed["findings"]]
c = mixed["captures"][0]
assert ids(mixed) == ids(separate) and ids(mixed), (ids(mixed), ids(separate))
assert "NO_MDNS_TRAFFIC" not in codes and "CAPTURE_UNREADABLE" not in codes, codes
assert c["linkType"] == "EN10MB, LINUX_SLL2", c["linkType"]
assert [i["linkType"] for i in c["interfaces"]] == ["EN10MB", "LINUX_SLL2"], c.get("interfaces")
PY'
  run analyze "$T/mixed.pcapng"
  check "pcapng with two link types: the text names both interfaces and no wrong interface" \
    eval 'rc_is 0 && out_has "2 interfaces (interface 0 EN10MB, interface 1 LINUX_SLL2)" \
        && ! out_has "wrong interface"'
else
  fail "mergecap (wireshark-common) is needed for the mixed link-type check"
fi

# ---------------------------------------------------------------- unreadable from a frame on
# healthy-ipv4.pcap as pcapng with a lying block length in its 5th packet block (byte 872):
# the 4 frames before it are analysed, CAPTURE_UNREADABLE gives the frame and the offset in
# every format, nothing claims there was no mDNS, and the exit status is 65.
if command -v editcap >/dev/null; then
  editcap -F pcapng captures/healthy-ipv4.pcap "$T/healthy.pcapng"
  Tests/golden/lying-block.py "$T/healthy.pcapng" 5 >"$T/lying.pcapng" 2>/dev/null
  COLUMNS=400 run analyze "$T/lying.pcapng"
  check "a pcapng with a lying block length: CAPTURE_UNREADABLE from frame 5 at byte 872, exit 65" \
    eval 'rc_is 65 && out_has "CAPTURE_UNREADABLE: $T/lying.pcapng is unreadable from frame 5 (byte offset 872)" \
        && out_has "The 4 frames before it were analysed" && ! out_has "NO_MDNS_TRAFFIC" \
        && ! out_has "NO_CAST_QUERIES" && err_has "unreadable from frame 5"'
  run analyze --format json "$T/lying.pcapng"
  check "a pcapng with a lying block length: the JSON has unreadableFrom and the finding" \
    eval 'rc_is 65 && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
u = d[\"captures\"][0][\"unreadableFrom\"]
assert (u[\"frame\"], u[\"byteOffset\"]) == (5, 872) and u[\"message\"], u
assert d[\"captures\"][0][\"packets\"] == 4
assert any(f[\"code\"] == \"CAPTURE_UNREADABLE\" for f in d[\"findings\"])
" "$T/out"'
  run report -o "$T/lying.html" "$T/lying.pcapng"
  check "a pcapng with a lying block length: the HTML report says where" \
    eval 'rc_is 65 && grep -q "CAPTURE_UNREADABLE" "$T/lying.html" \
        && grep -q "unreadable from frame 5 (byte offset 872)" "$T/lying.html"'
  run dump "$T/lying.pcapng"
  check "a pcapng with a lying block length: dump prints the frames before it, exit 65" \
    eval 'rc_is 65 && out_has "summary: 4 frames" && err_has "unreadable from frame 5 (byte offset 872)"'
else
  fail "editcap (wireshark-common) is needed for the unreadable-capture checks"
fi

# ---------------------------------------------------------------- directories (rotated files)
# goodbye.pcap cut every 10 records by editcap -c (what tcpdump -C rotation writes), named as
# tcpdump -W 3 leaves them after wrapping round: goodbye.pcap0 holds the newest records.
if command -v editcap >/dev/null; then
  mkdir -p "$T/rotated" "$T/parts"
  editcap -c 10 captures/goodbye.pcap "$T/parts/part.pcap"
  i=1
  for part in "$T"/parts/part_*; do mv "$part" "$T/rotated/goodbye.pcap$((i % 3))"; i=$((i + 1)); done
  echo "not a capture" >"$T/rotated/NOTES"
  run analyze --merge --format json "$T/rotated"
  cp "$T/out" "$T/rotated.json"
  "$BIN" analyze --format json captures/goodbye.pcap >"$T/original.json" 2>/dev/null
  check "analyze --merge DIR: the rotated files in name order, the same devices and findings as the original" \
    eval 'rc_is 0 && err_has "NOTES: skipped: not a capture file" && python3 - "$T/rotated.json" "$T/original.json" <<"PY"
import json, sys
rotated, original = (json.load(open(p)) for p in sys.argv[1:3])
names = [c["file"].rsplit("/", 1)[1] for c in rotated["captures"]]
assert names == ["goodbye.pcap0", "goodbye.pcap1", "goodbye.pcap2"], names
key = lambda d: ([(x["id"], x["friendlyName"]) for x in d["devices"]], [f["code"] for f in d["findings"]],
                 [round(r["firstAnswerMs"] or -1, 3) for r in d["latency"]])
assert key(rotated) == key(original), (key(rotated), key(original))
assert sum(c["packets"] for c in rotated["captures"]) == original["captures"][0]["packets"]
PY'
  run analyze --format json "$T/rotated"
  check "analyze DIR without --merge: each file its own timeline" \
    eval 'rc_is 0 && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d[\"captures\"]) == 3 and not d[\"merged\"]" "$T/out"'
  mkdir -p "$T/no-captures"
  echo "text" >"$T/no-captures/a.txt"
  run analyze "$T/no-captures"
  check "a directory without captures exits 66 and says so" \
    eval 'rc_is 66 && err_has "no capture file in the directory" && out_empty'
fi

# ---------------------------------------------------------------- empty input
RUN_STDIN=/dev/null run analyze -
check "analyze of empty standard input exits 65 with one castscope: line" \
  eval 'rc_is 65 && one_error_line && out_empty'

# ---------------------------------------------------------------- analyze
run analyze --session-gap -3 captures/goodbye.pcap
check "analyze --session-gap -3 exits 64" eval 'rc_is 64 && err_has "session-gap" && out_empty'

run analyze --client not-an-address captures/goodbye.pcap
check "analyze --client with a bad address exits 64" eval 'rc_is 64 && err_has "not-an-address" && out_empty'
# --client for an address that did not search: say so and list the searchers, not "Nobody
# searched" (client-isolation.pcap: 192.0.2.10 and 192.0.2.5 query).
run analyze --client 192.0.2.99 captures/client-isolation.pcap
check "analyze --client ADDR not in the capture: NO_SUCH_CLIENT lists the clients seen" \
    eval 'rc_is 0 && out_has "NO_SUCH_CLIENT: No client 192.0.2.99 in the capture" \
        && out_has "192.0.2.5 and 192.0.2.10" && ! out_has "NO_CAST_QUERIES" && ! out_has "Nobody searched"'
run analyze --client 192.0.2.10 captures/client-isolation.pcap
check "analyze --client ADDR in the capture: no NO_SUCH_CLIENT" eval 'rc_is 0 && ! out_has "NO_SUCH_CLIENT"'
# A capture with a header and no frame is empty, not "the wrong interface".
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<IHHiIII",0xa1b2c3d4,2,4,0,0,65535,1))' \
    >"$T/empty.pcap"
run analyze "$T/empty.pcap"
check "analyze of an empty capture: EMPTY_CAPTURE, not NO_MDNS_TRAFFIC" \
    eval 'rc_is 0 && out_has "EMPTY_CAPTURE" && out_has "empty.pcap is empty" && ! out_has "NO_MDNS_TRAFFIC"'
run analyze "$T/empty.pcap" captures/goodbye.pcap
check "an empty capture beside another: EMPTY_CAPTURE as a warning, the other analysed" \
    eval 'rc_is 0 && out_has "WARNINGS" && out_has "EMPTY_CAPTURE" && out_has "Living Room TV"'

run analyze --format yaml captures/goodbye.pcap
check "analyze --format yaml exits 64" eval 'rc_is 64 && out_empty'

run analyze "$T/does-not-exist.pcap"
check "analyze a missing file exits 66" eval 'rc_is 66 && one_error_line && out_empty'

run analyze --format json -o "$T/report.json" captures/goodbye.pcap
check "analyze -o writes the report to the file, not stdout" \
  eval 'rc_is 0 && out_empty && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"schemaVersion\"]==1" "$T/report.json"'

run analyze -o "$T/no-such-dir/report.txt" captures/goodbye.pcap
check "analyze -o into a missing directory exits 73" eval 'rc_is 73 && err_has "cannot write"'

wide=""
for capture in captures/*.pcap; do
  COLUMNS=100 run analyze "$capture"
  if [[ $RC != 0 ]]; then wide="$wide $capture(rc=$RC)"; continue; fi
  if ! python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$T/out"; then
    wide="$wide $capture"
  fi
done
check "analyze text fits a 100-column terminal (COLUMNS=100) on every capture" eval '[[ -z "$wide" ]] || { echo "too wide:$wide" >"$T/err"; false; }'

run help analyze
check "help analyze exits 0 with analyze's usage" eval 'rc_is 0 && out_has "castscope analyze" && out_has "--session-gap"'

# ---------------------------------------------------------------- progress and parallel files
python3 scripts/gen-bench-capture.py --mode dense --packets 20000 -o "$T/dense.pcap" >/dev/null 2>&1
if command -v script >/dev/null; then
  CASTSCOPE_PROGRESS_AFTER=0 script -qec "$BIN analyze --merge $T/dense.pcap >/dev/null" /dev/null >"$T/tty" 2>&1
  check "progress line on a terminal: bytes, packets, rate, then erased" \
    eval 'grep -q "castscope: .*% .* MB, .*packets" "$T/tty" && grep -q $'"'"'\r\e\[K'"'"' "$T/tty"'
  CASTSCOPE_PROGRESS_AFTER=0 script -qec "$BIN analyze --merge --quiet $T/dense.pcap >/dev/null" /dev/null >"$T/tty" 2>&1
  check "--quiet: no progress line" eval '! grep -q "castscope:" "$T/tty"'
else
  fail "script (util-linux) is needed for the progress-line checks"
fi
CASTSCOPE_PROGRESS_AFTER=0 "$BIN" analyze --merge "$T/dense.pcap" >/dev/null 2>"$T/err"
check "no progress line when standard error is not a terminal" eval '[[ ! -s $T/err ]]'
CASTSCOPE_JOBS=1 "$BIN" analyze --format json "$T/dense.pcap" captures/*.pcap >"$T/serial.json" 2>/dev/null
"$BIN" analyze --format json "$T/dense.pcap" captures/*.pcap >"$T/parallel.json" 2>/dev/null
check "several files read in parallel give exactly the serial output" eval 'cmp -s "$T/serial.json" "$T/parallel.json"'
if [ -d ../shared/captures/external ]; then
    mapfile -t EXTERNAL < <(find ../shared/captures/external \( -name '*.pcap' -o -name '*.pcapng' \) | sort)
    CASTSCOPE_JOBS=1 "$BIN" analyze --format json "${EXTERNAL[@]}" >"$T/serial-ext.json" 2>/dev/null
    "$BIN" analyze --format json "${EXTERNAL[@]}" >"$T/parallel-ext.json" 2>/dev/null
    check "the external captures give the same output on one thread and on several" \
        eval 'cmp -s "$T/serial-ext.json" "$T/parallel-ext.json" && [[ -s $T/serial-ext.json ]]'
fi
# One file: decoded on a thread of its own beside the tracking one when there are two
# processors or more (PacketPipe); CASTSCOPE_JOBS=1 keeps it on one thread.
CASTSCOPE_JOBS=1 "$BIN" analyze --format json "$T/dense.pcap" >"$T/one-thread.json" 2>/dev/null
"$BIN" analyze --format json "$T/dense.pcap" >"$T/pipelined.json" 2>/dev/null
check "one file decoded beside its tracking gives exactly the one-thread output" \
    eval 'cmp -s "$T/one-thread.json" "$T/pipelined.json" && grep -q "\"devices\"" "$T/pipelined.json"'

# ---------------------------------------------------------------- floods (bounded state, issue 7)
# 100,000 fake devices (PTR only), then the real receiver: memory stays bounded, the receiver is
# reported, LIMIT_REACHED says what was dropped; three times the flood costs no more memory.
python3 scripts/gen-flood-capture.py --devices 100000 -o "$T/flood.pcap"
python3 scripts/gen-flood-capture.py --devices 300000 -o "$T/flood3.pcap"
/usr/bin/time -f '%M' -o "$T/rss1" "$BIN" analyze --format json "$T/flood.pcap" >"$T/flood.json" 2>/dev/null
/usr/bin/time -f '%M' -o "$T/rss3" "$BIN" analyze --format json "$T/flood3.pcap" >"$T/flood3.json" 2>/dev/null
flood_ok() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ids = [d["id"] for d in r["devices"]]
codes = [f["code"] for f in r["findings"]]
assert "0a1b2c3d4e5f" in ids, "real device missing"
assert len(ids) <= 10000, len(ids)
assert "LIMIT_REACHED" in codes, codes
PY
}
check "a 100,000-device flood: the real device is reported, at most 10,000 kept, LIMIT_REACHED" flood_ok "$T/flood.json"
# 300,000 fake names overflow the name table (200,000): later names are dropped and counted.
flood3_ok() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["devices"]) <= 10000, len(r["devices"])
f = [f for f in r["findings"] if f["code"] == "LIMIT_REACHED"]
assert f and "--max-names" in f[0]["detail"], f
PY
}
check "a 300,000-device flood: at most 10,000 devices, names beyond 200,000 dropped and reported" \
    flood3_ok "$T/flood3.json"
check "peak RSS stays under 160 MiB for both floods ($(cat "$T/rss1") KiB, $(cat "$T/rss3") KiB)" \
    eval '[ "$(cat "$T/rss1")" -lt 163840 ] && [ "$(cat "$T/rss3")" -lt 163840 ]'
python3 scripts/gen-flood-capture.py --clients 50000 -o "$T/clients.pcap"
run analyze --max-clients 1000 "$T/clients.pcap"
check "--max-clients 1000: 1000 clients kept, the rest counted in LIMIT_REACHED" \
    eval 'out_has "1000 clients" && out_has "LIMIT_REACHED" && out_has "49000 packets from clients beyond 1000"'
run report --format markdown --max-clients 1000 "$T/clients.pcap"
check "report takes the limits too" eval 'rc_is 0 && out_has "LIMIT_REACHED"'
# Clients × devices: 2,000 clients query, then 20,000 fake devices reach every session. Once
# this took minutes and gigabytes (the state and the report grew as the product); now the
# sessions taking responses, the client × device pairs, the rows and the findings per code are
# bounded, and LIMIT_REACHED counts what was not kept.
python3 scripts/gen-flood-capture.py --clients 2000 --devices 20000 --clients-first -o "$T/pairs.pcap"
timeout -s KILL 300 /usr/bin/time -f '%M' -o "$T/rss-pairs" "$BIN" analyze --format json "$T/pairs.pcap" \
    >"$T/pairs.json" 2>/dev/null
pairs_ok() {
    python3 - "$1" <<'PY'
import collections, json, sys
r = json.load(open(sys.argv[1]))
assert "0a1b2c3d4e5f" in [d["id"] for d in r["devices"]], "real device missing"
assert len(r["latency"]) <= 20000 and len(r["responses"]) <= 20000, (len(r["latency"]), len(r["responses"]))
codes = collections.Counter(f["code"] for f in r["findings"])
assert max(codes.values()) <= 20, codes
assert all(len(q["missed"]) <= 100 for q in r["queries"])
f = [f for f in r["findings"] if f["code"] == "LIMIT_REACHED"]
assert f, codes
for flag in ("--max-sessions", "--max-pairs", "--max-rows"):
    assert flag in f[0]["detail"], (flag, f[0]["detail"])
PY
}
check "2,000 clients × 20,000 devices: bounded rows, findings and pairs, the real device kept, LIMIT_REACHED" \
    pairs_ok "$T/pairs.json"
check "peak RSS under 300 MiB for the clients × devices flood ($(cat "$T/rss-pairs") KiB)" \
    eval '[ "$(cat "$T/rss-pairs")" -lt 307200 ]'
# One sender asking 200,000 distinct app-ID subtypes: once quadratic (224 s), now linear.
python3 scripts/gen-flood-capture.py --subtypes 25000 -o "$T/subtypes.pcap"
timeout -s KILL 120 /usr/bin/time -f '%M' -o "$T/rss-sub" "$BIN" analyze --format json "$T/subtypes.pcap" \
    >"$T/subtypes.json" 2>/dev/null
RC=$?
check "a flood of 200,000 app-ID subtypes from one sender finishes ($(cat "$T/rss-sub") KiB)" \
    eval 'rc_is 0 && [ "$(cat "$T/rss-sub")" -lt 204800 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/subtypes.json"'
run analyze --max-devices 0 "$T/clients.pcap"
check "--max-devices 0 is a usage error" eval 'rc_is 64 && err_has "--max-devices needs a whole number"'

# ---------------------------------------------------------------- help
run --help
check "--help exits 0 with usage on stdout" eval 'rc_is 0 && out_has "USAGE:" && out_has "COMMANDS:" && out_has "  dump " && [[ ! -s $T/err ]]'
run help dump
check "help dump exits 0 with dump's usage" eval 'rc_is 0 && out_has "USAGE: castscope dump" && out_has "--format jsonl" && [[ ! -s $T/err ]]'
run dump --help
check "dump --help exits 0 with dump's usage" eval 'rc_is 0 && out_has "USAGE: castscope dump" && [[ ! -s $T/err ]]'
run --version
check "--version exits 0" eval 'rc_is 0 && grep -Eq "^castscope [0-9]+\.[0-9]+\.[0-9]+$" "$T/out"'

summary
