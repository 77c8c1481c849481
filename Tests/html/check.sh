#!/usr/bin/env bash
# The HTML report of `castscope report` in a real browser: Debian's chromium, headless.
#
# For a few real captures it renders the report with the release binary, loads it in
# chromium (--dump-dom and --screenshot) with every host name mapped to nothing and a
# NetLog recording, and checks: the page's DOM has the verdict, the findings section, the
# device rows and the SVG timeline; the screenshot is a real, non-blank PNG; and the page
# made no network request at all (a planted page checks that the detector works, and that
# the report's Content-Security-Policy blocks a request).
#
# Installs nothing: `make html` (part of `make test`) installs chromium first.
# Usage: Tests/html/check.sh [--screenshot-to FILE]   (FILE: where to copy the screenshot of
# captures/multi-device.pcap's report, e.g. docs/report-screenshot.png)
# Then, for every captures/*.pcap (and those under $HTML_LAYOUT_DIR when set), it lays the
# report out in a 1280 px window and checks that tables and chart labels fit, uncut, and that
# the page names no local directory.
# Prints one line per check, then `html: N passed, M failed`; exits 1 on any failure.
set -u
cd "$(dirname "$0")/../.." || exit 2

BIN=${CASTSCOPE:-.build/release/castscope}
CHROMIUM=${CHROMIUM:-chromium}
SCREENSHOT_TO=
if [ "${1:-}" = "--screenshot-to" ] && [ -n "${2:-}" ]; then SCREENSHOT_TO=$2; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
pass() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
    echo "html: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}

if [ -x "$BIN" ]; then pass "release binary $BIN"; else fail "no release binary $BIN (swift build -c release)"; finish; fi
if command -v "$CHROMIUM" > /dev/null; then
    pass "browser: $("$CHROMIUM" --version 2> /dev/null | head -1)"
else
    fail "no '$CHROMIUM' (apt-get install chromium)"
    finish
fi

# chromium, headless, with a throw-away profile, its own background traffic turned down, and
# every host name resolving to nothing.
browse() {
    timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$WORK/profile" --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --disable-default-apps --disable-extensions \
        --host-resolver-rules="MAP * ~NOTFOUND" "$@" 2>> "$WORK/chromium.log"
}

# page_requests NETLOG: prints the URLs the page itself asked for. Requests that chromium
# makes for itself (updates, time) have the initiator "not an origin"; a file:// page's
# requests have "null" (or an origin).
page_requests() {
    python3 - "$1" << 'PY'
import json, sys
log = json.load(open(sys.argv[1]))
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
for e in log["events"]:
    p = e.get("params", {})
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p and p.get("initiator") != "not an origin":
        print(p["url"])
PY
}

# The detector itself: a page that loads an image and a style sheet from elsewhere must be
# caught; the same page under the report's Content-Security-Policy must load nothing.
CSP="default-src 'none'; style-src 'unsafe-inline'; img-src data:"
planted='<img src="http://planted.invalid/x.png" /><link rel="stylesheet" href="https://planted.invalid/a.css" />'
printf '<!DOCTYPE html><html><head><meta charset="utf-8" /></head><body>%s</body></html>\n' "$planted" \
    > "$WORK/planted.html"
printf '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="%s" /></head><body>%s</body></html>\n' \
    "$CSP" "$planted" > "$WORK/planted-csp.html"
browse --log-net-log="$WORK/planted.json" --dump-dom "file://$WORK/planted.html" > /dev/null
if [ "$(page_requests "$WORK/planted.json" | grep -c planted.invalid)" -ge 1 ]; then
    pass "control: a page's own network requests are detected"
else
    fail "control: the planted request was not detected"
fi
browse --log-net-log="$WORK/planted-csp.json" --dump-dom "file://$WORK/planted-csp.html" > /dev/null
if [ -z "$(page_requests "$WORK/planted-csp.json")" ]; then
    pass "control: the report's Content-Security-Policy blocks requests"
else
    fail "control: requests got through the Content-Security-Policy"
fi

# check_capture NAME DEVICES CLIENTS: DEVICES and CLIENTS are |-separated lists.
check_capture() {
    local name=$1 devices=$2 clients=$3
    local html="$WORK/$name.html" dom="$WORK/$name.dom.html" png="$WORK/$name.png" net="$WORK/$name.json"
    if "$BIN" report "captures/$name.pcap" --format html -o "$html" 2>> "$WORK/castscope.log" && [ -s "$html" ]; then
        pass "$name: castscope report wrote $(wc -c < "$html") bytes"
    else
        fail "$name: castscope report failed"
        return
    fi

    # The file as written: inert and self-contained.
    local problems
    problems=$(grep -Eio '<script|<iframe|<object|<embed|<img|<link|@import|url\(|[a-z-]+="[^"]*//[^"]*"| on[a-z]+="|https?:' "$html" | sort -u | tr '\n' ' ')
    if [ -z "$problems" ] && grep -qF "content=\"$CSP\"" "$html"; then
        pass "$name: no script, no external reference, CSP present"
    else
        fail "$name: found: ${problems:-no CSP}"
    fi

    # What chromium built from it.
    browse --log-net-log="$net" --dump-dom "file://$html" > "$dom"
    local dom_report
    dom_report=$(python3 - "$dom" "$devices" "$clients" << 'PY'
import re, sys
dom, devices, clients = open(sys.argv[1]).read(), [d for d in sys.argv[2].split("|") if d], sys.argv[3].split("|")
def section(i):
    m = re.search(r'<section[^>]*id="%s"[^>]*>(.*?)</section>' % i, dom, re.S)
    return m.group(1) if m else None
out = []
verdict = section("verdict")
m = verdict and re.search(r'<p class="headline">([^<]+)</p>', verdict)
out.append(("verdict", bool(m), m.group(1) if m else "missing"))
findings = section("findings")
out.append(("findings section", findings is not None and "<h2>Findings</h2>" in findings, ""))
dev = section("devices") or ""
rows = re.findall(r"<tr>(.*?)</tr>", dev.split("<tbody>")[-1], re.S) if "<tbody>" in dev else []
names = [re.sub("<[^>]+>", "", re.search(r'<bdi class="name">(.*?)</bdi>', r).group(1)) for r in rows]
out.append(("devices table rows", names == devices, "%d: %s" % (len(names), ", ".join(names) or "none")))
timeline = section("timeline") or ""
svgs = re.findall(r'<svg[^>]*aria-label="Timeline of client ([^"]+)"', timeline)
out.append(("SVG timeline per client", svgs == clients, ", ".join(svgs)))
marks = len(re.findall(r'<rect[^>]*><title>Query', timeline))
out.append(("timeline has query marks", marks > 0, "%d" % marks))
missing = [d for d in devices if ">%s</text>" % d not in timeline]
out.append(("timeline has device rows", not missing, "missing " + ", ".join(missing) if missing else ""))
latency = section("latency") or ""
out.append(("latency section", "<h2>Discovery latency</h2>" in latency, ""))
for what, good, note in out:
    print(("ok" if good else "FAIL"), what + (": " + note if note else ""))
PY
)
    while IFS= read -r line; do
        case "$line" in
            ok\ *) pass "$name: DOM ${line#ok }" ;;
            *) fail "$name: DOM ${line#FAIL }" ;;
        esac
    done <<< "$dom_report"
    [ -n "$dom_report" ] || fail "$name: chromium produced no DOM"

    local requests
    requests=$(page_requests "$net" 2>&1)
    if [ -s "$net" ] && [ -z "$requests" ]; then
        pass "$name: no network request from the page"
    else
        fail "$name: network requests: ${requests:-no NetLog}"
    fi

    browse --screenshot="$png" --window-size=1280,2000 "file://$html" > /dev/null
    local shot
    shot=$(python3 - "$png" << 'PY'
import os, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
    print("FAIL not a PNG"); sys.exit()
width, height = struct.unpack(">II", data[16:24])
# The decompressed image data: a blank page is one repeated row (almost no distinct bytes).
pos, idat = 8, b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT": idat += data[pos + 8:pos + 8 + length]
    pos += 12 + length
distinct = len(set(zlib.decompress(idat)))
good = (width, height) == (1280, 2000) and len(data) > 40_000 and distinct > 64
print("%s %dx%d, %d KB, %d distinct byte values" % ("ok" if good else "FAIL", width, height, len(data) // 1024, distinct))
PY
)
    case "$shot" in
        ok\ *) pass "$name: screenshot ${shot#ok }" ;;
        *) fail "$name: screenshot ${shot#FAIL }" ;;
    esac
    if [ "$name" = multi-device ] && [ -n "$SCREENSHOT_TO" ] && [ -s "$png" ]; then cp "$png" "$SCREENSHOT_TO"; fi
}

# check_layout FILE...: the report of each capture, laid out by chromium in a 1280 px window
# (a copy of the page without its Content-Security-Policy and with a measuring script added):
# no table wider than its box (no horizontal scrolling), the page no wider than the window,
# every chart label inside its SVG and whole (not shortened with "…"), and no local path.
check_layout() {
    local f name html probe dom verdict
    for f in "$@"; do
        name=$(basename "$f")
        html="$WORK/layout-$name.html"
        probe="$WORK/layout-$name.probe.html"
        dom="$WORK/layout-$name.dom.html"
        if ! "$BIN" report "$f" --format html -o "$html" 2>> "$WORK/castscope.log"; then
            fail "layout $name: castscope report failed"
            continue
        fi
        python3 - "$html" "$probe" << 'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
probe = """<script>
const problems = [];
if (document.documentElement.scrollWidth > window.innerWidth)
  problems.push("page " + document.documentElement.scrollWidth + " px wide");
document.querySelectorAll("div.scroll").forEach((d, i) => {
  if (d.scrollWidth > d.clientWidth + 1) problems.push("table " + i + " " + d.scrollWidth + " px in " + d.clientWidth);
});
document.querySelectorAll("svg").forEach(svg => {
  const w = svg.viewBox.baseVal.width;
  svg.querySelectorAll("text.label").forEach(t => {
    const b = t.getBBox();
    if (b.x < 0 || b.x + b.width > w) problems.push("label outside its chart: " + t.textContent);
    if (t.lastChild && t.lastChild.textContent.endsWith("\u2026")) problems.push("label cut: " + t.textContent);
  });
});
const pre = document.createElement("pre");
pre.id = "layout";
pre.textContent = problems.length ? problems.join("; ") : "fits";
document.body.appendChild(pre);
</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", probe + "</body>"))
PY
        browse --window-size=1280,2000 --dump-dom "file://$probe" > "$dom"
        verdict=$(sed -n 's/.*<pre id="layout">\([^<]*\)<\/pre>.*/\1/p' "$dom")
        if [ "$verdict" = fits ]; then
            pass "layout $name: tables and labels fit 1280 px"
        else
            fail "layout $name: ${verdict:-no measurement}"
        fi
        if grep -qF "$(dirname "$(realpath "$f")")" "$html"; then
            fail "layout $name: the page holds the capture's directory"
        else
            pass "layout $name: no local path in the page"
        fi
    done
}

check_capture multi-device "Downstairs|Kitchen Speaker|Bedroom TV" "192.0.2.10"
check_capture goodbye "Living Room TV" "192.0.2.10"
check_capture client-isolation "" "192.0.2.10|192.0.2.5"
# Every capture here, and the captures in $HTML_LAYOUT_DIR (e.g. the external real captures)
# when set; the files are given by absolute path so that a leaked directory would show.
layout_files=()
for f in captures/*.pcap; do layout_files+=("$PWD/$f"); done
if [ -n "${HTML_LAYOUT_DIR:-}" ]; then
    while IFS= read -r f; do layout_files+=("$(realpath "$f")"); done \
        < <(find "$HTML_LAYOUT_DIR" -name '*.pcap*' | sort)
fi
check_layout "${layout_files[@]}"

# The usage rules: HTML needs -o; -o - writes to standard output; a missing file is 66; an
# unwritable output 73.
"$BIN" report captures/goodbye.pcap > /dev/null 2>&1
status=$?
if [ $status -eq 64 ]; then pass "usage: HTML without -o exits 64"; else fail "usage: HTML without -o exited $status"; fi
if "$BIN" report captures/goodbye.pcap -o - 2> /dev/null | grep -q '^<!DOCTYPE html>'; then
    pass "usage: -o - writes the page to standard output"
else
    fail "usage: -o - did not write the page"
fi
"$BIN" report "$WORK/missing.pcap" -o "$WORK/x.html" > /dev/null 2>&1
status=$?
if [ $status -eq 66 ]; then pass "usage: missing capture exits 66"; else fail "usage: missing capture exited $status"; fi
"$BIN" report captures/goodbye.pcap -o "$WORK/no/such/dir/x.html" > /dev/null 2>&1
status=$?
if [ $status -eq 73 ]; then pass "usage: unwritable output exits 73"; else fail "usage: unwritable output exited $status"; fi

finish
