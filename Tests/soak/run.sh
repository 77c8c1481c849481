#!/usr/bin/env bash
# Tests/soak/run.sh -- the soak test of `castscope live --metrics` (run as root).
#
#   sudo Tests/soak/run.sh            # 60 s (make test)
#   sudo Tests/soak/run.sh 600        # 10 minutes (make soak)
#   CASTSCOPE=/path/to/castscope KEEP=1 sudo -E Tests/soak/run.sh 120   # keep $T (scrapes, RSS samples)
#
# castscope live --metrics runs for SECONDS (default 60) in one network namespace, capturing on
# a veth; from the other end, in a second namespace, Tests/soak/load.py replays the bundled
# Ethernet captures at a high rate with tcpreplay and sends a stream of ever-new clients and
# devices (the churn: rewritten copies of a few captures) through a raw socket. After the load,
# a cooldown of max(window, forget) + slack lets findings clear and clients age out; then SIGINT.
# Meanwhile Tests/soak/soak.py samples castscope's VmRSS/VmHWM every 2 s and scrapes /metrics
# every 5 s over a third veth (203.0.113.253:9150). The checks (Tests/soak/soak.py check; the
# README lists them): the counters add up exactly (frames that passed the discovery filter,
# Cast queries, per client), never decrease, every exposition parses strictly and is consistent,
# the series stay bounded, forgotten clients and devices leave, findings clear, memory is flat,
# castscope exits 0 on SIGINT with its analysis.
# Prints `ok ...` / `FAIL ...` lines, then `soak: N passed, M failed`; exits 1 on a failure.
#
# Settings (environment): SOAK_WINDOW, SOAK_FORGET, SOAK_GAP (--metrics-window, --metrics-forget,
# --session-gap; default from SECONDS), SOAK_PPS (tcpreplay rate, 5000), SOAK_CHURN_RATE (new
# churn loops a second, 1), SOAK_CHURN_TTL (record TTL cap of the churn, default from the
# window), SOAK_MAX_CLIENTS / SOAK_MAX_DEVICES (the series bounds; SOAK_EXPECT_DROPS=1 requires
# both to be reached, the default from 300 s on), SOAK_SCRAPE_EVERY (5),
# SOAK_RSS_MAX_MIB (150), SOAK_RSS_GROWTH (1.05), SOAK_RSS_SLACK_MIB (4), SOAK_MAX_DROP_SHARE
# (kernel drops allowed, as a share of the frames that passed the filter: 0); SOAK_LIVE_ARGS: more
# castscope live options (e.g. --buffer-size 67108864).
#
# Safety: the frames go only into the veth between the two csk-<pid>-* namespaces made here;
# the addresses configured are 203.0.113.253/30 and .254 (the metrics link); the frames are the
# bundled captures' (192.0.2.0/24, 198.51.100.0/24, 2001:db8::/32, link-local, mDNS/SSDP
# multicast), the churn's are rewritten into 198.51.100.0/24, 203.0.113.0/24 and
# 2001:db8:c5::/48. Neither capture end has an address or IPv6, so their kernels send nothing.
# Everything is removed on exit (Tests/lib/netns.sh), also on failure, Ctrl-C or the watchdog.
#
# Requirements (Debian 12): iproute2, tcpreplay, tcpdump, wireshark-common (capinfos), python3.
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
HARNESS=soak
NS_PREFIX=csk
SOAK_SECONDS=${1:-60}
[[ $SOAK_SECONDS =~ ^[0-9]+$ ]] && ((SOAK_SECONDS >= 45)) || { echo "usage: $0 [SECONDS >= 45]" >&2; exit 64; }

# --- settings ----------------------------------------------------------------------------------
# A short run (make test) ages with --metrics-forget = --metrics-window and leaves the series
# unbounded; a long one (>= 300 s, make soak) forgets after two windows and bounds the series
# between what one window's tracker holds and what the watch would keep: the bounds must be
# reached (the window trackers, which --max-clients/--max-devices also bound, must not).
LONG=$((SOAK_SECONDS >= 300))
W=${SOAK_WINDOW:-$(((SOAK_SECONDS / 10) < 10 ? 10 : (SOAK_SECONDS / 10) > 600 ? 600 : SOAK_SECONDS / 10))}
F=${SOAK_FORGET:-$((LONG ? 2 * W : W))}
GAP=${SOAK_GAP:-$(((W / 2) < 10 ? W / 2 : 10))}
PPS=${SOAK_PPS:-5000}
CHURN_RATE=${SOAK_CHURN_RATE:-1}
CHURN_TTL=${SOAK_CHURN_TTL:-$(((W / 2) < 10 ? 10 : (W / 2) > 120 ? 120 : W / 2))}
# The fixed captures keep 8 client and 6 device series; a churn loop is one client and 1.33
# devices (on average) heard for about 10 s. A window's tracker holds what it heard in its
# window (8 + R(W + 10) clients), the watch what was heard within F (8 + R(F + 10) and, for
# devices, their TTL on top): the bound is set halfway (measured at 600 s: 76 and 136 clients,
# about 96 and 166 devices, with the bounds 108 and 139).
bound() { awk -v base="$1" -v per="$2" -v r="$CHURN_RATE" -v w="$W" -v f="$F" \
  'BEGIN { printf "%d", base + per * r * ((w + f) / 2 + 10) }'; }
MAX_CLIENTS=${SOAK_MAX_CLIENTS:-$( ((LONG)) && bound 8 1 || echo 10000)}
MAX_DEVICES=${SOAK_MAX_DEVICES:-$( ((LONG)) && bound 6 1.33 || echo 10000)}
EXPECT_DROPS=${SOAK_EXPECT_DROPS:-$LONG}
SCRAPE_EVERY=${SOAK_SCRAPE_EVERY:-5}
SLACK=2 # seconds: clocks, and castscope refreshes its report at most once a second
# castscope ages its series and takes in the window's findings at a scrape (and each half
# window): up to a scrape interval late
COOLDOWN=$(((W > F ? W : F) + SCRAPE_EVERY + SLACK))
SETTLE=3
LOAD=$((SOAK_SECONDS - COOLDOWN - SETTLE - 2))
LIMIT=$((SOAK_SECONDS + 150)) # the watchdog

# the namespaces, processes, cleanup and traps (ok/fail/note, abort, spawn, ...; sets BIN, PY)
# shellcheck source=Tests/lib/netns.sh
source Tests/lib/netns.sh || exit 2
HERE=$ROOT/Tests/soak
PORT=9150
MADDR=203.0.113.253
URL=http://$MADDR:$PORT/metrics

RUN=$$
NS_CAP=$NS_PREFIX-$RUN-cap # castscope
NS_RP=$NS_PREFIX-$RUN-rp   # the load and the monitor

# --- requirements ------------------------------------------------------------------------------
[[ $EUID -eq 0 ]] || abort "must be run as root (it creates network namespaces)"
[[ -x $BIN ]] || abort "castscope binary not found at $BIN (build with: make build, or set CASTSCOPE)"
for c in ip tcpreplay tcpdump capinfos "$PY" setsid; do
  command -v "$c" >/dev/null 2>&1 || abort "missing requirement: $c (apt-get install tcpreplay tcpdump wireshark-common iproute2)"
done
"$BIN" help live 2>/dev/null | grep -q -- "--metrics-forget" || abort "castscope has no live --metrics ($BIN help live)"
((LOAD >= 20)) || abort "SECONDS=$SOAK_SECONDS leaves ${LOAD}s of load after a ${COOLDOWN}s cooldown; give more"
start_run
run_py_checks "$PY" "$HERE/soak.py" selftest # the exposition parser refuses what it must
note "soak: ${SOAK_SECONDS}s = ${LOAD}s load + ${SETTLE}s settle + ${COOLDOWN}s cooldown; window ${W}s, forget ${F}s," \
  "session gap ${GAP}s, tcpreplay ${PPS} pps, ${CHURN_RATE} churn loops/s (TTL <= ${CHURN_TTL}s)," \
  "max clients $MAX_CLIENTS, max devices $MAX_DEVICES"

# --- what is replayed, and what castscope analyze says of it -----------------------------------
FIXED=()
for f in captures/*.pcap; do
  lt=$(capinfos -T -E -r "$f" 2>/dev/null | cut -f2)
  if [[ $lt == ether ]]; then FIXED+=("$ROOT/$f"); else note "not replayed (link type ${lt:-?}, not Ethernet): ${f##*/}"; fi
done
# churn templates: one client each, no fragments (load.py checks); short device TTLs, a
# goodbye, an expiry, IPv6, unicast answers, a slow answer
CHURN=(healthy-ipv4 ipv6 goodbye device-expired multi-device slow-response)
CHURN_FILES=()
for c in "${CHURN[@]}"; do CHURN_FILES+=("$ROOT/captures/$c.pcap"); done
mkdir -p "$T/analyses" "$T/events"
for f in "${FIXED[@]}"; do
  timeout 60 "$BIN" analyze --format json "$f" >"$T/analyses/${f##*/}.json" 2>>"$T/analyze.err"
  (($? <= 1)) || abort "castscope analyze ${f##*/} failed: $(tail -c 300 "$T/analyze.err")"
done
# an empty Ethernet capture: the findings an idle window gives by itself
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x01\x00\x00\x00' >"$T/empty.pcap"
timeout 60 "$BIN" analyze --format json "$T/empty.pcap" >"$T/analyses/empty.pcap.json" 2>>"$T/analyze.err"
(($? <= 1)) || abort "castscope analyze of an empty capture failed: $(tail -c 300 "$T/analyze.err")"

# --- the namespaces: cap0 (castscope) <-> rp0 (the load), mgmt0 <-> mon0 (the scrapes) --------
bare() { # NS : no IPv6 at all (no link-local, MLD, router solicitations: nothing sent by the kernel)
  psys "$1" net.ipv6.conf.all.disable_ipv6 1
  psys "$1" net.ipv6.conf.default.disable_ipv6 1
}
mkns "$NS_CAP"
bare "$NS_CAP"
mkns "$NS_RP"
bare "$NS_RP"
ip -n "$NS_RP" link add rp0 type veth peer name cap0 netns "$NS_CAP" || abort "veth rp0/cap0"
ip -n "$NS_RP" link add mon0 type veth peer name mgmt0 netns "$NS_CAP" || abort "veth mon0/mgmt0"
ip -n "$NS_CAP" addr add "$MADDR/30" dev mgmt0
ip -n "$NS_RP" addr add 203.0.113.254/30 dev mon0
for l in cap0 mgmt0; do ip -n "$NS_CAP" link set "$l" up; done
for l in rp0 mon0; do ip -n "$NS_RP" link set "$l" up; done

cap0_stats() { # the veth counters of cap0 as JSON
  local k out=() v
  for k in rx_packets rx_dropped tx_packets; do
    v=$(ip netns exec "$NS_CAP" cat "/sys/class/net/cap0/statistics/$k")
    out+=("\"$k\": $v")
  done
  local IFS=,
  echo "{${out[*]}}"
}

# --- castscope live --metrics ------------------------------------------------------------------
# Its events go through a FIFO to a reader that keeps only what the checks need (a long run
# prints a lot of them).
mkfifo "$T/live.fifo"
"$PY" "$HERE/soak.py" events "$T/events" <"$T/live.fifo" >"$T/events.log" 2>&1 &
PID[events]=$!
ip netns exec "$NS_CAP" "$BIN" live -i cap0 --format jsonl --user root \
  --metrics "$MADDR:$PORT" --metrics-window "$W" --metrics-forget "$F" --session-gap "$GAP" \
  --max-clients "$MAX_CLIENTS" --max-devices "$MAX_DEVICES" ${SOAK_LIVE_ARGS:-} </dev/null >"$T/live.fifo" 2>"$T/live.err" &
PID[live]=$!
LIVE_START=$(date +%s.%N)
for ((i = 0; i < 100; i++)); do
  [[ -s $T/events/started.json ]] && break
  kill -0 "${PID[live]}" 2>/dev/null || break
  sleep 0.1
done
[[ -s $T/events/started.json ]] || abort "castscope live did not start: $(head -c 400 "$T/live.err" | tr '\n' '|')"
"$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["filter"])' "$T/events/started.json" >"$T/filter.txt" ||
  abort "no filter in the started event: $(head -c 300 "$T/events/started.json")"
LPID=$(castscope_pid live)
for ((i = 0; i < 50; i++)); do
  ip netns exec "$NS_RP" "$PY" "$HERE/soak.py" scrape --url "http://$MADDR:$PORT/healthz" --out "$T/healthz" >/dev/null 2>&1
  [[ $(cat "$T/healthz" 2>/dev/null) == ok ]] && break
  sleep 0.1
done
if [[ $(cat "$T/healthz" 2>/dev/null) == ok ]]; then
  ok "castscope live --metrics $MADDR:$PORT started (pid $LPID); /healthz says ok"
else
  abort "/healthz did not answer ok: $(head -c 200 "$T/healthz" 2>/dev/null)"
fi

"$PY" "$HERE/load.py" prepare --filter-file "$T/filter.txt" --out "$T" --analyses "$T/analyses" \
  --fixed "${FIXED[@]}" --churn "${CHURN_FILES[@]}" --churn-ttl "$CHURN_TTL" >"$T/prepare.log" 2>&1 ||
  abort "load.py prepare: $(tail -n 3 "$T/prepare.log" | tr '\n' '|')"
note "$(cat "$T/prepare.log")"

# --- the run ---------------------------------------------------------------------------------------
spawn monitor "$NS_RP" "$PY" "$HERE/soak.py" monitor --pid "$LPID" --url "$URL" --out "$T" \
  --scrape-every "$SCRAPE_EVERY" --stop-file "$T/stop-monitor"
BEFORE=$(cap0_stats)
LOAD_START=$(date +%s.%N)
UNTIL=$("$PY" -c "import time; print(time.time() + $LOAD)")
spawn load "$NS_RP" "$PY" "$HERE/load.py" run --iface rp0 --out "$T" --analyses "$T/analyses" --until "$UNTIL" \
  --pps "$PPS" --churn-rate "$CHURN_RATE"
finish load $((LOAD + 60))
LOAD_END=$(date +%s.%N)
[[ $RC == 0 && -s $T/load.json ]] || abort "load.py run: rc=$RC $(tail -n 3 "$T/load.log" | tr '\n' '|')"
note "$(tail -n 1 "$T/load.log")"
sleep "$SETTLE"
AFTER=$(cap0_stats)
echo "{\"before\": $BEFORE, \"after\": $AFTER}" >"$T/cap0-stats.json"
ip netns exec "$NS_RP" "$PY" "$HERE/soak.py" scrape --url "$URL" --out "$T/after-load.prom" >/dev/null
note "cooldown ${COOLDOWN}s (no traffic)"
sleep "$COOLDOWN"
ip netns exec "$NS_RP" "$PY" "$HERE/soak.py" scrape --url "$URL" --out "$T/after-cooldown.prom" >/dev/null
touch "$T/stop-monitor"
finish monitor 15
stop live INT 30
LIVE_RC=$RC
finish events 10
END=$(date +%s.%N)

# --- the checks ----------------------------------------------------------------------------------
MIN_SCRAPES=$(((LOAD + COOLDOWN) / SCRAPE_EVERY - 2))
run_py_checks "$PY" "$HERE/soak.py" check --dir "$T" --window "$W" --forget "$F" --session-gap "$GAP" \
  --cooldown "$COOLDOWN" --max-clients "$MAX_CLIENTS" --max-devices "$MAX_DEVICES" \
  $( ((EXPECT_DROPS)) && echo --expect-drops) --min-scrapes "$MIN_SCRAPES" \
  --load-start "$LOAD_START" --load-end "$LOAD_END" --rc "$LIVE_RC" --slack "$SLACK" --age-every "$SCRAPE_EVERY" \
  --max-drop-share "${SOAK_MAX_DROP_SHARE:-0}" \
  --rss-max-mib "${SOAK_RSS_MAX_MIB:-150}" --rss-growth "${SOAK_RSS_GROWTH:-1.05}" --rss-slack-mib "${SOAK_RSS_SLACK_MIB:-4}"
note "ran for $(awk -v a="$LIVE_START" -v b="$END" 'BEGIN { printf "%.0f", b - a }')s of castscope (${SECONDS}s in all)"
exit 0
