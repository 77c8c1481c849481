#!/usr/bin/env bash
# captures/generate.sh -- regenerate CastScope's own REAL test captures.
#
#   sudo captures/generate.sh            # all captures
#   sudo captures/generate.sh goodbye ipv6   # only some (names without .pcap)
#   sudo captures/generate.sh --list     # list capture names
#   CASTSCOPE_CAPTURE_DIR=/tmp/x sudo -E captures/generate.sh   # write elsewhere
#   sudo PYTHON=/path/to/python3 captures/generate.sh   # python with zeroconf
#   CASTSCOPE_NS_PREFIX=h1 sudo -E captures/generate.sh  # namespaces h1-*, for parallel runs
#   CASTSCOPE=/path/to/castscope sudo -E captures/generate.sh probe-group  # another castscope binary
#
# After generating, captures/verify.sh checks the content of each file.
# Every capture is made with real daemons (avahi-daemon, python-zeroconf,
# small python SSDP/DIAL tools and, for the diagnosis scenarios, small
# hand-built stdlib mDNS responders/queriers in captures/tools/; for probe-group the
# sender is `castscope probe` itself) talking to each other over
# a Linux bridge inside network namespaces that this script creates, and is
# recorded with tcpdump inside the sender's namespace.
#
# Requirements (Debian 12 package names):
#   iproute2 (ip, bridge, ip netns), util-linux (unshare, mount),
#   coreutils (timeout), avahi-daemon, tcpdump (>= 4.99), tshark,
#   wireshark-common (capinfos), python3 with the `zeroconf` module
#   (pip install zeroconf; tested with 0.154.0),
#   iptables (only for own-queries-dropped; uses the iptables-legacy command),
#   nftables (nft; only for connect-timeout, connect-unreachable and
#   mdns-port-unreachable),
#   openssl (only for connect-established and probe-group: throw-away self-signed
#   certificates made in the temporary work directory, never stored here),
#   the castscope release binary (only for probe-group, whose sender is
#   `castscope probe`: .build/release/castscope, made by `make build`, or
#   $CASTSCOPE).
#
# Safety rules:
#   * must run as root; all traffic stays inside the network namespaces cs-* (or $CASTSCOPE_NS_PREFIX-*)
#     created here (nothing is attached to the host's own interfaces);
#   * only documentation addresses: 192.0.2.0/24, 198.51.100.0/24 (vlan-separated,
#     wrong-interface, connect-wrong-address) and 2001:db8::/32 (plus the fe80::
#     link-local addresses the kernel adds inside the namespaces); advertised-address
#     puts 172.17.0.2 and 169.254.23.1 in A record DATA only (never on an
#     interface, nothing sent to them);
#   * the connect-* scenarios open TCP/TLS connections only to the address
#     and port the Living Room TV advertises (192.0.2.21:8009, inside the
#     namespaces; cast_connect.py refuses anything outside 192.0.2.0/24);
#     connect-wrong-address only to the advertised 198.51.100.7:8009, which no
#     host has: the SYNs go to a router namespace (cast_connect.py --allow
#     198.51.100.0/24), which answers with ICMP host unreachable;
#     probe-group's `castscope probe` connects only to what the devices in the
#     namespaces advertise (192.0.2.23:8009, 192.0.2.23:42238, [2001:db8::21]:8009);
#   * all namespaces, nft tables, links and processes created here are removed
#     on exit, also on failure or Ctrl-C (trap).
#
# Determinism: fixed MAC addresses (02:ca:57:00:00:<host>), IP addresses,
# host names, UUIDs, instance names and TXT records; the SSDP responder uses a
# seeded RNG.  Timing (and so timestamps, packet interleaving and sometimes the
# number of repeated queries) naturally varies from run to run.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/tools
OUT=${CASTSCOPE_CAPTURE_DIR:-$HERE}
PY=${PYTHON:-python3}   # the python3 that has `zeroconf` (sudo may reset PATH)
NSP=${CASTSCOPE_NS_PREFIX:-cs}   # namespace names start with this and a dash (parallel runs use their own)
CASTSCOPE=${CASTSCOPE:-$HERE/../.build/release/castscope}   # probe-group's sender (`castscope probe`)
ALL_CAPTURES=(healthy-ipv4 multi-device goodbye any-sll2 ipv6 fragmented
              legacy-unicast dial-ssdp client-isolation own-queries-dropped reflector
              no-cast-queries no-mdns app-id-unanswered incomplete-resolution
              txt-missing-fn device-expired slow-response duplicate-name
              address-changed query-storm repeater advertised-address relayed-queries
              dial-other-device dial-unanswered vlan-separated multicast-decayed cached-address
              local-name-dns wrong-interface
              connect-established connect-refused connect-timeout connect-unreachable
              connect-wrong-address mdns-port-unreachable probe-group)

# --- fixed identities -------------------------------------------------------
CC_HOST=3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35      # "Living Room TV" (Chromecast)
ULTRA_HOST=7a0e4c19-2d6b-4f83-95c1-e8b3a2d7f604   # "Bedroom TV" (Chromecast Ultra)
SENDER4=192.0.2.10   SENDER6=2001:db8::10
PHONE4=192.0.2.11
WIRED4=192.0.2.5
CC4=192.0.2.21       CC6=2001:db8::21
ULTRA4=192.0.2.22
MINI_HOST=c8e2f7a0-4b15-4d9e-8a36-17f05b2c9d4e   # "Kitchen Speaker" (Google Home Mini), leads "Downstairs"
MINI4=192.0.2.23
SHIELD4=192.0.2.24   SHIELD6=2001:db8::24
DUP_HOST=5e9a0c7d-3b14-4f62-a8d9-0c2e7b4f1a63     # a second "Living Room TV"
DUP4=192.0.2.25
PRINTER4=192.0.2.30                                # "Office Printer" (_ipp._tcp)
CC4_NEW=192.0.2.31                                 # Living Room TV's new address
REPEATER4=192.0.2.40                               # naive mDNS repeater (repeater)
# advertised-address: A record DATA only (never configured on an interface, nothing is sent
# to them): Docker's default bridge and a link-local address, as real receivers publish them.
DOCKER_A=172.17.0.2   LINKLOCAL_A=169.254.23.1
ROKU4=192.0.2.26                                   # a Roku-style DIAL server (not a Cast device)
ROKU_UUID=295c0004-6807-106d-80cf-0a1b2c3d4e5f
VLAN20_CC4=198.51.100.21                           # Living Room TV on the other VLAN (vlan-separated)
VLAN20_PHONE4=198.51.100.11                        # a phone on that VLAN (vlan-separated)
DNS4=192.0.2.53                                    # the LAN's unicast DNS server (local-name-dns)
VPN4=198.51.100.10                                 # the sender's second interface (wrong-interface)
# connect-wrong-address: the sender's default gateway (192.0.2.1 on the LAN, 198.51.100.1 on a
# second bridge with no other host), and the A record the TV advertises: an address on that
# second network that no host has (nothing answers ARP for it).
GW4=192.0.2.1        GW_FAR4=198.51.100.1
WRONG_A=198.51.100.7

die()  { echo "generate.sh: error: $*" >&2; exit 1; }
note() { printf '%s [%s] %s\n' "$(date +%H:%M:%S)" "${CUR:-main}" "$*"; }

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  echo "captures: ${ALL_CAPTURES[*]}"
}

# --- requirements -----------------------------------------------------------
TSPREC=nano
check_requirements() {
  [[ $EUID -eq 0 ]] || die "must be run as root (sudo $0 ...): it creates network namespaces"
  local -A pkg=([ip]=iproute2 [bridge]=iproute2 [unshare]=util-linux [mount]=mount
               [timeout]=coreutils [avahi-daemon]=avahi-daemon [tcpdump]=tcpdump
               [tshark]=tshark [capinfos]=wireshark-common [$PY]=python3)
  local missing=() c
  for c in "${!pkg[@]}"; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c (Debian package ${pkg[$c]})")
  done
  if command -v "$PY" >/dev/null 2>&1 && ! "$PY" -c 'import zeroconf' 2>/dev/null; then
    missing+=("python module zeroconf for $(command -v "$PY") (pip install zeroconf, or set PYTHON=/path/to/python3)")
  fi
  if ((${#missing[@]})); then
    printf 'generate.sh: missing requirement: %s\n' "${missing[@]}" >&2
    exit 1
  fi
  if ! tcpdump --help 2>&1 | grep -q -- --time-stamp-precision; then
    note "tcpdump has no --time-stamp-precision; captures will have microsecond timestamps"
    TSPREC=""
  fi
  local stale
  stale=$(ip netns list | awk -v p="^${NSP}-" '$1 ~ p {print $1}' | tr '\n' ' ')
  [[ -z $stale ]] || die "namespaces from an earlier run exist: $stale -- remove them with: for n in $stale; do ip netns del \$n; done"
}

# --- bookkeeping and cleanup ------------------------------------------------
declare -a NSES=()       # namespaces created by this run
declare -A PID=()        # name -> pid of background processes started by us
declare -a NFTS=()       # namespaces in which we made the nft table `inet cs`
WORK=""

teardown() {
  local n p ns
  for n in "${!PID[@]}"; do kill -TERM "${PID[$n]}" 2>/dev/null || true; done
  ((${#PID[@]})) && sleep 0.3
  # Anything still running inside our own namespaces was started by us.
  for ns in "${NSES[@]}"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
  done
  for n in "${!PID[@]}"; do wait "${PID[$n]}" 2>/dev/null || true; done
  # (deleting the namespace would drop its nft table too; be explicit anyway)
  for ns in "${NFTS[@]}"; do ip netns exec "$ns" nft delete table inet cs 2>/dev/null || true; done
  for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  NFTS=()
  NSES=()
  PID=()
}

on_exit() {
  local rc=$?
  trap - EXIT INT TERM HUP
  teardown
  if [[ $rc -ne 0 && -n $WORK && -d $WORK ]]; then
    echo "generate.sh: failed (rc=$rc); logs of the failing scenario:" >&2
    for f in "$WORK"/*.log; do [[ -e $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
  fi
  [[ -n $WORK && -d $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}

# --- network helpers --------------------------------------------------------
psys() { # NS KEY VALUE : set a per-namespace sysctl (no procps needed)
  ip netns exec "$1" sh -c "echo $3 > /proc/sys/${2//.//}"
}

mkns() {
  ip netns add "$1"
  NSES+=("$1")
  ip -n "$1" link set lo up
  psys "$1" net.ipv6.conf.all.accept_dad 0
  psys "$1" net.ipv6.conf.default.accept_dad 0
  psys "$1" net.ipv6.conf.default.router_solicitations 0
  psys "$1" net.ipv6.conf.all.router_solicitations 0
}

mkbridge() { # BR [NS]  -- a bridge in the switch namespace (default ${NSP}-br)
  local br=$1 ns=${2:-${NSP}-br}
  if ! ip netns list | grep -qx "$ns\( .*\)\?"; then
    mkns "$ns"
    # the switch itself must not send anything (no IPv6 link-local, MLD, RS)
    psys "$ns" net.ipv6.conf.all.disable_ipv6 1
    psys "$ns" net.ipv6.conf.default.disable_ipv6 1
  fi
  ip -n "$ns" link add "$br" type bridge mcast_snooping 0 stp_state 0
  ip -n "$ns" link set "$br" up
}

# add_host NS IFNAME MAC BR IPV4/LEN|- IPV6/LEN|-
#   creates NS (if needed) and a veth IFNAME in it whose peer is a port of BR
add_host() {
  local ns=$1 ifn=$2 mac=$3 br=$4 ip4=$5 ip6=$6
  local port="p-${ns#${NSP}-}-$ifn"
  port=${port:0:15}
  ip netns list | grep -qx "$ns\( .*\)\?" || mkns "$ns"
  ip -n "$ns" link add "$ifn" address "$mac" type veth peer name "$port" netns ${NSP}-br
  ip -n ${NSP}-br link set "$port" master "$br" up
  [[ $ip4 == - ]] || ip -n "$ns" addr add "$ip4" dev "$ifn"
  [[ $ip6 == - ]] || ip -n "$ns" addr add "$ip6" dev "$ifn" nodad
  ip -n "$ns" link set "$ifn" up
}

# Standard LAN: one bridge, the sender (.10) and the given hosts.
lan() { # [v4|v6|dual]
  local mode=${1:-dual}
  mkbridge br0
  a4() { [[ $mode == v6 ]] && echo - || echo "$1/24"; }
  a6() { [[ $mode == v4 ]] && echo - || echo "$1/64"; }
  add_host ${NSP}-sender eth0 02:ca:57:00:00:10 br0 "$(a4 $SENDER4)" "$(a6 $SENDER6)"
}

# --- process helpers --------------------------------------------------------
spawn() { # NAME NS CMD... : run CMD in NS in the background, log to $WORK/NAME.log
  local name=$1 ns=$2
  shift 2
  ip netns exec "$ns" "$@" >"$WORK/$name.log" 2>&1 &
  PID[$name]=$!
}

wait_log() { # NAME PATTERN [TIMEOUT_S] [COUNT]
  local name=$1 pat=$2 t=${3:-10} count=${4:-1} i
  for ((i = 0; i < t * 10; i++)); do
    local seen
    seen=$(grep -c -- "$pat" "$WORK/$name.log" 2>/dev/null) || seen=0
    ((seen >= count)) && return 0
    if ! kill -0 "${PID[$name]}" 2>/dev/null; then
      cat "$WORK/$name.log" >&2
      die "$name exited before printing '$pat'"
    fi
    sleep 0.1
  done
  cat "$WORK/$name.log" >&2
  die "timeout waiting for '$pat' from $name"
}

finish() { # NAME [TIMEOUT_S] : wait for a foreground-ish job to end by itself
  local name=$1 t=${2:-30} rc=0
  for ((i = 0; i < t * 10; i++)); do
    kill -0 "${PID[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  wait "${PID[$name]}" || rc=$?
  unset "PID[$name]"
  return $rc
}

stop() { # NAME [SIGNAL] : stop a background process by its pid and wait for it
  local name=$1 sig=${2:-INT}
  [[ -n ${PID[$name]:-} ]] || return 0
  kill -s "$sig" "${PID[$name]}" 2>/dev/null || true
  wait "${PID[$name]}" 2>/dev/null || true
  unset "PID[$name]"
}

# start_avahi NAME NS HOSTNAME "SERVICEFILES" [use-ipv4] [use-ipv6] [reflector] [ifaces]
#   one avahi-daemon per namespace: own config, own services dir (bind-mounted
#   over /etc/avahi/services in a private mount namespace), private /run.
start_avahi() {
  local name=$1 ns=$2 host=$3 services=$4 v4=${5:-yes} v6=${6:-no} refl=${7:-no} ifaces=${8:-eth0}
  local d=$WORK/$name f publish=yes
  rm -rf "$d" # no service files left over from an earlier scenario in this run
  mkdir -p "$d/services"
  for f in $services; do cp "$TOOLS/avahi/$f" "$d/services/"; done
  [[ $refl == yes ]] && publish=no
  cat >"$d/avahi-daemon.conf" <<EOF
[server]
host-name=$host
domain-name=local
use-ipv4=$v4
use-ipv6=$v6
allow-interfaces=$ifaces
enable-dbus=no
ratelimit-interval-usec=1000000
ratelimit-burst=1000

[wide-area]
enable-wide-area=no

[publish]
disable-publishing=$([[ $publish == yes ]] && echo no || echo yes)
publish-addresses=$publish
publish-hinfo=no
publish-workstation=no
publish-domain=no
publish-aaaa-on-ipv4=no
publish-a-on-ipv6=no

[reflector]
enable-reflector=$refl
reflect-ipv=no

[rlimits]
EOF
  # shellcheck disable=SC2016
  spawn "$name" "$ns" unshare -m sh -c '
    mount --make-rprivate / &&
    mount -t tmpfs -o mode=0755 tmpfs /run &&
    mkdir -p /run/avahi-daemon &&
    mount --bind "$1" /etc/avahi/services &&
    exec avahi-daemon --no-chroot --no-drop-root --no-rlimits -f "$2"' \
    sh "$d/services" "$d/avahi-daemon.conf"
}

# start_capture NS IFACE NAME [extra tcpdump args]
start_capture() {
  local ns=$1 ifc=$2 name=$3
  shift 3
  CAPFILE=$WORK/$name.pcap
  spawn tcpdump "$ns" tcpdump -i "$ifc" -n -U -Z root ${TSPREC:+--time-stamp-precision=$TSPREC} -w "$CAPFILE" "$@"
  wait_log tcpdump "listening on" 10
  sleep 0.5
}

stop_capture() { # NAME : stop tcpdump cleanly and move the file into place
  local name=$1
  sleep 0.5
  stop tcpdump INT
  grep -E "captured|dropped by kernel" "$WORK/tcpdump.log" | sed 's/^/    tcpdump: /'
  [[ -s $CAPFILE ]] || die "no capture written"
  mv -f "$CAPFILE" "$OUT/$name.pcap"
  chmod 0644 "$OUT/$name.pcap"
  note "wrote $OUT/$name.pcap ($(capinfos -c -M "$OUT/$name.pcap" | awk -F': *' '/Number of packets/{print $2}') packets)"
}

show_log() { sed "s/^/    $1: /" "$WORK/$1.log"; }

# capture_browse NAME : capture NAME on the sender's eth0 while it browses for
# Cast devices (cast_browser.py, IPv4, 6 s), then show the browser's log
capture_browse() {
  local name=$1
  start_capture ${NSP}-sender eth0 "$name"
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 6
  finish browser 20
  stop_capture "$name"
  show_log browser
}

# --- scenarios ---------------------------------------------------------------
# Each cap_* function builds its own topology; teardown runs after each.

cap_healthy-ipv4() {
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5 # let avahi finish probing/announcing before the capture starts
  capture_browse healthy-ipv4
}

cap_multi-device() {
  lan v4
  add_host ${NSP}-tv eth0 02:ca:57:00:00:22 br0 $ULTRA4/24 -
  add_host ${NSP}-speaker eth0 02:ca:57:00:00:23 br0 $MINI4/24 -
  start_avahi tv ${NSP}-tv $ULTRA_HOST chromecast-ultra.service yes no
  spawn speaker ${NSP}-speaker "$PY" "$TOOLS/cast_responder.py" --spec "$TOOLS/zc/home-mini-and-group.json" --ip $MINI4 --ip-version v4
  wait_log tv "successfully established" 15
  wait_log speaker "ready" 15
  sleep 5
  start_capture ${NSP}-sender eth0 multi-device
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 8 \
    --type _googlecast._tcp.local. --type _CC1AD845._sub._googlecast._tcp.local.
  finish browser 25
  stop_capture multi-device
  show_log browser
}

cap_goodbye() {
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_capture ${NSP}-sender eth0 goodbye
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 1
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 12
  wait_log browser "resolved" 10
  sleep 4
  note "stopping avahi-daemon with SIGINT (goodbye packets)"
  stop dev1 INT
  finish browser 25
  stop_capture goodbye
  show_log browser
}

cap_any-sll2() {
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  start_capture ${NSP}-sender any any-sll2 -y LINUX_SLL2
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 6
  finish browser 20
  stop_capture any-sll2
  show_log browser
}

cap_ipv6() {
  lan v6
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 - $CC6/64
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service no yes
  wait_log dev1 "successfully established" 15
  sleep 5
  start_capture ${NSP}-sender eth0 ipv6
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip-version v6 --duration 6
  finish browser 20
  stop_capture ipv6
  show_log browser
}

cap_fragmented() {
  lan dual
  add_host ${NSP}-shield eth0 02:ca:57:00:00:24 br0 $SHIELD4/24 $SHIELD6/64
  # capture from the start: the responder's multicast announcements are
  # fragmented too (IPv4 to 224.0.0.251 and IPv6 to ff02::fb)
  start_capture ${NSP}-sender eth0 fragmented
  spawn shield ${NSP}-shield "$PY" "$TOOLS/cast_responder.py" --spec "$TOOLS/zc/shield-big-txt.json" \
    --ip $SHIELD4 --ip6 $SHIELD6 --ip-version all
  wait_log shield "ready" 15
  sleep 3
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version all --duration 5
  finish browser 20
  stop_capture fragmented
  show_log browser
}

cap_legacy-unicast() {
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  start_capture ${NSP}-sender eth0 legacy-unicast
  spawn legacy ${NSP}-sender "$PY" "$TOOLS/legacy_query.py" --ip $SENDER4 --wait 3
  finish legacy 20
  stop_capture legacy-unicast
  show_log legacy
}

cap_dial-ssdp() {
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_capture ${NSP}-sender eth0 dial-ssdp
  spawn ssdpdev ${NSP}-dev1 "$PY" "$TOOLS/ssdp_device.py" --ip $CC4 --uuid $CC_HOST --name "Living Room TV"
  wait_log ssdpdev "NOTIFY ssdp:alive" 10
  sleep 1
  spawn search ${NSP}-sender "$PY" "$TOOLS/ssdp_search.py" --ip $SENDER4
  finish search 20
  sleep 0.5
  stop ssdpdev INT
  stop_capture dial-ssdp
  show_log search
  show_log ssdpdev
}

# A Chrome-style DIAL search answered by a Chromecast-style device and by a Roku-style DIAL
# server (port 1900, LOCATION :8060/dial/dd.xml, as the Roku in ndpi/anyconnect-vpn.pcap).
cap_dial-other-device() {
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-roku eth0 02:ca:57:00:00:26 br0 $ROKU4/24 -
  start_capture ${NSP}-sender eth0 dial-other-device
  spawn ssdpdev ${NSP}-dev1 "$PY" "$TOOLS/ssdp_device.py" --ip $CC4 --uuid $CC_HOST --name "Living Room TV" --no-http
  spawn roku ${NSP}-roku "$PY" "$TOOLS/ssdp_device.py" --ip $ROKU4 --uuid $ROKU_UUID --style roku \
    --mac 02:ca:57:00:00:26 --seed 8060
  wait_log ssdpdev "NOTIFY ssdp:alive" 10
  wait_log roku "listening" 10
  sleep 1
  spawn search ${NSP}-sender "$PY" "$TOOLS/ssdp_search.py" --ip $SENDER4 --no-fetch
  finish search 20
  sleep 0.5
  stop ssdpdev INT
  stop roku INT
  stop_capture dial-other-device
  show_log search
  show_log ssdpdev
  show_log roku
}

# A Chrome-style DIAL search that only a Roku-style DIAL server answers: no Cast device.
cap_dial-unanswered() {
  lan v4
  add_host ${NSP}-roku eth0 02:ca:57:00:00:26 br0 $ROKU4/24 -
  start_capture ${NSP}-sender eth0 dial-unanswered
  spawn roku ${NSP}-roku "$PY" "$TOOLS/ssdp_device.py" --ip $ROKU4 --uuid $ROKU_UUID --style roku \
    --mac 02:ca:57:00:00:26 --seed 8060
  wait_log roku "listening" 10
  sleep 1
  spawn search ${NSP}-sender "$PY" "$TOOLS/ssdp_search.py" --ip $SENDER4 --no-fetch
  finish search 20
  sleep 0.5
  stop roku INT
  stop_capture dial-unanswered
  show_log search
  show_log roku
}

cap_client-isolation() {
  # Wi-Fi client isolation: the sender and the Chromecast are both "wireless
  # clients" on isolated bridge ports, so nothing passes between them in
  # either direction.  A wired host (192.0.2.5, e.g. a Home Assistant box) on a
  # normal port still sees the device and is seen by the sender.
  lan v4
  add_host ${NSP}-wired eth0 02:ca:57:00:00:05 br0 $WIRED4/24 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  ip -n ${NSP}-br link set dev p-sender-eth0 type bridge_slave isolated on
  ip -n ${NSP}-br link set dev p-dev1-eth0 type bridge_slave isolated on
  start_capture ${NSP}-sender eth0 client-isolation
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 1
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 10
  sleep 4
  spawn wired ${NSP}-wired "$PY" "$TOOLS/cast_browser.py" --ip $WIRED4 --ip-version v4 --duration 4
  finish wired 20
  finish browser 25
  stop_capture client-isolation
  show_log browser
  show_log wired
}

cap_own-queries-dropped() {
  command -v iptables-legacy >/dev/null 2>&1 || die "own-queries-dropped needs iptables-legacy (apt-get install iptables)"
  # Only the capture host's own mDNS queries are lost on the way to the
  # device (HA#43652-style: "answers only arrived when a phone queried").
  # Modelled with a filter on the device's side of the link; on the wire at
  # the sender this is the same as an AP/switch dropping them.  Everything the
  # device multicasts still reaches the sender.
  lan v4
  add_host ${NSP}-phone eth0 02:ca:57:00:00:11 br0 $PHONE4/24 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  ip netns exec ${NSP}-dev1 iptables-legacy -A INPUT -s $SENDER4 -p udp --dport 5353 -j DROP
  start_capture ${NSP}-sender eth0 own-queries-dropped
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 4 # announcements are over before the sender starts browsing
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 12
  sleep 6
  note "phone queries"
  spawn phone ${NSP}-phone "$PY" "$TOOLS/cast_browser.py" --ip $PHONE4 --ip-version v4 --duration 3
  finish phone 20
  finish browser 25
  stop_capture own-queries-dropped
  show_log browser
  show_log phone
}

cap_reflector() {
  # Two subnets 192.0.2.0/25 (br0: sender) and 192.0.2.128/25 (br1: device)
  # joined by a router namespace running avahi-daemon with enable-reflector=yes.
  mkbridge br0
  mkbridge br1
  add_host ${NSP}-sender eth0 02:ca:57:00:00:10 br0 $SENDER4/25 -
  add_host ${NSP}-router eth0 02:ca:57:00:00:01 br0 192.0.2.1/25 -
  add_host ${NSP}-router eth1 02:ca:57:00:01:29 br1 192.0.2.129/25 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:01:50 br1 192.0.2.150/25 -
  psys ${NSP}-router net.ipv4.ip_forward 1
  ip -n ${NSP}-sender route add 192.0.2.128/25 via 192.0.2.1
  ip -n ${NSP}-dev1 route add 192.0.2.0/25 via 192.0.2.129
  start_avahi router ${NSP}-router reflector "" yes no yes eth0,eth1
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log router "Server startup complete" 15
  wait_log dev1 "successfully established" 15
  sleep 5
  capture_browse reflector
}

# --- diagnosis scenarios (issue #4) -----------------------------------------

cap_no-cast-queries() {
  # A Cast device and a printer announce themselves and the sender browses
  # for printers (_ipp._tcp), but nothing ever asks for _googlecast._tcp --
  # what a capture looks like when an iOS app was denied Local Network access.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-printer eth0 02:ca:57:00:00:30 br0 $PRINTER4/24 -
  start_capture ${NSP}-sender eth0 no-cast-queries
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  start_avahi printer ${NSP}-printer office-printer printer.service yes no
  wait_log dev1 "successfully established" 15
  wait_log printer "successfully established" 15
  sleep 3
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 6 \
    --type _ipp._tcp.local.
  finish browser 20
  stop_capture no-cast-queries
  show_log browser
}

cap_no-mdns() {
  # Only ordinary unicast traffic: ARP, ICMP echo, a UDP echo exchange on
  # port 7.  No mDNS daemon runs anywhere.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  spawn echo ${NSP}-dev1 "$PY" "$TOOLS/plain_traffic.py" server --ip $CC4 --port 7 --duration 15
  wait_log echo "listening" 10
  start_capture ${NSP}-sender eth0 no-mdns
  spawn plain ${NSP}-sender "$PY" "$TOOLS/plain_traffic.py" client --ip $SENDER4 --peer $CC4 --port 7 --count 3
  finish plain 20
  stop echo TERM
  stop_capture no-mdns
  show_log plain
}

cap_app-id-unanswered() {
  # The sender browses the base type and the app-ID subtype of an app that no
  # device publishes (_DEADBEEF); the Bedroom TV publishes only _CC1AD845.
  # The capture starts before avahi, so its announcements (which include the
  # _CC1AD845 subtype PTR) show which app ID the device does publish.  The
  # browser is a fresh process, so it has none of them cached.
  lan v4
  add_host ${NSP}-tv eth0 02:ca:57:00:00:22 br0 $ULTRA4/24 -
  start_capture ${NSP}-sender eth0 app-id-unanswered
  start_avahi tv ${NSP}-tv $ULTRA_HOST chromecast-ultra.service yes no
  wait_log tv "successfully established" 15
  sleep 4
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 8 \
    --type _googlecast._tcp.local. --type _DEADBEEF._sub._googlecast._tcp.local.
  finish browser 25
  stop_capture app-id-unanswered
  show_log browser
}

cap_incomplete-resolution() {
  # A broken responder answers the PTR query with the PTR only and ignores
  # the browser's SRV/TXT/A follow-up queries.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --mode ptr-only --delay 0.08
  wait_log dev1 "ready" 10
  start_capture ${NSP}-sender eth0 incomplete-resolution
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 8
  finish browser 25
  stop dev1 INT
  stop_capture incomplete-resolution
  show_log browser
  show_log dev1
}

cap_txt-missing-fn() {
  # healthy-ipv4 with a TXT record that lacks the fn (friendly name) key.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast-no-fn.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  capture_browse txt-missing-fn
}

cap_device-expired() {
  # python-zeroconf device with 10 s TTLs on every record; it is discovered,
  # then killed with SIGKILL (no goodbye).  The sender keeps browsing for
  # ~35 s: its refresh queries (80-95 % of the TTL) go unanswered and the
  # records expire.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/cast_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --ip-version v4 --host-ttl 10 --other-ttl 10
  wait_log dev1 "ready" 15
  sleep 3 # announcements are over before the capture starts
  start_capture ${NSP}-sender eth0 device-expired
  # rfc_browser.py, not cast_browser.py: python-zeroconf's cache raises PTR
  # TTLs below 1125 s to 1125 s, so it would neither refresh nor expire.
  spawn browser ${NSP}-sender "$PY" "$TOOLS/rfc_browser.py" --ip $SENDER4 --duration 38
  wait_log browser "resolved" 10
  sleep 2
  note "killing the device with SIGKILL (no goodbye)"
  stop dev1 KILL
  wait_log browser "remove" 20
  finish browser 45
  stop_capture device-expired
  show_log browser
}

cap_slow-response() {
  # A Chromecast-like responder that answers every PTR query only after
  # 700 ms.  Two sender runs one after the other (fresh caches), so two
  # queries are answered late.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --mode full --delay 0.7
  wait_log dev1 "ready" 10
  start_capture ${NSP}-sender eth0 slow-response
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 3
  finish browser 20
  show_log browser
  sleep 1
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 3
  finish browser 20
  stop dev1 INT
  stop_capture slow-response
  show_log browser
  show_log dev1
}

cap_duplicate-name() {
  # Two different Chromecasts (ids, hosts, addresses) both named
  # "Living Room TV".
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-dev2 eth0 02:ca:57:00:00:25 br0 $DUP4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  start_avahi dev2 ${NSP}-dev2 $DUP_HOST chromecast-living-room-2.service yes no
  wait_log dev1 "successfully established" 15
  wait_log dev2 "successfully established" 15
  sleep 5
  capture_browse duplicate-name
}

cap_address-changed() {
  # The Living Room TV is discovered at 192.0.2.21, then its address changes
  # to 192.0.2.31 (as after a new DHCP lease); avahi re-announces the host
  # with the new A record (cache-flush).
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  start_capture ${NSP}-sender eth0 address-changed
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 14
  wait_log browser "resolved" 10
  sleep 3
  note "changing the device's address $CC4 -> $CC4_NEW"
  ip -n ${NSP}-dev1 addr del $CC4/24 dev eth0
  ip -n ${NSP}-dev1 addr add $CC4_NEW/24 dev eth0
  finish browser 30
  stop_capture address-changed
  show_log browser
  show_log dev1
}

cap_query-storm() {
  # A sender that multicasts PTR _googlecast._tcp.local every 100-200 ms for
  # 5 s, without known answers; the Living Room TV (avahi) answers.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  start_capture ${NSP}-sender eth0 query-storm
  spawn storm ${NSP}-sender "$PY" "$TOOLS/query_storm.py" --ip $SENDER4 --duration 5
  finish storm 20
  stop_capture query-storm
  show_log storm
}

cap_repeater() {
  # healthy-ipv4 plus a third host on the same bridge running a naive mDNS
  # repeater (tools/naive_repeater.py): it re-multicasts every response it
  # hears, unchanged, from 192.0.2.40 with the default multicast TTL 1.  The
  # sender hears each answer twice: from 192.0.2.21 (TTL 255) and from the
  # repeater (TTL 1).
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-repeater eth0 02:ca:57:00:00:40 br0 $REPEATER4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  spawn repeater ${NSP}-repeater "$PY" "$TOOLS/naive_repeater.py" --ip $REPEATER4
  wait_log repeater "ready" 10
  sleep 5 # avahi's probing/announcing (and the repeats of it) are over
  capture_browse repeater
  show_log repeater
}

cap_vlan-separated() {
  # Sender and Chromecast on two VLANs with no mDNS gateway between them.
  # VLAN 10 = br0 (sender 192.0.2.10/24), VLAN 20 = br1 (Living Room TV at
  # 198.51.100.21/24, avahi, and a phone at 198.51.100.11 that browses and is
  # answered).  The kernel here has no 8021q module, so the VLANs are two
  # separate bridges: each access port is recorded (the sender's and the
  # device's eth0) and tools/vlan_trunk.py merges the two files into one
  # trunk capture, tagging every frame with its port's VLAN (802.1Q, added
  # in user space after capture).
  mkbridge br0
  mkbridge br1
  add_host ${NSP}-sender eth0 02:ca:57:00:00:10 br0 $SENDER4/24 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:01:21 br1 $VLAN20_CC4/24 -
  add_host ${NSP}-phone eth0 02:ca:57:00:01:11 br1 $VLAN20_PHONE4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  local a=$WORK/vlan10.pcap b=$WORK/vlan20.pcap
  spawn tcpdump ${NSP}-sender tcpdump -i eth0 -n -U -Z root ${TSPREC:+--time-stamp-precision=$TSPREC} -w "$a"
  spawn tcpdump20 ${NSP}-dev1 tcpdump -i eth0 -n -U -Z root ${TSPREC:+--time-stamp-precision=$TSPREC} -w "$b"
  wait_log tcpdump "listening on" 10
  wait_log tcpdump20 "listening on" 10
  sleep 0.5
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 6
  sleep 1
  spawn phone ${NSP}-phone "$PY" "$TOOLS/cast_browser.py" --ip $VLAN20_PHONE4 --ip-version v4 --duration 4
  finish phone 20
  finish browser 20
  sleep 0.5
  stop tcpdump INT
  stop tcpdump20 INT
  [[ -s $a && -s $b ]] || die "no capture written"
  "$PY" "$TOOLS/vlan_trunk.py" -o "$OUT/vlan-separated.pcap" "$a:10" "$b:20"
  chmod 0644 "$OUT/vlan-separated.pcap"
  note "wrote $OUT/vlan-separated.pcap ($(capinfos -c -M "$OUT/vlan-separated.pcap" | awk -F': *' '/Number of packets/{print $2}') packets)"
}

cap_cached-address() {
  # A conforming answer that leaves out a record the sender already has: the
  # sender (rfc_browser.py) listens, the responder (tools/hand_responder.py
  # --announce-address, on SIGUSR1) multicasts its A record alone, the sender
  # queries 0.6 s after it started, and the answer, sent less than 1 s after
  # the A, is PTR+SRV+TXT only (RFC 6762 §6 rate limit, §7.4; avahi does the
  # same). The device is resolved by that answer: the A is in the sender's
  # cache, and it asks no A question.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --mode full --delay 0.1 --announce-address
  wait_log dev1 "ready" 10
  start_capture ${NSP}-sender eth0 cached-address
  spawn browser ${NSP}-sender "$PY" "$TOOLS/rfc_browser.py" --ip $SENDER4 --duration 3 --first-query 0.6
  wait_log browser "browsing" 10
  kill -USR1 "${PID[dev1]}"
  wait_log dev1 "announced A" 5
  finish browser 20
  stop dev1 INT
  stop_capture cached-address
  show_log browser
  show_log dev1
}

cap_local-name-dns() {
  # The sender finds the Living Room TV over mDNS (rfc_browser.py resolves
  # PTR, SRV, TXT and A), then, like a sender whose resolver does not do mDNS
  # (no nss-mdns, a container, Node's dns.lookup), asks its ordinary DNS
  # server 192.0.2.53 (tools/nxdomain_dns.py, on the same LAN) for the SRV
  # target <uuid>.local over UDP port 53 (tools/unicast_lookup.py): NXDOMAIN.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-dns eth0 02:ca:57:00:00:53 br0 $DNS4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  spawn dns ${NSP}-dns "$PY" "$TOOLS/nxdomain_dns.py" --ip $DNS4
  wait_log dev1 "successfully established" 15
  wait_log dns "ready" 10
  sleep 5
  start_capture ${NSP}-sender eth0 local-name-dns
  spawn browser ${NSP}-sender "$PY" "$TOOLS/rfc_browser.py" --ip $SENDER4 --duration 4
  wait_log browser "resolved" 10
  spawn lookup ${NSP}-sender "$PY" "$TOOLS/unicast_lookup.py" --ip $SENDER4 --server $DNS4 --name $CC_HOST.local
  finish lookup 10
  finish browser 20
  stop dns INT
  stop_capture local-name-dns
  show_log browser
  show_log lookup
  show_log dns
}

cap_wrong-interface() {
  # The sender has two interfaces: eth0 on the LAN (192.0.2.10/24, bridge
  # br0, with the Living Room TV and a phone) and eth1 on a second bridge br1
  # (198.51.100.10/24, nobody else: a VPN, Docker or tethering link). Its
  # browser (rfc_browser.py --ip 198.51.100.10) sends every query out of eth1;
  # the phone (192.0.2.11) browses on the LAN and is answered. Captured with
  # tcpdump -i any in the sender's namespace (LINUX_SLL2), so both links show.
  lan v4
  mkbridge br1
  add_host ${NSP}-sender eth1 02:ca:57:00:01:10 br1 $VPN4/24 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-phone eth0 02:ca:57:00:00:11 br0 $PHONE4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5
  start_capture ${NSP}-sender any wrong-interface
  spawn browser ${NSP}-sender "$PY" "$TOOLS/rfc_browser.py" --ip $VPN4 --duration 5
  sleep 1
  spawn phone ${NSP}-phone "$PY" "$TOOLS/rfc_browser.py" --ip $PHONE4 --duration 3
  finish phone 15
  finish browser 15
  stop_capture wrong-interface
  show_log browser
  show_log phone
}

cap_multicast-decayed() {
  # Multicast dies after a while: the sender and the device are joined by a
  # user-space "access point" (tools/multicast_pruner.py, two veths, no
  # bridge) that forwards everything for 20 s and then drops multicast
  # frames from the device's side, while unicast keeps passing (an AP whose
  # multicast-to-unicast conversion forgot the sender).  The device
  # (hand_responder.py, PTR TTL 10 s) answers QM queries by multicast, QU
  # queries by unicast, and announces every 10 s.  The sender (rfc_browser.py)
  # sends a QM query every 3 s (with known answers) and a QU query every 10 s.
  mkns ${NSP}-ap
  psys ${NSP}-ap net.ipv6.conf.all.disable_ipv6 1
  psys ${NSP}-ap net.ipv6.conf.default.disable_ipv6 1
  mkns ${NSP}-sender
  mkns ${NSP}-dev1
  ip -n ${NSP}-sender link add eth0 address 02:ca:57:00:00:10 type veth peer name s0 netns ${NSP}-ap
  ip -n ${NSP}-dev1 link add eth0 address 02:ca:57:00:00:21 type veth peer name d0 netns ${NSP}-ap
  local ns
  for ns in ${NSP}-sender ${NSP}-dev1; do psys $ns net.ipv6.conf.eth0.disable_ipv6 1; done
  ip -n ${NSP}-sender addr add $SENDER4/24 dev eth0
  ip -n ${NSP}-dev1 addr add $CC4/24 dev eth0
  ip -n ${NSP}-ap link set s0 promisc on up
  ip -n ${NSP}-ap link set d0 promisc on up
  ip -n ${NSP}-sender link set eth0 up
  ip -n ${NSP}-dev1 link set eth0 up
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --mode full --ptr-ttl 10 --qu-unicast --announce-every 10
  wait_log dev1 "ready" 10
  start_capture ${NSP}-sender eth0 multicast-decayed
  spawn pruner ${NSP}-ap "$PY" "$TOOLS/multicast_pruner.py" --sender-side s0 --device-side d0 --pass-seconds 20
  wait_log pruner "ready" 10
  spawn browser ${NSP}-sender "$PY" "$TOOLS/rfc_browser.py" --ip $SENDER4 --duration 47 --qm-every 3 --qu-every 10
  finish browser 60
  stop pruner INT
  stop dev1 INT
  stop_capture multicast-decayed
  show_log browser
  show_log pruner
}

# --- main -------------------------------------------------------------------
cap_advertised-address() {
  # Two hand-built responders (tools/hand_responder.py --advertise) on the
  # sender's LAN whose A records are not where they are.  Living Room TV
  # (192.0.2.21) gives only 172.17.0.2, as a receiver in a Docker container
  # with bridge networking publishes the container's address; the Home Mini
  # (192.0.2.23) gives its own address and also 169.254.23.1 (a second
  # interface without a DHCP lease).  Those two addresses are record data
  # only: no interface has them and nothing is sent to them.
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-speaker eth0 02:ca:57:00:00:23 br0 $MINI4/24 -
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --advertise $DOCKER_A --mode full
  spawn speaker ${NSP}-speaker "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/home-mini-and-group.json" \
    --ip $MINI4 --advertise $MINI4 --advertise $LINKLOCAL_A --mode full --delay 0.09
  wait_log dev1 "ready" 10
  wait_log speaker "ready" 10
  capture_browse advertised-address
  stop dev1 INT
  stop speaker INT
  show_log dev1
  show_log speaker
}

cap_relayed-queries() {
  # Subnet A 192.0.2.0/25 (br0): the sender (.10) and a phone (.11) browse.
  # Subnet B 192.0.2.128/25 (br1): the device (.150, tools/hand_responder.py
  # with the RFC 6762 §11 source check Chromecasts do: --on-link-only) and an
  # on-link querier (.140).  A relay host (192.0.2.1 on br0, 192.0.2.129 on
  # br1) runs tools/query_relay.py: in user space it copies every query from
  # br0 to br1 with the original source address and TTL, in a frame from its
  # own MAC (an L2-rewriting reflector).  Captured on the device's side (br1).
  mkbridge br0
  mkbridge br1
  add_host ${NSP}-sender eth0 02:ca:57:00:00:10 br0 $SENDER4/25 -
  add_host ${NSP}-phone eth0 02:ca:57:00:00:11 br0 $PHONE4/25 -
  add_host ${NSP}-relay eth0 02:ca:57:00:00:01 br0 192.0.2.1/25 -
  add_host ${NSP}-relay eth1 02:ca:57:00:01:29 br1 192.0.2.129/25 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:01:50 br1 192.0.2.150/25 -
  add_host ${NSP}-local eth0 02:ca:57:00:01:40 br1 192.0.2.140/25 -
  # a route back, so that the kernel's reverse-path check lets the queries reach the responder
  ip -n ${NSP}-dev1 route add 192.0.2.0/25 via 192.0.2.129
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip 192.0.2.150 --mode full --on-link-only 192.0.2.128/25
  spawn relay ${NSP}-relay "$PY" "$TOOLS/query_relay.py" --from eth0 --to eth1 --own-ip 192.0.2.1 --duration 30
  wait_log dev1 "ready" 10
  wait_log relay "ready" 10
  start_capture ${NSP}-dev1 eth0 relayed-queries
  spawn local ${NSP}-local "$PY" "$TOOLS/cast_browser.py" --ip 192.0.2.140 --ip-version v4 --duration 8
  sleep 1
  spawn browser ${NSP}-sender "$PY" "$TOOLS/cast_browser.py" --ip $SENDER4 --ip-version v4 --duration 6
  spawn phone ${NSP}-phone "$PY" "$TOOLS/cast_browser.py" --ip $PHONE4 --ip-version v4 --duration 6
  finish browser 20
  finish phone 20
  finish local 20
  stop relay INT
  stop dev1 INT
  stop_capture relayed-queries
  show_log relay
  show_log dev1
}

# --- after discovery: TCP and TLS to the advertised address and port -------

# nft_input NS RULE... : add RULE to an input chain in NS (table `inet cs`,
#   made on first use and deleted again by teardown)
nft_input() {
  local ns=$1
  shift
  if ! ip netns exec "$ns" nft list table inet cs >/dev/null 2>&1; then
    ip netns exec "$ns" nft add table inet cs
    NFTS+=("$ns")
    ip netns exec "$ns" nft add chain inet cs in '{ type filter hook input priority 0; }'
  fi
  ip netns exec "$ns" nft add rule inet cs in "$@"
  ip netns exec "$ns" nft list chain inet cs in | sed -n 's/^\t\t/    nft: /p'
}

# make_cert DIR CN : a throw-away self-signed certificate DIR/cert.pem + DIR/key.pem
#   (in $WORK, so removed on exit; never written into captures/)
make_cert() {
  local d=$1 cn=$2
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -subj "/CN=$cn" -days 2 \
    -keyout "$d/key.pem" -out "$d/cert.pem" >"$WORK/openssl.log" 2>&1 ||
    { cat "$WORK/openssl.log" >&2; die "openssl req failed"; }
  chmod 0600 "$d/key.pem"
}

# capture_connect NAME OUTCOME : the sender (tools/cast_connect.py) discovers
# the Living Room TV (avahi, 192.0.2.21, SRV port 8009), connects to the
# advertised address and port and, once connected, does a TLS handshake, as a
# Cast sender does after discovery.  What the TV's namespace does with TCP
# port 8009 decides OUTCOME (established, refused, timeout, unreachable);
# cast_connect.py --expect fails the scenario if it gets anything else.
capture_connect() {
  local name=$1 want=$2 rc=0
  lan v4
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  case $want in
    established) # a real TLS listener on 8009, with a certificate made now
      make_cert "$WORK/tls" $CC_HOST
      spawn tls ${NSP}-dev1 "$PY" "$TOOLS/tls_listener.py" --ip $CC4 --port 8009 \
        --cert "$WORK/tls/cert.pem" --key "$WORK/tls/key.pem"
      wait_log tls "ready" 10 ;;
    refused) ;; # nothing listens on 8009: the kernel answers the SYN with RST
    timeout) nft_input ${NSP}-dev1 tcp dport 8009 drop ;;
    unreachable) nft_input ${NSP}-dev1 tcp dport 8009 reject with icmp type port-unreachable ;;
    *) die "capture_connect: unknown outcome $want" ;;
  esac
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5 # avahi's probing/announcing is over before the capture starts
  start_capture ${NSP}-sender eth0 "$name"
  # connect timeout 4.5 s: room for at least 2 SYN retransmissions (classic backoff
  # sends them at about 1 s and 3 s; Linux >= 6.7, as here, at 1, 2, 3 and 4 s)
  spawn connect ${NSP}-sender "$PY" "$TOOLS/cast_connect.py" --ip $SENDER4 --timeout 4.5 --linger 1 \
    --expect "$want"
  finish connect 30 || rc=$?
  ((rc == 0)) || { show_log connect; die "cast_connect.py: outcome is not $want (rc=$rc)"; }
  [[ $want != established ]] || stop tls INT
  # tcpdump gets packets from the kernel in blocks that are handed over after
  # up to 1 s; wait that long so the last query and the IGMP leave are kept
  sleep 1
  stop_capture "$name"
  show_log connect
  [[ $want != established ]] || { show_log tls; rm -rf "$WORK/tls"; }
}

cap_connect-established() { capture_connect connect-established established; }
cap_connect-refused() { capture_connect connect-refused refused; }
cap_connect-timeout() { capture_connect connect-timeout timeout; }
cap_connect-unreachable() { capture_connect connect-unreachable unreachable; }

cap_connect-wrong-address() {
  # The Living Room TV is tools/hand_responder.py --mode full at 192.0.2.21,
  # but its A record gives 198.51.100.7 (--advertise), as a receiver in a
  # Docker container or on a multi-homed host publishes a bridge address.
  # The sender's default route is a router (192.0.2.1 on br0, IPv4
  # forwarding on, 198.51.100.1/24 on br1, where no host has 198.51.100.7).
  # cast_connect.py connects to the resolved 198.51.100.7:8009: the SYN goes
  # to the router's MAC, the router ARPs on br1 in vain and, when neighbour
  # resolution fails (3 probes 1 s apart), answers every queued SYN with ICMP
  # host unreachable (type 3 code 1) from 192.0.2.1.  connect() then fails
  # with EHOSTUNREACH, and the ICMP is read from the socket's error queue.
  local rc=0
  lan v4
  mkbridge br1
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  add_host ${NSP}-router eth0 02:ca:57:00:00:01 br0 $GW4/24 -
  add_host ${NSP}-router eth1 02:ca:57:00:01:01 br1 $GW_FAR4/24 -
  psys ${NSP}-router net.ipv4.ip_forward 1
  ip -n ${NSP}-sender route add default via $GW4
  spawn dev1 ${NSP}-dev1 "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/living-room-tv.json" \
    --ip $CC4 --advertise $WRONG_A --mode full
  wait_log dev1 "ready" 10
  sleep 3 # the hosts' link-up IPv6 traffic (MLD reports) is over before the capture starts
  start_capture ${NSP}-sender eth0 connect-wrong-address
  # connect timeout 6 s: the router gives up on ARP and sends the ICMP about 3 s after the first SYN
  spawn connect ${NSP}-sender "$PY" "$TOOLS/cast_connect.py" --ip $SENDER4 --allow 198.51.100.0/24 \
    --timeout 6 --linger 1 --expect unreachable
  finish connect 30 || rc=$?
  ((rc == 0)) || { show_log connect; die "cast_connect.py: outcome is not unreachable (rc=$rc)"; }
  grep -q "\"address\": \"$WRONG_A\".*\"icmp\": {\"type\": 3, \"code\": 1, \"from\": \"$GW4\"" "$WORK/connect.log" ||
    { show_log connect; die "cast_connect.py: no ICMP host unreachable from $GW4 for $WRONG_A"; }
  sleep 1 # as in capture_connect: let tcpdump get the last block from the kernel
  stop dev1 INT
  stop_capture connect-wrong-address
  show_log connect
  show_log dev1
}

# --- the sender's own firewall rejects mDNS ----------------------------------

cap_mdns-port-unreachable() {
  # A host firewall on the sender rejects incoming mDNS (as a firewalld zone
  # without the mdns service, or a Windows Public-profile rule, would): an nft
  # rule in the sender's namespace rejects UDP to port 5353 with ICMP port
  # unreachable.  Its own queries still leave.  What reaches it by multicast
  # is dropped without a word (Linux sends no ICMP error for a datagram to a
  # multicast group); a unicast answer to 192.0.2.10:5353 gets ICMP type 3
  # code 3 from the sender's kernel.
  # avahi 0.8 answers a QU question by unicast only when it multicast the same
  # records less than 500 ms earlier (AVAHI_RESPONSE_HISTORY_MSEC, its
  # duplicate suppression); otherwise it multicasts the answer.  So a phone
  # (192.0.2.11) asks first (QM, at t0 and t0+1 s) and the sender asks with QU
  # 0.35 s after each (tools/ptr_query.py, both timed from the same t0): the
  # phone's query is answered by multicast, the sender's by unicast.
  local rc=0 t0
  lan v4
  add_host ${NSP}-phone eth0 02:ca:57:00:00:11 br0 $PHONE4/24 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 $CC4/24 -
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service yes no
  wait_log dev1 "successfully established" 15
  sleep 5 # avahi's probing/announcing is over before the capture starts
  nft_input ${NSP}-sender meta nfproto ipv4 udp dport 5353 reject with icmp type port-unreachable
  start_capture ${NSP}-sender eth0 mdns-port-unreachable
  t0=$("$PY" -c 'import time; print(f"{time.time() + 1.0:.3f}")')
  spawn phone ${NSP}-phone "$PY" "$TOOLS/ptr_query.py" --ip $PHONE4 --t0 "$t0" --at 0 --at 1.0 --wait 1.5
  spawn query ${NSP}-sender "$PY" "$TOOLS/ptr_query.py" --ip $SENDER4 --qu --t0 "$t0" --at 0.35 --at 1.35 --wait 1.5
  finish query 20 || rc=$?
  finish phone 20 || rc=$?
  ((rc == 0)) || { show_log query; show_log phone; die "ptr_query.py failed (rc=$rc)"; }
  grep -q "sent 2 queries, 0 responses" "$WORK/query.log" ||
    { show_log query; die "ptr_query.py: the sender's firewall let a response through"; }
  sleep 1 # as in capture_connect: let tcpdump get the last block from the kernel
  stop_capture mdns-port-unreachable
  show_log query
  show_log phone
}

# --- castscope probe as the sender ------------------------------------------

need_castscope() { # probe-group's sender is the castscope release binary
  [[ -x $CASTSCOPE ]] ||
    die "probe-group needs the castscope binary, and $CASTSCOPE is missing or not executable: build it (make build) or set CASTSCOPE=/path/to/castscope (sudo -E), or leave that capture out"
  "$CASTSCOPE" help probe >/dev/null 2>&1 ||
    die "probe-group: $CASTSCOPE has no working 'probe' command ('$CASTSCOPE help probe' fails)"
}

cap_probe-group() {
  # The sender is castscope itself: `castscope probe` (the release binary,
  # $CASTSCOPE) on the sender's eth0, which has 192.0.2.10/24 and
  # 2001:db8::10/64 (plus its fe80:: address). Three devices on two hosts:
  #   - the speaker host 192.0.2.23 (IPv4 only; python-zeroconf
  #     cast_responder.py + zc/home-mini-and-group.json): the Google Home Mini
  #     "Kitchen Speaker" (SRV port 8009) and the Cast group "Downstairs" it
  #     leads (SRV port 42238, same SRV target), with a TLS listener on each port;
  #   - the Living Room TV, IPv6 only: 2001:db8::21 and no IPv4 address, avahi
  #     (use-ipv4=no use-ipv6=yes, chromecast.service) and a TLS listener on
  #     [2001:db8::21]:8009.
  # The probe queries over IPv4 and IPv6 (its IPv6 queries come from the
  # sender's fe80:: address), sends DIAL M-SEARCHes (nothing answers them) and
  # connects to each device with TCP and TLS: to the speaker and the group at
  # 192.0.2.23:8009 and :42238, to the TV at [2001:db8::21]:8009 from the
  # sender's global 2001:db8::10. The probe writes no pcap (no --write): this
  # tcpdump capture is the file; --user root, so that no privilege drop matters here.
  local rc=0 l
  need_castscope
  lan dual
  add_host ${NSP}-speaker eth0 02:ca:57:00:00:23 br0 $MINI4/24 -
  add_host ${NSP}-dev1 eth0 02:ca:57:00:00:21 br0 - $CC6/64
  make_cert "$WORK/tls-mini" $MINI_HOST
  make_cert "$WORK/tls-tv" $CC_HOST
  spawn tls-mini ${NSP}-speaker "$PY" "$TOOLS/tls_listener.py" --ip $MINI4 --port 8009 \
    --cert "$WORK/tls-mini/cert.pem" --key "$WORK/tls-mini/key.pem"
  spawn tls-group ${NSP}-speaker "$PY" "$TOOLS/tls_listener.py" --ip $MINI4 --port 42238 \
    --cert "$WORK/tls-mini/cert.pem" --key "$WORK/tls-mini/key.pem"
  spawn tls-tv ${NSP}-dev1 "$PY" "$TOOLS/tls_listener.py" --ip $CC6 --port 8009 \
    --cert "$WORK/tls-tv/cert.pem" --key "$WORK/tls-tv/key.pem"
  wait_log tls-mini "ready" 10
  wait_log tls-group "ready" 10
  wait_log tls-tv "ready" 10
  spawn speaker ${NSP}-speaker "$PY" "$TOOLS/cast_responder.py" --spec "$TOOLS/zc/home-mini-and-group.json" \
    --ip $MINI4 --ip-version v4
  start_avahi dev1 ${NSP}-dev1 $CC_HOST chromecast.service no yes
  wait_log speaker "ready" 15
  wait_log dev1 "successfully established" 15
  sleep 5 # the devices' probing/announcing is over before the capture starts
  start_capture ${NSP}-sender eth0 probe-group
  ip netns exec ${NSP}-sender timeout 60 "$CASTSCOPE" probe -i eth0 --duration 4 --user root --format json \
    >"$WORK/probe.json" 2>"$WORK/probe.log" || rc=$?
  # what the probe found: answered, and all three devices reached at the advertised address and port
  l=$("$PY" - "$WORK/probe.json" <<'PYEOF'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
    p = doc["probe"]
except (OSError, ValueError, KeyError) as e:
    sys.exit(f"no probe document: {e}")
want = {"Kitchen Speaker": ("192.0.2.23", 8009), "Downstairs": ("192.0.2.23", 42238),
        "Living Room TV": ("2001:db8::21", 8009)}
errors = [] if p.get("answered") is True else ["answered is not true"]
devs = {d.get("name"): d for d in p.get("devices", [])}
if sorted(devs) != sorted(want):
    errors.append(f"devices {sorted(map(str, devs))}, want {sorted(want)}")
for name, (addr, port) in want.items():
    c = (devs.get(name) or {}).get("connect") or {}
    if (c.get("outcome"), c.get("address"), c.get("port")) != ("established", addr, port):
        errors.append(f"{name}: connect {c.get('outcome')} to {c.get('address')} port {c.get('port')}, "
                      f"want established to {addr} port {port}")
q = p.get("queries", [])
print(f"probe on {p.get('interface')} ({', '.join(p.get('addresses', []))}), {p.get('durationMs')} ms: "
      f"{len(q)} queries ({sum(1 for x in q if x.get('unicastResponse'))} QU) over "
      f"{'/'.join(sorted({str(x.get('family')) for x in q}))}, {p.get('mSearches')} M-SEARCHes, "
      f"{p.get('ssdpAnswers')} SSDP answers; answered {p.get('answered')}, allReachable {p.get('allReachable')}")
for d in p.get("devices", []):
    c = d.get("connect") or {}
    a = c.get("address", "?")
    print(f"{d.get('name')} ({d.get('model')}, {d.get('instance')}): "
          f"{'[' + a + ']' if ':' in a else a}:{c.get('port')} first answer {d.get('firstAnswerMs')} ms, "
          f"{c.get('outcome')}: TCP {c.get('connectMs')} ms, {c.get('tlsVersion')} {c.get('tlsMs')} ms"
          + (f", error {c['error']}" if c.get("error") else ""))
for f in (doc.get("analysis") or {}).get("findings", []):
    print(f"finding: {str(f.get('severity')).upper()} {f.get('code')}: {f.get('title')}")
for e in errors:
    print(f"ERROR: {e}")
sys.exit(1 if errors else 0)
PYEOF
  ) || {
    { "$PY" -m json.tool "$WORK/probe.json" 2>/dev/null || cat "$WORK/probe.json"; } | sed 's/^/    probe.json: /' >&2
    printf '%s\n' "$l" >&2
    show_log probe >&2
    die "castscope probe (exit $rc): not every device answered and was reached as expected"
  }
  ((rc == 0)) || { show_log probe; die "castscope probe exited $rc"; }
  sleep 1 # as in capture_connect: let tcpdump get the last block from the kernel
  stop tls-mini INT
  stop tls-group INT
  stop tls-tv INT
  stop_capture probe-group # (the responders are stopped after it, by teardown: no goodbyes in the file)
  sed 's/^/    probe: /' <<<"$l"
  show_log probe
  show_log tls-mini
  show_log tls-group
  show_log tls-tv
}

main() {
  local want=() n
  for n in "$@"; do
    case $n in
      -h | --help) usage; exit 0 ;;
      --list) printf '%s\n' "${ALL_CAPTURES[@]}"; exit 0 ;;
    esac
    n=${n%.pcap}
    n=${n##*/}
    [[ " ${ALL_CAPTURES[*]} " == *" $n "* ]] || die "unknown capture '$n' (known: ${ALL_CAPTURES[*]})"
    want+=("$n")
  done
  ((${#want[@]})) || want=("${ALL_CAPTURES[@]}")

  check_requirements
  if [[ " ${want[*]} " == *" own-queries-dropped "* ]] && ! command -v iptables-legacy >/dev/null 2>&1; then
    die "own-queries-dropped needs iptables-legacy (Debian package iptables); install it or leave that capture out"
  fi
  if [[ " ${want[*]} " == *" connect-timeout "* || " ${want[*]} " == *" connect-unreachable "* ||
    " ${want[*]} " == *" mdns-port-unreachable "* ]] && ! command -v nft >/dev/null 2>&1; then
    die "connect-timeout, connect-unreachable and mdns-port-unreachable need nft (Debian package nftables); install it or leave them out"
  fi
  if [[ " ${want[*]} " == *" connect-established "* || " ${want[*]} " == *" probe-group "* ]] &&
    ! command -v openssl >/dev/null 2>&1; then
    die "connect-established and probe-group need openssl (Debian package openssl); install it or leave them out"
  fi
  if [[ " ${want[*]} " == *" probe-group "* ]]; then need_castscope; fi
  trap on_exit EXIT
  trap 'exit 130' INT TERM HUP
  WORK=$(mktemp -d /tmp/castscope-captures.XXXXXX)
  mkdir -p "$OUT"
  for n in "${want[@]}"; do
    CUR=$n
    note "generating $n.pcap"
    rm -f "$WORK"/*.log
    "cap_$n"
    teardown
  done
  CUR=main
  note "done: ${want[*]}"
  if [[ $OUT == "$HERE" && -x $HERE/verify.sh ]]; then
    note "checking contents with verify.sh"
    "$HERE/verify.sh" "${want[@]}"
  fi
}

main "$@"
