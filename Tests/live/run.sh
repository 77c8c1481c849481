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
ROOT=$PWD
BIN=${CASTSCOPE:-.build/release/castscope}
[[ $BIN == /* ]] || BIN=$ROOT/$BIN
TOOLS=$ROOT/captures/tools
HERE=$ROOT/Tests/live
PY=${PYTHON:-python3}
LIMIT=${LIVE_TEST_LIMIT:-170}

PASSED=0
FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "ok $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
note() { echo "# $*"; }

# --- fixed identities (documentation addresses only) -------------------------
RUN=$$
NS_BR=csl-$RUN-br
NS_SND=csl-$RUN-sender
NS_TV=csl-$RUN-tv
NS_SPK=csl-$RUN-speaker
SENDER4=192.0.2.10
TV4=192.0.2.21
SPK4=192.0.2.23
TV_HOST=3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35
NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)
NOBODY_GID=$(id -g nobody 2>/dev/null || echo 65534)
DEVICES=("Living Room TV|$TV4|8009" "Kitchen Speaker|$SPK4|8009" "Downstairs|$SPK4|42238")

# --- bookkeeping and cleanup ---------------------------------------------------
declare -a NSES=()  # namespaces created by this run
declare -A PID=()   # name -> pid of background processes started by this run
T=""
WATCHDOG=""

teardown() {
  local n p ns
  for n in "${!PID[@]}"; do kill -TERM "${PID[$n]}" 2>/dev/null || true; done
  ((${#PID[@]})) && sleep 0.3
  for n in "${!PID[@]}"; do kill -KILL "${PID[$n]}" 2>/dev/null || true; done
  # Anything still running inside our own namespaces was started by us.
  for ns in "${NSES[@]}"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
  done
  for n in "${!PID[@]}"; do wait "${PID[$n]}" 2>/dev/null || true; done
  for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}

on_exit() {
  local rc=$? n left=() alive=()
  trap - EXIT INT TERM HUP
  if [[ -n $WATCHDOG ]]; then
    kill -TERM -- "-$WATCHDOG" 2>/dev/null || kill -TERM "$WATCHDOG" 2>/dev/null || true
    wait "$WATCHDOG" 2>/dev/null || true
  fi
  local pids=("${PID[@]}")
  teardown
  if ((${#NSES[@]})); then
    for n in "${NSES[@]}"; do ip netns list | grep -qx "$n\( .*\)\?" && left+=("$n"); done
    for n in "${pids[@]}"; do kill -0 "$n" 2>/dev/null && alive+=("$n"); done
    if ((${#left[@]} == 0 && ${#alive[@]} == 0)); then
      ok "cleanup: ${#NSES[@]} namespaces deleted, ${#pids[@]} started processes ended"
    else
      fail "cleanup: namespaces left: ${left[*]:-none}; processes alive: ${alive[*]:-none}"
    fi
  fi
  if [[ -n $T && -d $T ]]; then
    if ((FAILED)); then
      for n in "$T"/*.log "$T"/*.err; do
        [[ -s $n ]] && { note "--- ${n##*/} (last lines)"; tail -n 8 "$n" | sed 's/^/#   /'; }
      done
    fi
    if [[ ${KEEP:-0} == 1 ]]; then note "files kept in $T"; else rm -rf "$T"; fi
  fi
  echo "live: $PASSED passed, $FAILED failed"
  ((FAILED)) && exit 1
  ((rc)) && exit "$rc"
  exit 0
}

# Stops the run: counts as a failure, the EXIT trap cleans up.
abort() { fail "$*"; exit 1; }

trap on_exit EXIT
trap 'abort "interrupted by a signal (or the ${LIMIT}s watchdog)"' INT TERM HUP

# --- requirements -------------------------------------------------------------
[[ $EUID -eq 0 ]] || abort "must be run as root (it creates network namespaces)"
[[ -x $BIN ]] || abort "castscope binary not found at $BIN (build with: swift build -c release)"
for c in ip unshare mount avahi-daemon "$PY" capinfos tshark timeout setsid; do
  command -v "$c" >/dev/null 2>&1 || abort "missing requirement: $c"
done
"$PY" -c 'import zeroconf' 2>/dev/null || abort "python module zeroconf missing for $PY (pip install zeroconf, or PYTHON=...)"
if ! "$BIN" help live >/dev/null 2>&1; then
  abort "castscope has no live command ($BIN help live fails)"
fi

T=$(mktemp -d /tmp/castscope-live.XXXXXX) || abort "mktemp"
chmod 0755 "$T"
# The "not root" cases run castscope as nobody. A clone in a directory only root may enter
# (root's home, /root, is 0700) cannot be executed by nobody, so those cases run a copy from
# $T, which everyone may enter.
mkdir "$T/bin" && cp "$BIN" "$T/bin/castscope" && chmod 0755 "$T/bin" "$T/bin/castscope" ||
  abort "cannot copy $BIN to $T/bin"
NOBODY_BIN=$T/bin/castscope
# Watchdog: its own process group, so that teardown ends it and its sleep together.
setsid sh -c "sleep $LIMIT; kill -TERM $$" </dev/null >/dev/null 2>&1 &
WATCHDOG=$!

# Namespaces left over by an earlier run that was killed with SIGKILL: csl-<pid>-*
# whose run is gone.  Those of a run still going on are left alone.
for ns in $(ip netns list | awk '/^csl-[0-9]+-/{print $1}'); do
  owner=${ns#csl-}
  owner=${owner%%-*}
  if ! kill -0 "$owner" 2>/dev/null; then
    note "removing stale namespace $ns (its run $owner is gone)"
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  fi
done

# --- network helpers (as in captures/generate.sh) ------------------------------
psys() { ip netns exec "$1" sh -c "echo $3 > /proc/sys/${2//.//}"; }

mkns() {
  ip netns add "$1" || abort "ip netns add $1"
  NSES+=("$1")
  ip -n "$1" link set lo up
  psys "$1" net.ipv6.conf.all.accept_dad 0
  psys "$1" net.ipv6.conf.default.accept_dad 0
  psys "$1" net.ipv6.conf.all.router_solicitations 0
  psys "$1" net.ipv6.conf.default.router_solicitations 0
}

mkbridge() {
  mkns "$NS_BR"
  # the switch itself sends nothing (no IPv6 link-local, MLD, RS)
  psys "$NS_BR" net.ipv6.conf.all.disable_ipv6 1
  psys "$NS_BR" net.ipv6.conf.default.disable_ipv6 1
  ip -n "$NS_BR" link add br0 type bridge mcast_snooping 0 stp_state 0 || abort "bridge"
  ip -n "$NS_BR" link set br0 up
}

add_host() { # NS PORTNAME MAC IPV4/LEN : a host with eth0, whose veth peer is a port of br0
  local ns=$1 port=$2 mac=$3 ip4=$4
  mkns "$ns"
  ip -n "$ns" link add eth0 address "$mac" type veth peer name "$port" netns "$NS_BR" || abort "veth $ns"
  ip -n "$NS_BR" link set "$port" master br0 up
  ip -n "$ns" addr add "$ip4" dev eth0
  ip -n "$ns" link set eth0 up
}

# --- process helpers -------------------------------------------------------------
spawn() { # NAME NS CMD... : CMD in NS in the background, output to $T/NAME.log
  local name=$1 ns=$2
  shift 2
  ip netns exec "$ns" "$@" </dev/null >"$T/$name.log" 2>&1 &
  PID[$name]=$!
}

spawn_live() { # NAME ARGS... : castscope live in the sender's namespace; stdout NAME.out, stderr NAME.err
  local name=$1
  shift
  ip netns exec "$NS_SND" "$BIN" live "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err" &
  PID[$name]=$!
}

wait_log() { # NAME PATTERN TIMEOUT_S [FILE] : 0 when PATTERN shows up in the log
  local name=$1 pat=$2 t=$3 file=${4:-$T/$1.log} i
  for ((i = 0; i < t * 10; i++)); do
    grep -q -- "$pat" "$file" 2>/dev/null && return 0
    kill -0 "${PID[$name]}" 2>/dev/null || { grep -q -- "$pat" "$file" 2>/dev/null; return; }
    sleep 0.1
  done
  return 1
}

finish() { # NAME TIMEOUT_S : waits for the process to end by itself; sets RC (124 if killed)
  local name=$1 t=$2 i
  RC=124
  for ((i = 0; i < t * 10; i++)); do
    kill -0 "${PID[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "${PID[$name]}" 2>/dev/null; then
    kill -KILL "${PID[$name]}" 2>/dev/null
    wait "${PID[$name]}" 2>/dev/null
    RC=124
  else
    wait "${PID[$name]}"
    RC=$?
  fi
  unset "PID[$name]"
}

stop() { # NAME SIGNAL TIMEOUT_S : signal the process, wait for it; sets RC (124 if it had to be killed)
  local name=$1 sig=$2 t=$3
  kill -s "$sig" "${PID[$name]}" 2>/dev/null
  finish "$name" "$t"
}

# The pid of castscope itself: `ip netns exec` execs it, so normally the pid of the job.
live_pid() {
  local p=${PID[$1]} c
  [[ $(cat "/proc/$p/comm" 2>/dev/null) == castscope ]] && { echo "$p"; return; }
  for c in $(cat "/proc/$p/task/$p/children" 2>/dev/null); do
    [[ $(cat "/proc/$c/comm" 2>/dev/null) == castscope ]] && { echo "$c"; return; }
  done
  echo "$p"
}

ids() { # PID FIELD : the Uid:/Gid:/Groups: values of /proc/PID/status
  awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ +/, ""); print }' "/proc/$1/status" 2>/dev/null
}

# check_ids NAME UID GID WAIT_S : the four uids and gids of the live process become UID/GID
check_ids() {
  local name=$1 uid=$2 gid=$3 t=$4 pid u g gr cap i
  pid=$(live_pid "$name")
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

# run_py_checks CMD... : counts the ok/FAIL lines that a checker prints
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

# ================================================================ the LAN
mkbridge
add_host "$NS_SND" v-sender 02:ca:57:01:00:10 "$SENDER4/24"
add_host "$NS_TV" v-tv 02:ca:57:01:00:21 "$TV4/24"
add_host "$NS_SPK" v-speaker 02:ca:57:01:00:23 "$SPK4/24"

# avahi-daemon in the tv namespace: own config, own services dir (bind-mounted over
# /etc/avahi/services) and a private tmpfs for /run/avahi-daemon, in its own mount namespace.
mkdir -p "$T/avahi/services"
cp "$TOOLS/avahi/chromecast.service" "$T/avahi/services/"
cat >"$T/avahi/avahi-daemon.conf" <<EOF
[server]
host-name=$TV_HOST
domain-name=local
use-ipv4=yes
use-ipv6=no
allow-interfaces=eth0
enable-dbus=no
ratelimit-interval-usec=1000000
ratelimit-burst=1000

[wide-area]
enable-wide-area=no

[publish]
publish-addresses=yes
publish-hinfo=no
publish-workstation=no
publish-domain=no
publish-aaaa-on-ipv4=no
publish-a-on-ipv6=no

[reflector]
enable-reflector=no

[rlimits]
EOF
# shellcheck disable=SC2016
spawn tv "$NS_TV" unshare -m sh -c '
  mount --make-rprivate / &&
  mkdir -p /run/avahi-daemon &&
  mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon &&
  mount --bind "$1" /etc/avahi/services &&
  exec avahi-daemon --no-chroot --no-drop-root --no-rlimits -f "$2"' \
  sh "$T/avahi/services" "$T/avahi/avahi-daemon.conf"
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
