#!/usr/bin/env bash
# Compressed captures end to end (issue 14): every capture of the project (and the external
# ones, when ../shared/captures/external is there) compressed with gzip, zstd and lz4 gives
# exactly the output of the original, from a file (whatever its name) and from standard input;
# a compressed stream cut short, damaged, a decompression bomb and files that are no capture
# each give their one clear outcome.
# Prints one `ok …` / `FAIL …` line per check, then `compressed: N passed, M failed`.
#
# Usage: Tests/cli/compressed.sh   (CASTSCOPE overrides the binary, default
#        .build/release/castscope; needs gzip, zstd and lz4)
set -u

SUITE=compressed
# shellcheck source=Tests/cli/lib.sh
source "$(dirname "$0")/lib.sh" || exit 2

rc_is() { [[ $RC == "$1" ]]; }
no_crash() { ! grep -Eqi 'fatal error|stack dump|stack trace|backtrace' "$T/err"; }
for tool in gzip zstd lz4; do
  command -v $tool >/dev/null || { fail "$tool is needed (make test-deps)"; summary; exit 1; }
done
compress() { # FORMAT: stdin to stdout
  case $1 in
    gzip) gzip -c ;;
    zstd) zstd -q -c ;;
    lz4) lz4 -q -c ;;
  esac
}
FORMATS="gzip zstd lz4"
ABSBIN=$(realpath "$BIN")

# Each capture is copied as `cap` into a directory of its own per variant and analysed from
# there, so that the name the output shows is the same.
mkdir -p "$T/plain" "$T/gzip" "$T/zstd" "$T/lz4"
captures=(captures/*.pcap)
if [[ -d ../shared/captures/external ]]; then
  while IFS= read -r f; do captures+=("$f"); done \
    < <(find ../shared/captures/external -name '*.pcap' -o -name '*.pcapng' | sort)
fi
for format in $FORMATS; do
  same_text=0 same_json=0 same_stdin=0 differ=""
  for f in "${captures[@]}"; do
    cp "$f" "$T/plain/cap"
    compress $format <"$f" >"$T/$format/cap"
    for kind in text json; do
      (cd "$T/plain" && "$ABSBIN" analyze --format $kind cap >"$T/want" 2>"$T/want.err")
      want_rc=$?
      (cd "$T/$format" && "$ABSBIN" analyze --format $kind cap >"$T/got" 2>"$T/got.err")
      got_rc=$?
      if [[ $want_rc == "$got_rc" ]] && cmp -s "$T/want" "$T/got" && cmp -s "$T/want.err" "$T/got.err"; then
        [[ $kind == text ]] && same_text=$((same_text + 1)) || same_json=$((same_json + 1))
      else
        differ="$differ $f($kind)"
      fi
    done
    # From standard input: `compress <F | castscope analyze -` against `castscope analyze - <F`.
    "$BIN" analyze - <"$f" >"$T/want" 2>&1
    compress $format <"$f" | "$BIN" analyze - >"$T/got" 2>&1
    if cmp -s "$T/want" "$T/got"; then same_stdin=$((same_stdin + 1)); else differ="$differ $f(stdin)"; fi
  done
  n=${#captures[@]}
  check "$format: analyze of all $n captures compressed is the original's, text ($same_text) and JSON ($same_json)" \
    eval '[[ $same_text == $n && $same_json == $n ]] || { echo "differ:$differ" >"$T/err"; false; }'
  check "$format: analyze - of all $n captures piped through $format is the original's ($same_stdin)" \
    eval '[[ $same_stdin == $n ]] || { echo "differ:$differ" >"$T/err"; false; }'
done

# dump, and --merge of rotated files compressed each its own way.
cp captures/multi-device.pcap "$T/plain/cap"
compress zstd <captures/multi-device.pcap >"$T/zstd/cap"
(cd "$T/plain" && "$ABSBIN" dump cap >"$T/dump.want" 2>&1)
(cd "$T/zstd" && "$ABSBIN" dump cap >"$T/dump.got" 2>&1)
RC=$?
check "dump of a zstd capture lists the original's packets" eval 'rc_is 0 && cmp -s "$T/dump.want" "$T/dump.got"'
compress gzip <captures/goodbye.pcap >"$T/a"
compress lz4 <captures/slow-response.pcap >"$T/b"
run analyze --merge --format json captures/goodbye.pcap captures/slow-response.pcap
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [c.pop("file") for c in d["captures"]]; print(json.dumps(d))' \
  "$T/out" >"$T/merge.want"
run analyze --merge --format json "$T/a" "$T/b"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [c.pop("file") for c in d["captures"]]; print(json.dumps(d))' \
  "$T/out" >"$T/merge.got" 2>/dev/null
check "analyze --merge of a gzip and an lz4 file is the merge of the originals" \
  eval 'rc_is 0 && cmp -s "$T/merge.want" "$T/merge.got"'

# A stream that stops (a killed `tcpdump -w - | gzip`): what came before, a cut-off warning.
gzip -c captures/multi-device.pcap | head -c 900 >"$T/cut.gz"
run analyze "$T/cut.gz"
check "a gzip stream cut short: exit 0, TRUNCATED_CAPTURE, gzip's reason on stderr" \
  eval 'rc_is 0 && out_has "TRUNCATED_CAPTURE" && err_has "gzip data ends early" && no_crash'
zstd -q -c captures/multi-device.pcap | head -c 700 | RUN_STDIN=/dev/stdin run analyze -
check "a zstd stream cut short on standard input: exit 0, a cut-off warning" \
  eval 'rc_is 0 && err_has "zstd data ends early" && no_crash'

# Damaged compressed data: everything before the damage, then CAPTURE_UNREADABLE, exit 65; lz4
# checks a whole block (4 MiB) before handing any of it over, so damage in the first one is
# found when the file is opened.
damage() { # CAPTURE COMMAND OUT: 32 bytes flipped three quarters into the compressed data
  python3 - "$@" <<'EOF'
import subprocess, sys
data = bytearray(subprocess.run(sys.argv[2].split(), stdin=open(sys.argv[1], "rb"), capture_output=True,
                                check=True).stdout)
for k in range(len(data) * 3 // 4, len(data) * 3 // 4 + 32):
    data[k] ^= 0x5A
open(sys.argv[3], "wb").write(data)
EOF
}
damage captures/fragmented.pcap "gzip -c" "$T/damaged.gz"
run analyze "$T/damaged.gz"
# (What the damage decodes to is read first: the reader or zlib, whichever notices first, says why.)
check "damaged gzip data: exit 65, CAPTURE_UNREADABLE after the frames before it" \
  eval 'rc_is 65 && out_has "CAPTURE_UNREADABLE" && err_has "frames before it were read" && no_crash'
damage captures/fragmented.pcap "lz4 -q -c" "$T/damaged.lz4"
run analyze "$T/damaged.lz4"
check "damaged lz4 data in the first block: exit 65, one line naming lz4's error" \
  eval 'rc_is 65 && [[ $(wc -l <"$T/err") == 1 ]] && err_has "lz4 data is corrupt: ERROR_" && no_crash'

# A decompression bomb: 4 GiB of zeros after a pcap header, 4 MB of gzip -9.
python3 - captures/multi-device.pcap "$T/bomb.gz" <<'EOF'
import sys, zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
parts = [c.compress(open(sys.argv[1], "rb").read()[:24])]
zeros = bytes(1 << 20)
parts += [c.compress(zeros) for _ in range(4096)]
open(sys.argv[2], "wb").write(b"".join(parts) + c.flush())
EOF
timeout -s KILL 60 /usr/bin/time -f "%e %M" -o "$T/time" "$BIN" analyze "$T/bomb.gz" >"$T/out" 2>"$T/err"
RC=$?
read -r seconds kib < <(tail -n 1 "$T/time")
check "a gzip bomb stops at the limit, saying so: exit 65 in ${seconds}s, ${kib} KiB" \
  eval 'rc_is 65 && err_has "gzip data expands more than 500 times" && err_has "decompress it first" && ((kib < 32768))'

# Not captures: one line naming what the bytes look like, exit 65.
bzip2 -c captures/goodbye.pcap >"$T/x.pcap" 2>/dev/null || printf 'BZh91AY&SY' >"$T/x.pcap"
run analyze "$T/x.pcap"
check "a bzip2 file: exit 65, one line saying to decompress it first" \
  eval 'rc_is 65 && [[ $(wc -l <"$T/err") == 1 ]] && err_has "bzip2 data (not read: decompress it first)"'
gzip -c captures/goodbye.pcap | gzip -c >"$T/twice.gz"
run analyze "$T/twice.gz"
check "a capture gzip'd twice: exit 65, gzip data inside another layer" \
  eval 'rc_is 65 && err_has "its first bytes look like gzip data inside another compressed layer"'
printf 'Frame 1: 60 bytes on wire\n' | gzip -c >"$T/text.gz"
run analyze "$T/text.gz"
check "gzip'd text: exit 65, the text quoted" \
  eval 'rc_is 65 && err_has "look like text (\"Frame 1: 60 bytes on wir…\")"'
summary
