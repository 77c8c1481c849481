#!/usr/bin/env bash
# Tests/live/run.sh -- integration tests of `castscope live` (run as root).
#
#   sudo Tests/live/run.sh                  # from anywhere
#   CASTSCOPE=/path/to/castscope sudo -E Tests/live/run.sh
#   sudo PYTHON=/path/to/python3 Tests/live/run.sh   # python3 with `zeroconf`
#   KEEP=1 sudo Tests/live/run.sh           # keep the logs, pcaps and JSON in /tmp
#
# Builds a small LAN of network namespaces (csl-<pid>-br holding a bridge,
# csl-<pid>-sender, csl-<pid>-tv running avahi-daemon with a Chromecast-like
# service file, csl-<pid>-speaker running a python-zeroconf speaker + group),
# reusing the device and sender tools of captures/tools/, and runs
# `castscope live` in the sender's namespace:
#   1. jsonl + --duration + --write while the python-zeroconf sender browses:
#      every device appears with its friendly name and first-answer latency,
#      events in order, and `analyze` of the written pcap gives the same
#      devices, latencies and findings as the live analysis
#      (checks in Tests/live/check_live.py);
#   2. SIGINT and SIGTERM mid-capture: exit 0, report printed, valid pcap;
#   3. privilege drop: /proc/<pid>/status uids/gids are nobody's (root kept
#      with --user root);
#   4. errors: unknown interface (66), bad filter (64), not root (77),
#      --list-interfaces.
# Prints one `ok ...` / `FAIL ...` line per check, then
# `live: N passed, M failed`; exits non-zero if any check failed.
#
# Safety: all traffic stays inside the csl-* namespaces created here; only
# 192.0.2.0/24 (and kernel fe80:: link-local) addresses; every namespace and
# every process started here is removed on exit, also on failure, Ctrl-C or
# SIGTERM (trap), and a watchdog ends the run after LIVE_TEST_LIMIT seconds
# (default 170).
#
# Requirements (Debian 12): iproute2, util-linux (unshare, setpriv, runuser),
# avahi-daemon, tshark, wireshark-common (capinfos), python3 with `zeroconf`.
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
HARNESS=live
NS_PREFIX=csl
LIMIT=${LIVE_TEST_LIMIT:-170}
# the namespaces, processes, cleanup and traps (ok/fail/note, abort, spawn, ...; sets BIN, TOOLS, PY)
# shellcheck source=Tests/lib/netns.sh
source Tests/lib/netns.sh || exit 2
HERE=$ROOT/Tests/live

# --- fixed identities (documentation addresses only) -------------------------
RUN=$$
NS_BR=$NS_PREFIX-$RUN-br
NS_SND=$NS_PREFIX-$RUN-sender
NS_TV=$NS_PREFIX-$RUN-tv
NS_SPK=$NS_PREFIX-$RUN-speaker
SENDER4=192.0.2.10
TV4=192.0.2.21
SPK4=192.0.2.23
TV_HOST=3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35
NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)
NOBODY_GID=$(id -g nobody 2>/dev/null || echo 65534)
DEVICES=("Living Room TV|$TV4|8009" "Kitchen Speaker|$SPK4|8009" "Downstairs|$SPK4|42238")

# --- requirements and start ----------------------------------------------------
require ip unshare mount avahi-daemon "$PY" capinfos tshark timeout setsid
start_run

# --- process helpers -------------------------------------------------------------
spawn_live() { # NAME ARGS... : castscope live in the sender's namespace; stdout NAME.out, stderr NAME.err
  local name=$1
  shift
  ip netns exec "$NS_SND" "$BIN" live "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err" &
  PID[$name]=$!
}

# check_ids NAME UID GID WAIT_S : the four uids and gids of the live process become UID/GID
check_ids() {
  local name=$1 uid=$2 gid=$3 t=$4 pid u g gr cap i
  pid=$(castscope_pid "$name")
  for ((i = 0; i < t * 10; i++)); do
    u=$(ids "$pid" Uid)
    [[ $u == "$uid $uid $uid $uid" ]] && break
    sleep 0.1
  done
  u=$(ids "$pid" Uid)
  g=$(ids "$pid" Gid)
  gr=$(ids "$pid" Groups)
  cap=$(ids "$pid" CapEff)
  local what="uid $uid, gid $gid"
  if [[ $u == "$uid $uid $uid $uid" && $g == "$gid $gid $gid $gid" ]]; then
    ok "privileges ($name): /proc/$pid/status Uid '$u', Gid '$g' ($what)"
  else
    fail "privileges ($name): /proc/$pid/status Uid '$u', Gid '$g', expected $what for all four"
  fi
  if ((uid != 0)); then
    if [[ -z $gr || $gr == "$gid" ]] && [[ $cap == 0000000000000000 ]]; then
      ok "privileges ($name): no supplementary groups of root, no effective capabilities"
    else
      fail "privileges ($name): Groups '$gr', CapEff '$cap' after dropping root"
    fi
  fi
}

verdict_in() { grep -Eq '^(OK|WARN|FAIL): (No problems found|Discovery works|Discovery failed)' "$1"; }

# check_pcap LABEL FILE : non-empty, read by castscope dump and capinfos without any warning
check_pcap() {
  local label=$1 f=$2 n
  if [[ ! -s $f ]]; then
    fail "$label: --write file $f is missing or empty"
    return
  fi
  timeout 30 "$BIN" dump "$f" >"$T/dump.out" 2>"$T/dump.err"
  local rc=$?
  if ((rc == 0)) && [[ ! -s $T/dump.err ]] && grep -q "_googlecast" "$T/dump.out"; then
    ok "$label: castscope dump reads the pcap without a warning (Cast packets in it)"
  else
    fail "$label: castscope dump rc=$rc, stderr: $(head -c 300 "$T/dump.err" | tr '\n' '|')"
  fi
  timeout 30 capinfos -c -M "$f" >"$T/capinfos.out" 2>"$T/capinfos.err"
  rc=$?
  n=$(awk -F': *' '/Number of packets/{print $2}' "$T/capinfos.out")
  if ((rc == 0)) && [[ ! -s $T/capinfos.err ]] && [[ ${n:-0} -gt 0 ]]; then
    ok "$label: capinfos reads $n packets, no truncation warning"
  else
    fail "$label: capinfos rc=$rc, packets '${n:-?}', stderr: $(head -c 300 "$T/capinfos.err" | tr '\n' '|')"
  fi
}

# ================================================================ the LAN
mkbridge
add_host "$NS_SND" v-sender 02:ca:57:01:00:10 "$SENDER4/24"
add_host "$NS_TV" v-tv 02:ca:57:01:00:21 "$TV4/24"
add_host "$NS_SPK" v-speaker 02:ca:57:01:00:23 "$SPK4/24"

# avahi-daemon in the tv namespace, publishing captures/tools/avahi/chromecast.service (IPv4 only).
mkdir -p "$T/avahi/services"
cp "$TOOLS/avahi/chromecast.service" "$T/avahi/services/"
start_avahi tv "$NS_TV" yes no
spawn speaker "$NS_SPK" "$PY" "$TOOLS/cast_responder.py" --spec "$TOOLS/zc/home-mini-and-group.json" \
  --ip "$SPK4" --ip-version v4
READY_AT=$((SECONDS + 4)) # the devices' own announcements are over by then (see generate.sh)

# ================================================================ 4. errors (while the devices start)
run_live() { # ARGS... : castscope live in the sender's namespace, bounded; RC, $T/e.out, $T/e.err
  # (in braces with stderr closed: no "Aborted" job message from bash if it crashes)
  { timeout -s KILL 20 ip netns exec "$NS_SND" "$@" </dev/null >"$T/e.out" 2>"$T/e.err"; } 2>/dev/null
  RC=$?
}
err1() { head -c 400 "$T/e.err" | tr '\n' '|'; }

if "$BIN" help live >"$T/help.out" 2>&1 && grep -q -- "--user" "$T/help.out" && grep -qi "nobody" "$T/help.out"; then
  ok "help live documents --user and the drop to nobody"
else
  fail "help live does not mention --user / nobody: $(head -c 300 "$T/help.out" | tr '\n' '|')"
fi

run_live "$BIN" live -i does-not-exist0 --duration 2
if [[ $RC == 66 ]] && grep -q "does-not-exist0" "$T/e.err" && grep -qw "lo" "$T/e.err" && grep -qw "eth0" "$T/e.err"; then
  ok "unknown interface: exit 66, names it and lists the existing ones (lo, eth0)"
else
  fail "unknown interface: rc=$RC (want 66 and a list with lo, eth0); stderr: $(err1)"
fi

# A down interface: a veth pair in the sender's namespace, never set up.
ip netns exec "$NS_SND" ip link add csl-down0 type veth peer name csl-down1 2>/dev/null
run_live "$BIN" live -i csl-down0 --duration 2
if [[ $RC == 69 ]] && grep -q "csl-down0" "$T/e.err" && grep -qi "down" "$T/e.err"; then
  ok "interface down: exit 69 and says so"
else
  fail "interface down: rc=$RC (want 69); stderr: $(err1)"
fi
ip netns exec "$NS_SND" ip link del csl-down0 2>/dev/null

# A link type with nothing to decode (netfilter log).
{ timeout -s KILL 20 "$BIN" live -i nflog --duration 1 </dev/null >"$T/e.out" 2>"$T/e.err"; } 2>/dev/null
RC=$?
if [[ $RC == 65 ]] && grep -q "NFLOG" "$T/e.err"; then
  ok "unsupported link type (nflog): exit 65 naming NFLOG"
else
  fail "unsupported link type: rc=$RC (want 65); stderr: $(err1)"
fi

run_live "$BIN" live -i eth0 --duration 2 --filter 'not a filter((('
if [[ $RC == 64 ]] && grep -qi "syntax error" "$T/e.err"; then
  ok "bad --filter: exit 64 with libpcap's message ($(grep -i -m1 'syntax error' "$T/e.err" | head -c 120))"
else
  fail "bad --filter: rc=$RC (want 64 and libpcap's 'syntax error'); stderr: $(err1)"
fi

if command -v setpriv >/dev/null; then
  run_live setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$NOBODY_BIN" live -i eth0 --duration 2
  if [[ $RC == 77 ]] && grep -Eqi 'root|CAP_NET_RAW' "$T/e.err"; then
    ok "not root (setpriv as nobody): exit 77 with a hint about root / CAP_NET_RAW"
  else
    fail "not root (setpriv as nobody): rc=$RC (want 77 and a hint); stderr: $(err1)"
  fi
else
  fail "setpriv (util-linux) is not installed"
fi
if command -v runuser >/dev/null; then
  run_live runuser -u nobody -- "$NOBODY_BIN" live -i eth0 --duration 2
  if [[ $RC == 77 ]] && grep -Eqi 'root|CAP_NET_RAW' "$T/e.err"; then
    ok "not root (runuser -u nobody): exit 77 with a hint about root / CAP_NET_RAW"
  else
    fail "not root (runuser -u nobody): rc=$RC (want 77 and a hint); stderr: $(err1)"
  fi
fi

run_live "$BIN" live --list-interfaces
if [[ $RC == 0 ]] && grep -qw "lo" "$T/e.out" && grep -qw "eth0" "$T/e.out" && grep -q "$SENDER4" "$T/e.out" &&
  grep -qiw "up" "$T/e.out" && grep -qiw "running" "$T/e.out"; then
  ok "--list-interfaces: exit 0, lists lo and eth0 ($SENDER4) with up/running"
else
  fail "--list-interfaces: rc=$RC; stdout: $(head -c 400 "$T/e.out" | tr '\n' '|') stderr: $(err1)"
fi

# ================================================================ devices ready
wait_log tv "successfully established" 15 || abort "setup: avahi-daemon (Living Room TV) did not start"
wait_log speaker "ready" 15 || abort "setup: python-zeroconf speaker did not start"
while ((SECONDS < READY_AT + 3)); do sleep 0.2; done # announcements done (~4 s after start)
note "devices ready after ${SECONDS}s"

# ================================================================ 1. integration (jsonl)
PCAP1=$T/live-jsonl.pcap
spawn_live jsonl -i eth0 --format jsonl --duration 12 --write "$PCAP1" --user nobody
if wait_log jsonl '"event" *: *"started"' 6 "$T/jsonl.out"; then
  ok "jsonl: the started event is written at once (line-buffered output)"
else
  fail "jsonl: no started event within 6 s; stdout: $(head -c 200 "$T/jsonl.out"), stderr: $(head -c 300 "$T/jsonl.err" | tr '\n' '|')"
fi
check_ids jsonl "$NOBODY_UID" "$NOBODY_GID" 3
sleep 0.5
spawn browser1 "$NS_SND" "$PY" "$TOOLS/cast_browser.py" --ip "$SENDER4" --ip-version v4 --duration 7
finish browser1 15
n=$(grep -c '"event" *: *"deviceAppeared"' "$T/jsonl.out")
if kill -0 "${PID[jsonl]}" 2>/dev/null && ((n >= ${#DEVICES[@]})); then
  ok "jsonl: the deviceAppeared events are out while live still runs ($n)"
else
  fail "jsonl: $n deviceAppeared lines out before the end of the capture (want ${#DEVICES[@]} while it runs)"
fi
finish jsonl 20
if [[ $RC == 0 ]]; then ok "jsonl: --duration 12 run exits 0"; else fail "jsonl: --duration run rc=$RC; stderr: $(head -c 300 "$T/jsonl.err" | tr '\n' '|')"; fi
check_pcap "jsonl --write" "$PCAP1"
timeout 60 "$BIN" analyze --format json "$PCAP1" >"$T/offline.json" 2>"$T/offline.err"
RC=$?
if [[ $RC == 0 ]]; then ok "analyze --format json reads the written pcap"; else fail "analyze of the written pcap: rc=$RC $(head -c 300 "$T/offline.err")"; fi
dev_args=()
for d in "${DEVICES[@]}"; do dev_args+=(--device "$d"); done
run_py_checks "$PY" "$HERE/check_live.py" jsonl "$T/jsonl.out" "$T/offline.json" "$PCAP1" --client "$SENDER4" "${dev_args[@]}"

# ================================================================ 2+3. SIGINT (default user) and --count
PCAP2=$T/live-sigint.pcap
spawn_live sigint -i eth0 --write "$PCAP2"
spawn_live count -i eth0 --format jsonl --count 3
check_ids sigint "$NOBODY_UID" "$NOBODY_GID" 5
spawn browser2 "$NS_SND" "$PY" "$TOOLS/cast_browser.py" --ip "$SENDER4" --ip-version v4 --duration 3
finish browser2 10
stop sigint INT 10
if [[ $RC == 0 ]] && verdict_in "$T/sigint.out" && grep -q "^Devices" "$T/sigint.out" && grep -q "Living Room TV" "$T/sigint.out"; then
  ok "SIGINT: exit 0, events and the report (verdict, Devices) printed"
else
  fail "SIGINT: rc=$RC; stdout: $(tail -c 300 "$T/sigint.out" | tr '\n' '|'); stderr: $(head -c 300 "$T/sigint.err" | tr '\n' '|')"
fi
check_pcap "SIGINT --write" "$PCAP2"
finish count 5
if [[ $RC == 0 ]] && tail -n 2 "$T/count.out" | head -n 1 | grep -q '"reason" *: *"count"' &&
  tail -n 1 "$T/count.out" | grep -q '"event" *: *"analysis"'; then
  ok "--count 3: stops by itself (reason count), exit 0, analysis last"
else
  fail "--count 3: rc=$RC; last lines: $(tail -n 2 "$T/count.out" | cut -c1-150 | tr '\n' '|')"
fi

# ================================================================ 2+3. SIGTERM with --user root
PCAP3=$T/live-sigterm.pcap
spawn_live sigterm -i eth0 --write "$PCAP3" --user root
sleep 1.5
check_ids sigterm 0 0 0
spawn browser3 "$NS_SND" "$PY" "$TOOLS/cast_browser.py" --ip "$SENDER4" --ip-version v4 --duration 2.5
finish browser3 10
stop sigterm TERM 10
if [[ $RC == 0 ]] && verdict_in "$T/sigterm.out" && grep -q "^Devices" "$T/sigterm.out"; then
  ok "SIGTERM: exit 0, report (verdict, Devices) printed"
else
  fail "SIGTERM: rc=$RC; stdout: $(tail -c 300 "$T/sigterm.out" | tr '\n' '|'); stderr: $(head -c 300 "$T/sigterm.err" | tr '\n' '|')"
fi
check_pcap "SIGTERM --write" "$PCAP3"

note "ran for ${SECONDS}s"
exit 0
