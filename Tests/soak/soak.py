#!/usr/bin/env python3
"""The watcher and the judge of Tests/soak/run.sh (stdlib only).

  soak.py events DIR            < castscope's --format jsonl stdout: keeps the started event
                                  (DIR/started.json), counts the events by kind, keeps the
                                  stopped and analysis events (DIR/stopped.json, analysis.json);
                                  nothing else is stored, so a run of days does not fill /tmp
  soak.py monitor --pid P --url U --out DIR [--rss-every 2] [--scrape-every 5] [--stop-file F]
                                  samples VmRSS/VmHWM of P (DIR/rss.tsv) and scrapes U
                                  (DIR/scrapes.jsonl: one summary a scrape; DIR/last.prom; the
                                  first failing expositions as DIR/bad-N.prom) until F exists
  soak.py scrape --url U --out FILE.prom
                                  one scrape, kept whole, its summary on stdout
  soak.py check --dir DIR ...    the checks: `ok ...` / `FAIL ...` lines (see Tests/soak/README.md)
  soak.py selftest                the exposition parser (Tests/lib/expo.py) against valid and
                                  malformed input
"""
import argparse
import http.client
import json
import math
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expo  # noqa: E402  (the strict 0.0.4 parser shared with Tests/metrics)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
COUNTER_FAMILIES = {
    "castscope_packets_read_total", "castscope_packets_decoded_total", "castscope_packets_malformed_total",
    "castscope_packets_dropped_total", "castscope_client_queries_total", "castscope_client_unanswered_queries_total",
    "castscope_connections_total", "castscope_series_dropped_total", "castscope_queries_total",
    "castscope_unanswered_queries_total", "castscope_limit_drops_total",
}
GAUGE_FAMILIES = {
    "castscope_build_info", "castscope_start_time_seconds", "castscope_devices_visible", "castscope_device_up",
    "castscope_device_last_heard_age_seconds", "castscope_clients_active", "castscope_findings_active",
    "castscope_metrics_window_seconds",
}
HISTOGRAM_FAMILIES = {"castscope_first_answer_seconds", "castscope_resolution_seconds"}
BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, math.inf]


def say(good, text, detail=""):
    print(("ok " if good else "FAIL ") + text + ("" if good or not detail else f" ({detail})"), flush=True)
    return good


def note(text):
    print("# " + text, flush=True)


# ----------------------------------------------------------------------------- scraping


def fetch(url, timeout=10.0):
    """(status, content type, body bytes, seconds) of GET url over HTTP/1.1."""
    u = urllib.parse.urlsplit(url)
    t = time.time()
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)
    try:
        conn.request("GET", u.path or "/")
        r = conn.getresponse()
        body = r.read()
        return r.status, r.getheader("Content-Type"), r.getheader("Connection"), body, time.time() - t
    finally:
        conn.close()


def summarize(exposition):
    """What the checks need of one exposition: counters, gauges, series by family, and the
    semantic inconsistencies found in it."""
    issues = []
    fams = exposition.families
    for name in COUNTER_FAMILIES | GAUGE_FAMILIES | HISTOGRAM_FAMILIES:
        if name not in fams:
            issues.append(f"family {name} missing")
    for name, f in fams.items():
        if not name.startswith("castscope_"):
            issues.append(f"family {name} without the castscope_ prefix")
        want = "counter" if name in COUNTER_FAMILIES else "gauge" if name in GAUGE_FAMILIES else \
            "histogram" if name in HISTOGRAM_FAMILIES else None
        if want and f.type != want:
            issues.append(f"{name} has TYPE {f.type}, want {want}")
        if f.type is None:
            issues.append(f"{name} has no TYPE")
        if f.help is None:
            issues.append(f"{name} has no HELP")
        if f.type == "counter" and not name.endswith("_total"):
            issues.append(f"counter {name} does not end in _total")

    def val(name, **labels):
        return exposition.value(name, **labels)

    devices = {}
    for s in exposition.series("castscope_device_up"):
        if set(s.labels) != {"id", "name", "model", "kind"}:
            issues.append(f"device_up labels {sorted(s.labels)}")
        if s.value not in (0, 1):
            issues.append(f"device_up{{id={s.labels.get('id')}}} = {s.value}")
        if s.labels.get("id") in devices:
            issues.append(f"device {s.labels.get('id')} has two device_up series")
        devices[s.labels.get("id")] = [s.value, None]
    for s in exposition.series("castscope_device_last_heard_age_seconds"):
        i = s.labels.get("id")
        if i not in devices:
            issues.append(f"last_heard_age for {i} without device_up")
        else:
            devices[i][1] = s.value
        if not s.value >= 0:
            issues.append(f"last_heard_age{{id={i}}} = {s.value}")
    for fam in HISTOGRAM_FAMILIES:
        ids = set()
        for s in exposition.series(fam + "_count"):
            ids.add(s.labels.get("id"))
            if s.labels.get("id") not in devices:
                issues.append(f"{fam} for {s.labels.get('id')} without device_up")
        for s in exposition.series(fam + "_bucket"):
            le = float(s.labels["le"]) if s.labels["le"] != "+Inf" else math.inf
            if le not in BUCKETS:
                issues.append(f"{fam} bucket le={s.labels['le']} not in the documented buckets")
        for i in ids:
            les = sorted(float(s.labels["le"]) if s.labels["le"] != "+Inf" else math.inf
                         for s in exposition.series(fam + "_bucket") if s.labels.get("id") == i)
            if les != BUCKETS:
                issues.append(f"{fam}{{id={i}}} buckets {les}")
                break
    visible = val("castscope_devices_visible")
    up = sum(1 for v in devices.values() if v[0] == 1)
    if visible is not None and visible != up:
        issues.append(f"devices_visible {visible:g} != {up} device_up series at 1")
    # By address: two hosts (MACs) that had one address one after the other are two series
    # (client, mac) of one address here, added up.
    clients = {}
    for s in exposition.series("castscope_client_queries_total"):
        clients.setdefault(s.labels.get("client"), [0, 0])[0] += s.value
    for s in exposition.series("castscope_client_unanswered_queries_total"):
        clients.setdefault(s.labels.get("client"), [0, 0])[1] += s.value
    bad_ratio = [c for c, (q, u) in clients.items() if u > q]
    if bad_ratio:
        issues.append(f"{len(bad_ratio)} client series with more unanswered queries than queries "
                      f"(e.g. {bad_ratio[0]}: {clients[bad_ratio[0]][1]:g} > {clients[bad_ratio[0]][0]:g})")
    qtot, utot = val("castscope_queries_total"), val("castscope_unanswered_queries_total")
    if qtot is not None and sum(q for q, _ in clients.values()) > qtot:
        issues.append(f"client queries add up to {sum(q for q, _ in clients.values()):g} > queries_total {qtot:g}")
    if utot is not None and sum(u for _, u in clients.values()) > utot:
        issues.append(f"client unanswered add up to {sum(u for _, u in clients.values()):g} > unanswered_queries_total {utot:g}")
    findings = {}
    for s in exposition.series("castscope_findings_active"):
        if s.value not in (0, 1):
            issues.append(f"findings_active{s.labels} = {s.value}")
        findings[f"{s.labels.get('code')}/{s.labels.get('severity')}"] = s.value
    build = exposition.series("castscope_build_info")
    if len(build) != 1 or build[0].value != 1 or set(build[0].labels) != {"version", "swift_version"}:
        issues.append("build_info is not one series of 1 with version and swift_version")
    scalars = {}
    for name in ("castscope_packets_read_total", "castscope_packets_decoded_total", "castscope_packets_malformed_total",
                 "castscope_devices_visible", "castscope_clients_active", "castscope_queries_total",
                 "castscope_unanswered_queries_total", "castscope_start_time_seconds"):
        scalars[name] = val(name)
    for w in ("kernel", "interface"):
        scalars[f"dropped_{w}"] = val("castscope_packets_dropped_total", where=w)
    for fam in ("device", "client"):
        scalars[f"series_dropped_{fam}"] = val("castscope_series_dropped_total", family=fam)
    for s in exposition.series("castscope_limit_drops_total"):
        scalars[f"limit_drops_{s.labels.get('limit')}"] = s.value
    observations = sum(s.value for s in exposition.series("castscope_first_answer_seconds_count"))
    return {
        "scalars": scalars, "devices": devices, "clients": clients, "findings": findings,
        "counters": {f"{k[0]}{dict(k[1])}": v for k, v in exposition.counters().items()},
        "firstAnswers": observations, "issues": issues,
    }


def scrape_once(url):
    """One scrape: a dict with ok, error, status, timing and (when it parsed) the summary."""
    t = time.time()
    rec = {"t": t, "ok": False}
    try:
        status, ctype, connection, body, took = fetch(url)
    except (OSError, http.client.HTTPException) as e:
        rec["error"] = f"{type(e).__name__}: {e}"
        return rec, None
    rec.update({"status": status, "bytes": len(body), "seconds": round(took, 4)})
    if status != 200:
        rec["error"] = f"HTTP {status}"
        return rec, body
    if ctype != CONTENT_TYPE:
        rec["error"] = f"Content-Type {ctype!r}"
        return rec, body
    if (connection or "").lower() != "close":
        rec["error"] = f"Connection {connection!r}"
        return rec, body
    try:
        exposition = expo.exposition(body)
    except expo.ExpoError as e:
        rec["error"] = f"parse: {e}"
        return rec, body
    rec["ok"] = True
    rec.update(summarize(exposition))
    return rec, body


def read_status(pid):
    """VmRSS, VmHWM, VmSize (kB), Threads and CPU (user + system clock ticks) of pid."""
    out = {}
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
            out["CPU"] = int(fields[11]) + int(fields[12])
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "VmSize", "Threads"):
                    out[k] = int(v.split()[0])
    except OSError:
        return None
    return out


def cmd_monitor(a):
    os.makedirs(a.out, exist_ok=True)
    rss = open(os.path.join(a.out, "rss.tsv"), "a", buffering=1)
    scrapes = open(os.path.join(a.out, "scrapes.jsonl"), "a", buffering=1)
    prev = None
    bad = 0
    next_rss = next_scrape = time.time()
    while not os.path.exists(a.stop_file):
        now = time.time()
        if now >= next_rss:
            st = read_status(a.pid)
            if st is None:
                break
            rss.write(f"{now:.3f}\t{st.get('VmRSS', 0)}\t{st.get('VmHWM', 0)}\t{st.get('VmSize', 0)}\t{st.get('Threads', 0)}\t{st.get('CPU', 0)}\n")
            next_rss += a.rss_every
        if now >= next_scrape:
            rec, body = scrape_once(a.url)
            if rec["ok"]:
                # counters never decrease while a series stays (a forgotten series may leave)
                dec = []
                if prev is not None:
                    for k, v in rec["counters"].items():
                        if k in prev and v < prev[k]:
                            dec.append(f"{k}: {prev[k]:g} -> {v:g}")
                    st0 = prev.get("__start")
                    if st0 is not None and rec["scalars"]["castscope_start_time_seconds"] != st0:
                        dec.append("castscope_start_time_seconds changed")
                rec["decreased"] = dec
                prev = dict(rec["counters"])
                prev["__start"] = rec["scalars"]["castscope_start_time_seconds"]
                with open(os.path.join(a.out, "last.prom.tmp"), "wb") as f:
                    f.write(body)
                os.replace(os.path.join(a.out, "last.prom.tmp"), os.path.join(a.out, "last.prom"))
            elif body is not None and bad < 5:
                bad += 1
                with open(os.path.join(a.out, f"bad-{bad}.prom"), "wb") as f:
                    f.write(body)
            rec.pop("counters", None)
            scrapes.write(json.dumps(rec) + "\n")
            next_scrape += a.scrape_every
        time.sleep(max(0.05, min(next_rss, next_scrape) - time.time()))


def cmd_scrape(a):
    rec, body = scrape_once(a.url)
    if body is not None:
        with open(a.out, "wb") as f:
            f.write(body)
    rec.pop("counters", None)
    with open(a.out + ".json", "w") as f:
        json.dump(rec, f)
    print(json.dumps({k: rec.get(k) for k in ("ok", "error", "status", "bytes", "seconds")}))
    return 0 if rec["ok"] else 1


def cmd_events(a):
    os.makedirs(a.dir, exist_ok=True)
    counts, bad, first = {}, 0, True
    last_two = []
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        try:
            ev = json.loads(line)
            kind = ev.get("event", "?")
        except ValueError:
            bad += 1
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if first:
            first = False
            with open(os.path.join(a.dir, "started.json.tmp"), "w") as f:
                f.write(line)
            os.replace(os.path.join(a.dir, "started.json.tmp"), os.path.join(a.dir, "started.json"))
        if kind in ("stopped", "analysis"):
            with open(os.path.join(a.dir, f"{kind}.json"), "w") as f:
                f.write(line)
        last_two = (last_two + [kind])[-2:]
    with open(os.path.join(a.dir, "event-counts.json"), "w") as f:
        json.dump({"counts": counts, "unparsable": bad, "lastTwo": last_two}, f)


# ----------------------------------------------------------------------------- the checks


def load_jsonl(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
    return out


def norm_id(i):
    return (i or "").replace("-", "").lower()


def cmd_check(a):
    d = a.dir
    prep = json.load(open(os.path.join(d, "prepared.json")))
    load = json.load(open(os.path.join(d, "load.json")))
    scrapes = load_jsonl(os.path.join(d, "scrapes.jsonl"))
    after_load = json.load(open(os.path.join(d, "after-load.prom.json")))
    after_cool = json.load(open(os.path.join(d, "after-cooldown.prom.json")))
    counts = json.load(open(os.path.join(d, "events", "event-counts.json")))
    stats = json.load(open(os.path.join(d, "cap0-stats.json")))
    files = {os.path.basename(f): json.load(open(os.path.join(d, "analyses", os.path.basename(f) + ".json")))
             for f in [x["file"] for x in prep["fixed"]] + [x["file"] for x in prep["churn"]]}
    empty = json.load(open(os.path.join(d, "analyses", "empty.pcap.json")))
    W, F, gap = a.window, a.forget, a.session_gap
    slack = a.slack
    results = []

    def check(good, text, detail=""):
        results.append(say(good, text, detail))

    # ---- the load itself
    errors = load["errors"]
    check(not errors, f"load: both senders ran without error", "; ".join(errors[:3]))
    per_loop = prep["fixedFramesPerLoop"]
    fixed_runs = load["fixed"]
    fixed_sent = sum(r["successful"] or 0 for r in fixed_runs)
    fixed_failed = sum(r["failed"] or 0 for r in fixed_runs)
    whole = all(r["successful"] == r["loops"] * per_loop and r["failed"] == 0 and r["rc"] == 0 for r in fixed_runs)
    fixed_loops = sum(r["loops"] for r in fixed_runs)
    check(whole and fixed_runs, f"tcpreplay: {len(fixed_runs)} runs sent {fixed_sent} frames ({fixed_loops} loops of "
          f"{per_loop}) at {load['pps']} pps, none failed",
          f"failed {fixed_failed}, runs {[(r['loops'], r['successful'], r['failed'], r['rc']) for r in fixed_runs if not (r['successful'] == r['loops'] * per_loop and r['failed'] == 0)][:3]}")
    churn = load["churn"]
    churn_sent = sum(r["sent"] for r in churn)
    churn_passed = sum(r["passed"] for r in churn)
    churn_queries = sum(r["queries"] for r in churn)
    cut = [r for r in churn if not r["complete"]]
    note(f"churn: {len(churn)} loops ({len(churn) - len(cut)} whole) of {len(prep['churn'])} templates, "
         f"{churn_sent} frames, {churn_queries} Cast queries, {len({r['client'] for r in churn})} client addresses, "
         f"{sum(len(r['ids']) for r in churn)} device ids")
    rx = stats["after"]["rx_packets"] - stats["before"]["rx_packets"]
    tx = stats["after"]["tx_packets"] - stats["before"]["tx_packets"]
    rxd = stats["after"]["rx_dropped"] - stats["before"]["rx_dropped"]
    check(rx == fixed_sent + churn_sent and rxd == 0 and tx == 0,
          f"veth: cap0 received exactly what was sent ({rx} = {fixed_sent} tcpreplay + {churn_sent} churn frames), "
          f"dropped {rxd}, sent {tx}",
          f"rx {rx}, want {fixed_sent + churn_sent}")

    # ---- counters add up (the scrape after the load, traffic stopped and settled)
    s = after_load.get("scalars", {})
    ok_after = after_load.get("ok")
    check(ok_after, "the scrape after the load succeeded and parsed", after_load.get("error", ""))
    if not ok_after:
        return finish(results)
    want_pass = prep["fixedPassingPerLoop"] * fixed_loops + churn_passed
    read = s["castscope_packets_read_total"]
    kdrop = s["dropped_kernel"] or 0
    check(read + kdrop == want_pass,
          f"packets_read_total {read:g} + dropped{{kernel}} {kdrop:g} = {want_pass} frames that passed the discovery filter "
          f"({prep['fixedPassingPerLoop']} a fixed loop x {fixed_loops} + {churn_passed} churn)",
          f"off by {read + kdrop - want_pass:+g}")
    check(kdrop <= a.max_drop_share * want_pass,
          f"castscope kept up: dropped{{kernel}} {kdrop:g} <= {a.max_drop_share:.0%} of {want_pass}, "
          f"dropped{{interface}} {s['dropped_interface'] or 0:g}")
    fixed_disc = sum(files[os.path.basename(f["file"])]["captures"][0]["discoveryPackets"] for f in prep["fixed"])
    fixed_mal = sum(files[os.path.basename(f["file"])]["captures"][0]["malformedPackets"] for f in prep["fixed"])
    tdisc = {os.path.basename(c["file"]): files[os.path.basename(c["file"])]["captures"][0]["discoveryPackets"] for c in prep["churn"]}
    lo = fixed_disc * fixed_loops + sum(tdisc[r["template"]] for r in churn if r["complete"])
    hi = lo + sum(tdisc[r["template"]] for r in cut)
    dec = s["castscope_packets_decoded_total"]
    if kdrop == 0:
        check(lo <= dec <= hi, f"packets_decoded_total {dec:g} = what analyze decodes in the same frames "
              f"({fixed_disc} a fixed loop; {lo}..{hi} with {len(cut)} churn loops cut at the end)",
              f"off by {dec - lo:+g}")
    mal = s["castscope_packets_malformed_total"]
    check(mal == fixed_mal * fixed_loops, f"packets_malformed_total {mal:g} = {fixed_mal} a fixed loop x {fixed_loops}")
    fixed_q = sum(sum(c["queries"] for c in files[os.path.basename(f["file"])]["clients"]) for f in prep["fixed"])
    want_q = fixed_q * fixed_loops + churn_queries
    qt = s["castscope_queries_total"]
    if kdrop == 0:
        check(qt == want_q, f"queries_total {qt:g} = Cast queries replayed ({fixed_q} a fixed loop x {fixed_loops} + "
              f"{churn_queries} churn)", f"off by {qt - want_q:+g}")
    else:
        check(qt <= want_q, f"queries_total {qt:g} <= {want_q} replayed (castscope dropped {kdrop:g} frames)")

    # per client: the churn clients present after the load, one by one; the fixed ones together
    lives = client_lives(churn, F, slack, a.age_every)
    churn_addrs = set(lives)
    clash = churn_addrs & {c["address"] for f in files.values() for c in f["clients"]}
    check(not clash, "the churn's client addresses are not the fixed captures'", ", ".join(sorted(clash)[:5]))
    present = after_load["clients"]
    t_after = after_load["t"]
    sd_c = s.get("series_dropped_client") or 0
    sd_d = s.get("series_dropped_device") or 0
    exact, wrong, uncertain = 0, [], 0
    for addr, (q, _u) in present.items():
        if addr not in churn_addrs:
            continue
        life = current_life(lives[addr], t_after)
        if life is None or life["uncertain"]:
            uncertain += 1
            continue
        if q == life["queries"] or (sd_c and q < life["queries"]):
            exact += q == life["queries"]
        else:
            wrong.append(f"{addr}: {q:g}, sent {life['queries']}")
    how = "equals" if not sd_c else f"is at most (with {sd_c:g} client series dropped, an evicted client may come back with a part)"
    check(not wrong and exact > 0,
          f"client_queries_total of each churn client still listed {how} the queries sent from its address "
          f"({exact} of {sum(1 for c in present if c in churn_addrs)} exact; {uncertain} not judged: a silence within a scrape interval of --metrics-forget)",
          f"{len(wrong)} differ: {'; '.join(wrong[:4])}")
    fixed_series = {c: v for c, v in present.items() if c not in churn_addrs}
    fixed_sum = sum(q for q, _ in fixed_series.values())
    if kdrop == 0:
        check(fixed_sum == fixed_q * fixed_loops,
              f"client_queries_total of the fixed captures' clients add up to {fixed_sum:g} = {fixed_q} x {fixed_loops} "
              f"({len(fixed_series)} series: {', '.join(sorted(fixed_series))})", f"off by {fixed_sum - fixed_q * fixed_loops:+g}")

    note("findings active after the load: " + ", ".join(sorted(k for k, v in after_load["findings"].items() if v == 1)))

    # ---- every scrape during the run
    ok_scrapes = [r for r in scrapes if r.get("ok")]
    failed = [r for r in scrapes if not r.get("ok")]
    check(len(scrapes) >= a.min_scrapes and not failed,
          f"scrapes: {len(ok_scrapes)} of {len(scrapes)} succeeded (200, {CONTENT_TYPE}, Connection: close) and parsed "
          f"strictly (want >= {a.min_scrapes})",
          "; ".join(f"{time.strftime('%H:%M:%S', time.localtime(r['t']))} {r.get('error')}" for r in failed[:3]))
    if ok_scrapes:
        secs = sorted(r["seconds"] for r in ok_scrapes)
        note(f"scrape time: median {secs[len(secs) // 2] * 1000:.1f} ms, max {secs[-1] * 1000:.1f} ms, "
             f"exposition up to {max(r['bytes'] for r in ok_scrapes)} bytes")
    decs = {}
    for r in ok_scrapes:
        for x in r.get("decreased", []):
            series, _, change = x.rpartition(": ")
            decs.setdefault(series, []).append(change)
    check(not decs, f"counters never decreased between consecutive scrapes ({len(ok_scrapes)} scrapes)",
          f"{len(decs)} series: " + "; ".join(f"{k} {len(v)}x, e.g. {v[0]}" for k, v in list(decs.items())[:4]))
    issues = {}
    for r in ok_scrapes + [after_load] + ([after_cool] if after_cool.get("ok") else []):
        for i in r.get("issues", []):
            key = i.split(" (e.g.")[0]
            issues.setdefault(key, [0, i])[0] += 1
    check(not issues, "every exposition is consistent (families and types as specified, devices_visible = device_up "
          "series at 1, unanswered <= queries per client, per-client sums <= totals, documented buckets)",
          "; ".join(f"{n}x {i}" for n, i in list(issues.values())[:5]))
    maxc = max((len(r["clients"]) for r in ok_scrapes), default=0)
    maxd = max((len(r["devices"]) for r in ok_scrapes), default=0)
    check(maxc <= a.max_clients and maxd <= a.max_devices,
          f"series bounded: at most {maxc} client series (--max-clients {a.max_clients}) and {maxd} device series "
          f"(--max-devices {a.max_devices}) in any scrape")

    # ---- ageing: forgotten clients and devices leave, those within the window stay
    churn_ids = {}
    for r in churn:
        for i in r["ids"]:
            churn_ids[i] = r
    ttl = prep["churnTTL"]
    late_c, late_d, present_ok, missing = [], [], 0, []
    forgotten_c = set()
    for r in ok_scrapes + [after_load, after_cool]:
        if not r.get("ok"):
            continue
        t = r["t"]
        for addr in lives:
            life = current_life(lives[addr], t)
            if life is None:
                continue
            quiet = silence(life, t)
            if quiet > F + slack:
                if addr in r["clients"]:
                    late_c.append(f"{addr} silent {quiet:.0f} s at {time.strftime('%H:%M:%S', time.localtime(t))}")
                else:
                    forgotten_c.add(addr)
            elif quiet < F - slack and life["firstQuery"] < t - slack and (r["scalars"].get("series_dropped_client") or 0) == 0:
                if addr in r["clients"]:
                    present_ok += 1
                else:
                    missing.append(f"{addr} at {time.strftime('%H:%M:%S', time.localtime(t))}")
        for did, dev in r["devices"].items():
            rec = churn_ids.get(norm_id(did))
            if rec and rec["lastFrame"] and t - rec["lastFrame"] > ttl + F + slack:
                late_d.append(f"{did} silent {t - rec['lastFrame']:.0f} s")
            if rec and rec["lastFrame"] and t - rec["lastFrame"] > ttl + slack and dev[0] == 1:
                late_d.append(f"{did} up {t - rec['lastFrame']:.0f} s after its last frame (TTL <= {ttl})")
    check(not late_c and forgotten_c, f"--metrics-forget {F:g}: {len(forgotten_c)} churn clients silent longer than "
          f"{F:g}+{slack:g} s left the exposition, none stayed", "; ".join(late_c[:4]) or "no client was forgotten")
    check(not missing, f"clients queried within the last {F:g}-{slack:g} s are listed ({present_ok} looks) while no "
          "series was dropped", "; ".join(missing[:4]))
    seen_ids = {norm_id(i) for r in ok_scrapes for i in r["devices"]} & set(churn_ids)
    gone_ids = {i for i in seen_ids if after_cool.get("ok") and i not in {norm_id(x) for x in after_cool["devices"]}}
    check(not late_d and gone_ids, f"devices: {len(seen_ids)} churn devices listed, {len(gone_ids)} of them gone by the end; "
          f"none up past its TTL ({ttl} s) nor listed past TTL+forget", "; ".join(late_d[:4]) or "none left")
    distinct = set(lives) | set(fixed_series)
    note(f"series dropped: client {sd_c:g} (of {len(distinct)} distinct clients), device {sd_d:g} "
         f"(of {len(churn_ids) + len([k for k in after_load['devices'] if norm_id(k) not in churn_ids])} device ids)")
    tl = {k: v for k, v in s.items() if k in ("limit_drops_max-clients", "limit_drops_max-devices")}
    check(not any(tl.values()), "the window trackers were not bounded by --max-clients/--max-devices "
          "(castscope_limit_drops_total 0): the watch's bounds are the ones tested", str(tl))
    if a.expect_drops:
        check(sd_c > 0 and sd_d > 0, f"the bounds were reached: series_dropped_total client {sd_c:g} "
              f"(--max-clients {a.max_clients}), device {sd_d:g} (--max-devices {a.max_devices})")

    # ---- after the cooldown: findings cleared, clients gone
    check(after_cool.get("ok"), "the scrape after the cooldown succeeded and parsed", after_cool.get("error", ""))
    if after_cool.get("ok"):
        allowed = {f"{f['code']}/{f['severity']}" for f in empty["findings"]}
        active_load = {k for k, v in after_load["findings"].items() if v == 1}
        still = {k for k, v in after_cool["findings"].items() if v == 1 and k not in allowed}
        check(active_load and not still,
              f"findings clear when their cause ends: {len(active_load)} active during the load, none of them active "
              f"{a.cooldown:g} s after it (window {W:g} s; an empty window's own findings allowed: {', '.join(sorted(allowed)) or 'none'})",
              f"still active: {', '.join(sorted(still))}")
        left = after_cool["clients"]
        check(not left and after_cool["scalars"]["castscope_clients_active"] == 0,
              f"{a.cooldown:g} s after the last query no client series is left and clients_active is 0",
              f"{len(left)} left ({', '.join(list(left)[:4])}), clients_active {after_cool['scalars']['castscope_clients_active']}")

    # ---- castscope's end
    stopped = load_json(os.path.join(d, "events", "stopped.json"))
    analysis = load_json(os.path.join(d, "events", "analysis.json"))
    rc = a.rc
    check(rc == 0 and stopped and stopped.get("reason") == "signal" and analysis and "verdict" in analysis.get("analysis", {})
          and counts.get("lastTwo") == ["stopped", "analysis"],
          f"SIGINT: castscope exit {rc}, stopped (reason signal) and the analysis (verdict "
          f"{(analysis or {}).get('analysis', {}).get('verdict', {}).get('headline')!r}) are its last events",
          f"rc {rc}, last events {counts.get('lastTwo')}")
    if stopped:
        final_read = after_cool["scalars"]["castscope_packets_read_total"] if after_cool.get("ok") else None
        check(stopped.get("packets") == final_read == read and stopped.get("dropped") == kdrop,
              f"the stopped event's packets {stopped.get('packets')} and drops {stopped.get('dropped')} match the last scrapes")
    note("events: " + ", ".join(f"{k} {v}" for k, v in sorted(counts["counts"].items())))

    # ---- memory
    rss_checks(d, a, results)
    return finish(results)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def finish(results):
    return 0 if all(results) else 1


def client_lives(churn, forget, slack, age_every):
    """address -> [life]: the Cast queries the churn loops sent from it, grouped as castscope
    should see them. castscope forgets a client at a scrape (or half-window turn) that finds it
    silent for more than --metrics-forget: a silence longer than forget + age_every + slack
    certainly starts a new life, one shorter than forget - slack certainly does not, one in
    between makes the life `uncertain` (not judged)."""
    by = {}
    for r in churn:
        by.setdefault(r["client"], []).extend(r["queryTimes"])
    out = {}
    for addr, times in by.items():
        lives = []
        for q in sorted(times):
            cur = lives[-1] if lives else None
            if cur is None or q - cur["times"][-1] > forget + age_every + slack:
                cur = {"times": [], "uncertain": False}
                lives.append(cur)
            elif q - cur["times"][-1] > forget - slack:
                cur["uncertain"] = True
            cur["times"].append(q)
        for life in lives:
            life["queries"], life["firstQuery"], life["lastQuery"] = len(life["times"]), life["times"][0], life["times"][-1]
        if lives:
            out[addr] = lives
    return out


def current_life(lives, t):
    """The life of the address that has begun by time t (the latest such), or None."""
    cur = None
    for life in lives:
        if life["firstQuery"] <= t:
            cur = life
    return cur


def silence(life, t):
    """Seconds since the address's last Cast query before t."""
    return t - max(q for q in life["times"] if q <= t)


def rss_checks(d, a, results):
    rows = []
    with open(os.path.join(d, "rss.tsv")) as f:
        for line in f:
            p = line.split("\t")
            rows.append((float(p[0]), int(p[1]), int(p[2]), int(p[5]) if len(p) > 5 else 0))
    load_rows = [r for r in rows if a.load_start <= r[0] <= a.load_end]
    warm = a.load_start + max(0.25 * (a.load_end - a.load_start), a.window)
    after = [r for r in load_rows if r[0] >= warm]
    mib = 1024.0
    if len(after) < 6:
        results.append(say(False, f"RSS: only {len(after)} samples after the warm-up (run longer)"))
        return
    n = len(after)
    middle = after[n // 3: 2 * n // 3]
    last = after[2 * n // 3:]
    m_max = max(r[1] for r in middle)
    l_max = max(r[1] for r in last)
    limit = m_max * a.rss_growth + a.rss_slack_mib * mib
    start = load_rows[0][1] if load_rows else rows[0][1]
    warm_v = after[0][1]
    end = rows[-1][1]
    hwm = max(r[2] for r in rows)
    summary = (f"start {start / mib:.1f} MiB, after warm-up {warm_v / mib:.1f}, middle-third max {m_max / mib:.1f}, "
               f"last-third max {l_max / mib:.1f}, end {end / mib:.1f}, VmHWM {hwm / mib:.1f} ({len(rows)} samples)")
    note("RSS: " + summary)
    if len(load_rows) >= 2:
        tick = os.sysconf("SC_CLK_TCK")
        cpu = (load_rows[-1][3] - load_rows[0][3]) / tick / (load_rows[-1][0] - load_rows[0][0])
        note(f"castscope CPU during the load: {cpu:.0%} of one core")
    results.append(say(l_max <= limit, f"memory flat: last third's max RSS {l_max / mib:.1f} MiB <= middle third's "
                       f"{m_max / mib:.1f} x {a.rss_growth} + {a.rss_slack_mib} MiB = {limit / mib:.1f} MiB "
                       f"(warm-up: first {warm - a.load_start:.0f} s of the load)"))
    results.append(say(hwm <= a.rss_max_mib * mib, f"memory bounded: VmHWM {hwm / mib:.1f} MiB <= {a.rss_max_mib} MiB"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("monitor")
    m.add_argument("--pid", type=int, required=True)
    m.add_argument("--url", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--rss-every", type=float, default=2.0)
    m.add_argument("--scrape-every", type=float, default=5.0)
    m.add_argument("--stop-file", required=True)
    s = sub.add_parser("scrape")
    s.add_argument("--url", required=True)
    s.add_argument("--out", required=True)
    e = sub.add_parser("events")
    e.add_argument("dir")
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    c.add_argument("--window", type=float, required=True)
    c.add_argument("--forget", type=float, required=True)
    c.add_argument("--session-gap", type=float, required=True)
    c.add_argument("--cooldown", type=float, required=True)
    c.add_argument("--max-clients", type=int, required=True)
    c.add_argument("--max-devices", type=int, required=True)
    c.add_argument("--expect-drops", action="store_true", help="require series_dropped_total > 0 for both families")
    c.add_argument("--min-scrapes", type=int, required=True)
    c.add_argument("--load-start", type=float, required=True)
    c.add_argument("--load-end", type=float, required=True)
    c.add_argument("--rc", type=int, required=True)
    c.add_argument("--slack", type=float, default=2.0, help="clock and report-refresh slack, seconds")
    c.add_argument("--age-every", type=float, default=5.0, help="how often castscope ages its series: the scrape interval")
    c.add_argument("--max-drop-share", type=float, default=0.0)
    c.add_argument("--rss-growth", type=float, default=1.05)
    c.add_argument("--rss-slack-mib", type=float, default=4.0)
    c.add_argument("--rss-max-mib", type=float, default=150.0)
    sub.add_parser("selftest")
    a = ap.parse_args()
    if a.cmd == "monitor":
        return cmd_monitor(a)
    if a.cmd == "scrape":
        return cmd_scrape(a)
    if a.cmd == "events":
        return cmd_events(a)
    if a.cmd == "check":
        return cmd_check(a)
    problems = expo.selftest()
    for p in problems:
        say(False, f"parser self-test (Tests/lib/expo.py): {p}")
    if not problems:
        say(True, f"parser self-test (Tests/lib/expo.py): {expo.summary()}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
