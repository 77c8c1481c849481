# Tests/lib/netns.sh -- the scaffolding shared by Tests/live/run.sh and Tests/probe/run.sh:
# a LAN of network namespaces on one bridge, processes started in them, and their cleanup.
# Sourced, not run, from the repository root:
#
#   cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
#   HARNESS=live                   # the castscope command under test
#   NS_PREFIX=csl                  # this harness's namespaces are named $NS_PREFIX-<pid>-*
#   LIMIT=${LIVE_TEST_LIMIT:-170}  # the watchdog ends the run after LIMIT seconds
#   # shellcheck source=Tests/lib/netns.sh
#   source Tests/lib/netns.sh || exit 2
#
# HARNESS names the final line (`live: N passed, M failed`), the temporary directory
# (/tmp/castscope-live.XXXXXX) and the command `require` asks `castscope help` about.
# Before mkbridge/add_host the harness sets NS_BR (the bridge's namespace); start_avahi
# also uses TV_HOST and, for the TV, the service files in $T/avahi/services.
#
# Sourcing it sets ROOT, BIN ($CASTSCOPE, default .build/release/castscope), TOOLS
# (captures/tools), PY ($PYTHON, default python3), the counters PASSED/FAILED and the
# bookkeeping NSES (namespaces created) and PID (name -> pid of processes started), and
# installs the traps: on EXIT, on_exit (teardown, the `cleanup:` check, the logs of a failed
# run, KEEP=1, the final line); on INT/TERM/HUP (also the watchdog's), abort.
# It defines:
#   ok fail note abort                       results and stopping the run
#   require start_run                        requirements; T, NOBODY_BIN, watchdog, stale namespaces
#   psys mkns mkbridge add_host start_avahi  the LAN
#   spawn wait_log finish stop castscope_pid ids   processes started in it
# and, from Tests/lib/results.sh, ok fail note run_py_checks.
# shellcheck shell=bash

ROOT=$PWD
BIN=${CASTSCOPE:-.build/release/castscope}
[[ $BIN == /* ]] || BIN=$ROOT/$BIN
# shellcheck disable=SC2034 # (for the harness)
TOOLS=$ROOT/captures/tools
PY=${PYTHON:-python3}

# shellcheck source=Tests/lib/results.sh
source "$ROOT/Tests/lib/results.sh" || exit 2

# --- bookkeeping and cleanup ---------------------------------------------------
declare -a NSES=()  # namespaces created by this run
declare -A PID=()   # name -> pid of background processes started by this run
T=""
WATCHDOG=""

# (teardown and on_exit run from the traps: shellcheck cannot see that)
# shellcheck disable=SC2317
teardown() { # ends every process started here (TERM, then KILL) and deletes our namespaces
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

# shellcheck disable=SC2317
on_exit() { # the EXIT trap: teardown, checks that it left nothing, prints `$HARNESS: N passed, M failed`
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
  echo "$HARNESS: $PASSED passed, $FAILED failed"
  ((FAILED)) && exit 1
  ((rc)) && exit "$rc"
  exit 0
}

# Stops the run: counts as a failure, the EXIT trap cleans up.
abort() { fail "$*"; exit 1; }

trap on_exit EXIT
trap 'abort "interrupted by a signal (or the ${LIMIT}s watchdog)"' INT TERM HUP

# --- requirements and start -----------------------------------------------------
require() { # CMD[|HINT]... : aborts unless root, $BIN has `help $HARNESS`, each CMD is found and $PY has zeroconf
  local c hint
  [[ $EUID -eq 0 ]] || abort "must be run as root (it creates network namespaces)"
  [[ -x $BIN ]] || abort "castscope binary not found at $BIN (build with: swift build -c release)"
  for c in "$@"; do
    hint=""
    [[ $c == *"|"* ]] && hint=" (${c#*|})"
    command -v "${c%%|*}" >/dev/null 2>&1 || abort "missing requirement: ${c%%|*}$hint"
  done
  "$PY" -c 'import zeroconf' 2>/dev/null || abort "python module zeroconf missing for $PY (pip install zeroconf, or PYTHON=...)"
  if ! "$BIN" help "$HARNESS" >/dev/null 2>&1; then
    abort "castscope has no $HARNESS command ($BIN help $HARNESS fails)"
  fi
}

start_run() { # makes T with a copy of $BIN that nobody may run (NOBODY_BIN), starts the watchdog, removes stale namespaces
  local ns owner p
  T=$(mktemp -d "/tmp/castscope-$HARNESS.XXXXXX") || abort "mktemp"
  chmod 0755 "$T"
  # The "not root" cases run castscope as nobody. A clone in a directory only root may enter
  # (root's home, /root, is 0700) cannot be executed by nobody, so those cases run a copy from
  # $T, which everyone may enter.
  if ! { mkdir "$T/bin" && cp "$BIN" "$T/bin/castscope" && chmod 0755 "$T/bin" "$T/bin/castscope"; }; then
    abort "cannot copy $BIN to $T/bin"
  fi
  # shellcheck disable=SC2034 # (for the harness)
  NOBODY_BIN=$T/bin/castscope
  # Watchdog: its own process group, so that teardown ends it and its sleep together.
  setsid sh -c "sleep $LIMIT; kill -TERM $$" </dev/null >/dev/null 2>&1 &
  WATCHDOG=$!

  # Namespaces left over by an earlier run that was killed with SIGKILL: $NS_PREFIX-<pid>-*
  # whose run is gone.  Those of a run still going on are left alone.
  for ns in $(ip netns list | awk -v p="^$NS_PREFIX-[0-9]+-" '$1 ~ p {print $1}'); do
    owner=${ns#"$NS_PREFIX"-}
    owner=${owner%%-*}
    if ! kill -0 "$owner" 2>/dev/null; then
      note "removing stale namespace $ns (its run $owner is gone)"
      for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
}

# --- network helpers (as in captures/generate.sh) ------------------------------
# psys NS KEY VALUE : sets the sysctl KEY (net.ipv6...) to VALUE in NS
psys() { ip netns exec "$1" sh -c "echo $3 > /proc/sys/${2//.//}"; }

mkns() { # NS : a namespace with lo up, no IPv6 duplicate address detection, no router solicitations
  ip netns add "$1" || abort "ip netns add $1"
  NSES+=("$1")
  ip -n "$1" link set lo up
  psys "$1" net.ipv6.conf.all.accept_dad 0
  psys "$1" net.ipv6.conf.default.accept_dad 0
  psys "$1" net.ipv6.conf.all.router_solicitations 0
  psys "$1" net.ipv6.conf.default.router_solicitations 0
}

mkbridge() { # the namespace $NS_BR with the bridge br0 (no multicast snooping, no STP)
  mkns "$NS_BR"
  # the switch itself sends nothing (no IPv6 link-local, MLD, RS)
  psys "$NS_BR" net.ipv6.conf.all.disable_ipv6 1
  psys "$NS_BR" net.ipv6.conf.default.disable_ipv6 1
  ip -n "$NS_BR" link add br0 type bridge mcast_snooping 0 stp_state 0 || abort "bridge"
  ip -n "$NS_BR" link set br0 up
}

add_host() { # NS PORTNAME MAC IPV4/LEN [IPV6/LEN] : a host with eth0, whose veth peer is a port of br0
  local ns=$1 port=$2 mac=$3 ip4=$4 ip6=${5:-}
  mkns "$ns"
  ip -n "$ns" link add eth0 address "$mac" type veth peer name "$port" netns "$NS_BR" || abort "veth $ns"
  ip -n "$NS_BR" link set "$port" master br0 up
  ip -n "$ns" addr add "$ip4" dev eth0
  [[ -n $ip6 ]] && ip -n "$ns" addr add "$ip6" dev eth0 nodad
  ip -n "$ns" link set eth0 up
}

# start_avahi NAME NS yes|no(IPv4) yes|no(IPv6) [HOSTNAME] : one avahi-daemon in NS: own config,
# own services dir (bind-mounted over /etc/avahi/services: $T/avahi/services, the TV's, unless
# HOSTNAME is given: then an empty one) and a private tmpfs for /run/avahi-daemon, in its own
# mount namespace.
start_avahi() {
  local name=$1 ns=$2 v4=$3 v6=$4 host=${5:-$TV_HOST} services=$T/avahi/services
  [[ -n ${5:-} ]] && services=$T/avahi/$name.services
  mkdir -p "$services"
  cat >"$T/avahi/$name.conf" <<EOF
[server]
host-name=$host
domain-name=local
use-ipv4=$v4
use-ipv6=$v6
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
  spawn "$name" "$ns" unshare -m sh -c '
    mount --make-rprivate / &&
    mkdir -p /run/avahi-daemon &&
    mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon &&
    mount --bind "$1" /etc/avahi/services &&
    exec avahi-daemon --no-chroot --no-drop-root --no-rlimits -f "$2"' \
    sh "$services" "$T/avahi/$name.conf"
}

# --- process helpers -------------------------------------------------------------
spawn() { # NAME NS CMD... : CMD in NS in the background, output to $T/NAME.log
  local name=$1 ns=$2
  shift 2
  ip netns exec "$ns" "$@" </dev/null >"$T/$name.log" 2>&1 &
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

# shellcheck disable=SC2034 # (RC is for the harness)
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

stop() { # NAME [SIGNAL [TIMEOUT_S]] : signal it (TERM), wait for it (5 s) with finish; nothing if it is not running
  [[ -n ${PID[$1]:-} ]] || return 0
  kill -s "${2:-TERM}" "${PID[$1]}" 2>/dev/null
  finish "$1" "${3:-5}"
}

castscope_pid() { # NAME : the pid of castscope itself (`ip netns exec` execs it, so normally the job's)
  local p=${PID[$1]} c kids=()
  [[ $(cat "/proc/$p/comm" 2>/dev/null) == castscope ]] && { echo "$p"; return; }
  read -r -a kids 2>/dev/null <"/proc/$p/task/$p/children"
  for c in "${kids[@]}"; do
    [[ $(cat "/proc/$c/comm" 2>/dev/null) == castscope ]] && { echo "$c"; return; }
  done
  echo "$p"
}

ids() { # PID FIELD : the Uid:/Gid:/Groups:/CapEff: values of /proc/PID/status
  awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ +/, ""); print }' "/proc/$1/status" 2>/dev/null
}

