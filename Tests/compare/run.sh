#!/usr/bin/env bash
# Tests/compare/run.sh -- integration tests of `castscope compare` (run as root).
#
#   sudo BIN=.build/debug/castscope Tests/compare/run.sh   # from the repository root
#   CASTSCOPE=/path/to/castscope sudo -E Tests/compare/run.sh
#   KEEP=1 sudo Tests/compare/run.sh                # keep the logs, pcaps and JSON in /tmp
#   COMPARE_KEEP=DIR sudo Tests/compare/run.sh      # copy each scenario's pcaps, nft counters
#                                                   # and truth.json to DIR/<scenario>/
#   COMPARE_CAPTURE_ONLY=1 sudo Tests/compare/run.sh  # only make (and check) the captures: no castscope
#
# The binary: $CASTSCOPE, else $BIN, else the first of .build/release/castscope and
# .build/debug/castscope that has `help compare` (else .build/release/castscope).
#
# Makes two-point captures whose ground truth is known and checks `castscope compare`
# against it (checks in Tests/compare/check_compare.py, traffic by Tests/compare/mdns_peer.py):
#   1. before-after: captures/healthy-ipv4.pcap vs captures/no-cast-queries.pcap (different
#      times, nothing matches): mode before-after, devices appeared/disappeared and findings
#      appeared/resolved as `castscope analyze --format json` of each file says;
#   2. loss: csc-<pid>-sender (192.0.2.10) and csc-<pid>-device (192.0.2.20) on one bridge
#      whose nft table (family bridge, forward) drops ~25 % of the sender's queries and ~40 %
#      of the device's answers, with counters: the truth.  tcpdump on both eth0s; the sender
#      sends 60 Cast queries (every 5th a byte copy of the one before), the device answers
#      each one it gets and announces every 1.5 s, always with the same bytes.  compare's
#      seen/arrived/lost (and lostFrames), roles, clock offset, delays, findings; the text,
#      markdown and html formats; --sender/--device give the same numbers; an unknown
#      --sender is a usage error (64); --before-after forces that mode;
#   3. no loss: the same with nothing dropped (15 queries): COMPARE_OK;
#   4. reflector: the sender on one bridge, the device (198.51.100.20) on another, and
#      avahi-daemon with enable-reflector=yes between them (192.0.2.1 / 198.51.100.1), 20
#      queries: messages arrive changed (another source), COMPARE_REFLECTOR.  What the
#      reflector's copies looked like is written as `# ` notes;
#   5. delay: the same two subnets, avahi stopped, and in its place `mdns_peer.py relay` (the
#      kernel has no netem: the delay is made in user space), which sends every mDNS datagram
#      of one side, the same bytes, on the other side 300 ms later, from its own address there;
#      20 queries.  The pcaps prove every message crossed (one byte-identical copy each, 300 ms
#      later); compare: nothing lost, every copy sourceChanged and none reencoded, clock basis
#      both-directions, p50 delays in [280, 400] ms, COMPARE_LARGE_DELAY and COMPARE_REFLECTOR.
#      A control run with the relay's delay 0 (8 queries): p50 < 50 ms, no COMPARE_LARGE_DELAY.
# The captures themselves are checked first: only Cast queries from the sender, only Cast
# responses from the device, a marker (UDP 9, not mDNS) first and last in each so that every
# message lies inside both captures' spans, and the nft counters add up to the pcaps.  Every JSON document
# is validated against docs/compare.schema.json when that file exists.
# Prints one `ok ...` / `FAIL ...` line per check, then `compare: N passed, M failed`;
# exits non-zero if any check failed.
#
# Safety: all traffic stays inside the csc-* namespaces created here; only 192.0.2.0/24,
# 198.51.100.0/24 and 203.0.113.0/24 (a sender address nobody has) addresses, IPv6 off in
# every host; every namespace and every process started here is removed on exit, also on
# failure, Ctrl-C or SIGTERM (trap), and a watchdog ends the run after COMPARE_TEST_LIMIT
# seconds (default 170).
#
# Requirements (Debian 12): iproute2, util-linux (unshare), nftables (nft), tcpdump, tshark,
# avahi-daemon, python3 (and the python3-jsonschema module for the schema).
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
HARNESS=compare
NS_PREFIX=csc
LIMIT=${COMPARE_TEST_LIMIT:-170}
if [[ -z ${CASTSCOPE:-} ]]; then
  if [[ -n ${BIN:-} ]]; then
    CASTSCOPE=$BIN
  else
    for c in .build/release/castscope .build/debug/castscope; do
      if [[ -x $c ]] && "$c" help compare >/dev/null 2>&1; then CASTSCOPE=$c; break; fi
    done
  fi
fi
# the namespaces, processes, cleanup and traps (ok/fail/note, abort, spawn, ...; sets BIN, TOOLS, PY)
# shellcheck source=Tests/lib/netns.sh
source Tests/lib/netns.sh || exit 2
HERE=$ROOT/Tests/compare
CAPTURE_ONLY=${COMPARE_CAPTURE_ONLY:-0}
KEEP_DIR=${COMPARE_KEEP:-}
[[ -z $KEEP_DIR || $KEEP_DIR == /* ]] || KEEP_DIR=$ROOT/$KEEP_DIR
SCHEMA=$ROOT/docs/compare.schema.json

# --- fixed identities (documentation addresses only) -------------------------
RUN=$$
NS_BR1=$NS_PREFIX-$RUN-br
NS_SND=$NS_PREFIX-$RUN-sender
NS_DEV=$NS_PREFIX-$RUN-device
NS_BR2=$NS_PREFIX-$RUN-br2
NS_RSND=$NS_PREFIX-$RUN-rsender
NS_RDEV=$NS_PREFIX-$RUN-rdevice
NS_REFL=$NS_PREFIX-$RUN-reflector
SENDER4=192.0.2.10
DEVICE4=192.0.2.20
RDEVICE4=198.51.100.20
REFL_A=192.0.2.1     # the reflector on the sender's side
REFL_B=198.51.100.1  # ... and on the device's
NO_SENDER=203.0.113.99
DEV_ID=3f5d6b2a8c914e07b2d46a1f0c9e7d35
DEV_UUID=3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35
DEV_NAME="Living Room TV"
N_LOSS=60
N_NOLOSS=15
N_REFL=20
N_DELAY=20      # queries across the delaying relay (scenario 5) ...
N_DELAY0=8      # ... and across the same relay without delay (its control)
RELAY_DELAY=300 # ms
QUERY_DROP=25   # % of the sender's queries the loss bridge drops
ANSWER_DROP=40  # % of the device's answers

# --- requirements and start ----------------------------------------------------
if [[ $CAPTURE_ONLY == 1 ]]; then
  [[ $EUID -eq 0 ]] || abort "must be run as root (it creates network namespaces)"
  for c in ip unshare mount avahi-daemon "$PY" tshark tcpdump timeout setsid nft; do
    command -v "$c" >/dev/null 2>&1 || abort "missing requirement: $c"
  done
  # start_run copies $BIN (for runs as nobody, none here): any executable will do
  [[ -x $BIN ]] || BIN=$(command -v true)
else
  require ip unshare mount avahi-daemon "$PY" tshark tcpdump timeout setsid \
    "nft|Debian package nftables: apt-get install nftables"
fi
start_run
note "castscope: $BIN$([[ $CAPTURE_ONLY == 1 ]] && echo " (not run: COMPARE_CAPTURE_ONLY=1)")"

# --- helpers -----------------------------------------------------------------------
# run_cs NAME ARGS... : castscope ARGS, bounded (60 s); RC, stdout $T/NAME.out, stderr $T/NAME.err
run_cs() {
  local name=$1
  shift
  # (in braces with stderr closed: no "Killed"/"Aborted" job message from bash)
  { timeout -s KILL 60 "$BIN" "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err"; } 2>/dev/null
  RC=$?
}
err1() { head -c 400 "$T/$1.err" | tr '\n' '|'; }

# expect_rc NAME WANT WHAT
expect_rc() {
  if [[ $RC == "$2" ]]; then ok "$1: exit $2 ($3)"; else fail "$1: exit $RC, want $2 ($3); stderr: $(err1 "$1")"; fi
}

check() { run_py_checks "$PY" "$HERE/check_compare.py" "$@"; }

# want_rc REPORT.json : the exit status `help compare` promises for it: 1 if a finding of
# severity error exists (before-after: appeared; default --fail-on error), else 0
want_rc() { "$PY" "$HERE/check_compare.py" exit-status "$1"; }

SCHEMA_PY=""
# schema_check LABEL FILE : FILE against docs/compare.schema.json (when it exists)
schema_check() {
  if [[ ! -f $SCHEMA ]]; then
    [[ $SCHEMA_PY == none ]] || note "docs/compare.schema.json does not exist (yet): the JSON is not validated"
    SCHEMA_PY=none
    return
  fi
  if [[ -z $SCHEMA_PY || $SCHEMA_PY == none ]]; then
    SCHEMA_PY=""
    for p in /usr/bin/python3 "$PY"; do
      "$p" -c 'import jsonschema' 2>/dev/null && { SCHEMA_PY=$p; break; }
    done
  fi
  if [[ -z $SCHEMA_PY ]]; then
    fail "$1: cannot validate against docs/compare.schema.json: no python3 with jsonschema (apt-get install python3-jsonschema)"
    return
  fi
  run_py_checks "$SCHEMA_PY" "$HERE/check_compare.py" schema "$1" "$SCHEMA" "$2"
}

keep() { # SCENARIO : copies $T/SCENARIO (pcaps, nft.json, truth.json, reports) to $COMPARE_KEEP/SCENARIO
  [[ -n $KEEP_DIR ]] || return 0
  if ! { mkdir -p "$KEEP_DIR" && rm -rf "${KEEP_DIR:?}/$1" && cp -r "$T/$1" "$KEEP_DIR/$1"; }; then
    fail "COMPARE_KEEP: cannot copy $T/$1 to $KEEP_DIR"
  fi
}

no_ipv6() { # NS... : IPv6 off (only IPv4 mDNS in the captures)
  local ns
  for ns in "$@"; do
    psys "$ns" net.ipv6.conf.all.disable_ipv6 1
    psys "$ns" net.ipv6.conf.default.disable_ipv6 1
  done
}

# nft_bridge QUERY% ANSWER% : (re)makes the table `bridge csc` in the loss bridge's namespace.
# For UDP to 5353 from the sender (queries) and from the device (answers): a counted drop of
# about the given percentage (numgen random), then a counter for the rest (accepted).
nft_bridge() {
  ip netns exec "$NS_BR1" nft delete table bridge csc 2>/dev/null
  ip netns exec "$NS_BR1" nft -f - <<EOF || abort "nft: cannot load the bridge table"
table bridge csc {
  chain forward {
    type filter hook forward priority 0; policy accept;
    ip saddr $SENDER4 udp dport 5353 numgen random mod 100 < $1 counter drop comment "queries-dropped"
    ip saddr $SENDER4 udp dport 5353 counter comment "queries-passed"
    ip saddr $DEVICE4 udp dport 5353 numgen random mod 100 < $2 counter drop comment "answers-dropped"
    ip saddr $DEVICE4 udp dport 5353 counter comment "answers-passed"
  }
}
EOF
}

# marker NS ADDR : one UDP datagram ADDR:9 -> the /24's broadcast :9 (not mDNS; see mdns_peer.py)
marker() {
  timeout 10 ip netns exec "$1" "$PY" "$HERE/mdns_peer.py" marker --ip "$2" --to "${2%.*}.255" >/dev/null 2>&1 ||
    fail "marker from $2 could not be sent"
}

# two_point SCEN NS_A NS_B N SENDER DEVICE : tcpdump (udp port 5353, and 9 for the markers) on the
# eth0 of NS_A and NS_B, the responder in NS_B, N queries from NS_A; $T/SCEN/sender.pcap and
# $T/SCEN/device.pcap. Each side sends a marker first and, 1.5 s after the last message, last:
# compare counts a message lost only while the other capture ran (its first to last record), so
# without them an answer dropped at the very end would be "outside the other capture".
two_point() {
  local s=$1 nsa=$2 nsb=$3 n=$4 sip=$5 dip=$6 side
  mkdir -p "$T/$s"
  spawn "$s-tcpdump-a" "$nsa" tcpdump -n -i eth0 --immediate-mode -U -w "$T/$s/sender.pcap" -Z root udp port 5353 or udp port 9
  spawn "$s-tcpdump-b" "$nsb" tcpdump -n -i eth0 --immediate-mode -U -w "$T/$s/device.pcap" -Z root udp port 5353 or udp port 9
  for side in a b; do
    wait_log "$s-tcpdump-$side" "listening on" 5 || abort "$s: tcpdump ($side) did not start: $(tail -n 2 "$T/$s-tcpdump-$side.log")"
  done
  marker "$nsa" "$sip"
  marker "$nsb" "$dip"
  sleep 0.2
  spawn "$s-responder" "$nsb" "$PY" "$HERE/mdns_peer.py" responder --ip "$dip" --a-record "$dip" \
    --id "$DEV_ID" --uuid "$DEV_UUID" --name "$DEV_NAME"
  wait_log "$s-responder" "^ready" 5 || abort "$s: the responder did not start: $(tail -n 3 "$T/$s-responder.log")"
  spawn "$s-querier" "$nsa" "$PY" "$HERE/mdns_peer.py" querier --ip "$sip" --count "$n"
  finish "$s-querier" $((n + 15))
  if [[ $RC == 0 ]] && grep -qx "done $n" "$T/$s-querier.log"; then
    ok "$s: the querier sent its $n queries"
  else
    fail "$s: the querier: rc=$RC, $(tail -n 2 "$T/$s-querier.log" | tr '\n' '|')"
  fi
  sleep 0.5 # the answer to the last query
  stop "$s-responder" TERM
  note "$s: responder: $(tail -n 1 "$T/$s-responder.log")"
  sleep 1.5
  marker "$nsa" "$sip"
  marker "$nsb" "$dip"
  sleep 1
  for side in a b; do
    stop "$s-tcpdump-$side" INT
    local log=$T/$s-tcpdump-$side.log captured received
    captured=$(awk '/packets captured/ { print $1 }' "$log")
    received=$(awk '/packets received by filter/ { print $1 }' "$log")
    if grep -q "^0 packets dropped by kernel" "$log" && [[ -n $captured && $captured == "$received" ]]; then
      ok "$s: tcpdump ($side): $captured packets captured, as many as received by the filter, 0 dropped by the kernel"
    else
      fail "$s: tcpdump ($side) rc=$RC: $(tail -n 3 "$T/$s-tcpdump-$side.log" | tr '\n' '|')"
    fi
  done
}

# =============================================================== 1. before-after (no namespaces)
if [[ $CAPTURE_ONLY != 1 ]]; then
  if "$BIN" help compare >"$T/help.out" 2>&1 && grep -q -- "--before-after" "$T/help.out"; then
    ok "help compare: exit 0, documents --before-after"
  else
    fail "help compare: --before-after not mentioned: $(head -c 300 "$T/help.out" | tr '\n' '|')"
  fi
  CA=$ROOT/captures/healthy-ipv4.pcap
  CB=$ROOT/captures/no-cast-queries.pcap
  run_cs ba compare "$CA" "$CB" --format json
  expect_rc ba "$(want_rc "$T/ba.out")" "compare healthy-ipv4.pcap no-cast-queries.pcap --format json; 1 only if an error finding appeared"
  run_cs ba-analyze-a analyze --format json "$CA"
  expect_rc ba-analyze-a 0 "analyze --format json healthy-ipv4.pcap"
  run_cs ba-analyze-b analyze --format json "$CB"
  # (analyze's exit status says nothing about compare; only its JSON is used)
  check before-after before-after "$T/ba.out" "$T/ba-analyze-a.out" "$T/ba-analyze-b.out"
  schema_check before-after "$T/ba.out"
fi

# =============================================================== the loss LAN
NS_BR=$NS_BR1
mkbridge
add_host "$NS_SND" v-sender 02:ca:57:05:00:10 "$SENDER4/24"
add_host "$NS_DEV" v-device 02:ca:57:05:00:20 "$DEVICE4/24"
no_ipv6 "$NS_SND" "$NS_DEV"

# =============================================================== 2. loss
nft_bridge "$QUERY_DROP" "$ANSWER_DROP"
two_point loss "$NS_SND" "$NS_DEV" "$N_LOSS" "$SENDER4" "$DEVICE4"
ip netns exec "$NS_BR1" nft -j list table bridge csc >"$T/loss/nft.json" || fail "loss: nft -j list table bridge csc"
check truth loss --a "$T/loss/sender.pcap" --b "$T/loss/device.pcap" --sender "$SENDER4" --device "$DEVICE4" \
  --nft "$T/loss/nft.json" --out "$T/loss/truth.json"
keep loss

if [[ $CAPTURE_ONLY != 1 ]]; then
  LA=$T/loss/sender.pcap
  LB=$T/loss/device.pcap
  run_cs loss-json compare "$LA" "$LB" --format json -o "$T/loss/loss.json"
  LOSS_RC=$(want_rc "$T/loss/loss.json")
  expect_rc loss-json "$LOSS_RC" "compare sender.pcap device.pcap --format json -o; 1 iff an error finding"
  check report loss "$T/loss/loss.json" "$T/loss/truth.json" --expect loss
  schema_check loss "$T/loss/loss.json"

  run_cs loss-text compare "$LA" "$LB" --format text
  expect_rc loss-text "$LOSS_RC" "--format text, as json"
  check text loss-text "$T/loss-text.out" "$T/loss/truth.json"

  run_cs loss-md compare "$LA" "$LB" --format markdown
  if [[ $RC == "$LOSS_RC" ]] && [[ $(head -c 1 "$T/loss-md.out") == "#" ]]; then
    ok "loss-md: --format markdown: exit $RC (as json), starts with '#'"
  else
    fail "loss-md: --format markdown: exit $RC (want $LOSS_RC), starts with '$(head -c 40 "$T/loss-md.out" | tr '\n' '|')'; stderr: $(err1 loss-md)"
  fi

  run_cs loss-html compare "$LA" "$LB" --format html -o "$T/loss/c.html"
  if [[ $RC == "$LOSS_RC" ]] && grep -q "<svg" "$T/loss/c.html" 2>/dev/null; then
    ok "loss-html: --format html -o: exit $RC (as json), the file has an <svg"
  else
    fail "loss-html: --format html -o: exit $RC (want $LOSS_RC), <svg $(grep -c '<svg' "$T/loss/c.html" 2>&1) times; stderr: $(err1 loss-html)"
  fi

  run_cs loss-ids compare "$LA" "$LB" --sender "$SENDER4" --device "$DEVICE4" --format json -o "$T/loss/loss-ids.json"
  expect_rc loss-ids "$LOSS_RC" "--sender $SENDER4 --device $DEVICE4, as without"
  check same "loss --sender/--device" "$T/loss/loss.json" "$T/loss/loss-ids.json"
  schema_check loss-ids "$T/loss/loss-ids.json"

  # A usage error (64): its line first, `castscope compare: ...` (or `castscope: ...`), naming the
  # address; either alone or followed by the usage and `See ...` lines every command prints
  # after a usage mistake (UsageError.report).
  run_cs loss-nosender compare "$LA" "$LB" --sender "$NO_SENDER" --format json
  lines=$(grep -c . "$T/loss-nosender.err")
  if [[ $RC == 64 ]] && head -n 1 "$T/loss-nosender.err" | grep -Eq "^castscope( compare)?: " &&
    { ((lines == 1)) || { ((lines == 3)) && sed -n 2p "$T/loss-nosender.err" | grep -q "^USAGE: " &&
      sed -n 3p "$T/loss-nosender.err" | grep -q "^See '"; }; }; then
    ok "loss-nosender: --sender $NO_SENDER (nobody): exit 64, '$(head -n 1 "$T/loss-nosender.err" | cut -c1-60)...' ($lines lines)"
  else
    fail "loss-nosender: --sender $NO_SENDER: exit $RC (want 64), $lines stderr lines (want 'castscope[ compare]: ...' alone or + USAGE + See): $(err1 loss-nosender)"
  fi
  if head -n 1 "$T/loss-nosender.err" | grep -qF "$NO_SENDER"; then
    ok "loss-nosender: the message names $NO_SENDER"
  else
    fail "loss-nosender: the message does not name $NO_SENDER: $(err1 loss-nosender)"
  fi
  if [[ ! -s $T/loss-nosender.out ]]; then
    ok "loss-nosender: nothing on standard output"
  else
    fail "loss-nosender: standard output not empty: $(head -c 200 "$T/loss-nosender.out" | tr '\n' '|')"
  fi

  run_cs loss-ba compare "$LA" "$LB" --before-after --format json
  expect_rc loss-ba "$(want_rc "$T/loss-ba.out")" "--before-after; 1 only if an error finding appeared"
  check mode "loss --before-after" "$T/loss-ba.out" before-after
  schema_check loss-ba "$T/loss-ba.out"
  cp "$T"/loss-*.out "$T/loss/" 2>/dev/null
  keep loss
fi

# =============================================================== 3. no loss
nft_bridge 0 0
two_point noloss "$NS_SND" "$NS_DEV" "$N_NOLOSS" "$SENDER4" "$DEVICE4"
ip netns exec "$NS_BR1" nft -j list table bridge csc >"$T/noloss/nft.json" || fail "noloss: nft -j list table bridge csc"
check truth noloss --a "$T/noloss/sender.pcap" --b "$T/noloss/device.pcap" --sender "$SENDER4" --device "$DEVICE4" \
  --nft "$T/noloss/nft.json" --out "$T/noloss/truth.json"
keep noloss
if [[ $CAPTURE_ONLY != 1 ]]; then
  run_cs noloss-json compare "$T/noloss/sender.pcap" "$T/noloss/device.pcap" --format json -o "$T/noloss/noloss.json"
  expect_rc noloss-json 0 "compare --format json -o (nothing dropped: no error finding)"
  check report noloss "$T/noloss/noloss.json" "$T/noloss/truth.json" --expect noloss
  schema_check noloss "$T/noloss/noloss.json"
  keep noloss
fi

# =============================================================== the reflector LAN
# One namespace with two bridges: br0 (sender, reflector eth0) and br1 (reflector eth1, device).
NS_BR=$NS_BR2
mkbridge
ip -n "$NS_BR" link add br1 type bridge mcast_snooping 0 stp_state 0 || abort "bridge br1"
ip -n "$NS_BR" link set br1 up
add_host "$NS_RSND" v-rsender 02:ca:57:05:01:10 "$SENDER4/24"
add_host "$NS_REFL" v-refl0 02:ca:57:05:01:01 "$REFL_A/24"
ip -n "$NS_REFL" link add eth1 address 02:ca:57:05:02:01 type veth peer name v-refl1 netns "$NS_BR" || abort "veth reflector eth1"
ip -n "$NS_BR" link set v-refl1 master br1 up
ip -n "$NS_REFL" addr add "$REFL_B/24" dev eth1
ip -n "$NS_REFL" link set eth1 up
add_host "$NS_RDEV" v-rdevice 02:ca:57:05:02:20 "$RDEVICE4/24"
ip -n "$NS_BR" link set v-rdevice master br1 || abort "v-rdevice to br1"
no_ipv6 "$NS_RSND" "$NS_RDEV" "$NS_REFL"

# avahi-daemon as a reflector between eth0 and eth1 that publishes nothing of its own: the
# same private mounts as start_avahi (Tests/lib/netns.sh), another config.
mkdir -p "$T/avahi/reflector.services"
cat >"$T/avahi/reflector.conf" <<EOF
[server]
host-name=csc-reflector
domain-name=local
use-ipv4=yes
use-ipv6=no
allow-interfaces=eth0,eth1
enable-dbus=no
ratelimit-interval-usec=1000000
ratelimit-burst=1000

[wide-area]
enable-wide-area=no

[publish]
disable-publishing=yes
publish-addresses=no
publish-hinfo=no
publish-workstation=no
publish-domain=no

[reflector]
enable-reflector=yes
reflect-ipv=no

[rlimits]
EOF
# shellcheck disable=SC2016
spawn reflector "$NS_REFL" unshare -m sh -c '
  mount --make-rprivate / &&
  mkdir -p /run/avahi-daemon &&
  mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon &&
  mount --bind "$1" /etc/avahi/services &&
  exec avahi-daemon --no-chroot --no-drop-root --no-rlimits -f "$2"' \
  sh "$T/avahi/reflector.services" "$T/avahi/reflector.conf"
wait_log reflector "Server startup complete" 15 || abort "setup: avahi-daemon (reflector) did not start: $(tail -n 3 "$T/reflector.log" | tr '\n' '|')"
sleep 1 # (anything it sends at start is not in the captures)

# =============================================================== 4. reflector
two_point reflector "$NS_RSND" "$NS_RDEV" "$N_REFL" "$SENDER4" "$RDEVICE4"
check truth reflector --a "$T/reflector/sender.pcap" --b "$T/reflector/device.pcap" --sender "$SENDER4" \
  --device "$RDEVICE4" --relay-a "$REFL_A" --relay-b "$REFL_B" --out "$T/reflector/truth.json"
# one reflected query (the second: the first has no known answers yet) and one reflected
# response as tshark shows them (-c would count the frames read, not those shown)
tshark -n -r "$T/reflector/device.pcap" -Y "ip.src==$REFL_B && dns.flags.response==0" -V 2>&1 |
  awk '/^Frame [0-9]+:/ { n++ } n == 2' >"$T/reflector/reflected-query.txt"
tshark -n -r "$T/reflector/sender.pcap" -Y "ip.src==$REFL_A && dns.flags.response==1" -V 2>&1 |
  awk '/^Frame [0-9]+:/ { n++ } n == 1' >"$T/reflector/reflected-response.txt"
for f in reflected-query reflected-response; do
  note "reflector: $f (tshark -V): $(grep -E '^Frame|Time to Live|Source Address|Source Port|Transaction ID|^ *Flags: 0x[0-9a-f]{4} |Questions:|Answer RRs|Additional RRs|Authority RRs|: type (PTR|SRV|TXT|A),' "$T/reflector/$f.txt" |
    sed 's/^ *//; s/ ([0-9]* bits)//g' | head -n 16 | tr '\n' '|')"
done
keep reflector
if [[ $CAPTURE_ONLY != 1 ]]; then
  run_cs reflector-json compare "$T/reflector/sender.pcap" "$T/reflector/device.pcap" --format json -o "$T/reflector/reflector.json"
  expect_rc reflector-json "$(want_rc "$T/reflector/reflector.json")" "compare --format json -o across the reflector; 1 iff an error finding"
  check report reflector "$T/reflector/reflector.json" "$T/reflector/truth.json" --expect reflector
  schema_check reflector "$T/reflector/reflector.json"
  keep reflector
fi

# =============================================================== 5. delay (a relay in user space)
# The reflector's namespace without avahi: mdns_peer.py relay between its eth0 (192.0.2.1) and
# eth1 (198.51.100.1) re-sends each mDNS datagram, the same bytes, on the other side after a
# fixed delay (a timer queue; the kernel has no netem).  The truth comes from the pcaps (and
# the relay's own counts): every message crossed, once, that much later.
stop reflector TERM
[[ $RC == 0 ]] || note "avahi-daemon (reflector) exit status $RC after TERM"

# relay_scenario SCEN N DELAY_MS EXPECT(delay|nodelay)
relay_scenario() {
  local s=$1 n=$2 d=$3 expect=$4
  spawn "$s-relay" "$NS_REFL" "$PY" "$HERE/mdns_peer.py" relay --a-if eth0 --a-ip "$REFL_A" \
    --b-if eth1 --b-ip "$REFL_B" --delay-ms "$d"
  wait_log "$s-relay" "^ready" 5 || abort "$s: the relay did not start: $(tail -n 3 "$T/$s-relay.log" | tr '\n' '|')"
  two_point "$s" "$NS_RSND" "$NS_RDEV" "$n" "$SENDER4" "$RDEVICE4"
  stop "$s-relay" TERM
  if [[ $RC == 0 ]]; then
    ok "$s: the relay ($d ms) ended on TERM: $(tail -n 1 "$T/$s-relay.log")"
  else
    fail "$s: the relay: rc=$RC, $(tail -n 3 "$T/$s-relay.log" | tr '\n' '|')"
  fi
  cp "$T/$s-relay.log" "$T/$s/relay.log" 2>/dev/null
  check truth "$s" --a "$T/$s/sender.pcap" --b "$T/$s/device.pcap" --sender "$SENDER4" --device "$RDEVICE4" \
    --relay-a "$REFL_A" --relay-b "$REFL_B" --relay-delay "$d" --relay-log "$T/$s/relay.log" --out "$T/$s/truth.json"
  keep "$s"
  [[ $CAPTURE_ONLY != 1 ]] || return 0
  run_cs "$s-json" compare "$T/$s/sender.pcap" "$T/$s/device.pcap" --format json -o "$T/$s/$s.json"
  expect_rc "$s-json" 0 "compare --format json -o across the relay ($d ms): nothing lost, no error finding"
  check report "$s" "$T/$s/$s.json" "$T/$s/truth.json" --expect "$expect"
  schema_check "$s" "$T/$s/$s.json"
  keep "$s"
}
relay_scenario delay "$N_DELAY" "$RELAY_DELAY" delay
relay_scenario delay0 "$N_DELAY0" 0 nodelay

[[ -n $KEEP_DIR ]] && note "pcaps, nft counters and truth.json copied to $KEEP_DIR/{loss,noloss,reflector,delay,delay0}"
note "ran for ${SECONDS}s"
exit 0
