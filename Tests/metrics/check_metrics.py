#!/usr/bin/env python3
"""What Tests/metrics/run.sh checks in `castscope live --metrics`' exposition and in Prometheus
(stdlib only; the exposition read by Tests/lib/expo.py's strict parser).  Each check prints
one `ok ...` or `FAIL ...` line, with the values and the exposition lines behind a failure.

  check_metrics.py scrape   HOST:PORT OUT                 GET /metrics into OUT (exit 1 unless 200)
  check_metrics.py static   FILE --spec devices.json --visible tv,speaker,odd --client ADDR
                            --sent N --started UNIX       one scrape against what the LAN did
  check_metrics.py expect   HOST:PORT SELECTOR OP VALUE [--within S] [--label TEXT]
                            waits (--within) until one sample holds OP VALUE (OP: == >= <= absent)
  check_metrics.py watch    HOST:PORT OUT [--interval S]  scrapes until SIGTERM, one JSON line each
  check_metrics.py timeline WATCH --spec devices.json --logs DIR --events FILE --ttl S --window S
                            --forget S                    ageing, goodbye, forgetting, findings
  check_metrics.py prom     HOST:PORT target|query|rules ...   through Prometheus' HTTP API

SELECTOR is `name{label="value",...}` with the exposition's escaping.
"""
import argparse
import json
import math
import os
import signal
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import say  # noqa: E402

import expo  # noqa: E402

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, math.inf]
# family -> (type, the labels of its series, must it have samples in a scrape of a busy LAN)
FAMILIES = {
    "castscope_build_info": ("gauge", {"version", "swift_version"}, True),
    "castscope_start_time_seconds": ("gauge", set(), True),
    "castscope_packets_read_total": ("counter", set(), True),
    "castscope_packets_decoded_total": ("counter", set(), True),
    "castscope_packets_malformed_total": ("counter", set(), True),
    "castscope_packets_dropped_total": ("counter", {"where"}, True),
    "castscope_devices_visible": ("gauge", set(), True),
    "castscope_device_up": ("gauge", {"id", "name", "model", "kind"}, True),
    "castscope_device_last_heard_age_seconds": ("gauge", {"id"}, True),
    "castscope_first_answer_seconds": ("histogram", {"id"}, True),
    "castscope_resolution_seconds": ("histogram", {"id"}, True),
    "castscope_clients_active": ("gauge", set(), True),
    "castscope_client_queries_total": ("counter", {"client", "mac"}, True),
    "castscope_client_unanswered_queries_total": ("counter", {"client", "mac"}, True),
    "castscope_connections_total": ("counter", {"id", "outcome"}, False),
    "castscope_findings_active": ("gauge", {"code", "severity"}, False),
    "castscope_series_dropped_total": ("counter", {"family"}, True),
    "castscope_limit_drops_total": ("counter", {"limit"}, True),
    "castscope_queries_total": ("counter", set(), True),
    "castscope_unanswered_queries_total": ("counter", set(), True),
    "castscope_metrics_window_seconds": ("gauge", set(), True),
}


def hostport(text):
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def fetch(target):
    """(families, body, None) or (None, body, error text)."""
    host, port = hostport(target)
    try:
        status, headers, body = expo.http_get(host, port, "/metrics")
    except (OSError, expo.ExpoError) as e:
        return None, b"", f"GET /metrics: {e}"
    if status != 200:
        return None, body, f"GET /metrics: status {status}"
    try:
        return expo.parse(body), body, None
    except expo.ExpoError as e:
        return None, body, f"invalid exposition: {e}"


def lines_of(body, found):
    """The exposition lines of the samples found (for failure messages)."""
    text = body.decode("utf-8", "replace").split("\n")
    return " | ".join(text[s.line - 1] for s in found[:6])


def sent_of(logs):
    """(what, n, unix time) of each `sent ...` line of the given cast_peers.py logs."""
    out = []
    for log in logs:
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4 and parts[0] == "sent":
                    out.append((parts[1], int(parts[2]), float(parts[3])))
    return out


# --------------------------------------------------------------------------- scrape, static, expect
def cmd_scrape(a):
    fams, body, err = fetch(a.target)
    with open(a.out, "wb") as f:
        f.write(body)
    if err:
        print(err, file=sys.stderr)
        sys.exit(1)


def cmd_static(a):
    with open(a.file, "rb") as f:
        body = f.read()
    spec = json.load(open(a.spec, encoding="utf-8"))
    visible = [k for k in a.visible.split(",") if k]
    try:
        analyzed = {d["id"]: d for d in json.load(open(a.analyze, encoding="utf-8"))["devices"]}
    except (OSError, ValueError, KeyError) as e:
        say(False, "castscope analyze --format json of live's --write file gives the devices", str(e))
        analyzed = {}
    try:
        fams = expo.parse(body)
        say(True, f"the exposition parses strictly as text format 0.0.4 ({len(fams)} families, "
            f"{sum(len(f.samples) for f in fams.values())} samples)")
    except expo.ExpoError as e:
        say(False, "the exposition parses strictly as text format 0.0.4", str(e))
        return

    def show(found):
        return lines_of(body, found) or "no such sample"

    unprefixed = [n for n in fams if not n.startswith("castscope_")]
    undocumented = [n for n, f in fams.items() if not f.help or not f.type]
    say(not unprefixed and not undocumented, "every family is castscope_-prefixed, with HELP and TYPE",
        f"unprefixed {unprefixed}, without HELP or TYPE {undocumented}")
    problems = []
    for name, (kind, labels, needed) in FAMILIES.items():
        f = fams.get(name)
        if f is None:
            if needed:
                problems.append(f"{name} missing")
            continue
        if f.kind != kind:
            problems.append(f"{name} is {f.kind}, not {kind}")
        if needed and not f.samples:
            problems.append(f"{name} has no samples")
        for s in f.samples:
            got = set(s.labels) - {"le"}
            if got != labels:
                problems.append(f"{s.name} line {s.line} has labels {sorted(got)}, want {sorted(labels)}")
                break
    extra = sorted(set(fams) - set(FAMILIES))
    say(not problems, f"the {len(FAMILIES)} families of the interface: types and label names"
        + (f" (also: {', '.join(extra)})" if extra else ""), "; ".join(problems[:8]))

    info = expo.samples(fams, "castscope_build_info")
    say(len(info) == 1 and info[0].value == 1 and info[0].labels.get("version") and info[0].labels.get("swift_version"),
        "castscope_build_info: one series, 1, version and swift_version not empty", show(info))
    start = expo.value(fams, "castscope_start_time_seconds")
    now = time.time()
    say(start is not None and a.started - 2 <= start <= now,
        f"castscope_start_time_seconds is when live started ({a.started:.0f} - 2 s .. now)", f"{start}")

    n = expo.value(fams, "castscope_devices_visible")
    say(n == len(visible), f"castscope_devices_visible == {len(visible)} (the responders)",
        show(expo.samples(fams, "castscope_devices_visible")))
    up = expo.samples(fams, "castscope_device_up")
    want_ids = {spec[k]["id"] for k in visible}
    say({s.labels.get("id") for s in up} == want_ids and len(up) == len(want_ids),
        f"castscope_device_up: one series per responder ({len(want_ids)}), no other", show(up))
    for k in visible:
        d = spec[k]
        found = expo.samples(fams, "castscope_device_up", id=d["id"])
        plain = not any(c in d["fn"] for c in '"\\\n') and d["fn"].isascii()
        want = {"id": d["id"], "name": d["fn"], "model": d["md"], "kind": d["kind"]}
        if not plain:  # (its name has a check of its own, next)
            want["name"] = found[0].labels.get("name") if found else "?"
        good = len(found) == 1 and found[0].labels == want and found[0].value == 1
        say(good, f"castscope_device_up{{id={d['id']}}} == 1 with "
            + (f"name {d['fn']!r}, " if plain else "a name, ") + f"model {d['md']!r}, kind {d['kind']}",
            f"want labels {want}, got {[dict(s.labels) for s in found]}: {show(found)}")
        if not plain:
            # docs/metrics.md: the name label is the friendly name as `analyze` shows it (control
            # characters as \ooo, a backslash doubled), escaped for the format: the label must
            # read back as exactly analyze's friendlyName.
            name = found[0].labels.get("name") if found else None
            shown = analyzed.get(d["id"], {}).get("friendlyName")
            say(shown is not None and name == shown,
                f"label escaping: {k}'s name label reads back as exactly analyze's friendlyName "
                f"{shown!r} (fn {d['fn']!r}: quote, backslash, newline, non-ASCII)",
                f"the label reads {name!r}; analyze's friendlyName {shown!r}; line: {show(found)}")
            print(f"# {k}: the name label is {'exactly' if name == d['fn'] else 'not'} the fn the device sent "
                  f"({d['fn']!r} -> {name!r})")
        age = expo.value(fams, "castscope_device_last_heard_age_seconds", id=d["id"])
        say(age is not None and 0 <= age <= a.announce + 1.5,
            f"castscope_device_last_heard_age_seconds{{id={d['id']}}} in [0, {a.announce + 1.5:g}] "
            f"(it announces every {a.announce:g} s)",
            show(expo.samples(fams, "castscope_device_last_heard_age_seconds", id=d["id"])))

    # Histograms: the parser already made sure they are cumulative with +Inf == _count.
    for fam in ("castscope_first_answer_seconds", "castscope_resolution_seconds"):
        problems = []
        for k in visible:
            d = spec[k]
            buckets = expo.samples(fams, fam + "_bucket", id=d["id"])
            les = sorted(expo.parse_float(s.labels["le"]) for s in buckets)
            count = expo.value(fams, fam + "_count", id=d["id"])
            total = expo.value(fams, fam + "_sum", id=d["id"])
            if les != BUCKETS:
                problems.append(f"{k}: le {les}")
            if not count or count < 1:
                problems.append(f"{k}: _count {count}")
            elif total is None or not 0 <= total / count < 0.1:
                problems.append(f"{k}: mean {total}/{count} s (the responders answer at once)")
        say(not problems, f"{fam}: a series per device with the buckets {BUCKETS[:-1]} +Inf, cumulative, "
            "+Inf == _count, >= 1 observation, mean < 0.1 s", "; ".join(problems))

    q = expo.value(fams, "castscope_client_queries_total", client=a.client)
    say(q is not None and q >= 1, f"castscope_client_queries_total{{client={a.client}}} >= 1 (the querier is asking)",
        show(expo.samples(fams, "castscope_client_queries_total")))
    u = expo.value(fams, "castscope_client_unanswered_queries_total", client=a.client)
    say(u == 0, f"castscope_client_unanswered_queries_total{{client={a.client}}} == 0 (every device answers at once)",
        show(expo.samples(fams, "castscope_client_unanswered_queries_total")))
    active = expo.value(fams, "castscope_clients_active")
    say(active is not None and 0 <= active <= 1, "castscope_clients_active in [0, 1] (one querier)",
        show(expo.samples(fams, "castscope_clients_active")))

    read = expo.value(fams, "castscope_packets_read_total")
    decoded = expo.value(fams, "castscope_packets_decoded_total")
    malformed = expo.value(fams, "castscope_packets_malformed_total")
    say(read is not None and decoded is not None and read >= decoded >= a.sent,
        f"castscope_packets_read_total >= packets_decoded_total >= {a.sent} (mDNS messages the LAN sent before the scrape)",
        f"read {read}, decoded {decoded}")
    say(malformed == 0, "castscope_packets_malformed_total == 0 (all of them well formed)", f"{malformed}")
    drops = {s.labels.get("where"): s.value for s in expo.samples(fams, "castscope_packets_dropped_total")}
    say(set(drops) == {"kernel", "interface"} and all(v == 0 for v in drops.values()),
        "castscope_packets_dropped_total{where=kernel|interface} == 0", f"{drops}")
    findings = expo.samples(fams, "castscope_findings_active")
    bad = [s for s in findings if s.value not in (0, 1) or s.labels.get("severity") not in ("info", "warning", "error")]
    say(not bad, f"castscope_findings_active: 0 or 1, severity info|warning|error ({len(findings)} series: "
        f"{', '.join(s.labels.get('code', '?') + '=' + format(s.value, 'g') for s in findings) or 'none'})", show(bad))


OPS = {"==": lambda v, w: v == w, ">=": lambda v, w: v >= w, "<=": lambda v, w: v <= w, ">": lambda v, w: v > w}


def cmd_expect(a):
    name, labels = expo.selector(a.selector)
    deadline = time.monotonic() + a.within
    while True:
        fams, body, err = fetch(a.target)
        found = expo.samples(fams, name, **labels) if fams else []
        if a.op == "absent":
            good = fams is not None and not found
        else:
            good = len(found) == 1 and OPS[a.op](found[0].value, float(a.value))
        if good or time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    what = a.label or f"{a.selector} {a.op} {'' if a.op == 'absent' else a.value}"
    say(good, what, err or (lines_of(body, found) if found else "no such sample"))


# --------------------------------------------------------------------------- watch and timeline
def cmd_watch(a):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(a.out, "w", encoding="utf-8") as out:
        while not stop:
            t = time.time()
            fams, body, err = fetch(a.target)
            rec = {"t": t, "error": err, "samples": []}
            if fams:
                rec["samples"] = [[s.name, s.labels, s.value] for f in fams.values() for s in f.samples
                                  if not s.name.endswith("_bucket")]
            out.write(json.dumps(rec) + "\n")
            out.flush()
            time.sleep(max(0.0, a.interval - (time.time() - t)))


class Timeline:
    def __init__(self, path):
        self.scrapes = [json.loads(line) for line in open(path, encoding="utf-8")]

    def values(self, name, **labels):
        """[(t, value or None when absent)] for the one series that matches."""
        out = []
        for s in self.scrapes:
            if s["error"]:
                continue
            found = [v for n, lb, v in s["samples"] if n == name and all(lb.get(k) == w for k, w in labels.items())]
            out.append((s["t"], found[0] if len(found) == 1 else (None if not found else float("nan"))))
        return out

    def with_label(self, key, value):
        """[(t, sorted names of the series that have label key=value)]."""
        return [(s["t"], sorted({n for n, lb, _ in s["samples"] if lb.get(key) == value}))
                for s in self.scrapes if not s["error"]]


def first(series, pred, after=-math.inf):
    for t, v in series:
        if t >= after and pred(v):
            return t
    return None


def rel(t, t0):
    return "never" if t is None else f"{t - t0:+.1f} s"


def cmd_timeline(a):
    tl = Timeline(a.watch)
    spec = json.load(open(a.spec, encoding="utf-8"))
    events = dict(line.split("=", 1) for line in open(a.events).read().split())
    ev = {k: float(v) for k, v in events.items()}
    ttl, window, forget = a.ttl, a.window, a.forget
    errors = [s for s in tl.scrapes if s["error"]]
    span = tl.scrapes[-1]["t"] - tl.scrapes[0]["t"] if tl.scrapes else 0
    say(tl.scrapes and not errors, f"watch: {len(tl.scrapes)} scrapes over {span:.0f} s, every one 200 and strictly valid",
        "; ".join(f"{s['t'] - tl.scrapes[0]['t']:+.1f} s: {s['error']}" for s in errors[:5]))
    end = tl.scrapes[-1]["t"] if tl.scrapes else 0

    # ---- findings: QUERY_STORM from the storm querier, CONNECT_REFUSED from the refused connection
    storm = [t for what, _, t in sent_of([os.path.join(a.logs, "storm.log")]) if what == "query"]
    if len(storm) >= 4:
        s_end = storm[-1]
        f = tl.values("castscope_findings_active", code="QUERY_STORM")
        on = first(f, lambda v: v == 1, after=storm[0])
        off = first(f, lambda v: v != 1, after=on) if on else None
        # A tracker that starts after query n-3 sees too few short intervals: the cause is over then.
        lo, hi = storm[-4] + window / 2 - 1, s_end + window + 2.5
        sev = {lb.get("severity") for s in tl.scrapes for n, lb, v in s["samples"]
               if n == "castscope_findings_active" and lb.get("code") == "QUERY_STORM"}
        say(on is not None and on <= storm[3] + 2.5,
            f"QUERY_STORM: findings_active 1 within 2.5 s of the storm's 4th query (3 intervals of 0.6 s)",
            f"first 1 at {rel(on, storm[3])} after it; severities seen {sev}")
        ended = f[-1][1] if f else None
        say(off is not None and lo <= off <= hi and all(v == 1 for t, v in f if on <= t < off),
            f"QUERY_STORM clears (to 0) {window / 2:g}-{window:g} s after the storm (--metrics-window {window:g}), "
            f"steadily 1 until then",
            f"1 from {rel(on, s_end)} to {rel(off, s_end)} after the last storm query (want "
            f"{lo - s_end:+.1f}..{hi - s_end:+.1f} s); value then {dict(f).get(off, 'n/a') if off else 'n/a'}, at the end {ended}")
    else:
        say(False, "QUERY_STORM: the storm querier's log has its queries", f"{len(storm)} queries")
    if "refused" in ev:
        t_c = ev["refused"]
        f = tl.values("castscope_findings_active", code="CONNECT_REFUSED")
        on = first(f, lambda v: v == 1, after=t_c - 0.1)
        off = first(f, lambda v: v != 1, after=on) if on else None
        say(on is not None and on <= t_c + 3 and off is not None and t_c + window / 2 - 1 <= off <= t_c + window + 2.5,
            f"CONNECT_REFUSED: 1 within 3 s of the refused connection, 0 again {window / 2:g}-{window:g} s after it",
            f"1 at {rel(on, t_c)}, back to {dict(f).get(off) if off else 'n/a'} at {rel(off, t_c)}")

    # ---- the goodbye (speaker) and the silent death (tv)
    gone, heard = {}, {}  # when device_up went to 0; when it was last heard
    for key, how in (("speaker", "goodbye"), ("tv", "kill")):
        d = spec[key]
        up = tl.values("castscope_device_up", id=d["id"])
        sent = sent_of([os.path.join(a.logs, f"{key}.log")])
        if how == "goodbye":
            g = [t for what, _, t in sent if what == "goodbye"]
            if not g:
                say(False, f"{key}: its goodbye was sent", "no `sent goodbye` in its log")
                continue
            g = g[0]
            down = first(up, lambda v: v == 0, after=g - 0.5)
            early = [t for t, v in up if t < g and v != 1]
            say(down is not None and down <= g + 2 and not early,
                f"goodbye: castscope_device_up{{{key}}} 1 until the goodbye (TTL 0), 0 within 2 s of it",
                f"0 at {rel(down, g)}; not 1 before it at {[rel(t, g) for t in early[:3]]}")
            gone[key], heard[key] = (down if down is not None else g), g
        else:
            k, last = ev["kill"], max(t for _, _, t in sent)
            expiry = last + ttl
            down = first(up, lambda v: v == 0, after=k - 0.5)
            early = [t for t, v in up if t < expiry - 1 and v != 1]
            say(down is not None and down <= k + ttl + 3 and not early,
                f"kill -9 (no goodbye): castscope_device_up{{{key}}} 1 until its records' TTL ({ttl:g} s) is over, "
                f"0 within TTL + 3 s of the kill",
                f"last heard {rel(last, k)} from the kill, 0 at {rel(down, k)} (want {expiry - 1 - k:+.1f}..{ttl + 3:+.1f} s);"
                f" not 1 earlier at {[rel(t, k) for t in early[:3]]}")
            gone[key], heard[key] = (down if down is not None else expiry), last
            age = tl.values("castscope_device_last_heard_age_seconds", id=d["id"])
            late = [(t, v) for t, v in age if gone[key] + 1 <= t <= gone[key] + forget - 3 and v is not None]
            bad = [(t, v) for t, v in late if abs(v - (t - last)) > 1.5]
            say(late and not bad, f"castscope_device_last_heard_age_seconds{{{key}}} keeps counting from its last packet "
                "while it is gone (within 1.5 s)",
                f"{len(late)} samples; off: {[(rel(t, k), v) for t, v in bad[:3]]}")
    odd = tl.values("castscope_device_up", id=spec["odd"]["id"])
    say(odd and all(v == 1 for _, v in odd), "the device still announcing stays up (1) throughout",
        f"{[v for _, v in odd if v != 1][:5]}")
    vis = tl.values("castscope_devices_visible")
    before = [v for t, v in vis if t < min(gone.get("speaker", math.inf), ev["kill"]) - 0.5]
    between = [v for t, v in vis if gone.get("speaker", math.inf) + 0.5 <= t < gone.get("tv", -math.inf) - 0.5]
    after = [v for t, v in vis if t >= max(gone.values(), default=math.inf) + 0.5]
    say(before and after and between and set(before) == {3} and set(between) == {2} and set(after) == {1},
        "castscope_devices_visible: 3 before, 2 after the goodbye, 1 once the killed one expired too",
        f"before {sorted(set(before))}, between {sorted(set(between))}, after {sorted(set(after))}")

    # ---- unanswered queries: those the querier sent between the kill and the tv's expiry
    q1 = [t for what, _, t in sent_of([os.path.join(a.logs, "querier.log")]) if what == "query"]
    tv_last = max(t for _, _, t in sent_of([os.path.join(a.logs, "tv.log")]))
    expiry, k = tv_last + ttl, ev["kill"]
    sure = [t for t in q1 if k + 0.2 < t < expiry - 0.5]
    maybe = [t for t in q1 if k - 0.2 <= t <= k + 0.2 or expiry - 0.5 <= t <= expiry + 0.5]
    un = tl.values("castscope_client_unanswered_queries_total", client=a.client)
    pre = [v for t, v in un if t < k]
    final = [v for t, v in un if t >= (max(q1) if q1 else end) + 2 and v is not None]
    say(pre and set(pre) == {0} and final and len(sure) <= final[-1] <= len(sure) + len(maybe),
        f"castscope_client_unanswered_queries_total{{client={a.client}}}: 0 until the kill, then the querier's "
        f"queries between the kill and the killed device's expiry ({len(sure)}"
        + (f" to {len(sure) + len(maybe)}" if maybe else "") + ")",
        f"before the kill {sorted(set(pre))}, at the end {final[-1:] or 'n/a'}; queries at "
        f"{[rel(t, k) for t in q1 if k - 1 < t < expiry + 1]} from the kill, expiry {rel(expiry, k)}")
    un2 = [v for t, v in tl.values("castscope_client_unanswered_queries_total", client=a.storm_client) if v is not None]
    say(un2 and set(un2) == {0}, f"castscope_client_unanswered_queries_total{{client={a.storm_client}}} stays 0 "
        "(all devices answered the storm)", f"{sorted(set(un2))}")

    # ---- every message sent before the last scrape was read (and decoded)
    last = next((x for x in reversed(tl.scrapes) if not x["error"]), None)
    if last:
        sent = [t for _, _, t in sent_of([os.path.join(a.logs, f"{n}.log") for n in ("tv", "speaker", "odd", "querier", "storm")])
                if t < last["t"] - 0.5]
        got = {n: v for n, lb, v in last["samples"] if n in ("castscope_packets_read_total", "castscope_packets_decoded_total")}
        say(got.get("castscope_packets_read_total", -1) >= got.get("castscope_packets_decoded_total", -1) >= len(sent),
            f"at the last scrape: packets_read_total >= packets_decoded_total >= {len(sent)}, the mDNS messages "
            "sent until then (queries, answers, announcements, goodbyes)", f"{got}")

    # ---- forgetting: devices gone, and the storm client silent, for longer than --metrics-forget
    for key in ("speaker", "tv"):
        if key not in gone:
            continue
        d, g = spec[key], gone[key]
        names = tl.with_label("id", d["id"])
        kept = [t for t, n in names if g + 1 <= t <= g + forget - 2 and "castscope_device_up" not in n]
        left = first(names, lambda n: not n, after=g)
        stay = [(t, n) for t, n in names if t >= g + forget + 4 and n]
        say(not kept and left is not None and g + forget - 2 <= left <= g + forget + 4 and not stay,
            f"--metrics-forget {forget:g}: {key}'s series (device_up 0) stay while it is gone, leave {forget:g} s after",
            f"device_up 0 at {rel(g, heard[key])} after its last packet, all its series gone {rel(left, g)} after that "
            f"({rel(left, heard[key])} after its last packet; want {forget - 2:+.0f}..{forget + 4:+.0f} s after it went); "
            f"device_up missing early at {[rel(t, g) for t in kept[:3]]}; still there after: "
            f"{stay[0][1] if stay else []}" + ("" if end >= g + forget + 4 else f"; the watch ended at {rel(end, g)}"))
    storm_last = storm[-1] if storm else None
    if storm_last:
        names = tl.with_label("client", a.storm_client)
        left = first(names, lambda n: not n, after=storm_last)
        early = [t for t, n in names if t <= storm_last + forget - 2 and "castscope_client_queries_total" not in n
                 and t >= storm[0] + 1]
        say(left is not None and storm_last + forget - 2 <= left <= storm_last + forget + 4 and not early,
            f"--metrics-forget {forget:g}: the storm client's series leave {forget:g} s after its last query",
            f"gone at {rel(left, storm_last)} (want {forget - 2:+.0f}..{forget + 4:+.0f} s); missing early at "
            f"{[rel(t, storm_last) for t in early[:3]]}")
    seen = first(tl.values("castscope_findings_active", code="DEVICE_EXPIRED"), lambda v: v == 1)
    print(f"# DEVICE_EXPIRED in findings_active: {'1 at ' + rel(seen, k) + ' from the kill' if seen else 'never 1'}"
          " (not checked: the older tracker sees it only for a few seconds)")


# --------------------------------------------------------------------------- Prometheus
def prom_get(target, path, params=None):
    host, port = hostport(target)
    if params:
        path += "?" + urllib.parse.urlencode(params)
    status, headers, body = expo.http_get(host, port, path, timeout=10)
    return status, json.loads(body.decode("utf-8")) if body else None


def cmd_prom(a):
    deadline = time.monotonic() + a.within
    if a.what == "target":
        while True:
            try:
                _, doc = prom_get(a.target, "/api/v1/targets")
                ts = [t for t in doc["data"]["activeTargets"] if t["labels"].get("job") == a.job]
            except (OSError, ValueError, KeyError, expo.ExpoError) as e:
                ts = [{"health": "?", "lastError": str(e)}]
            if (ts and all(t["health"] == "up" for t in ts)) or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        say(ts and all(t["health"] == "up" for t in ts), f"Prometheus: the target {a.job} is up (scraped without error)",
            "; ".join(f"{t.get('scrapeUrl')} {t['health']} {t.get('lastError')}" for t in ts) or "no target")
    elif a.what == "query":
        lo, hi = (float(x) for x in a.range.split(",")) if a.range else (None, None)
        while True:
            try:
                _, doc = prom_get(a.target, "/api/v1/query", {"query": a.expr})
                res = doc["data"]["result"]
                vals = [float(r["value"][1]) for r in res]
            except (OSError, ValueError, KeyError, TypeError, expo.ExpoError) as e:
                res, vals = str(e), []
            if a.range:
                good = len(vals) == 1 and lo < vals[0] < hi
            else:
                good = len(vals) == 1 and vals[0] == float(a.value)
            if good or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        want = f"in ({lo:g}, {hi:g})" if a.range else f"== {a.value}"
        say(good, f"Prometheus: {a.expr} {want}", f"result {res}")
    elif a.what == "rules":
        while True:
            try:
                _, doc = prom_get(a.target, "/api/v1/rules")
                rules = [r for g in doc["data"]["groups"] for r in g["rules"]]
            except (OSError, ValueError, KeyError, expo.ExpoError) as e:
                rules = [{"name": "?", "health": str(e)}]
            bad = [r for r in rules if r.get("health") != "ok"]
            if (rules and not bad) or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        say(rules and not bad, f"Prometheus: the {len(rules)} rules load and evaluate on the real exposition without error",
            "; ".join(f"{r.get('name')}: {r.get('health')} {r.get('lastError', '')}" for r in bad[:5]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scrape")
    s.add_argument("target")
    s.add_argument("out")
    s = sub.add_parser("static")
    s.add_argument("file")
    s.add_argument("--spec", required=True)
    s.add_argument("--visible", required=True)
    s.add_argument("--client", required=True)
    s.add_argument("--sent", type=int, required=True)
    s.add_argument("--started", type=float, required=True)
    s.add_argument("--announce", type=float, default=2.0)
    s.add_argument("--analyze", required=True, help="castscope analyze --format json of the same traffic")
    s = sub.add_parser("expect")
    s.add_argument("target")
    s.add_argument("selector")
    s.add_argument("op", choices=["==", ">=", "<=", ">", "absent"])
    s.add_argument("value", nargs="?", default="")
    s.add_argument("--within", type=float, default=0)
    s.add_argument("--label", default="")
    s = sub.add_parser("watch")
    s.add_argument("target")
    s.add_argument("out")
    s.add_argument("--interval", type=float, default=0.5)
    s = sub.add_parser("timeline")
    s.add_argument("watch")
    s.add_argument("--spec", required=True)
    s.add_argument("--logs", required=True)
    s.add_argument("--events", required=True)
    s.add_argument("--client", required=True)
    s.add_argument("--storm-client", required=True)
    s.add_argument("--ttl", type=float, required=True)
    s.add_argument("--window", type=float, required=True)
    s.add_argument("--forget", type=float, required=True)
    s = sub.add_parser("prom")
    s.add_argument("target")
    s.add_argument("what", choices=["target", "query", "rules"])
    s.add_argument("expr", nargs="?", default="")
    s.add_argument("--job", default="castscope")
    s.add_argument("--value", default="")
    s.add_argument("--range", default="", help="LO,HI: the one result must lie strictly between")
    s.add_argument("--within", type=float, default=20)
    a = p.parse_args()
    {"scrape": cmd_scrape, "static": cmd_static, "expect": cmd_expect, "watch": cmd_watch,
     "timeline": cmd_timeline, "prom": cmd_prom}[a.cmd](a)


if __name__ == "__main__":
    main()
