#!/usr/bin/env bash
# Command-line checks for `castscope check-plist`, `analyze --plist`, `--fail-on` and
# `castscope extract`. Prints one `ok …` / `FAIL …` line per check, then
# `plist-extract: N passed, M failed`; exits non-zero if any check failed.
#
# Plists are written at run time with python3's plistlib (XML and binary). Extract round-trips
# every capture in captures/: `dump --format jsonl` of the extracted file must equal that of
# the original, ignoring what renumbering changes (frame, fragments, relative, file,
# answersSearchFrame), and every extracted record must be an original record, byte for byte.
#
# Usage: Tests/cli/plist-extract.sh   (CASTSCOPE overrides the binary, default
#        .build/release/castscope relative to the repository root)
set -u

SUITE=plist-extract
# shellcheck source=Tests/cli/lib.sh
source "$(dirname "$0")/lib.sh" || exit 2

no_crash() { ! grep -Eqi 'fatal error|stack dump|stack trace|backtrace' "$T/err"; }
rc_is() { [[ $RC == "$1" ]] && no_crash; }
first_line_starts() { head -n1 "$T/out" | grep -q "^$1"; }

# ------------------------------------------------------------------ plists (plistlib)
python3 - "$T" <<'EOF'
import plistlib, sys, os
t = sys.argv[1]
def write(name, value, binary=False):
    with open(os.path.join(t, name), "wb") as f:
        f.write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY if binary else plistlib.FMT_XML))
usage = "${PRODUCT_NAME} uses the local network to discover Cast-enabled devices on your WiFi network."
good = {"CFBundleName": "Demo", "NSBonjourServices": ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"],
        "NSLocalNetworkUsageDescription": usage}
write("good.plist", good)
write("good.bplist", good, binary=True)
write("no-service.plist", {"NSBonjourServices": ["_CC1AD845._googlecast._tcp"], "NSLocalNetworkUsageDescription": usage})
write("no-service.bplist", {"NSLocalNetworkUsageDescription": usage}, binary=True)
write("no-usage.bplist", {"NSBonjourServices": ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"]}, binary=True)
write("blank-usage.plist", {"NSBonjourServices": ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"],
                            "NSLocalNetworkUsageDescription": " \n\t "})
write("no-app-id.plist", {"NSBonjourServices": ["_googlecast._tcp"], "NSLocalNetworkUsageDescription": usage})
write("no-app-id.bplist", {"NSBonjourServices": ["_googlecast._tcp"], "NSLocalNetworkUsageDescription": usage},
      binary=True)
write("services-string.bplist", {"NSBonjourServices": "_googlecast._tcp", "NSLocalNetworkUsageDescription": usage},
      binary=True)
write("usage-number.plist", {"NSBonjourServices": ["_googlecast._tcp"], "NSLocalNetworkUsageDescription": 42})
write("top-array.plist", ["_googlecast._tcp"])
with open(os.path.join(t, "not-a-plist.txt"), "w") as f:
    f.write("NSBonjourServices = _googlecast._tcp\n")
with open(os.path.join(t, "cut.plist"), "wb") as f:
    f.write(plistlib.dumps(good)[:150])
with open(os.path.join(t, "cut.bplist"), "wb") as f:
    f.write(plistlib.dumps(good, fmt=plistlib.FMT_BINARY)[:40])
EOF

# ------------------------------------------------------------------ check-plist
for f in good.plist good.bplist; do
  run check-plist "$T/$f"
  check "check-plist $f: exit 0, OK verdict, PLIST_OK" \
    eval 'rc_is 0 && first_line_starts "OK: " && out_has "PLIST_OK" && ! out_has "ERRORS"'
done

run check-plist --app-id cc1ad845 "$T/good.bplist"
check "check-plist compares app IDs case-insensitively" eval 'rc_is 0 && out_has "PLIST_OK"'

run check-plist --app-id 0123ABCD --app-id CC1AD845 "$T/good.plist"
check "check-plist --app-id not declared: exit 1, PLIST_MISSING_APP_ID with the XML to add" \
  eval 'rc_is 1 && first_line_starts "FAIL: " && out_has "PLIST_MISSING_APP_ID" && out_has "<string>_0123ABCD._googlecast._tcp</string>" && ! out_has "_CC1AD845._googlecast._tcp (app ID"'

for f in no-service.plist no-service.bplist; do
  run check-plist "$T/$f"
  check "check-plist $f: exit 1, PLIST_MISSING_SERVICE with the XML to add" \
    eval 'rc_is 1 && first_line_starts "FAIL: " && out_has "PLIST_MISSING_SERVICE" && out_has "<string>_googlecast._tcp</string>"'
done

for f in no-usage.bplist blank-usage.plist; do
  run check-plist "$T/$f"
  check "check-plist $f: exit 1, PLIST_MISSING_USAGE_DESCRIPTION" \
    eval 'rc_is 1 && out_has "PLIST_MISSING_USAGE_DESCRIPTION" && out_has "<key>NSLocalNetworkUsageDescription</key>" && ! out_has "PLIST_MISSING_SERVICE"'
done

for f in no-app-id.plist no-app-id.bplist; do
  run check-plist "$T/$f"
  check "check-plist $f: exit 0 with info PLIST_NO_APP_ID" \
    eval 'rc_is 0 && first_line_starts "OK: " && out_has "PLIST_NO_APP_ID"'
done

for f in services-string.bplist usage-number.plist top-array.plist not-a-plist.txt cut.plist cut.bplist; do
  run check-plist "$T/$f"
  check "check-plist $f: exit 1, PLIST_MALFORMED" eval 'rc_is 1 && first_line_starts "FAIL: " && out_has "PLIST_MALFORMED"'
done

RUN_STDIN=$T/good.bplist run check-plist -
check "check-plist - reads standard input" eval 'rc_is 0 && out_has "PLIST_OK" && out_has "standard input"'

# JSON: the document and the finding shape of analyze's JSON.
cat >"$T/plist-json.py" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
want_codes = set(sys.argv[3:])
assert doc["schemaVersion"] == 1 and doc["file"] == sys.argv[2], doc
assert isinstance(doc["findings"], list) and doc["findings"]
for f in doc["findings"]:
    assert list(f) == ["code", "severity", "title", "detail", "advice", "frames", "subjects", "evidence"], list(f)
    assert f["severity"] in ("error", "warning", "info") and f["frames"] == [] and f["evidence"] == []
    assert list(f["subjects"]) == ["clients", "devices", "appIds"], f["subjects"]
    assert all(isinstance(f[k], str) and f[k] for k in ("code", "title", "detail", "advice"))
ranks = [("error", "warning", "info").index(f["severity"]) for f in doc["findings"]]
assert ranks == sorted(ranks), ranks
codes = {f["code"] for f in doc["findings"]}
assert want_codes <= codes, (want_codes, codes)
EOF
run check-plist --format json "$T/no-usage.bplist"
check "check-plist --format json: schemaVersion, file, analyze-shaped findings" \
  eval 'rc_is 1 && [[ $(wc -l <"$T/out") == 1 ]] && python3 "$T/plist-json.py" "$T/out" "$T/no-usage.bplist" PLIST_MISSING_USAGE_DESCRIPTION'
run check-plist --format=json --app-id ABCDEF12 "$T/good.plist"
check "check-plist --format json: PLIST_MISSING_APP_ID names the app ID in subjects" \
  eval 'rc_is 1 && python3 "$T/plist-json.py" "$T/out" "$T/good.plist" PLIST_MISSING_APP_ID && grep -q "\"appIds\":\[\"ABCDEF12\"\]" "$T/out"'
run check-plist --format json "$T/good.bplist"
check "check-plist --format json on a good plist: exit 0, PLIST_OK" \
  eval 'rc_is 0 && python3 "$T/plist-json.py" "$T/out" "$T/good.bplist" PLIST_OK'

run check-plist "$T/does-not-exist.plist"
check "check-plist on a missing file exits 66" eval 'rc_is 66 && out_empty && err_has "does-not-exist.plist"'
run check-plist "$T"
check "check-plist on a directory exits 66" eval 'rc_is 66 && out_empty'
run check-plist
check "check-plist without a file exits 64" eval 'rc_is 64 && out_empty && err_has "USAGE"'
run check-plist --format xml "$T/good.plist"
check "check-plist --format xml exits 64" eval 'rc_is 64 && out_empty && err_has "xml"'
run check-plist --app-id "a.b" "$T/good.plist"
check "check-plist --app-id with a dot exits 64" eval 'rc_is 64 && out_empty'
run check-plist "$T/good.plist" "$T/good.bplist"
check "check-plist with two files exits 64" eval 'rc_is 64 && out_empty'
run check-plist -q "$T/no-usage.bplist"
check "check-plist -q: nothing printed, the exit status tells (1)" eval 'rc_is 1 && out_empty'
run check-plist -q "$T/good.plist"
check "check-plist -q on a good file: exit 0, nothing printed" eval 'rc_is 0 && out_empty'
run check-plist --format json -o "$T/plist.json" "$T/good.plist"
check "check-plist -o FILE writes the report there" eval 'rc_is 0 && out_empty && grep -q schemaVersion "$T/plist.json"'
run check-plist --help
check "check-plist --help exits 0 and lists the codes" \
  eval 'rc_is 0 && out_has "PLIST_MISSING_USAGE_DESCRIPTION" && out_has "--app-id"'

# ------------------------------------------------------------------ analyze --plist
cat >"$T/analyze-plist.py" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
mode = sys.argv[2]
fs = doc["findings"]
ranks = [("error", "warning", "info").index(f["severity"]) for f in fs]
assert ranks == sorted(ranks), "findings not sorted by severity"
missing = [f for f in fs if f["code"] == "PLIST_MISSING_APP_ID"]
if mode == "missing":
    assert len(missing) == 1, missing
    f = missing[0]
    assert f["severity"] == "error" and f["subjects"]["appIds"] == ["CC1AD845"], f
    frames = [r["frame"] for r in f["frames"]]
    # The client's subtype query (frame 3) and the first frames of the two devices that answer.
    assert frames[0] == 3 and 6 in frames and 8 in frames, frames
    assert f["subjects"]["clients"] == ["192.0.2.10"], f["subjects"]
    assert len(f["subjects"]["devices"]) == 2, f["subjects"]
    assert not any(f["code"] == "PLIST_OK" for f in fs)
elif mode == "declared":
    assert not missing, missing
    assert any(f["code"] == "PLIST_OK" for f in fs), [f["code"] for f in fs]
elif mode == "malformed":
    assert any(f["code"] == "PLIST_MALFORMED" for f in fs), [f["code"] for f in fs]
EOF
run analyze --format json --plist "$T/no-app-id.plist" captures/multi-device.pcap
check "analyze --plist: CC1AD845 searched and answered but not declared -> PLIST_MISSING_APP_ID with frames" \
  eval 'rc_is 0 && python3 "$T/analyze-plist.py" "$T/out" missing'
run analyze --format json --plist "$T/good.bplist" captures/multi-device.pcap
check "analyze --plist with CC1AD845 declared: no PLIST_MISSING_APP_ID, PLIST_OK" \
  eval 'rc_is 0 && python3 "$T/analyze-plist.py" "$T/out" declared'
run analyze --format json --plist "$T/services-string.bplist" captures/multi-device.pcap
check "analyze --plist with a malformed plist reports PLIST_MALFORMED and still exits 0" \
  eval 'rc_is 0 && python3 "$T/analyze-plist.py" "$T/out" malformed'
run analyze --plist "$T/no-app-id.plist" captures/multi-device.pcap
check "analyze --plist text shows the finding and its frames" \
  eval 'rc_is 0 && out_has "PLIST_MISSING_APP_ID" && out_has "#3"'
run analyze --plist "$T/does-not-exist.plist" captures/multi-device.pcap
check "analyze --plist with a missing plist exits 66 and writes no report" eval 'rc_is 66 && out_empty'
run analyze --plist
check "analyze --plist without a value exits 64" eval 'rc_is 64 && out_empty'

# ------------------------------------------------------------------ --fail-on
run analyze --fail-on error --plist "$T/no-app-id.plist" captures/multi-device.pcap
check "analyze --fail-on error exits 1 when an error finding exists" eval 'rc_is 1 && out_has "PLIST_MISSING_APP_ID"'
run analyze --fail-on warning --plist "$T/no-app-id.plist" captures/multi-device.pcap
check "analyze --fail-on warning exits 1 when an error finding exists" eval 'rc_is 1'
run analyze --fail-on error --plist "$T/no-app-id.plist" -o "$T/report.txt" captures/multi-device.pcap
check "analyze --fail-on with -o still writes the report" \
  eval 'rc_is 1 && grep -q PLIST_MISSING_APP_ID "$T/report.txt"'
run analyze --fail-on bogus captures/multi-device.pcap
check "analyze --fail-on bogus exits 64" eval 'rc_is 64 && out_empty && err_has "bogus"'
run analyze --fail-on info captures/multi-device.pcap
check "analyze --fail-on info exits 64 (warning or error only)" eval 'rc_is 64 && out_empty'
run analyze --fail-on error "$T/does-not-exist.pcap"
check "analyze --fail-on keeps the status of an unreadable file (66)" eval 'rc_is 66'
# Whatever the diagnosis finds in each capture, the exit status follows its findings.
for f in captures/*.pcap; do
  counts=$("$BIN" analyze --format json --plist "$T/good.plist" "$f" 2>/dev/null | python3 -c '
import json, sys
fs = json.load(sys.stdin)["findings"]
print(sum(f["severity"] == "error" for f in fs), sum(f["severity"] == "warning" for f in fs))')
  read -r errors warnings <<<"$counts"
  want_error=$((errors > 0 ? 1 : 0))
  want_warning=$((errors + warnings > 0 ? 1 : 0))
  run analyze --plist "$T/good.plist" "$f"
  rc_none=$RC
  run analyze --fail-on error --plist "$T/good.plist" "$f"
  rc_error=$RC
  run analyze --fail-on warning --plist "$T/good.plist" "$f"
  rc_warning=$RC
  if [[ $rc_none == 0 && $rc_error == "$want_error" && $rc_warning == "$want_warning" ]]; then
    ok "--fail-on follows the findings of $f ($errors errors, $warnings warnings)"
  else
    fail "--fail-on on $f: rc $rc_none/$rc_error/$rc_warning, want 0/$want_error/$want_warning"
  fi
done

# ------------------------------------------------------------------ extract
# norm FILE: dump --format jsonl without what renumbering changes, one sorted-key line per packet.
cat >"$T/norm.py" <<'EOF'
import json, sys
DROP = {"frame", "fragments", "relative", "file", "answersSearchFrame"}
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in DROP}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o
for line in sys.stdin:
    print(json.dumps(strip(json.loads(line)), sort_keys=True))
EOF
norm() { "$BIN" dump --format jsonl "$1" 2>/dev/null | python3 "$T/norm.py"; }

# records.py OUT IN…: OUT is a nanosecond pcap with the inputs' link type whose records are
# records of the inputs, each input's in its order, merged in timestamp order.
cat >"$T/records.py" <<'EOF'
import struct, sys
def read(path):
    data = open(path, "rb").read()
    magic = data[:4]
    endian = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}[magic]
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    link = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    recs, off = [], 24
    while off + 16 <= len(data):
        s, frac, cap, orig = struct.unpack(endian + "IIII", data[off:off + 16])
        recs.append((s * 10**9 + (frac if nano else frac * 1000), cap, orig, data[off + 16:off + 16 + cap]))
        off += 16 + cap
    return nano, link, recs
nano, link, out = read(sys.argv[1])
assert nano, "output is not a nanosecond pcap"
assert out, "no records"
times = [r[0] for r in out]
assert times == sorted(times), "records not in timestamp order"
remaining = list(out)
for path in sys.argv[2:]:
    _, l, recs = read(path)
    assert l == link, (l, link)
    mine = [r for r in out if r in set(recs)]
    pos = 0
    for r in mine:  # a subsequence of the input
        pos = recs.index(r, pos) + 1
    for r in mine:
        remaining.remove(r)
    for r in mine:
        assert r[1] == len(r[3]) and r[2] >= r[1]
assert not remaining, f"{len(remaining)} records come from no input"
EOF

for f in captures/*.pcap; do
  name=$(basename "$f" .pcap)
  run extract -o "$T/$name.x.pcap" "$f"
  if [[ $RC != 0 ]]; then
    fail "extract $f (rc=$RC; $(head -c 200 "$T/err"))"
    continue
  fi
  if [[ -z $(norm "$f") ]]; then
    # No discovery packet: a valid pcap with a header and no records.
    if [[ $(stat -c %s "$T/$name.x.pcap") == 24 ]] && "$BIN" dump "$T/$name.x.pcap" >/dev/null 2>&1; then
      ok "extract $f: no discovery packets, so an empty pcap"
    else
      fail "extract $f: no discovery packets, but the output is not an empty pcap"
    fi
    continue
  fi
  if [[ -s $T/$name.x.pcap ]] && diff <(norm "$f") <(norm "$T/$name.x.pcap") >"$T/diff"; then
    ok "extract $f: dump of the extracted file equals dump of the original ($(norm "$f" | wc -l) packets)"
  else
    fail "extract $f: dumps differ: $(head -c 300 "$T/diff" | tr '\n' '|')"
  fi
  if python3 "$T/records.py" "$T/$name.x.pcap" "$f" 2>"$T/py"; then
    ok "extract $f: records are original records (bytes, caplen, len, ns timestamps, link type)"
  else
    fail "extract $f: records: $(tail -n1 "$T/py")"
  fi
done

orig=$(stat -c %s captures/fragmented.pcap)
run extract -o "$T/frag-nf.pcap" --no-filter captures/fragmented.pcap
check "extract --no-filter writes the same file as with the prefilter" \
  eval 'rc_is 0 && cmp -s "$T/frag-nf.pcap" "$T/fragmented.x.pcap"'
check "extract keeps the fragment frames of reassembled datagrams (summary line)" \
  eval 'out_has "IP fragment frames" && [[ $(stat -c %s "$T/fragmented.x.pcap") -lt $orig ]]'
run extract -o "$T/again.pcap" "$T/fragmented.x.pcap"
check "extract of an extracted file is the same file" eval 'rc_is 0 && cmp -s "$T/again.pcap" "$T/fragmented.x.pcap"'

# Several files: merged by time; the packets are those of the inputs.
MULTI=(captures/goodbye.pcap captures/multi-device.pcap captures/fragmented.pcap captures/dial-ssdp.pcap)
run extract -o "$T/multi.pcap" "${MULTI[@]}"
check "extract of several files exits 0" eval 'rc_is 0 && out_has "from 4 files"'
if diff <(for f in "${MULTI[@]}"; do norm "$f"; done | sort) <(norm "$T/multi.pcap" | sort) >"$T/diff"; then
  ok "extract of several files: the merged file holds exactly the inputs' packets"
else
  fail "extract of several files: packets differ: $(head -c 300 "$T/diff" | tr '\n' '|')"
fi
if python3 "$T/records.py" "$T/multi.pcap" "${MULTI[@]}" 2>"$T/py"; then
  ok "extract of several files: records in timestamp order, each from an input"
else
  fail "extract of several files: $(tail -n1 "$T/py")"
fi

# Files of different link types: a pcapng with one interface each, read by tshark as the inputs.
run extract -o "$T/mixed.pcap" captures/healthy-ipv4.pcap captures/any-sll2.pcap
check "extract of an Ethernet and an SLL2 capture writes a pcapng" \
  eval 'rc_is 0 && out_has "pcapng: EN10MB, LINUX_SLL2" && [[ $(head -c 4 "$T/mixed.pcap" | od -An -tx1 | tr -d " ") == 0a0d0d0a ]]'
if command -v tshark >/dev/null; then
  tfields() { tshark -r "$1" -Y 'mdns || ssdp' -T fields -e frame.time_epoch -e frame.len -e frame.encap_type -e udp.payload 2>/dev/null; }
  check "tshark reads the same packets from the pcapng as from the inputs" \
    eval 'diff <( (tfields captures/healthy-ipv4.pcap; tfields captures/any-sll2.pcap) | sort) <(tfields "$T/mixed.pcap") >/dev/null'
fi

# Standard input.
RUN_STDIN=captures/fragmented.pcap run extract -o "$T/stdin.pcap" -
check "extract from standard input writes the same file as from the path" \
  eval 'rc_is 0 && cmp -s "$T/stdin.pcap" "$T/fragmented.x.pcap"'
RUN_STDIN=captures/dial-ssdp.pcap run extract -o "$T/stdin2.pcap" captures/goodbye.pcap -
check "extract of a file and standard input merges both" \
  eval 'rc_is 0 && diff <( (norm captures/goodbye.pcap; norm captures/dial-ssdp.pcap) | sort) <(norm "$T/stdin2.pcap" | sort) >/dev/null'
"$BIN" extract -o - captures/goodbye.pcap 2>"$T/err" | "$BIN" dump --format jsonl - 2>/dev/null | python3 "$T/norm.py" >"$T/piped"
check "extract -o - writes the capture to standard output" eval 'diff -q "$T/piped" <(norm captures/goodbye.pcap) >/dev/null'

# A hand-built capture: fragments of a discovery datagram arriving out of order and interleaved
# with a fragmented non-discovery datagram, an mDNS packet and an incomplete discovery datagram.
python3 - "$T/interleaved.pcap" <<'EOF'
import struct, sys
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
def name(n):
    return b"".join(bytes([len(p)]) + p.encode() for p in n.split(".")) + b"\0"
def mdns_response(txt_len):
    txt = b"".join(bytes([min(255, txt_len - i)]) + b"x" * min(255, txt_len - i) for i in range(0, txt_len, 256))
    rr = name("tv._googlecast._tcp.local") + struct.pack("!HHIH", 16, 0x8001, 4500, len(txt)) + txt
    return struct.pack("!6H", 0, 0x8400, 0, 1, 0, 0) + rr
def query():
    return struct.pack("!6H", 0, 0, 1, 0, 0, 0) + name("_googlecast._tcp.local") + struct.pack("!HH", 12, 1)
def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
def ip_frags(src, dst, ident, data, size=1480, ttl=255):
    out = []
    for off in range(0, len(data), size):
        chunk = data[off:off + size]
        more = 0x2000 if off + size < len(data) else 0
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(chunk), ident, more | (off // 8), ttl, 17, 0,
                          bytes(src), bytes(dst))
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        out.append(hdr + chunk)
    return out
def eth(pkt, dst=b"\x01\x00\x5e\x00\x00\xfb"):
    return dst + b"\x02\xca\x57\x00\x00\x01" + b"\x08\x00" + pkt
A, B, M = [192, 0, 2, 1], [192, 0, 2, 2], [224, 0, 0, 251]
big = ip_frags(A, M, 7, udp(5353, 5353, mdns_response(4000)))         # 3 fragments, discovery
other = ip_frags(A, B, 8, udp(40000, 9999, b"y" * 4000), ttl=64)      # 3 fragments, not discovery
lost = ip_frags(A, M, 9, udp(5353, 5353, mdns_response(3000)))[:1]    # never completes
single = ip_frags(A, M, 10, udp(5353, 5353, query()))                 # not fragmented
frames = [
    eth(big[2]), eth(other[0]), eth(single[0]), eth(other[1]), eth(lost[0]), eth(big[0]),
    eth(other[2]), eth(single[0]), eth(big[1]), eth(single[0]),
]
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
    for i, fr in enumerate(frames):
        f.write(struct.pack("<IIII", 1800000000, 1000 * i + 7, len(fr), len(fr)) + fr)
EOF
run extract -o "$T/interleaved.x.pcap" "$T/interleaved.pcap"
check "extract of interleaved fragments: 6 frames kept (3 mDNS packets, the 3 fragments of the discovery datagram)" \
  eval 'rc_is 0 && out_has "wrote $T/interleaved.x.pcap: 6 frames (4 discovery packets, 2 more IP fragment frames)"'
if diff <(norm "$T/interleaved.pcap") <(norm "$T/interleaved.x.pcap") >"$T/diff" && [[ $(norm "$T/interleaved.pcap" | wc -l) == 4 ]] &&
  python3 "$T/records.py" "$T/interleaved.x.pcap" "$T/interleaved.pcap" 2>"$T/py"; then
  ok "extract of interleaved fragments re-decodes identically, records in original order"
else
  fail "extract of interleaved fragments: $(head -c 300 "$T/diff" | tr '\n' '|') $(tail -n1 "$T/py" 2>/dev/null)"
fi

# Errors.
run extract -o "$T/none.pcap" "$T/does-not-exist.pcap"
check "extract of a missing file exits 66 and creates no output" eval 'rc_is 66 && [[ ! -e $T/none.pcap ]]'
run extract -o "$T/none.pcap" README.md
check "extract of a file that is not a capture exits 65" eval 'rc_is 65 && [[ ! -e $T/none.pcap ]]'
run extract -o "$T/no-such-dir/out.pcap" captures/goodbye.pcap
check "extract to an unwritable path exits 73" eval 'rc_is 73 && err_has "no-such-dir"'
run extract captures/goodbye.pcap
check "extract without -o exits 64" eval 'rc_is 64 && out_empty && err_has "-o"'
run extract -o "$T/x.pcap"
check "extract without an input exits 64" eval 'rc_is 64 && out_empty'
cp captures/goodbye.pcap "$T/self.pcap"
run extract -o "$T/self.pcap" "$T/self.pcap"
check "extract refuses to overwrite an input (64)" eval 'rc_is 64 && cmp -s "$T/self.pcap" captures/goodbye.pcap'
run extract -o "$T/x.pcap" - -
check "extract with standard input twice exits 64" eval 'rc_is 64'
run extract --bogus -o "$T/x.pcap" captures/goodbye.pcap
check "extract with an unknown option exits 64" eval 'rc_is 64 && err_has "--bogus"'
run extract --help
check "extract --help exits 0" eval 'rc_is 0 && out_has "USAGE: castscope extract"'

summary
