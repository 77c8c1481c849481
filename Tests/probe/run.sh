#!/usr/bin/env bash
# Tests/probe/run.sh -- integration tests of `castscope probe` (run as root).
#
#   sudo Tests/probe/run.sh                  # from anywhere
#   CASTSCOPE=/path/to/castscope sudo -E Tests/probe/run.sh
#   sudo PYTHON=/path/to/python3 Tests/probe/run.sh   # python3 with `zeroconf`
#   KEEP=1 sudo Tests/probe/run.sh           # keep the logs, pcaps and JSON in /tmp
#
# Builds a small LAN of network namespaces (csp-<pid>-br holding a bridge,
# csp-<pid>-sender where the probe runs, csp-<pid>-tv running avahi-daemon
# with a Chromecast-like service (app ID subtype 233637DE and the media
# criterion subtype) and a TLS listener on 8009, csp-<pid>-speaker running a
# python-zeroconf speaker + speaker group with TLS listeners on their ports),
# reusing the device tools of captures/tools/, and runs `castscope probe` in
# the sender's namespace:
#   1. healthy (--format json --write): every device found, resolved and
#      connected (TCP + TLS), the analysis section matches `analyze` of the
#      written pcap, the TLS listener saw the handshake;
#   2. the packets the probe sent (tshark on that pcap): mDNS queries from
#      5353 with TTL/hop limit 255, QU only on the first, the 1 s / 2 s / ...
#      schedule, known answers, DIAL M-SEARCH, SYN + ClientHello + FIN; and
#      a tcpdump of the sender's eth0 taken alongside shows no discovery or
#      connection-phase frame missing from the probe's own capture;
#   3. --app-id for an app no device publishes: APP_ID_UNANSWERED names it;
#   4. isolated bridge ports: nothing answers, exit 69;
#   5. connect refused (no listener) and timeout (nft drop): exit 1, outcome
#      refused / timeout, CONNECT_REFUSED / CONNECT_TIMEOUT;
#   6. IPv6 only (TV without IPv4, --ipv6): found and connected over IPv6,
#      no IPv4 packet sent;
#   7. --no-connect: no SYN, connect null;
#   8. not root (nobody): still probes, captured false with a note and a
#      warning; --write as nobody exits 77;
#   9. privilege drop: /proc/<pid>/status uids/gids are nobody's;
#  10. usage errors (64), unknown interface (66), `help probe`;
#  11. the text report names the TV, the connection and the interface;
#  12. --ipv4 beside an avahi-daemon of the sender's own (UDP 5353 shared);
#  13. a device that answers with its PTR only (csp-<pid>-shield,
#      hand_responder.py): follow-up SRV/TXT questions, resolved false,
#      outcome not-resolved, INCOMPLETE_RESOLUTION.
# Prints one `ok ...` / `FAIL ...` line per check, then
# `probe: N passed, M failed`; exits non-zero if any check failed.
#
# Safety: all traffic stays inside the csp-* namespaces created here; only
# 192.0.2.0/24 and 2001:db8::/32 (and kernel fe80:: link-local) addresses;
# every namespace and every process started here is removed on exit, also on
# failure, Ctrl-C or SIGTERM (trap), and a watchdog ends the run after
# PROBE_TEST_LIMIT seconds (default 200).
#
# Requirements (Debian 12): iproute2, util-linux (unshare, setpriv), avahi-daemon,
# nftables (nft), openssl, tshark, tcpdump, python3 with `zeroconf`.
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
HARNESS=probe
NS_PREFIX=csp
LIMIT=${PROBE_TEST_LIMIT:-200}
# the namespaces, processes, cleanup and traps (ok/fail/note, abort, spawn, ...; sets BIN, TOOLS, PY)
# shellcheck source=Tests/lib/netns.sh
source Tests/lib/netns.sh || exit 2
HERE=$ROOT/Tests/probe

# --- fixed identities (documentation addresses only) -------------------------
RUN=$$
NS_BR=$NS_PREFIX-$RUN-br
NS_SND=$NS_PREFIX-$RUN-sender
NS_TV=$NS_PREFIX-$RUN-tv
NS_SPK=$NS_PREFIX-$RUN-speaker
NS_SHD=$NS_PREFIX-$RUN-shield
SENDER_MAC=02:ca:57:03:00:10
SENDER4=192.0.2.10
SENDER6=2001:db8::10
TV4=192.0.2.21
TV6=2001:db8::21
SPK4=192.0.2.23
SHD4=192.0.2.25
TV_HOST=3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35
TV_ID=3f5d6b2a8c914e07b2d46a1f0c9e7d35
APP=233637DE      # published by the TV
APP_NONE=0F5096E8 # published by nobody
NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)
NOBODY_GID=$(id -g nobody 2>/dev/null || echo 65534)
# NAME|ADDRESS|PORT|OUTCOME|TXT id|TXT md  (the speaker and the group: captures/tools/zc/home-mini-and-group.json)
TV="Living Room TV|$TV4|8009|established|$TV_ID|Chromecast"
SPK="Kitchen Speaker|$SPK4|8009|established|c8e2f7a04b154d9e8a3617f05b2c9d4e|Google Home Mini"
GRP="Downstairs|$SPK4|42238|established|9d4b2e7f-1a3c-4e5d-8b6f-0a2c4e6d8f1b|Google Cast Group"

# --- requirements and start ----------------------------------------------------
require ip unshare mount avahi-daemon "$PY" tshark tcpdump timeout setsid setpriv openssl \
  "nft|Debian package nftables: apt-get install nftables"
start_run
# where nobody may write (so that --write as nobody fails for want of capture privilege, not of a directory)
if ! { mkdir "$T/nobody" && chmod 1777 "$T/nobody"; }; then abort "mkdir $T/nobody"; fi

# A throw-away self-signed certificate for the TLS listeners (as captures/generate.sh does).
openssl req -x509 -newkey rsa:2048 -nodes -subj "/CN=$TV_HOST" -days 2 \
  -keyout "$T/key.pem" -out "$T/cert.pem" >"$T/openssl.out" 2>&1 ||
  abort "openssl req failed: $(tail -n 3 "$T/openssl.out" | tr '\n' '|')"

# --- network and process helpers -------------------------------------------------
isolate() { # on|off : bridge port isolation of every host's port (isolated ports reach no other isolated port)
  local port
  for port in v-sender v-tv v-speaker; do
    ip -n "$NS_BR" link set "$port" type bridge_slave isolated "$1" || abort "bridge_slave isolated $1 on $port"
  done
}

tls() { # NAME NS IP PORT : tls_listener.py
  spawn "$1" "$2" "$PY" "$TOOLS/tls_listener.py" --ip "$3" --port "$4" --cert "$T/cert.pem" --key "$T/key.pem"
}

# run_probe NAME [nobody] ARGS... : castscope probe in the sender's namespace, bounded (30 s);
# RC, ELAPSED (seconds), stdout $T/NAME.out, stderr $T/NAME.err
run_probe() {
  local name=$1 t0 t1
  shift
  local cmd=("$BIN")
  if [[ ${1:-} == nobody ]]; then
    shift
    cmd=(setpriv "--reuid=$NOBODY_UID" "--regid=$NOBODY_GID" --clear-groups --inh-caps=-all "$NOBODY_BIN")
  fi
  t0=$(date +%s%N)
  # (in braces with stderr closed: no "Killed"/"Aborted" job message from bash)
  { timeout -s KILL 30 ip netns exec "$NS_SND" "${cmd[@]}" probe "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err"; } 2>/dev/null
  RC=$?
  t1=$(date +%s%N)
  ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  note "$name: probe $* -> exit $RC after ${ELAPSED}s"
}
err1() { head -c 400 "$T/$1.err" | tr '\n' '|'; }
out1() { head -c 400 "$T/$1.out" | tr '\n' '|'; }

# expect_rc NAME WANT WHAT
expect_rc() {
  if [[ $RC == "$2" ]]; then ok "$1: exit $2 ($3)"; else fail "$1: exit $RC, want $2 ($3); stderr: $(err1 "$1")"; fi
}

# expect_time NAME MIN MAX : the run took between MIN and MAX seconds
expect_time() {
  if awk -v e="$ELAPSED" -v a="$2" -v b="$3" 'BEGIN { exit !(e >= a && e <= b) }'; then
    ok "$1: ran ${ELAPSED}s (between $2 and $3 s)"
  else
    fail "$1: ran ${ELAPSED}s, want between $2 and $3 s"
  fi
}

cj() {
  run_py_checks "$PY" "$HERE/check_probe.py" json "$@"
  schema_check "$1" "$2"
}

# schema_check LABEL FILE : the probe document against docs/probe.schema.json, and its analysis
# against analyze's contract (Tests/schema/validate.py: the schema and the rules it cannot say).
schema_check() {
  local out
  if out=$(/usr/bin/python3 - "$ROOT/docs/probe.schema.json" "$2" 2>&1 <<'PYEOF'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errors[:3]:
    print("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message))
sys.exit(1 if errors else 0)
PYEOF
  ); then
    ok "$1: the JSON is valid against docs/probe.schema.json"
  else
    fail "$1: docs/probe.schema.json rejects the JSON: $(head -c 400 <<<"$out")"
  fi
  if out=$(/usr/bin/python3 "$ROOT/Tests/schema/validate.py" "$2" 2>&1); then
    ok "$1: its analysis passes Tests/schema/validate.py ($(tail -n 1 <<<"$out"))"
  else
    fail "$1: Tests/schema/validate.py on its analysis: $(grep -m 3 FAIL <<<"$out" | head -c 400)"
  fi
}
cw() { run_py_checks "$PY" "$HERE/check_probe.py" wire "$@"; }

# ================================================================ the LAN
mkbridge
add_host "$NS_SND" v-sender "$SENDER_MAC" "$SENDER4/24" "$SENDER6/64"
add_host "$NS_TV" v-tv 02:ca:57:03:00:21 "$TV4/24" "$TV6/64"
add_host "$NS_SPK" v-speaker 02:ca:57:03:00:23 "$SPK4/24"
SENDER_LL=$(ip -n "$NS_SND" -6 addr show dev eth0 scope link | awk '/inet6/{sub(/\/.*/, "", $2); print $2; exit}')
[[ -n $SENDER_LL ]] || abort "setup: the sender has no IPv6 link-local address"
SENDERS=(--sender "$SENDER4" --sender "$SENDER6" --sender "$SENDER_LL")

# The TV: avahi-daemon (IPv4 and IPv6) publishing _googlecast._tcp on 8009 with the TXT of
# captures/tools/avahi/chromecast.service, plus the subtypes of one app ID and the media
# criterion. avahi 0.8 accepts the literal % of the media criterion label in <subtype>
# (checked: it answers `_%9E5E...._sub._googlecast._tcp.local PTR`).
mkdir -p "$T/avahi/services"
cat >"$T/avahi/services/tv.service" <<EOF
<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- Tests/probe "Living Room TV": captures/tools/avahi/chromecast.service plus subtypes. -->
<service-group>
  <name>Chromecast-$TV_ID</name>
  <service>
    <type>_googlecast._tcp</type>
    <subtype>_$APP._sub._googlecast._tcp</subtype>
    <subtype>_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp</subtype>
    <port>8009</port>
    <txt-record>id=$TV_ID</txt-record>
    <txt-record>cd=8E1C43A7D2F05B69A3C7E0D14B2F6A58</txt-record>
    <txt-record>rm=5C2E8A41F7B3D096</txt-record>
    <txt-record>ve=05</txt-record>
    <txt-record>md=Chromecast</txt-record>
    <txt-record>ic=/setup/icon.png</txt-record>
    <txt-record>fn=Living Room TV</txt-record>
    <txt-record>ca=4101</txt-record>
    <txt-record>st=0</txt-record>
    <txt-record>bs=FA8FCA3B7E21</txt-record>
    <txt-record>nf=1</txt-record>
    <txt-record>rs=</txt-record>
  </service>
</service-group>
EOF
start_avahi tv "$NS_TV" yes yes
tls tls-tv4 "$NS_TV" "$TV4" 8009
tls tls-tv6 "$NS_TV" "$TV6" 8009
spawn speaker "$NS_SPK" "$PY" "$TOOLS/cast_responder.py" --spec "$TOOLS/zc/home-mini-and-group.json" \
  --ip "$SPK4" --ip-version v4
tls tls-spk "$NS_SPK" "$SPK4" 8009
tls tls-grp "$NS_SPK" "$SPK4" 42238
READY_AT=$((SECONDS + 4)) # the devices' own announcements are over by then (see generate.sh)

# ================================================================ 10. usage (while the devices start)
if "$BIN" help probe >"$T/help.out" 2>&1 && grep -q -- "--app-id" "$T/help.out"; then
  ok "help probe: exit 0, documents --app-id"
else
  fail "help probe: rc=$?, --app-id not mentioned: $(head -c 300 "$T/help.out" | tr '\n' '|')"
fi
run_probe bad-app -i eth0 --app-id 'bad id!' --duration 1
expect_rc bad-app 64 "--app-id 'bad id!'"
run_probe long-app -i eth0 --app-id "$(printf 'A%.0s' {1..65})" --duration 1
expect_rc long-app 64 "--app-id of 65 characters"
run_probe empty-app -i eth0 --app-id '' --duration 1
expect_rc empty-app 64 "--app-id ''"
run_probe zero-dur -i eth0 --duration 0
expect_rc zero-dur 64 "--duration 0"
run_probe nan-dur -i eth0 --duration soon
expect_rc nan-dur 64 "--duration soon"
run_probe bad-fmt -i eth0 --duration 1 --format xml
expect_rc bad-fmt 64 "--format xml"
run_probe no-if -i nosuch0 --duration 1
if [[ $RC == 66 ]] && grep -q nosuch0 "$T/no-if.err"; then
  ok "no-if: -i nosuch0: exit 66, names the interface"
else
  fail "no-if: -i nosuch0: exit $RC (want 66 naming nosuch0); stderr: $(err1 no-if)"
fi

wait_log tv "successfully established" 15 || abort "setup: avahi-daemon (Living Room TV) did not start"
wait_log speaker "ready" 15 || abort "setup: python-zeroconf speaker did not start"
for n in tls-tv4 tls-tv6 tls-spk tls-grp; do
  wait_log "$n" "ready on" 10 || abort "setup: $n did not start"
done
while ((SECONDS < READY_AT + 3)); do sleep 0.2; done # announcements done (~4 s after start)
note "devices ready after ${SECONDS}s"

# ================================================================ 1+2. healthy, json, --write
PCAP1=$T/healthy.pcap
# a reference capture of the sender's eth0 by tcpdump, to tell what the probe's own capture misses
spawn tcpdump "$NS_SND" tcpdump -n -i eth0 -U -w "$T/reference.pcap" -Z root
wait_log tcpdump "listening on" 5 || fail "healthy: the reference tcpdump did not start: $(tail -n 2 "$T/tcpdump.log")"
run_probe healthy -i eth0 --app-id "$APP" --duration 4 --format json --write "$PCAP1"
sleep 0.3
kill -INT "${PID[tcpdump]}" 2>/dev/null
finish tcpdump 5
expect_rc healthy 0 "all devices found and connected"
expect_time healthy 3.8 9
timeout 60 "$BIN" analyze --format json "$PCAP1" >"$T/offline.json" 2>"$T/offline.err"
RC=$?
if [[ $RC == 0 ]]; then ok "healthy: analyze --format json reads the written pcap"; else fail "healthy: analyze of the written pcap: rc=$RC $(head -c 300 "$T/offline.err")"; fi
cj healthy "$T/healthy.out" "${SENDERS[@]}" --interface eth0 --family ipv4 --family ipv6 --app-id "$APP" \
  --duration 4 --captured yes --written "$PCAP1" --answered yes \
  --device "$TV" --device "$SPK" --device "$GRP" --exact-devices --media-device "Living Room TV" \
  --no-finding CONNECT_REFUSED --no-finding CONNECT_TIMEOUT --no-finding APP_ID_UNANSWERED \
  --no-finding INCOMPLETE_RESOLUTION --no-finding NOT_CONNECTED --offline "$T/offline.json"
cw healthy "$PCAP1" "$T/healthy.out" --sender-mac "$SENDER_MAC" --family ipv4 --family ipv6 --app-id "$APP" \
  --duration 4 --connect "$TV4:8009" --connect "$SPK4:8009" --connect "$SPK4:42238" --reference "$T/reference.pcap"
if grep -Eq "$SENDER4:[0-9]+: handshake done .*TLSv1" "$T/tls-tv4.log" &&
  grep -Eq "$SENDER4:[0-9]+: client closed after 0 bytes" "$T/tls-tv4.log"; then
  ok "healthy: the TV's TLS listener logs a handshake from $SENDER4 and an orderly close ($(grep -Eo 'handshake done .*' "$T/tls-tv4.log" | head -n 1))"
else
  fail "healthy: no handshake + close from $SENDER4 in the TV's TLS listener log: $(tail -n 4 "$T/tls-tv4.log" | tr '\n' '|')"
fi
for n in tls-spk tls-grp; do
  if grep -Eq "$SENDER4:[0-9]+: handshake done" "$T/$n.log"; then
    ok "healthy: $n logs a handshake from $SENDER4"
  else
    fail "healthy: no handshake from $SENDER4 in $n's log: $(tail -n 3 "$T/$n.log" | tr '\n' '|')"
  fi
done

# ================================================================ 9+11. privilege drop, text output
ip netns exec "$NS_SND" "$BIN" probe -i eth0 --duration 3 </dev/null >"$T/text.out" 2>"$T/text.err" &
PID[text]=$!
pid=$(castscope_pid text)
for ((i = 0; i < 25; i++)); do
  [[ $(ids "$pid" Uid) == "$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID" ]] && break
  sleep 0.1
done
u=$(ids "$pid" Uid)
g=$(ids "$pid" Gid)
gr=$(ids "$pid" Groups)
cap=$(ids "$pid" CapEff)
comm=$(cat "/proc/$pid/comm" 2>/dev/null)
if [[ $comm == castscope && $u == "$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID" && $g == "$NOBODY_GID $NOBODY_GID $NOBODY_GID $NOBODY_GID" ]]; then
  ok "privileges: /proc/$pid/status of the running probe: Uid '$u', Gid '$g' (nobody)"
else
  fail "privileges: /proc/$pid/status ($comm) Uid '$u', Gid '$g', want nobody's ($NOBODY_UID/$NOBODY_GID) for all four"
fi
if [[ -z $gr || $gr == "$NOBODY_GID" ]] && [[ $cap == 0000000000000000 ]]; then
  ok "privileges: no supplementary groups of root, no effective capabilities"
else
  fail "privileges: Groups '$gr', CapEff '$cap' after dropping root"
fi
finish text 20
if [[ $RC == 0 ]]; then ok "text: exit 0"; else fail "text: exit $RC; stderr: $(err1 text)"; fi
missing=()
for w in "Living Room TV" "Kitchen Speaker" "eth0"; do grep -qF "$w" "$T/text.out" || missing+=("$w"); done
grep -qi "established" "$T/text.out" || missing+=("established")
if ((${#missing[@]} == 0)); then
  ok "text: the report names the TV, the speaker, the interface eth0 and says established"
else
  fail "text: the report lacks: ${missing[*]}; stdout: $(out1 text)"
fi

# ================================================================ 7. --no-connect
before=$(cat "$T"/tls-*.log | grep -c accepted)
run_probe noconn -i eth0 --duration 3 --no-connect --format json --write "$T/noconn.pcap"
expect_rc noconn 0 "--no-connect, devices found"
cj noconn "$T/noconn.out" "${SENDERS[@]}" --interface eth0 --family ipv4 --family ipv6 --duration 3 \
  --captured yes --written "$T/noconn.pcap" --answered yes --exact-devices \
  --device "Living Room TV|$TV4|8009|none|$TV_ID|Chromecast" --device "${SPK/established/none}" \
  --device "${GRP/established/none}"
cw noconn "$T/noconn.pcap" "$T/noconn.out" --sender-mac "$SENDER_MAC" --family ipv4 --family ipv6 \
  --duration 3 --no-connect
after=$(cat "$T"/tls-*.log | grep -c accepted)
if ((after == before)); then ok "noconn: no TLS listener accepted a connection"; else fail "noconn: the TLS listeners accepted $((after - before)) connections"; fi

# ================================================================ 3. app IDs
run_probe appids -i eth0 --app-id "$APP" --app-id "$APP_NONE" --duration 4 --format json --fail-on error
expect_rc appids 1 "APP_ID_UNANSWERED is an error and --fail-on error"
cj appids "$T/appids.out" "${SENDERS[@]}" --family ipv4 --family ipv6 --app-id "$APP" --app-id "$APP_NONE" \
  --duration 4 --captured yes --written none --answered yes --device "$TV" \
  --finding APP_ID_UNANSWERED --app-unanswered "$APP_NONE" --app-answered "$APP"

# ================================================================ 8. not root
run_probe nobody nobody -i eth0 --duration 3 --format json
expect_rc nobody 0 "as nobody: still probes, devices found and connected"
cj nobody "$T/nobody.out" "${SENDERS[@]}" --interface eth0 --family ipv4 --family ipv6 --duration 3 \
  --captured no --written none --answered yes --device "$TV" --device "$SPK" --device "$GRP" --exact-devices
if [[ -s $T/nobody.err ]] && grep -Eqi 'warn' "$T/nobody.err" && grep -Eqi 'captur|frame|packet' "$T/nobody.err"; then
  ok "nobody: stderr warns that frames are missing: $(head -c 200 "$T/nobody.err" | tr '\n' ' ')"
else
  fail "nobody: no warning about missing frames on stderr: $(err1 nobody)"
fi
run_probe nobody-write nobody -i eth0 --duration 2 --format json --write "$T/nobody/x.pcap"
if [[ $RC == 77 && ! -s $T/nobody/x.pcap ]]; then
  ok "nobody-write: --write as nobody: exit 77, no pcap written ($(head -c 160 "$T/nobody-write.err" | tr '\n' ' '))"
else
  fail "nobody-write: exit $RC (want 77), pcap $(stat -c %s "$T/nobody/x.pcap" 2>/dev/null || echo absent); stderr: $(err1 nobody-write)"
fi

# ================================================================ 4. isolated
isolate on
run_probe isolated -i eth0 --duration 3
isolate off
expect_rc isolated 69 "isolated bridge ports: nothing answered"
if grep -Eqi 'nothing answered|no (cast )?(device|receiver)s? (answered|responded|found)|no answers?\b' "$T/isolated.out"; then
  ok "isolated: the text report says nothing answered: $(grep -Ei -m1 'answer|found|respond' "$T/isolated.out" | head -c 160)"
else
  fail "isolated: the text report does not say that nothing answered; stdout: $(out1 isolated) stderr: $(err1 isolated)"
fi

# ================================================================ 12. beside avahi, --ipv4
# An avahi-daemon of the sender's own (no services) holds UDP 5353 in the sender's namespace:
# the probe binds beside it (SO_REUSEADDR/SO_REUSEPORT) and still finds the devices.
start_avahi snd-avahi "$NS_SND" yes no csp-sender
if wait_log snd-avahi "Server startup complete" 15; then
  run_probe beside -i eth0 --ipv4 --duration 3 --format json
  expect_rc beside 0 "beside the sender's own avahi-daemon (it holds 5353 too)"
  cj beside "$T/beside.out" "${SENDERS[@]}" --interface eth0 --family ipv4 --duration 3 --captured yes \
    --written none --answered yes --device "$TV" --device "$SPK" --device "$GRP" --exact-devices \
    --no-finding NOT_CONNECTED
else
  fail "beside: the sender's avahi-daemon did not start: $(tail -n 3 "$T/snd-avahi.log" | tr '\n' '|')"
fi
stop snd-avahi

# ================================================================ 13. follow-up questions
# A faulty device (captures/tools/hand_responder.py --mode ptr-only, "Den Shield"): its answers
# carry the PTR only and it ignores SRV/TXT/A questions, so the probe asks follow-up SRV and
# TXT questions and never resolves it.
add_host "$NS_SHD" v-shield 02:ca:57:03:00:25 "$SHD4/24"
spawn shield "$NS_SHD" "$PY" "$TOOLS/hand_responder.py" --spec "$TOOLS/zc/shield-big-txt.json" --ip "$SHD4" \
  --mode ptr-only
if wait_log shield "ready" 10; then
  PCAPF=$T/followup.pcap
  run_probe followup -i eth0 --ipv4 --duration 3 --format json --write "$PCAPF"
  expect_rc followup 1 "a device answered but could not be resolved, so not reached"
  cj followup "$T/followup.out" "${SENDERS[@]}" --family ipv4 --duration 3 --captured yes --answered yes \
    --device "$TV" --device "$SPK" --device "$GRP" --unresolved "SHIELD-Android-TV-" \
    --finding INCOMPLETE_RESOLUTION
  cw followup "$PCAPF" "$T/followup.out" --sender-mac "$SENDER_MAC" --family ipv4 --duration 3 \
    --follow-up "SHIELD-Android-TV-"
else
  fail "followup: hand_responder.py did not start: $(tail -n 3 "$T/shield.log" | tr '\n' '|')"
fi
stop shield

# ================================================================ 5. refused, timeout
stop tls-tv4
stop tls-tv6
run_probe refused -i eth0 --duration 3 --format json
expect_rc refused 1 "the TV refuses the connection"
cj refused "$T/refused.out" "${SENDERS[@]}" --family ipv4 --family ipv6 --duration 3 --captured yes --answered yes \
  --device "${TV/established/refused}" --device "$SPK" --device "$GRP" \
  --finding "CONNECT_REFUSED=Living Room TV" --no-finding CONNECT_TIMEOUT --no-finding NOT_CONNECTED

if ! { ip netns exec "$NS_TV" nft add table inet csp &&
  ip netns exec "$NS_TV" nft add chain inet csp in '{ type filter hook input priority 0; }' &&
  ip netns exec "$NS_TV" nft add rule inet csp in tcp dport 8009 drop; }; then
  abort "nft in $NS_TV"
fi
run_probe ctimeout -i eth0 --duration 4 --connect-timeout 3 --format json
expect_rc ctimeout 1 "the TV drops the SYNs"
expect_time ctimeout 3.8 10
cj ctimeout "$T/ctimeout.out" "${SENDERS[@]}" --family ipv4 --family ipv6 --duration 4 --captured yes --answered yes \
  --device "${TV/established/timeout}" --device "$SPK" --device "$GRP" \
  --finding "CONNECT_TIMEOUT=Living Room TV" --no-finding CONNECT_REFUSED --no-finding NOT_CONNECTED
ip netns exec "$NS_TV" nft delete table inet csp || fail "nft delete table inet csp in $NS_TV"

# ================================================================ 6. IPv6 only
stop tv
ip -n "$NS_TV" addr del "$TV4/24" dev eth0 || abort "ip addr del $TV4"
start_avahi tv6 "$NS_TV" no yes
tls tls-tv6b "$NS_TV" "$TV6" 8009
wait_log tv6 "successfully established" 15 || abort "setup: avahi-daemon (IPv6 only) did not start"
wait_log tls-tv6b "ready on" 10 || abort "setup: tls-tv6b did not start"
sleep 6 # its announcements are over (else the probe lists the TV as a known answer in its first query)
PCAP6=$T/ipv6.pcap
run_probe ipv6 -i eth0 --ipv6 --duration 4 --format json --write "$PCAP6"
expect_rc ipv6 0 "--ipv6: the TV found and connected over IPv6"
cj ipv6 "$T/ipv6.out" "${SENDERS[@]}" --interface eth0 --family ipv6 --duration 4 --captured yes \
  --written "$PCAP6" --answered yes --device "Living Room TV|$TV6|8009|established|$TV_ID|Chromecast" --exact-devices \
  --no-finding NOT_CONNECTED
cw ipv6 "$PCAP6" "$T/ipv6.out" --sender-mac "$SENDER_MAC" --family ipv6 --duration 4 --connect "[$TV6]:8009"
if grep -Eq "$SENDER6:[0-9]+: handshake done .*TLSv1" "$T/tls-tv6b.log"; then
  ok "ipv6: the TV's TLS listener on [$TV6]:8009 logs a handshake from $SENDER6"
else
  fail "ipv6: no handshake from $SENDER6 in the TV's IPv6 TLS listener log: $(tail -n 3 "$T/tls-tv6b.log" | tr '\n' '|')"
fi

note "ran for ${SECONDS}s"
exit 0
