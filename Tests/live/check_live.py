#!/usr/bin/env python3
"""JSON checks for Tests/live/run.sh (stdlib only).

  check_live.py jsonl EVENTS.jsonl OFFLINE.json PCAP --client ADDR
                --device 'NAME|ADDRESS|PORT' [--device ...]

EVENTS.jsonl is the stdout of `castscope live --format jsonl`, OFFLINE.json
the output of `castscope analyze --format json` on the pcap that live wrote
(--write), PCAP that file.  Prints one `ok ...` / `FAIL ...` line per check
(run.sh counts them); exits 0 even when checks fail, 2 on bad usage.

Frame numbers of events are cross-checked against the pcap with tshark when
it is installed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import say, seconds  # noqa: E402  (Tests/lib/checks.py)


def frame_no(f):
    """A frame reference as an int: a number or {"capture": 0, "frame": N}."""
    if f is None:
        return None
    if isinstance(f, bool):
        raise ValueError(f"unreadable frame {f!r}")
    if isinstance(f, int):
        return f
    if isinstance(f, dict) and isinstance(f.get("frame"), int):
        return f["frame"]
    raise ValueError(f"unreadable frame {f!r}")


def tshark_frames(pcap):
    """frame number -> (ip.src, dns.flags.response) for the mDNS packets of the pcap, or None."""
    if not shutil.which("tshark"):
        return None
    out = subprocess.run(
        ["tshark", "-n", "-r", pcap, "-Y", "mdns", "-T", "fields", "-e", "frame.number", "-e", "ip.src",
         "-e", "ipv6.src", "-e", "dns.flags.response"],
        capture_output=True, text=True, timeout=60)
    frames = {}
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        frames[int(parts[0])] = (parts[1] or parts[2], parts[3].split(",")[0] in ("1", "True"))
    return frames


def check_jsonl(args):
    devices = []
    for spec in args.device:
        name, addr, port = spec.split("|")
        devices.append((name, addr, int(port)))

    # --- every line is a JSON object with an "event" ---------------------------------------
    events, bad = [], []
    with open(args.events, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                bad.append(f"line {n} empty")
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                bad.append(f"line {n}: {e}: {line[:80]!r}")
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("event"), str):
                bad.append(f"line {n} has no \"event\": {line[:80]!r}")
                continue
            events.append(obj)
    say(not bad and len(events) >= 3, f"jsonl: all {len(events)} lines are JSON objects with an \"event\"",
        "; ".join(bad[:3]) or f"only {len(events)} lines")
    if len(events) < 2:
        say(False, "jsonl: events to check", "too few lines; the rest of the jsonl checks are skipped")
        return
    kinds = [e["event"] for e in events]

    # --- framing: started first, stopped then analysis last --------------------------------
    say(kinds[0] == "started", "jsonl: first event is \"started\"", f"first is {kinds[0]!r}")
    say(kinds[-1] == "analysis" and isinstance(events[-1].get("analysis"), dict),
        "jsonl: last event is \"analysis\" with an analysis object", f"last is {kinds[-1]!r}")
    say(kinds[-2] == "stopped", "jsonl: \"stopped\" comes right before \"analysis\"", f"second to last is {kinds[-2]!r}")
    say(kinds.count("started") == 1 and kinds.count("stopped") == 1 and kinds.count("analysis") == 1,
        "jsonl: exactly one started, one stopped, one analysis",
        f"started {kinds.count('started')}, stopped {kinds.count('stopped')}, analysis {kinds.count('analysis')}")
    stopped = events[-2] if kinds[-2] == "stopped" else next((e for e in events if e["event"] == "stopped"), {})
    say(stopped.get("reason") == "duration", "jsonl: stopped.reason is \"duration\"", f"reason {stopped.get('reason')!r}")
    dropped = stopped.get("dropped")
    say(isinstance(dropped, int) and not isinstance(dropped, bool) and dropped >= 0,
        "jsonl: stopped.dropped is a count", f"dropped {dropped!r}")
    known = {"started", "stopped", "analysis", "sessionStarted", "deviceAppeared", "deviceChanged", "deviceLeft",
             "deviceExpired", "queryUnanswered"}
    unknown = sorted(set(kinds) - known)
    say(not unknown, "jsonl: only documented event names", f"unknown: {unknown}")
    live = events[-1].get("analysis") if kinds[-1] == "analysis" else {}
    live = live if isinstance(live, dict) else {}

    # --- events are in time order ------------------------------------------------------------
    timed, problems = [], []
    for i, e in enumerate(events):
        if e["event"] in ("started", "stopped", "analysis"):
            continue
        try:
            s = seconds(e.get("time"))
        except (ValueError, TypeError) as err:
            problems.append(f"event {i} ({e['event']}): {err}")
            continue
        if s is None:
            if e["event"] in ("sessionStarted", "deviceAppeared", "queryUnanswered"):
                problems.append(f"event {i} ({e['event']}) has no time")
            continue
        timed.append((i, e["event"], s))
    backwards = [(a, b) for a, b in zip(timed, timed[1:]) if b[2] < a[2]]
    say(not problems and not backwards and len(timed) > 0,
        f"jsonl: the {len(timed)} discovery events have times, in non-decreasing order",
        "; ".join(problems[:2]) or "; ".join(f"event {b[0]} {b[1]} at {b[2]:.6f} after event {a[0]} {a[1]} at {a[2]:.6f}"
                                           for a, b in backwards[:2]) or "no discovery events")

    # --- sessions and devices ------------------------------------------------------------------
    sessions = [(i, e) for i, e in enumerate(events) if e["event"] == "sessionStarted"]
    mine = [(i, e) for i, e in sessions if e.get("client") == args.client]
    say(bool(mine), f"jsonl: sessionStarted for the sender {args.client}",
        f"sessionStarted clients: {[e.get('client') for _, e in sessions]}")
    if mine:
        e = mine[0][1]
        say(isinstance(e.get("names"), list) and any("_googlecast._tcp" in str(n).lower() for n in e["names"]),
            "jsonl: sessionStarted.names include _googlecast._tcp", f"names {e.get('names')!r}")
    appeared = [(i, e) for i, e in enumerate(events) if e["event"] == "deviceAppeared"]
    fields = ("id", "instance", "friendlyName", "model", "kind", "status", "runningApp", "addresses", "port")
    for i, e in appeared:
        d = e.get("device")
        missing = [k for k in fields if not isinstance(d, dict) or k not in d]
        for k in ("client", "afterMs", "time", "frame"):
            if k not in e:
                missing.append(k)
        if missing:
            say(False, f"jsonl: deviceAppeared (event {i}) has all fields", f"missing {missing}")
    by_name = {}
    for i, e in appeared:
        d = e.get("device") or {}
        by_name.setdefault(d.get("friendlyName"), []).append((i, e))

    lat_live = live.get("latency") if isinstance(live.get("latency"), list) else []
    for name, addr, port in devices:
        hits = by_name.get(name, [])
        if not say(len(hits) >= 1, f"device {name!r}: deviceAppeared with that friendlyName",
                   f"appeared: {sorted(str(k) for k in by_name)}"):
            continue
        i, e = hits[0]
        d = e["device"]
        say(addr in (d.get("addresses") or []) and d.get("port") == port,
            f"device {name!r}: address {addr} and port {port}",
            f"addresses {d.get('addresses')!r}, port {d.get('port')!r}")
        after = e.get("afterMs")
        good = e.get("client") == args.client and isinstance(after, (int, float)) and not isinstance(after, bool) \
            and 0 <= after < 10000
        say(good, f"device {name!r}: seen by {args.client} with afterMs (first-answer latency)",
            f"client {e.get('client')!r}, afterMs {after!r}")
        # the session that this event cites started earlier in the stream
        cited = e.get("client")
        if cited is not None:
            before = [j for j, s in sessions if s.get("client") == cited and j < i]
            say(bool(before), f"device {name!r}: sessionStarted of {cited} comes before its deviceAppeared",
                f"sessionStarted of {cited} at events {[j for j, s in sessions if s.get('client') == cited]}, "
                f"deviceAppeared at event {i}")
        row = next((r for r in lat_live if r.get("client") == args.client and r.get("deviceId") == d.get("id")), None)
        good = row is not None and isinstance(row.get("firstAnswerMs"), (int, float))
        say(good, f"device {name!r}: live analysis latency[] row with firstAnswerMs",
            f"row {row!r}" if row else f"no latency row for ({args.client}, {d.get('id')})")
        if good and isinstance(after, (int, float)):
            say(abs(row["firstAnswerMs"] - after) <= 0.01,
                f"device {name!r}: afterMs equals the analysis' firstAnswerMs",
                f"afterMs {after}, firstAnswerMs {row['firstAnswerMs']}")

    # --- frame numbers of events are frame numbers in the written pcap --------------------
    frames = tshark_frames(args.pcap)
    if frames is None:
        print("# tshark not installed: frame numbers not cross-checked")
    else:
        wrong = []
        for i, e in sessions:
            n = frame_no(e.get("frame"))
            info = frames.get(n)
            if info is None or info[1] or info[0] != e.get("client"):
                wrong.append(f"sessionStarted {e.get('client')} frame {n}: {info}")
        for i, e in appeared:
            n = frame_no(e.get("frame"))
            info = frames.get(n)
            addrs = (e.get("device") or {}).get("addresses") or []
            if info is None or not info[1] or info[0] not in addrs:
                wrong.append(f"deviceAppeared {(e.get('device') or {}).get('friendlyName')} frame {n}: {info}")
        say(not wrong and (sessions or appeared),
            "jsonl: event frames are the matching mDNS packets of the --write pcap (tshark)", "; ".join(wrong[:3]))

    # --- the live analysis equals `analyze` of the written pcap --------------------------
    with open(args.offline, encoding="utf-8") as f:
        offline = json.load(f)
    say(live.get("schemaVersion") == offline.get("schemaVersion") == 1,
        "live analysis: schemaVersion 1 like analyze --format json",
        f"live {live.get('schemaVersion')!r}, offline {offline.get('schemaVersion')!r}")

    def devs(a):
        return sorted((str(d.get("id")), str(d.get("friendlyName")), tuple(sorted(map(str, d.get("addresses") or []))),
                       d.get("port") if isinstance(d.get("port"), int) else -1) for d in a.get("devices") or [])

    def lats(a):
        return sorted((str(r.get("client")), str(r.get("deviceId")), repr(r.get("firstAnswerMs")),
                       repr(r.get("resolvedMs"))) for r in a.get("latency") or [])

    def codes(a):
        return sorted(str(x.get("code")) for x in a.get("findings") or [])

    for label, fn in (("devices (id, friendlyName, addresses, port)", devs),
                      ("latency (client, deviceId, firstAnswerMs, resolvedMs)", lats), ("finding codes", codes)):
        a, b = fn(live), fn(offline)
        say(a == b and (a or label == "finding codes"), f"live vs analyze of the pcap: same {label}",
            f"live {a}, offline {b}")
    names = sorted(str(d.get("friendlyName")) for d in live.get("devices") or [])
    want = sorted(n for n, _, _ in devices)
    say(names == want, "live analysis: exactly the expected devices", f"{names} != {want}")
    rows = [r for r in offline.get("latency") or [] if r.get("client") == args.client]
    say(len(rows) >= len(devices) and all(isinstance(r.get("firstAnswerMs"), (int, float)) for r in rows),
        f"analyze of the pcap: every latency row of {args.client} has firstAnswerMs",
        json.dumps(rows)[:300])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("jsonl")
    j.add_argument("events")
    j.add_argument("offline")
    j.add_argument("pcap")
    j.add_argument("--client", required=True)
    j.add_argument("--device", action="append", default=[])
    args = ap.parse_args()
    try:
        check_jsonl(args)
    except Exception as e:  # a crash of the checker is a failed check, not a silent pass
        say(False, "jsonl checks ran to the end", f"{type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
