#!/usr/bin/env bash
# Tests/metrics/run.sh -- integration tests of `castscope live --metrics` (run as root).
#
#   sudo Tests/metrics/run.sh                 # from anywhere; CASTSCOPE=/path/to/castscope to pick the binary
#   KEEP=1 sudo Tests/metrics/run.sh          # keep the logs, scrapes and the watch timeline in /tmp
#
# A LAN of network namespaces (csm-<pid>-*) on one bridge: `castscope live -i eth0 --metrics
# 192.0.2.2:9150 --metrics-window 20 --metrics-forget 30 --session-gap 5` on the monitor (as
# nobody after the drop), three hand-built Cast responders with 6 s TTLs (cast_peers.py, the
# devices of devices.json: a TV, a speaker, a group whose name has a quote, a backslash, a
# newline and non-ASCII), a querier that asks every 6 s (each query a session), a storm
# querier, and Prometheus scraping the monitor once a second from csm-<pid>-prom.  Checks:
#   1. HTTP (http_checks.py, from the Prometheus host): /healthz, /metrics and its Content-Type,
#      404, 405 with Allow, HEAD, 431 for a head over 8192 bytes, 400 for garbage, HTTP/1.0 and
#      1.1, Connection: close; 20 idle connections (16 kept, the rest closed, the server still
#      answers once they go); an idle and a trickling connection closed after ~10 s;
#      --metrics as [2001:db8::2]:915 (a privileged port: bound before the drop to nobody) and
#      as a bare port (all addresses; with --max-devices 2: limit_drops_total); a port in
#      use exits 69, a bad [ADDR:]PORT or window 64;
#   2. `promtool check metrics` on a scrape;
#   3. the exposition, read strictly (Tests/lib/expo.py), against what the LAN did (check_metrics.py
#      static): families and types, devices_visible, device_up with id/name/model/kind (the
#      name round-trips exactly), histograms, packets read >= sent, the querier's queries_total
#      equal to the number it sent, connections_total per outcome; the names as `castscope
#      analyze` shows them (of live's --write file);
#   4. ageing (check_metrics.py timeline over a scrape every 0.5 s): a responder killed with
#      SIGKILL goes to 0 after its TTL, one that says goodbye at once, devices_visible follows,
#      unanswered queries counted, and after --metrics-forget their series leave;
#   5. findings: QUERY_STORM (8 queries 0.6 s apart) and CONNECT_REFUSED appear, then clear
#      within the 20 s window;
#   6. a real Prometheus: target up; castscope_devices_visible, count(castscope_device_up == 1)
#      and a first-answer p90 through histogram_quantile over the bucket rates; the rules load
#      and evaluate;
#   7. the rules (the ```yaml block under "Alerting rules" in docs/metrics.md, else
#      Tests/metrics/rules.yml): `promtool check rules` and `promtool test rules rules_test.yml`.
# Prints one `ok ...` / `FAIL ...` line per check, then `metrics: N passed, M failed`; exits
# non-zero if any check failed.  About 90 s.
#
# Safety: all traffic stays inside the csm-* namespaces created here; only 192.0.2.0/24 and
# 2001:db8::/32 addresses (and kernel fe80:: link-local); every namespace and every process
# started here is removed on exit, also on failure, Ctrl-C or SIGTERM (trap), and a watchdog
# ends the run after METRICS_TEST_LIMIT seconds (default 230).
#
# Requirements (Debian 12): iproute2, util-linux, prometheus (prometheus and promtool), python3.
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
HARNESS=metrics
NS_PREFIX=csm
LIMIT=${METRICS_TEST_LIMIT:-230}
# the namespaces, processes, cleanup and traps (ok/fail/note, abort, spawn, ...; sets BIN, PY)
# shellcheck source=Tests/lib/netns.sh
source Tests/lib/netns.sh || exit 2
HERE=$ROOT/Tests/metrics
CHECK=("$PY" "$HERE/check_metrics.py")
SPEC=$HERE/devices.json

# --- fixed identities (documentation addresses only) -------------------------
RUN=$$
NS_BR=$NS_PREFIX-$RUN-br
NS_MON=$NS_PREFIX-$RUN-monitor
NS_PROM=$NS_PREFIX-$RUN-prom
NS_Q=$NS_PREFIX-$RUN-querier
NS_STORM=$NS_PREFIX-$RUN-storm
MON4=192.0.2.2
MON6=2001:db8::2
PROM4=192.0.2.3
PROM6=2001:db8::3
Q4=192.0.2.10
STORM4=192.0.2.11
PORT=9150
TARGET=$MON4:$PORT
TTL=6           # the responders' record TTLs
ANNOUNCE=2      # ... and how often they announce
WINDOW=20       # --metrics-window
FORGET=30       # --metrics-forget
GAP=5           # --session-gap (the window must be at least twice it)
Q_EVERY=6       # the querier: one query every Q_EVERY s (> GAP: each one a session) ...
Q_COUNT=9       # ... this many
STORM_COUNT=8   # the storm: this many queries 0.6 s apart
DEVICES=(tv speaker odd)
NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)

# --- requirements and start ----------------------------------------------------
[[ $EUID -eq 0 ]] || abort "must be run as root (it creates network namespaces)"
[[ -x $BIN ]] || abort "castscope binary not found at $BIN (build with: swift build -c release)"
for c in ip "$PY" prometheus promtool timeout setsid; do
  command -v "$c" >/dev/null 2>&1 || abort "missing requirement: $c (Debian: apt-get install prometheus iproute2)"
done
"$BIN" help live 2>/dev/null | grep -q -- "--metrics" || abort "castscope live has no --metrics ($BIN help live)"
start_run
note "castscope: $BIN; prometheus $(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }')"

# --- helpers -----------------------------------------------------------------------
in_prom() { ip netns exec "$NS_PROM" "$@"; }
check() { run_py_checks in_prom "${CHECK[@]}" "$@"; } # (from the Prometheus host)
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }
sleep_until() { while awk -v t="$1" -v n="$(now)" 'BEGIN { exit !(n < t) }'; do sleep 0.05; done; }
event() { echo "$1=$(now)" >>"$T/events"; }
no_ipv6() { # NS... : IPv6 off (IPv4 mDNS only from these hosts)
  local ns
  for ns in "$@"; do
    psys "$ns" net.ipv6.conf.all.disable_ipv6 1
    psys "$ns" net.ipv6.conf.default.disable_ipv6 1
  done
}
spawn_live() { # NAME ARGS... : castscope live (the copy nobody may run) in the monitor's namespace
  local name=$1
  shift
  ip netns exec "$NS_MON" "$NOBODY_BIN" live -i eth0 "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err" &
  PID[$name]=$!
}
sent_count() { cat "$T"/{tv,speaker,odd,querier,storm}.log 2>/dev/null | grep -c '^sent '; }
wait_healthz() { # HOST PORT SECONDS : 0 once GET /healthz answers 200
  local i
  for ((i = 0; i < $3 * 5; i++)); do
    in_prom "$PY" - "$HERE/../lib" "$1" "$2" <<'EOF' >/dev/null 2>&1 && return 0
import sys; sys.path.insert(0, sys.argv[1]); import expo
sys.exit(0 if expo.http_get(sys.argv[2], int(sys.argv[3]), "/healthz", timeout=1)[0] == 200 else 1)
EOF
    sleep 0.2
  done
  return 1
}
# stop_live NAME LABEL : SIGINT; exit 0 and the analysis printed, nothing alarming on stderr
stop_live() {
  stop "$1" INT 15
  if [[ $RC == 0 ]] && grep -Eq '^(OK|WARN|FAIL): ' "$T/$1.out" && ! grep -Eiq 'error|fatal|assert' "$T/$1.err"; then
    ok "$2: SIGINT: exit 0, the analysis printed, stderr quiet"
  else
    fail "$2: SIGINT: rc=$RC; stdout tail: $(tail -c 300 "$T/$1.out" | tr '\n' '|'); stderr: $(head -c 300 "$T/$1.err" | tr '\n' '|')"
  fi
}

# =============================================================== 7. the rules (no network)
mkdir -p "$T/rules"
# the first ```yaml block in the section under a heading "Alerting rules" (to the next heading)
rules_block() { awk '!y && /^#+ / { f = /Alerting rules/; next } f && !y && /^```ya?ml/ { y = 1; next } y && /^```/ { exit } y' docs/metrics.md; }
rules_block >"$T/rules/rules.yml"
RULES_FROM="docs/metrics.md (\"Alerting rules\")"
[[ -s $T/rules/rules.yml ]] || abort "docs/metrics.md has no yaml block under \"Alerting rules\""
cp "$HERE/rules_test.yml" "$T/rules/"
if promtool check rules "$T/rules/rules.yml" >"$T/promtool-rules.log" 2>&1; then
  ok "promtool check rules: $RULES_FROM: $(grep -o 'SUCCESS.*' "$T/promtool-rules.log")"
else
  fail "promtool check rules $RULES_FROM: $(tr '\n' '|' <"$T/promtool-rules.log" | head -c 600)"
fi
if (cd "$T/rules" && promtool test rules rules_test.yml) >"$T/promtool-test.log" 2>&1; then
  ok "promtool test rules rules_test.yml: every alert fires on its bad series only, the recording rules give the expected values"
else
  fail "promtool test rules: $(tr '\n' '|' <"$T/promtool-test.log" | head -c 1500)"
fi
run_py_checks "$PY" "$HERE/../lib/expo.py" selftest

# =============================================================== the LAN
mkbridge
# A hub (no MAC learning): the monitor sees the unicast TCP between other hosts, as on a mirror port.
ip -n "$NS_BR" link set br0 type bridge ageing_time 0 || abort "bridge ageing_time 0"
add_host "$NS_MON" v-monitor 02:ca:57:09:00:02 "$MON4/24" "$MON6/64"
add_host "$NS_PROM" v-prom 02:ca:57:09:00:03 "$PROM4/24" "$PROM6/64"
add_host "$NS_Q" v-querier 02:ca:57:09:00:10 "$Q4/24"
add_host "$NS_STORM" v-storm 02:ca:57:09:00:11 "$STORM4/24"
no_ipv6 "$NS_Q" "$NS_STORM"
for d in "${DEVICES[@]}"; do
  ip4=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["ip"])' "$SPEC" "$d")
  add_host "$NS_PREFIX-$RUN-$d" "v-$d" "02:ca:57:09:00:${ip4##*.}" "$ip4/24"
  no_ipv6 "$NS_PREFIX-$RUN-$d"
done

# =============================================================== castscope, Prometheus, the devices
STARTED=$(now)
spawn_live live --metrics "$TARGET" --metrics-window "$WINDOW" --metrics-forget "$FORGET" --session-gap "$GAP" \
  --write "$T/live.pcap"
# the other address forms: a privileged port on IPv6 (bound before the drop to nobody) and a bare port
spawn_live live6 --metrics "[$MON6]:915" --metrics-window "$WINDOW" --session-gap "$GAP"
spawn_live liveall --metrics "$((PORT + 1))" --max-devices 2 --metrics-window "$WINDOW" --session-gap "$GAP"
mkdir -p "$T/prom"
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $T/rules/rules.yml
scrape_configs:
  - job_name: castscope
    static_configs:
      - targets: ['$TARGET']
EOF
spawn prometheus "$NS_PROM" prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
  --web.listen-address="$PROM4:9090" --log.level=info
for d in "${DEVICES[@]}"; do
  listen=()
  [[ $d == speaker ]] && listen=(--listen) # the speaker accepts TCP on its port, the TV refuses
  spawn "$d" "$NS_PREFIX-$RUN-$d" "$PY" "$HERE/cast_peers.py" responder --spec "$SPEC" --device "$d" \
    --ttl "$TTL" --announce-every "$ANNOUNCE" "${listen[@]}"
done
wait_healthz "$MON4" "$PORT" 10 || abort "setup: no /healthz on $TARGET within 10 s: $(head -c 400 "$T/live.err" | tr '\n' '|')"
for d in "${DEVICES[@]}"; do wait_log "$d" "^ready" 5 || abort "setup: responder $d did not start: $(tail -n 3 "$T/$d.log" | tr '\n' '|')"; done
spawn querier "$NS_Q" "$PY" "$HERE/cast_peers.py" querier --ip "$Q4" --count "$Q_COUNT" --interval "$Q_EVERY"
note "LAN up, castscope answering after $(calc "$(now) - $STARTED") s"

pid=$(castscope_pid live)
if [[ $(ids "$pid" Uid) == "$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID" ]]; then
  ok "castscope live --metrics dropped root to nobody (default --user) and still serves /healthz"
else
  fail "castscope live --metrics: /proc/$pid/status Uid '$(ids "$pid" Uid)', want nobody's ($NOBODY_UID)"
fi

# =============================================================== 3. the exposition against the LAN
# Every device heard, and each one's first answer to the querier's first session.
for d in "${DEVICES[@]}"; do
  id=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["id"])' "$SPEC" "$d")
  in_prom "${CHECK[@]}" expect "$TARGET" "castscope_first_answer_seconds_count{id=\"$id\"}" ">=" 1 --within 10 >/dev/null
done
SENT=$(sent_count)
in_prom "${CHECK[@]}" scrape "$TARGET" "$T/base.prom" || fail "scrape of $TARGET failed"
# castscope analyze of what live has written so far: the device names as analyze shows them
timeout 60 "$BIN" analyze --format json "$T/live.pcap" >"$T/analyze.json" 2>"$T/analyze.err" ||
  note "analyze of the --write file so far: exit $? $(head -c 200 "$T/analyze.err")"
check static "$T/base.prom" --spec "$SPEC" --visible tv,speaker,odd --client "$Q4" --sent "$SENT" \
  --started "$STARTED" --announce "$ANNOUNCE" --analyze "$T/analyze.json"

# =============================================================== 2. promtool check metrics
if promtool check metrics <"$T/base.prom" >"$T/promtool-metrics.log" 2>&1 && [[ ! -s $T/promtool-metrics.log ]]; then
  ok "promtool check metrics: no problem in the exposition"
else
  fail "promtool check metrics (exit $?): $(tr '\n' '|' <"$T/promtool-metrics.log" | head -c 800)"
fi

# =============================================================== 1. HTTP
run_py_checks in_prom "$PY" "$HERE/http_checks.py" basic "$MON4" "$PORT"
run_py_checks in_prom "$PY" "$HERE/http_checks.py" flood "$MON4" "$PORT" --n 20
# (from here on a scrape every 0.5 s, for the ageing and findings timeline)
spawn watch "$NS_PROM" "${CHECK[@]}" watch "$TARGET" "$T/watch.jsonl" --interval 0.5
spawn slowloris "$NS_PROM" "$PY" "$HERE/http_checks.py" slowloris "$MON4" "$PORT"

# The other address forms (their own castscope processes, started with the first).
run_py_checks in_prom "$PY" "$HERE/http_checks.py" healthz "$MON6" 915 --label "--metrics [$MON6]:915 (privileged port, then nobody)"
pid=$(castscope_pid live6)
[[ $(ids "$pid" Uid) == "$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID" ]] ||
  fail "--metrics [$MON6]:915: /proc/$pid/status Uid '$(ids "$pid" Uid)', want nobody's: the privileged port proves nothing"
run_py_checks in_prom "$PY" "$HERE/http_checks.py" healthz "$MON4" 915 --expect-refused --label "--metrics [$MON6]:915"
run_py_checks in_prom "$PY" "$HERE/http_checks.py" healthz "$MON4" "$((PORT + 1))" --label "--metrics $((PORT + 1)) (all addresses), IPv4"
run_py_checks in_prom "$PY" "$HERE/http_checks.py" healthz "$MON6" "$((PORT + 1))" --label "--metrics $((PORT + 1)) (all addresses), IPv6"
# The window trackers hold --max-devices too: the third device is dropped there, before the
# watch sees it, and counted as the analysis counts it (LIMIT_REACHED), per record.
check expect "$MON4:$((PORT + 1))" 'castscope_limit_drops_total{limit="max-devices"}' ">=" 1 --within 5 \
  --label "--max-devices 2 with 3 devices: castscope_limit_drops_total{limit=\"max-devices\"} >= 1"
n=$(in_prom "$PY" - "$HERE/../lib" "$MON4" "$((PORT + 1))" <<'EOF'
import sys; sys.path.insert(0, sys.argv[1]); import expo
fams = expo.parse(expo.http_get(sys.argv[2], int(sys.argv[3]), "/metrics")[2])
print(len(expo.samples(fams, "castscope_device_up")))
EOF
)
if [[ $n == 2 ]]; then ok "--max-devices 2: 2 castscope_device_up series"; else fail "--max-devices 2: $n castscope_device_up series, want 2"; fi
stop_live live6 "--metrics [$MON6]:915"
stop_live liveall "--metrics $((PORT + 1))"

# Usage and bind errors (docs/metrics.md): a port in use 69; a bad [ADDR:]PORT or window 64.
live_rc() { # WANT LABEL ARGS... : castscope live ARGS in the monitor's namespace exits WANT at once
  local want=$1 label=$2
  shift 2
  { timeout -s KILL 15 ip netns exec "$NS_MON" "$BIN" live -i eth0 --duration 5 "$@" </dev/null >"$T/e.out" 2>"$T/e.err"; } 2>/dev/null
  local rc=$?
  if [[ $rc == "$want" && -s $T/e.err ]]; then
    ok "$label: exit $want ($(head -n 1 "$T/e.err" | cut -c1-100))"
  else
    fail "$label: exit $rc, want $want; stderr: $(head -c 300 "$T/e.err" | tr '\n' '|')"
  fi
}
live_rc 69 "--metrics $TARGET while another castscope serves it (port in use)" --metrics "$TARGET" --session-gap "$GAP" --metrics-window "$WINDOW"
live_rc 64 "--metrics $MON4:99999" --metrics "$MON4:99999"
live_rc 64 "--metrics $MON4: (no port)" --metrics "$MON4:"
live_rc 64 "--metrics [$MON6 (no closing bracket)" --metrics "[$MON6:$PORT"
live_rc 64 "--metrics-window 8 (below 10)" --metrics "$((PORT + 5))" --metrics-window 8 --session-gap 2
live_rc 64 "--metrics-window 20 with the default --session-gap 60 (less than twice it)" --metrics "$((PORT + 5))" --metrics-window 20

# Connections: refused by the TV (no listener), established with the speaker, refused by a host no device is.
TV_ID=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["tv"]["id"])' "$SPEC")
SPK_ID=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["speaker"]["id"])' "$SPEC")
event refused
for to in 192.0.2.21:8009:refused 192.0.2.22:8009:established "$PROM4:8009:refused"; do
  IFS=: read -r addr port want <<<"$to"
  out=$(ip netns exec "$NS_Q" "$PY" "$HERE/cast_peers.py" connect --ip "$Q4" --to "$addr" --port "$port")
  [[ $out == "outcome $want" ]] || fail "setup: TCP $Q4 -> $addr:$port: '$out', want $want"
done
check expect "$TARGET" "castscope_connections_total{id=\"$TV_ID\",outcome=\"refused\"}" "==" 1 --within 4
check expect "$TARGET" "castscope_connections_total{id=\"$SPK_ID\",outcome=\"established\"}" "==" 1 --within 4
check expect "$TARGET" 'castscope_connections_total{id="",outcome="refused"}' "==" 1 --within 4 \
  --label "castscope_connections_total{id=\"\",outcome=\"refused\"} == 1 (a host no device advertises)"

# =============================================================== 6. Prometheus
check prom "$PROM4:9090" target --within 20
check prom "$PROM4:9090" query castscope_devices_visible --value 3 --within 10
check prom "$PROM4:9090" query 'count(castscope_device_up == 1)' --value 3 --within 10
check prom "$PROM4:9090" query 'histogram_quantile(0.9, sum by (le) (rate(castscope_first_answer_seconds_bucket[30s])))' \
  --range 0,1 --within 20
check prom "$PROM4:9090" query 'max(castscope:first_answer_seconds:p90_5m)' --range 0,0.1 --within 10
check prom "$PROM4:9090" rules --within 10

finish slowloris 20
run_py_checks cat "$T/slowloris.log"

# =============================================================== 5. + 4. a storm, then a goodbye and a silent death
spawn storm "$NS_STORM" "$PY" "$HERE/cast_peers.py" querier --ip "$STORM4" --count "$STORM_COUNT" --interval 0.6
finish storm 15
# The kill comes 1.5 s before the querier's next query, so that one query is sent while the
# killed device's records are still alive: it must count as unanswered.
last=$(awk '/^sent query/ { t = $4 } END { print t }' "$T/querier.log")
sleep_until "$(calc "$last + $Q_EVERY - 1.5")"
event kill
kill -KILL "${PID[tv]}"
finish tv 2 2>/dev/null
stop speaker TERM 5
grep -q "^sent goodbye" "$T/speaker.log" || fail "setup: the speaker sent no goodbye: $(tail -n 2 "$T/speaker.log" | tr '\n' '|')"

finish querier $((Q_EVERY * Q_COUNT + 10))
grep -qx "done $Q_COUNT" "$T/querier.log" || fail "setup: the querier: $(tail -n 2 "$T/querier.log" | tr '\n' '|')"
check expect "$TARGET" "castscope_client_queries_total{client=\"$Q4\"}" "==" "$Q_COUNT" --within 3 \
  --label "castscope_client_queries_total{client=$Q4} == $Q_COUNT, the queries it sent"
check expect "$TARGET" "castscope_client_queries_total{client=\"$STORM4\"}" "==" "$STORM_COUNT" --within 3 \
  --label "castscope_client_queries_total{client=$STORM4} == $STORM_COUNT, the storm's queries"

# The watch goes on until both gone devices and the storm client are past --metrics-forget.
kill_t=$(awk -F= '$1 == "kill" { print $2 }' "$T/events")
sleep_until "$(calc "$kill_t + $TTL + $FORGET + 7")"
stop watch TERM 5
check timeline "$T/watch.jsonl" --spec "$SPEC" --logs "$T" --events "$T/events" --client "$Q4" \
  --storm-client "$STORM4" --ttl "$TTL" --window "$WINDOW" --forget "$FORGET"

stop_live live "--metrics $TARGET"
# Live's own output is as without --metrics: the events, and at the end the analysis of the
# whole run (as `castscope analyze` of a --write file would give), not of the last window.
n=$(grep -c "  appeared  " "$T/live.out")
if ((n >= ${#DEVICES[@]})); then ok "--metrics: live still prints its events ($n appeared)"; else fail "--metrics: $n 'appeared' events on stdout, want ${#DEVICES[@]}"; fi
# (docs/metrics.md: with --metrics the analysis printed at the end is the current window's)
summary=$(grep -E '^[0-9]+ devices? .*[0-9]+ clients?, [0-9]+ discovery sessions?, [0-9]+ Cast quer' "$T/live.out" | tail -n 1)
if grep -q "^Capture live window since " "$T/live.out" && [[ -n $summary ]]; then
  ok "--metrics: the analysis at the end is the last window's, and says so ($(grep -m1 '^Capture live window' "$T/live.out"): $summary)"
else
  fail "--metrics: no 'Capture live window since' analysis at the end: $(tail -c 300 "$T/live.out" | tr '\n' '|')"
fi
note "ran for ${SECONDS}s"
exit 0
