#!/usr/bin/env python3
"""Checks for Tests/probe/run.sh (python3 stdlib + tshark).

  check_probe.py json LABEL PROBE.json [options]     the JSON of `castscope probe --format json`
  check_probe.py wire LABEL PCAP PROBE.json [options] the packets the probe sent (its --write pcap)

json options:
  --sender ADDR (repeatable)  the sender's addresses (the first is its primary, IPv4)
  --interface IF --family ipv4|ipv6 (repeatable) --app-id ID (repeatable) --duration S
  --captured yes|no --written FILE|none --answered yes|no
  --device 'NAME|ADDR|PORT|OUTCOME[|ID|MODEL]' (repeatable): a device the probe must list;
      OUTCOME is a connect outcome (established, refused, timeout, ...) or `none` (connect null)
  --exact-devices             the probe lists exactly the --device names
  --finding CODE[=NAME]       analysis.findings has CODE (naming device NAME in subjects)
  --no-finding CODE           ... and not CODE
  --app-unanswered ID / --app-answered ID   APP_ID_UNANSWERED names / does not name ID
  --media-device NAME         analysis says NAME answered under the media criterion subtype
  --offline OFFLINE.json      `castscope analyze --format json` of the written pcap: the same
                              device ids/names, first-answer latencies (0.001 ms), connections
  --unresolved PREFIX         an instance (name prefix) that answered with its PTR only:
                              resolved false, connect outcome not-resolved
wire options:
  --sender-mac MAC --family ipv4|ipv6 (repeatable) --app-id ID (repeatable) --duration S
  --connect ADDR:PORT ([v6]:PORT) (repeatable)  a TCP+TLS connection the probe must open
  --no-connect                no TCP SYN from the sender at all
  --follow-up PREFIX          follow-up SRV and TXT questions (QM) for that instance
  --reference REF.pcap        a tcpdump of the sender's eth0 taken at the same time: every
                              frame of it that the analysis reads (mDNS, SSDP, TCP SYN/FIN/RST,
                              TLS handshake records, ICMP errors) between the probe pcap's first
                              and last frame is in the probe's pcap too; the others that it
                              leaves out (ACKs, TLS data, IGMP) are counted in a note

Prints one `ok ...` / `FAIL ...` line per check (run.sh counts them), `# ...` notes;
exits 0 even when checks fail, 2 on bad usage.
"""
import argparse
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import say, seconds  # noqa: E402  (Tests/lib/checks.py)

# =====================================================================================
# The shape of `castscope probe --format json`, in ONE place.  If the implementation
# names a key differently, change it here (our name -> JSON key); nothing below uses
# the probe section's JSON keys directly.
DOC_KEYS = {"probe": "probe", "analysis": "analysis"}
PROBE_KEYS = {
    "interface": "interface", "addresses": "addresses", "families": "families", "appIDs": "appIDs",
    "duration": "durationMs", "captured": "captured", "captureNote": "captureNote", "written": "written",
    "queries": "queries", "mSearches": "mSearches", "devices": "devices", "answered": "answered",
}
QUERY_KEYS = {"time": "time", "family": "family", "qu": "unicastResponse", "questions": "questions",
              "knownAnswers": "knownAnswers"}
DEVICE_KEYS = {"name": "name", "instance": "instance", "id": "id", "model": "model", "addresses": "addresses",
               "port": "port", "resolved": "resolved", "firstAnswerMs": "firstAnswerMs", "connect": "connect"}
CONNECT_KEYS = {"address": "address", "port": "port", "outcome": "outcome", "connectMs": "connectMs",
                "tlsMs": "tlsMs", "tlsVersion": "tlsVersion", "error": "error"}
FAMILIES = {"ipv4", "ipv6"}
OUTCOMES = {"established", "refused", "timeout", "unreachable", "tls-failed", "not-resolved"}


def question_text(name, qtype):
    """How probe.queries[].questions writes one question."""
    return f"{name} {qtype}"


# The analysis section is the document of `castscope analyze --format json` (docs/json-schema.md).
FINDING_APP_IDS = ("subjects", "appIds")
FINDING_DEVICES = ("subjects", "devices")
# =====================================================================================

MISSING = object()
BASE = "_googlecast._tcp.local"
MEDIA = "_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp.local"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def subtype(app_id):
    return f"_{app_id}._sub._googlecast._tcp.local"


def get(obj, table, key):
    if not isinstance(obj, dict):
        return MISSING
    return obj.get(table[key], MISSING)


def pget(p, k): return get(p, PROBE_KEYS, k)
def qget(q, k): return get(q, QUERY_KEYS, k)
def dget(d, k): return get(d, DEVICE_KEYS, k)
def cget(c, k): return get(c, CONNECT_KEYS, k)


def note(text):
    print(f"# {text}", flush=True)


def short(x, n=300):
    if x is MISSING:
        return "(missing)"
    s = json.dumps(x, default=lambda o: "(missing)") if not isinstance(x, str) else x
    return s if len(s) <= n else s[:n] + "…"


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def norm_addr(a):
    try:
        return str(ipaddress.ip_address(str(a).split("%")[0]))
    except ValueError:
        return str(a)


def doubling(times, label):
    """Gaps of a schedule: >= 0.9 s, each >= 1.8x the previous.  Returns (good, detail)."""
    gaps = [b - a for a, b in zip(times, times[1:])]
    bad = []
    if gaps and gaps[0] < 0.9:
        bad.append(f"first gap {gaps[0]:.3f}s < 0.9s")
    for g0, g1 in zip(gaps, gaps[1:]):
        if g1 < 1.8 * g0:
            bad.append(f"gap {g1:.3f}s after {g0:.3f}s (< 1.8x)")
    return not bad, f"{label} gaps {[round(g, 3) for g in gaps]}" + (": " + "; ".join(bad) if bad else "")


# ------------------------------------------------------------------------------ json
def load_doc(path, label):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except ValueError as e:
        say(False, f"{label}: stdout is one JSON document", f"{e}; starts {text[:120]!r}")
        return None
    good = isinstance(doc, dict) and set(doc) == set(DOC_KEYS.values())
    say(good, f"{label}: stdout is ONE JSON object with exactly the keys {sorted(DOC_KEYS.values())}",
        f"keys {sorted(doc) if isinstance(doc, dict) else type(doc).__name__}")
    return doc if isinstance(doc, dict) else None


def parse_device_spec(spec):
    parts = spec.split("|")
    if len(parts) not in (4, 6):
        raise SystemExit(f"bad --device {spec!r}")
    name, addr, port, outcome = parts[:4]
    return {"name": name, "addr": addr, "port": int(port), "outcome": outcome,
            "id": parts[4] if len(parts) == 6 else None, "model": parts[5] if len(parts) == 6 else None}


def check_json(a):
    L = a.label
    doc = load_doc(a.doc, L)
    if doc is None:
        return
    p = doc.get(DOC_KEYS["probe"])
    an = doc.get(DOC_KEYS["analysis"])
    if not say(isinstance(p, dict), f"{L}: probe is an object", f"probe {short(p, 100)}"):
        return
    missing = [k for k in PROBE_KEYS if pget(p, k) is MISSING]
    say(not missing, f"{L}: probe has every documented key",
        f"missing {[PROBE_KEYS[k] for k in missing]}; has {sorted(p)}")

    # --- run parameters -----------------------------------------------------------
    if a.interface:
        say(pget(p, "interface") == a.interface, f"{L}: probe.interface is {a.interface}",
            f"{short(pget(p, 'interface'))}")
    addrs = pget(p, "addresses")
    addrs = [norm_addr(x) for x in addrs] if isinstance(addrs, list) else []
    wanted = [x for x in a.sender if not x.startswith("fe80")]
    fams = set(a.family or [])
    wanted = [x for x in wanted if (":" in x and "ipv6" in fams) or (":" not in x and "ipv4" in fams)]
    say(all(norm_addr(x) in addrs for x in wanted), f"{L}: probe.addresses include {wanted}",
        f"addresses {short(pget(p, 'addresses'))}")
    if a.family:
        got = pget(p, "families")
        say(isinstance(got, list) and sorted(got) == sorted(a.family), f"{L}: probe.families is {sorted(a.family)}",
            f"families {short(got)}")
    apps = pget(p, "appIDs")
    say(isinstance(apps, list) and sorted(apps) == sorted(a.app_id), f"{L}: probe.appIDs is {sorted(a.app_id)}",
        f"appIDs {short(apps)}")
    if a.duration is not None:
        d = pget(p, "duration")
        say(is_num(d) and abs(d - a.duration * 1000) < 1e-6, f"{L}: probe.durationMs is {a.duration * 1000:.0f}", f"{short(d)}")
    captured = pget(p, "captured")
    cnote = pget(p, "captureNote")
    if a.captured == "yes":
        say(captured is True and cnote is None, f"{L}: captured true, captureNote null",
            f"captured {short(captured)}, captureNote {short(cnote)}")
    elif a.captured == "no":
        say(captured is False and isinstance(cnote, str) and cnote.strip() != "",
            f"{L}: captured false with a captureNote saying why", f"captured {short(captured)}, captureNote {short(cnote)}")
        if isinstance(cnote, str):
            note(f"{L}: captureNote: {cnote}")
    if a.written is not None:
        w = pget(p, "written")
        want = None if a.written == "none" else a.written
        say(w == want, f"{L}: probe.written is {short(want)}", f"written {short(w)}")
    answered = pget(p, "answered")
    if a.answered:
        say(answered is (a.answered == "yes"), f"{L}: probe.answered is {a.answered == 'yes'}", f"answered {short(answered)}")

    # --- queries ----------------------------------------------------------------------
    queries = pget(p, "queries")
    queries = queries if isinstance(queries, list) else []
    bad = []
    for i, q in enumerate(queries):
        t, fam, qu, qs, ka = (qget(q, k) for k in ("time", "family", "qu", "questions", "knownAnswers"))
        if not (isinstance(t, str) and RFC3339.match(t)):
            bad.append(f"query {i} time {short(t)}")
        if fam not in FAMILIES or (a.family and fam not in a.family):
            bad.append(f"query {i} family {short(fam)}")
        if not isinstance(qu, bool):
            bad.append(f"query {i} unicastResponse {short(qu)}")
        if not (isinstance(qs, list) and qs and all(isinstance(x, str) for x in qs)):
            bad.append(f"query {i} questions {short(qs)}")
        if not (isinstance(ka, int) and not isinstance(ka, bool) and ka >= 0):
            bad.append(f"query {i} knownAnswers {short(ka)}")
    say(queries and not bad, f"{L}: probe.queries: {len(queries)} well-formed entries (time, family, "
        "unicastResponse, questions, knownAnswers)", "; ".join(bad[:4]) or "no queries")
    if bad or not queries:
        queries = [q for q in queries if isinstance(qget(q, "time"), str) and RFC3339.match(qget(q, "time"))
                   and isinstance(qget(q, "questions"), list)]
    by_fam = {}
    for q in sorted(queries, key=lambda q: seconds(qget(q, "time"))):
        by_fam.setdefault(qget(q, "family"), []).append(q)
    for fam in sorted(a.family or []):
        qs = by_fam.get(fam, [])
        if not say(bool(qs), f"{L}: probe.queries has {fam} queries", f"families {sorted(by_fam)}"):
            continue
        first = qs[0]
        names = qget(first, "questions")
        need = [question_text(BASE, "PTR"), question_text(MEDIA, "PTR")] + \
               [question_text(subtype(x), "PTR") for x in a.app_id]
        say(all(n in names for n in need), f"{L}: first {fam} query asks {len(need)} PTRs: base type, "
            f"{'app subtype(s), ' if a.app_id else ''}media criterion", f"questions {short(names)}")
        say(qget(first, "qu") is True and all(qget(q, "qu") is False for q in qs[1:]),
            f"{L}: first {fam} query is QU (unicastResponse), the later {len(qs) - 1} are not",
            f"unicastResponse: {[qget(q, 'qu') for q in qs]}")
        sched = [seconds(qget(q, "time")) for q in qs if question_text(BASE, "PTR") in qget(q, "questions")]
        good, detail = doubling(sched, fam)
        if a.duration is not None and a.duration >= 3.5:
            good = good and len(sched) >= 3
            detail += f", {len(sched)} scheduled"
        say(good, f"{L}: {fam} scheduled queries (asking {BASE} PTR) 1 s apart, then doubling", detail)
        if a.answered == "yes":
            kas = [qget(q, "knownAnswers") for q in qs[1:]]
            say(any(isinstance(k, int) and k > 0 for k in kas), f"{L}: a later {fam} query carries known answers",
                f"knownAnswers of the later queries {kas}")
    ms = pget(p, "mSearches")
    if "ipv4" in (a.family or []):
        say(isinstance(ms, int) and not isinstance(ms, bool) and ms >= 2,
            f"{L}: probe.mSearches >= 2 (DIAL M-SEARCH sent a few times over IPv4)", f"mSearches {short(ms)}")
    elif a.family:
        say(ms == 0, f"{L}: probe.mSearches is 0 without IPv4", f"mSearches {short(ms)}")

    # --- devices ----------------------------------------------------------------------
    pdevs = pget(p, "devices")
    pdevs = pdevs if isinstance(pdevs, list) else []
    bad = []
    for i, d in enumerate(pdevs):
        miss = [DEVICE_KEYS[k] for k in DEVICE_KEYS if dget(d, k) is MISSING]
        if miss:
            bad.append(f"device {i} lacks {miss}")
            continue
        c = dget(d, "connect")
        if c is not None:
            miss = [CONNECT_KEYS[k] for k in CONNECT_KEYS if cget(c, k) is MISSING]
            if miss:
                bad.append(f"device {i} connect lacks {miss}")
            elif cget(c, "outcome") not in OUTCOMES:
                bad.append(f"device {i} connect outcome {short(cget(c, 'outcome'))}")
    say(not bad, f"{L}: all {len(pdevs)} probe.devices have every documented key", "; ".join(bad[:3]))
    names = [dget(d, "name") for d in pdevs]
    want = [parse_device_spec(s) for s in a.device]
    if a.exact_devices:
        say(sorted(map(str, names)) == sorted(w["name"] for w in want),
            f"{L}: probe.devices are exactly {sorted(w['name'] for w in want)}", f"names {names}")
    if a.answered == "no":
        say(not pdevs, f"{L}: probe.devices is empty", f"names {names}")

    for prefix in a.unresolved:
        d = next((d for d in pdevs if str(dget(d, "instance")).lower().startswith(prefix.lower())), None)
        if not say(d is not None, f"{L}: probe.devices lists the instance {prefix}… (its PTR only)",
                   f"instances {[dget(x, 'instance') for x in pdevs]}"):
            continue
        c = dget(d, "connect")
        good = dget(d, "resolved") is False and dget(d, "name") is None and is_num(dget(d, "firstAnswerMs")) \
            and isinstance(c, dict) and cget(c, "outcome") == "not-resolved"
        say(good, f"{L}: {prefix}…: resolved false, name null, firstAnswerMs set, connect outcome not-resolved",
            f"device {short(d, 500)}")
        if isinstance(c, dict):
            say(cget(c, "address") is None and cget(c, "port") is None and isinstance(cget(c, "error"), str),
                f"{L}: {prefix}…: connect.address and port are null (nothing to connect to), error says why",
                f"address {short(cget(c, 'address'))}, port {short(cget(c, 'port'))}, error {short(cget(c, 'error'))}")

    adevs = an.get("devices") if isinstance(an, dict) and isinstance(an.get("devices"), list) else []
    # the analysis' client for the sender: the host whose addresses include one of ours
    client = None
    if isinstance(an, dict):
        ours = {norm_addr(x) for x in a.sender}
        for c in an.get("clients") or []:
            have = {norm_addr(x) for x in (c.get("addresses") or [c.get("address")])}
            if have & ours:
                client = c
                break
    for w in want:
        nm = w["name"]
        d = next((d for d in pdevs if dget(d, "name") == nm), None)
        if not say(d is not None, f"{L}: probe.devices has {nm!r}", f"names {names}"):
            continue
        da = [norm_addr(x) for x in (dget(d, "addresses") or [])]
        say(norm_addr(w["addr"]) in da and dget(d, "port") == w["port"] and dget(d, "resolved") is True,
            f"{L}: {nm!r} resolved, at {w['addr']} port {w['port']}",
            f"addresses {short(dget(d, 'addresses'))}, port {short(dget(d, 'port'))}, resolved {short(dget(d, 'resolved'))}")
        ids_ok = isinstance(dget(d, "id"), str) and isinstance(dget(d, "model"), str) and \
            isinstance(dget(d, "instance"), str) and dget(d, "instance")
        if w["id"]:
            ids_ok = ids_ok and dget(d, "id") == w["id"] and dget(d, "model") == w["model"]
        say(ids_ok, f"{L}: {nm!r} has instance, id {w['id'] or ''} and model {w['model'] or ''} from TXT",
            f"instance {short(dget(d, 'instance'))}, id {short(dget(d, 'id'))}, model {short(dget(d, 'model'))}")
        fa = dget(d, "firstAnswerMs")
        lim = (a.duration or 10) * 1000
        say(is_num(fa) and 0 <= fa < lim, f"{L}: {nm!r} firstAnswerMs is a time within the run",
            f"firstAnswerMs {short(fa)}")
        c = dget(d, "connect")
        if w["outcome"] == "none":
            say(c is None, f"{L}: {nm!r} connect is null (--no-connect)", f"connect {short(c)}")
        else:
            oc = cget(c, "outcome") if isinstance(c, dict) else MISSING
            good = oc == w["outcome"]
            detail = f"connect {short(c)}"
            if good and oc == "established":
                good = (norm_addr(cget(c, "address")) == norm_addr(w["addr"]) and cget(c, "port") == w["port"]
                        and is_num(cget(c, "connectMs")) and cget(c, "connectMs") > 0
                        and is_num(cget(c, "tlsMs")) and cget(c, "tlsMs") > 0
                        and isinstance(cget(c, "tlsVersion"), str) and cget(c, "tlsVersion").startswith("TLSv1.")
                        and cget(c, "error") is None)
                what = (f"established to {w['addr']}:{w['port']}, connectMs and tlsMs > 0, tlsVersion set, "
                        "error null")
            elif good:
                good = (norm_addr(cget(c, "address")) == norm_addr(w["addr"]) and cget(c, "port") == w["port"]
                        and cget(c, "tlsMs") is None and cget(c, "tlsVersion") is None
                        and isinstance(cget(c, "error"), str) and cget(c, "error").strip() != "")
                what = f"{w['outcome']} at {w['addr']}:{w['port']}, tlsMs/tlsVersion null, error says why"
            else:
                what = w["outcome"]
            say(good, f"{L}: {nm!r} connect: {what}", detail)
            if isinstance(c, dict):
                note(f"{L}: {nm!r} connect {json.dumps(c)}")

        if a.captured != "yes":
            continue
        # --- the same device in the analysis section -----------------------------------
        ad = next((x for x in adevs if x.get("friendlyName") == nm), None)
        if not say(ad is not None, f"{L}: analysis.devices has {nm!r}",
                   f"friendlyNames {[x.get('friendlyName') for x in adevs]}"):
            continue
        say(ad.get("id") == dget(d, "id") and norm_addr(w["addr"]) in [norm_addr(x) for x in ad.get("addresses") or []]
            and ad.get("port") == w["port"],
            f"{L}: {nm!r}: analysis device id, address and port match the probe's",
            f"analysis id {ad.get('id')!r} addresses {ad.get('addresses')} port {ad.get('port')}; probe id {short(dget(d, 'id'))}")
        if client is None:
            continue
        rows = [r for r in an.get("latency") or [] if r.get("client") == client.get("address")
                and r.get("deviceId") == ad.get("id") and r.get("via", "mdns") == "mdns"]
        r0 = rows[0] if rows else {}
        if say(is_num(r0.get("firstAnswerMs")), f"{L}: {nm!r}: analysis latency row with firstAnswerMs",
               f"rows {short(rows)}") and is_num(fa):
            say(abs(r0["firstAnswerMs"] - fa) <= 25,
                f"{L}: {nm!r}: probe firstAnswerMs agrees with the analysis' (within 25 ms)",
                f"probe {fa}, analysis {r0['firstAnswerMs']}")
        if w["outcome"] in OUTCOMES and w["outcome"] != "not-resolved":
            want_oc = {"tls-failed": "established"}.get(w["outcome"], w["outcome"])
            # rows of any of the sender's addresses (the host's primary address is checked apart)
            ours = {norm_addr(x) for x in a.sender}
            conns = [r for r in an.get("connections") or [] if norm_addr(r.get("client")) in ours
                     and r.get("deviceId") == ad.get("id")]
            rows = [r for r in conns if norm_addr(r.get("address")) == norm_addr(w["addr"])
                    and r.get("port") == w["port"]]
            row = next((r for r in rows if r.get("outcome") != "notAttempted"), rows[0] if rows else None)
            good = row is not None and row.get("outcome") == want_oc
            if good and want_oc == "established":
                good = is_num(row.get("connectMs")) and is_num(row.get("tlsMs"))
            brief = [(r.get("client"), r.get("address"), r.get("port"), r.get("outcome"))
                     for r in an.get("connections") or []]
            c = dget(d, "connect")
            wire = next((r for r in an.get("connections") or [] if norm_addr(r.get("client")) in ours
                         and norm_addr(r.get("address")) == norm_addr(w["addr"]) and r.get("port") == w["port"]
                         and r.get("outcome") == "established"), None)
            if want_oc == "established" and isinstance(c, dict) and wire is not None and \
                    is_num(wire.get("connectMs")) and is_num(wire.get("tlsMs")):
                pc, pt = cget(c, "connectMs"), cget(c, "tlsMs")
                say(is_num(pc) and is_num(pt) and pc >= wire["connectMs"] - 0.2 and pt >= wire["tlsMs"] - 0.2,
                    f"{L}: {nm!r}: the probe's connectMs/tlsMs are not shorter than the wire shows "
                    f"(SYN->SYN-ACK, ClientHello->ServerHello of {w['addr']}:{w['port']} in the capture)",
                    f"probe connectMs {short(pc)} tlsMs {short(pt)}; wire connectMs {wire['connectMs']} "
                    f"tlsMs {wire['tlsMs']}")
            say(good, f"{L}: {nm!r}: analysis.connections row {w['addr']}:{w['port']} {want_oc}"
                + (" with connectMs and tlsMs" if want_oc == "established" else ""),
                f"rows of {ad.get('id')}: {short(conns, 400)}; all rows (client, address, port, outcome): {brief}")
            if row is not None:
                say(row.get("client") == client.get("address"),
                    f"{L}: {nm!r}: the connection row's client is the sender's host address in clients[] "
                    f"({client.get('address')})",
                    f"row client {row.get('client')!r}; clients[] {[(c.get('address'), c.get('addresses')) for c in an.get('clients') or []]}")
        elif w["outcome"] == "none":
            conns = [r for r in an.get("connections") or [] if r.get("deviceId") == ad.get("id")
                     and r.get("outcome") != "notAttempted"]
            say(not conns, f"{L}: {nm!r}: no connection attempt in analysis.connections", f"rows {short(conns)}")

    # --- analysis ---------------------------------------------------------------------
    if a.captured == "yes":
        good = isinstance(an, dict) and an.get("schemaVersion") == 1 and an.get("generator") == "castscope"
        say(good, f"{L}: analysis is a castscope analyze document (schemaVersion 1)",
            f"analysis {short(an, 150)}")
        if not isinstance(an, dict):
            return
        say(client is not None, f"{L}: analysis.clients has the sender {a.sender[0]}",
            f"clients {[c.get('address') for c in an.get('clients') or []]}")
        if client is not None:
            say(sorted(client.get("appIdsQueried") or []) == sorted(a.app_id) and client.get("mediaCriterion") is True,
                f"{L}: analysis: the sender asked app IDs {sorted(a.app_id)} and the media criterion",
                f"appIdsQueried {client.get('appIdsQueried')}, mediaCriterion {client.get('mediaCriterion')}")
            note(f"{L}: analysis client {client.get('address')}: intervalsMs {client.get('intervalsMs')}, "
                 f"followsDoubling {client.get('followsDoubling')}, queries {client.get('queries')}, "
                 f"dialSearches {client.get('dialSearches')}")
        for nm in a.media_device:
            ad = next((x for x in adevs if x.get("friendlyName") == nm), {})
            say(ad.get("mediaCriterion") is True, f"{L}: analysis: {nm!r} answered under the media criterion",
                f"mediaCriterion {ad.get('mediaCriterion')!r}, appIds {ad.get('appIds')}")
        findings = an.get("findings") or []
        codes = [f.get("code") for f in findings]
        note(f"{L}: findings {[(f.get('code'), f.get('severity')) for f in findings]}")
        for spec in a.finding:
            code, _, nm = spec.partition("=")
            fs = [f for f in findings if f.get("code") == code]
            good = bool(fs)
            detail = f"codes {codes}"
            if good and nm:
                dev = next((x for x in adevs if x.get("friendlyName") == nm), {})
                subj = [x for f in fs for x in (f.get(FINDING_DEVICES[0]) or {}).get(FINDING_DEVICES[1]) or []]
                good = dev.get("id") in subj
                detail = f"subjects.devices {subj}, {nm!r} is {dev.get('id')!r}"
            say(good, f"{L}: analysis.findings has {code}" + (f" naming {nm!r}" if nm else ""), detail)
        for code in a.no_finding:
            say(code not in codes, f"{L}: analysis.findings has no {code}",
                short([f for f in findings if f.get("code") == code], 400))
        if a.app_unanswered or a.app_answered:
            fs = [f for f in findings if f.get("code") == "APP_ID_UNANSWERED"]
            subj = [x for f in fs for x in (f.get(FINDING_APP_IDS[0]) or {}).get(FINDING_APP_IDS[1]) or []]
            good = bool(fs) and all(x in subj for x in a.app_unanswered) and \
                not any(x in subj for x in a.app_answered) and not any(x.startswith("%") for x in subj)
            say(good, f"{L}: APP_ID_UNANSWERED names {a.app_unanswered}, not {a.app_answered} "
                "(nor the media criterion)", f"findings {short(fs, 500)}")
        if a.offline:
            compare_offline(L, an, a.offline)


def compare_offline(L, live, path):
    with open(path, encoding="utf-8") as f:
        off = json.load(f)

    def devs(x):
        return sorted((str(d.get("id")), str(d.get("friendlyName"))) for d in x.get("devices") or [])

    def lats(x):
        return sorted((str(r.get("client")), str(r.get("deviceId")), r.get("via"),
                       None if r.get("firstAnswerMs") is None else round(r["firstAnswerMs"], 3))
                      for r in x.get("latency") or [])

    def conns(x):
        return sorted((str(r.get("client")), str(r.get("deviceId")), str(r.get("address")), r.get("port"),
                       r.get("outcome"), r.get("connectMs"), r.get("tlsMs")) for r in x.get("connections") or [])

    def codes(x):
        return sorted(str(f.get("code")) for f in x.get("findings") or [])

    for label, fn in (("device ids and friendly names", devs), ("first-answer latencies (0.001 ms)", lats),
                      ("connections (outcome, connectMs, tlsMs)", conns), ("finding codes", codes)):
        x, y = fn(live), fn(off)
        say(x == y and (x or label == "finding codes"), f"{L}: probe analysis vs `analyze` of the pcap: same {label}",
            f"probe {short(x, 400)}, analyze {short(y, 400)}")
    diff = sorted(k for k in set(live) | set(off) if k != "captures" and live.get(k) != off.get(k))
    note(f"{L}: top-level keys (captures aside) that differ from `analyze` of the pcap: {diff or 'none'}")


# ------------------------------------------------------------------------------ wire
TYPE_NAMES = {1: "A", 12: "PTR", 16: "TXT", 28: "AAAA", 33: "SRV", 47: "NSEC", 255: "ANY"}


def read_name(b, off, depth=0):
    labels = []
    jumped = False
    end = None
    while True:
        n = b[off]
        if n == 0:
            off += 1
            break
        if n & 0xC0 == 0xC0:
            ptr = ((n & 0x3F) << 8) | b[off + 1]
            if not jumped:
                end = off + 2
            jumped = True
            if depth > 40:
                raise ValueError("pointer loop")
            depth += 1
            off = ptr
            continue
        labels.append(b[off + 1:off + 1 + n].decode("utf-8", "replace"))
        off += 1 + n
    return ".".join(labels), (end if jumped else off)


def parse_dns(b):
    qid, flags, qd, an, ns, ar = struct.unpack("!6H", b[:12])
    off = 12
    qs, rrs = [], []
    for _ in range(qd):
        name, off = read_name(b, off)
        t, c = struct.unpack("!HH", b[off:off + 4])
        off += 4
        qs.append((name, TYPE_NAMES.get(t, str(t)), bool(c & 0x8000), c & 0x7FFF))
    for i in range(an + ns + ar):
        name, off = read_name(b, off)
        t, c, ttl, rdlen = struct.unpack("!HHIH", b[off:off + 10])
        off += 10
        rdata = None
        if t == 12:
            rdata = read_name(b, off)[0]
        rrs.append(("AN" if i < an else "NS" if i < an + ns else "AR", name, TYPE_NAMES.get(t, str(t)), ttl, rdata))
        off += rdlen
    if off > len(b):
        raise ValueError("truncated")
    return {"id": qid, "flags": flags, "qs": qs, "rrs": rrs, "an": an}


FIELDS = ["frame.number", "frame.time_epoch", "eth.src", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "ip.ttl",
          "ipv6.hlim", "udp.srcport", "udp.dstport", "tcp.srcport", "tcp.dstport", "tcp.flags.syn", "tcp.flags.ack",
          "tcp.flags.fin", "tcp.flags.reset", "tls.handshake.type", "udp.payload", "_ws.malformed", "icmp.type",
          "icmpv6.type"]


def tshark_rows(pcap, tls_ports):
    cmd = ["tshark", "-n", "-r", pcap]
    for port in sorted(tls_ports):
        cmd += ["-d", f"tcp.port=={port},tls"]
    cmd += ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    rows = []
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        parts += [""] * (len(FIELDS) - len(parts))
        rows.append(dict(zip(FIELDS, parts)))
    return rows, out


def all_tls_types(pcap, tls_ports):
    """frame number -> the TLS handshake types in it (all occurrences)."""
    cmd = ["tshark", "-n", "-r", pcap]
    for port in sorted(tls_ports):
        cmd += ["-d", f"tcp.port=={port},tls"]
    cmd += ["-Y", "tls.handshake", "-T", "fields", "-e", "frame.number", "-e", "tls.handshake.type"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    res = {}
    for line in out.stdout.splitlines():
        n, _, t = line.partition("\t")
        res[n] = set(t.split(","))
    return res


def parse_hostport(s):
    if s.startswith("["):
        h, _, port = s[1:].partition("]:")
    else:
        h, _, port = s.rpartition(":")
    return norm_addr(h), int(port)


def check_wire(a):
    L = a.label
    if not shutil.which("tshark"):
        say(False, f"{L}: tshark is installed")
        return
    with open(a.doc, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError:
            doc = {}
    p = doc.get(DOC_KEYS["probe"]) if isinstance(doc, dict) else None
    connects = [parse_hostport(x) for x in a.connect]
    rows, out = tshark_rows(a.pcap, {port for _, port in connects} | {8009})
    if not say(out.returncode == 0 and rows, f"{L}: tshark reads the pcap ({len(rows)} frames)",
               out.stderr.strip()[:300]):
        return
    mac = a.sender_mac.lower()
    mine = [r for r in rows if r["eth.src"].lower() == mac]
    others = [r for r in rows if r["eth.src"].lower() != mac]
    say(bool(others), f"{L}: the pcap holds the frames the sender received too ({len(others)} of {len(rows)})")
    bad = [r["frame.number"] for r in mine if r["_ws.malformed"]]
    say(not bad, f"{L}: tshark finds no malformed frame among the {len(mine)} the sender sent", f"frames {bad[:10]}")

    # --- mDNS from the sender -------------------------------------------------------
    mdns, problems = [], []
    for r in mine:
        if "5353" not in (r["udp.srcport"], r["udp.dstport"]):
            continue
        fam = "ipv6" if r["ipv6.src"] else "ipv4"
        try:
            m = parse_dns(bytes.fromhex(r["udp.payload"].replace(":", "")))
        except (ValueError, IndexError, struct.error) as e:
            problems.append(f"frame {r['frame.number']}: DNS not parsed ({e})")
            continue
        m.update(frame=r["frame.number"], t=float(r["frame.time_epoch"]), fam=fam, row=r)
        mdns.append(m)
    responses = [m for m in mdns if m["flags"] & 0x8000]
    queries = [m for m in mdns if not m["flags"] & 0x8000]
    say(not problems and not responses, f"{L}: the sender's {len(mdns)} mDNS packets are queries, all parse",
        "; ".join(problems[:3]) or f"responses in frames {[m['frame'] for m in responses][:5]}")
    bad = []
    for m in queries:
        r = m["row"]
        if m["fam"] == "ipv4":
            where = (r["ip.dst"], r["ip.ttl"])
            good = r["ip.dst"] == "224.0.0.251" and r["ip.ttl"] == "255"
        else:
            where = (r["ipv6.dst"], r["ipv6.hlim"])
            good = r["ipv6.dst"] == "ff02::fb" and r["ipv6.hlim"] == "255"
        good = good and r["udp.srcport"] == "5353" and r["udp.dstport"] == "5353" and m["id"] == 0 and m["flags"] == 0
        if not good:
            bad.append(f"frame {m['frame']}: {where} ports {r['udp.srcport']}->{r['udp.dstport']} "
                       f"id {m['id']} flags {m['flags']:#06x}")
    say(queries and not bad, f"{L}: all {len(queries)} queries go 5353 -> 224.0.0.251 / ff02::fb:5353 with "
        "TTL / hop limit 255, DNS id 0, flags 0", "; ".join(bad[:3]) or "no queries")
    fams_seen = sorted({m["fam"] for m in queries})
    say(fams_seen == sorted(a.family), f"{L}: queries over exactly {sorted(a.family)}", f"seen {fams_seen}")
    if "ipv4" not in a.family:
        v4 = [r["frame.number"] for r in mine if r["ip.src"]]
        say(not v4, f"{L}: the sender sent no IPv4 packet at all", f"IPv4 frames {v4[:10]}")
    if p is not None and isinstance(pget(p, "queries"), list):
        say(len(pget(p, "queries")) == len(queries),
            f"{L}: probe.queries lists every query packet in the pcap ({len(queries)})",
            f"probe.queries {len(pget(p, 'queries'))}, pcap {len(queries)}")

    # received PTRs: (family, name, target) -> [(time, ttl)]
    got = {}
    for r in others:
        if r["udp.srcport"] != "5353" or not r["udp.payload"]:
            continue
        try:
            m = parse_dns(bytes.fromhex(r["udp.payload"].replace(":", "")))
        except (ValueError, IndexError, struct.error):
            continue
        if not m["flags"] & 0x8000:
            continue
        fam = "ipv6" if r["ipv6.src"] else "ipv4"
        for sec, name, t, ttl, rd in m["rrs"]:
            if t == "PTR" and rd and ttl > 0 and "_googlecast" in name.lower():
                got.setdefault((fam, name.lower(), rd.lower()), []).append((float(r["frame.time_epoch"]), ttl))

    for fam in sorted(a.family):
        qs = sorted((m for m in queries if m["fam"] == fam), key=lambda m: m["t"])
        if not qs:
            continue
        first = qs[0]
        want = [(BASE, "PTR"), (MEDIA, "PTR")] + [(subtype(x), "PTR") for x in a.app_id]
        asked = [(n, t) for n, t, _, _ in first["qs"]]
        low = [(n.lower(), t) for n, t in asked]
        say(all((n.lower(), t) in low for n, t in want),
            f"{L}: first {fam} query (frame {first['frame']}) asks {', '.join(n for n, _ in want)} PTR",
            f"asked {asked}")
        say(all(qu for _, _, qu, _ in first["qs"]) and all(c == 1 for _, _, _, c in first["qs"]),
            f"{L}: every question of the first {fam} query has the QU bit (class IN)",
            f"{[(n, t, 'QU' if qu else 'QM') for n, t, qu, _ in first['qs']]}")
        later_qu = [m["frame"] for m in qs[1:] if any(qu for _, _, qu, _ in m["qs"])]
        say(not later_qu, f"{L}: none of the {len(qs) - 1} later {fam} queries has a QU question",
            f"frames {later_qu}")
        sched = [m for m in qs if any(n.lower() == BASE and t == "PTR" for n, t, _, _ in m["qs"])]
        good, detail = doubling([m["t"] for m in sched], fam)
        if a.duration is not None:
            good = good and len(sched) >= (3 if a.duration >= 3.5 else 2)
            good = good and sched[-1]["t"] - sched[0]["t"] <= a.duration
            detail += f", {len(sched)} scheduled within {sched[-1]['t'] - sched[0]['t']:.3f}s"
        say(good, f"{L}: {fam} scheduled queries (frames {[m['frame'] for m in sched]}) 1 s apart, then each "
            ">= 1.8x the gap before", detail)
        follow = [m for m in qs if m not in sched]
        if follow:
            note(f"{L}: {fam} follow-up query packets: "
                 + "; ".join(f"frame {m['frame']} {[(n, t) for n, t, _, _ in m['qs']]}" for m in follow[:6]))

        # known answers
        kbad, with_ka, missing = [], [], []
        for m in qs:
            kas = [(name, t, ttl, rd) for sec, name, t, ttl, rd in m["rrs"] if sec == "AN"]
            if kas:
                with_ka.append(m["frame"])
            for name, t, ttl, rd in kas:
                if t != "PTR":
                    kbad.append(f"frame {m['frame']}: known answer {name} {t}")
                    continue
                heard = [(tt, attl) for f2 in FAMILIES for tt, attl in got.get((f2, name.lower(), rd.lower()), [])
                         if tt < m["t"]]
                if not heard:
                    kbad.append(f"frame {m['frame']}: known answer {name} -> {rd} never received before")
                    continue
                adv = heard[-1][1]
                if not (adv / 2 < ttl <= adv):
                    kbad.append(f"frame {m['frame']}: {name} -> {rd} TTL {ttl}, advertised {adv}")
            # every PTR heard in this family, under a name this query asks, still > half its TTL, is listed
            if m is not first and m in sched:
                listed = {(name.lower(), (rd or "").lower()) for name, t, ttl, rd in kas}
                asked_names = {n.lower() for n, t, _, _ in m["qs"] if t == "PTR"}
                for (f2, name, rd), hist in got.items():
                    before = [(tt, attl) for tt, attl in hist if tt < m["t"] - 0.01]
                    if f2 != fam or name not in asked_names or not before:
                        continue
                    tt, attl = before[-1]
                    if attl - (m["t"] - tt) > attl / 2 and (name, rd) not in listed:
                        missing.append(f"frame {m['frame']}: {name} -> {rd}")
        say(bool(with_ka) and not kbad,
            f"{L}: later {fam} queries carry known answers (frames {with_ka[:6]}), all PTRs received before, "
            "TTL > half the advertised TTL", "; ".join(kbad[:3]) or "no query carries known answers")
        say(not missing, f"{L}: each later scheduled {fam} query lists every PTR it had (asked name, > half TTL left)",
            "; ".join(missing[:3]))

    for prefix in a.follow_up:
        asked = {}
        for m in queries:
            for n, t, qu, _ in m["qs"]:
                if n.lower().startswith(prefix.lower()):
                    asked.setdefault(t, []).append((m["frame"], qu))
        good = "SRV" in asked and "TXT" in asked and not any(qu for v in asked.values() for _, qu in v)
        say(good, f"{L}: follow-up SRV and TXT questions (QM) for the unresolved instance {prefix}…",
            f"questions for it: {asked or 'none'}")
        ptr_times = [m["t"] for m in queries if any(n.lower() == BASE and t == "PTR" for n, t, _, _ in m["qs"])]
        if len(ptr_times) >= 2:
            first_fu = min((m["t"] for m in queries for n, t, _, _ in m["qs"]
                            if n.lower().startswith(prefix.lower()) and t in ("SRV", "TXT")), default=None)
            if first_fu is not None:
                note(f"{L}: first follow-up for {prefix}… at +{first_fu - ptr_times[0]:.3f}s, scheduled queries at "
                     f"{[round(t - ptr_times[0], 3) for t in ptr_times]}")

    # --- DIAL M-SEARCH ----------------------------------------------------------------
    ms = []
    for r in mine:
        if r["udp.dstport"] == "1900" and r["udp.payload"]:
            text = bytes.fromhex(r["udp.payload"].replace(":", "")).decode("latin-1")
            ms.append((r, text))
    if "ipv4" in a.family:
        bad = []
        for r, text in ms:
            lines = [x.strip() for x in text.split("\r\n")]
            hdr = {}
            for x in lines[1:]:
                k, sep, v = x.partition(":")
                if sep:
                    hdr[k.strip().upper()] = v.strip()
            if not (lines[0] == "M-SEARCH * HTTP/1.1" and r["ip.dst"] == "239.255.255.250"
                    and hdr.get("ST") == "urn:dial-multiscreen-org:service:dial:1"
                    and hdr.get("MAN") == '"ssdp:discover"' and hdr.get("MX") == "1"
                    and hdr.get("HOST") == "239.255.255.250:1900"):
                bad.append(f"frame {r['frame.number']} to {r['ip.dst'] or r['ipv6.dst']}: {text[:160]!r}")
        say(len(ms) >= 2 and not bad, f"{L}: {len(ms)} DIAL M-SEARCHes to 239.255.255.250:1900 with "
            "ST urn:dial-multiscreen-org:service:dial:1, MAN \"ssdp:discover\", MX 1",
            "; ".join(bad[:2]) or f"{len(ms)} found")
        if p is not None:
            say(pget(p, "mSearches") == len(ms), f"{L}: probe.mSearches equals the M-SEARCHes in the pcap ({len(ms)})",
                f"mSearches {short(pget(p, 'mSearches'))}")
    else:
        say(not ms, f"{L}: no M-SEARCH without IPv4", f"{len(ms)} sent")

    # --- TCP / TLS --------------------------------------------------------------------
    syns = [r for r in mine if r["tcp.flags.syn"] in ("1", "True") and r["tcp.flags.ack"] in ("0", "False")]
    if a.no_connect:
        say(not syns, f"{L}: no TCP SYN from the sender (--no-connect)",
            f"SYNs {[(r['frame.number'], r['ip.dst'] or r['ipv6.dst'], r['tcp.dstport']) for r in syns[:5]]}")
    hello = all_tls_types(a.pcap, {port for _, port in connects} | {8009})
    for host, port in connects:
        to = [r for r in mine if norm_addr(r["ip.dst"] or r["ipv6.dst"] or "0.0.0.0") == host
              and r["tcp.dstport"] == str(port)]
        s = [r for r in to if r in syns]
        ch = [r for r in to if "1" in hello.get(r["frame.number"], set())]
        fin = [r for r in to if r["tcp.flags.fin"] in ("1", "True")]
        say(bool(s), f"{L}: TCP SYN from the sender to {host}:{port}", f"{len(to)} frames to it")
        say(bool(ch), f"{L}: TLS ClientHello from the sender to {host}:{port}",
            f"handshake types seen to it: {[hello.get(r['frame.number']) for r in to if r['frame.number'] in hello]}")
        say(bool(fin) and bool(s) and int(fin[0]["frame.number"]) > int(s[0]["frame.number"]),
            f"{L}: the sender closes its connection to {host}:{port} with a FIN", f"{len(fin)} FINs")
    if a.reference:
        check_reference(L, a.pcap, a.reference)


REF_FIELDS = ["frame.time_epoch", "eth.src", "eth.dst", "frame.len", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
              "udp.srcport", "udp.dstport", "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.flags",
              "tcp.len", "ip.id"]
REF_EXTRA = ["ip.proto", "ipv6.nxt", "icmpv6.type", "tcp.payload"]


def frame_keys(pcap):
    """[(time, key, info)] for the IP frames of pcap: key identifies a frame across two captures
    of the same link; info says what kind of frame it is."""
    cmd = ["tshark", "-n", "-r", pcap, "-Y", "ip || ipv6", "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=f"]
    for f in REF_FIELDS + REF_EXTRA:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    res = []
    n = len(REF_FIELDS)
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        parts += [""] * (n + len(REF_EXTRA) - len(parts))
        info = dict(zip(REF_FIELDS[1:] + REF_EXTRA, parts[1:]))
        res.append((float(parts[0]), tuple(parts[1:n]), info))
    return res


def discovery_or_connection(d):
    """What castscope's analysis reads: mDNS, SSDP, TCP SYN/FIN/RST, TLS handshake records,
    ICMP/ICMPv6 errors (not MLD or IGMP)."""
    ports = {d["udp.srcport"], d["udp.dstport"]}
    if "5353" in ports or "1900" in ports:
        return True
    if d["tcp.flags"]:
        if int(d["tcp.flags"], 16) & 0x07:
            return True
        return d["tcp.payload"].replace(":", "")[:2] == "16"
    if d["ip.proto"] == "1" or (d["icmpv6.type"] and int(d["icmpv6.type"]) < 128):
        return True
    return False


def check_reference(L, pcap, ref):
    """Frames of the reference capture within the probe capture's span must be in it."""
    mine, theirs = frame_keys(pcap), frame_keys(ref)
    if not say(bool(mine) and bool(theirs), f"{L}: both the probe's pcap and the reference tcpdump hold IP frames",
               f"probe {len(mine)}, reference {len(theirs)}"):
        return
    t0, t1 = mine[0][0] - 0.002, mine[-1][0] + 0.002
    have = {}
    for _, k, _ in mine:
        have[k] = have.get(k, 0) + 1
    missing, left_out = [], []
    span = needed = 0
    for t, k, d in theirs:
        if not t0 <= t <= t1:
            continue
        span += 1
        need = discovery_or_connection(d)
        needed += need
        if have.get(k, 0) > 0:
            have[k] -= 1
        else:
            (missing if need else left_out).append((t, d))

    def show(t, d):
        src = d["ip.src"] or d["ipv6.src"]
        dst = d["ip.dst"] or d["ipv6.dst"]
        port = (d["tcp.srcport"] or d["udp.srcport"], d["tcp.dstport"] or d["udp.dstport"])
        extra = f" tcp flags {d['tcp.flags']} len {d['tcp.len']}" if d["tcp.flags"] else ""
        return f"{t:.6f} {src}:{port[0]} -> {dst}:{port[1]} ({d['frame.len']} bytes{extra})"
    say(not missing, f"{L}: the probe's pcap holds every mDNS, SSDP, TCP SYN/FIN/RST, TLS handshake record and ICMP "
        f"error frame that a tcpdump on the sender's eth0 saw while it ran ({needed} frames)",
        f"{len(missing)} missing: " + "; ".join(show(t, d) for t, d in missing[:6]))
    if left_out:
        kinds = {}
        for _, d in left_out:
            if d["tcp.flags"]:
                kind = "TCP ACK without data" if d["tcp.len"] in ("", "0") else "TCP data after the TLS hellos"
            elif d["ip.proto"] == "2":
                kind = "IGMP"
            else:
                kind = "other"
            kinds[kind] = kinds.get(kind, 0) + 1
        note(f"{L}: the probe's pcap leaves out {len(left_out)} of the {span} frames the reference tcpdump saw "
             f"in its span (the kernel discovery filter): {kinds}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("json")
    j.add_argument("label")
    j.add_argument("doc")
    w = sub.add_parser("wire")
    w.add_argument("label")
    w.add_argument("pcap")
    w.add_argument("doc")
    for x in (j, w):
        x.add_argument("--family", action="append", default=[])
        x.add_argument("--app-id", action="append", default=[])
        x.add_argument("--duration", type=float)
    j.add_argument("--sender", action="append", default=[])
    j.add_argument("--interface")
    j.add_argument("--captured", choices=["yes", "no"])
    j.add_argument("--written")
    j.add_argument("--answered", choices=["yes", "no"])
    j.add_argument("--device", action="append", default=[])
    j.add_argument("--exact-devices", action="store_true")
    j.add_argument("--finding", action="append", default=[])
    j.add_argument("--no-finding", action="append", default=[])
    j.add_argument("--app-unanswered", action="append", default=[])
    j.add_argument("--app-answered", action="append", default=[])
    j.add_argument("--media-device", action="append", default=[])
    j.add_argument("--offline")
    j.add_argument("--unresolved", action="append", default=[])
    w.add_argument("--sender-mac", required=True)
    w.add_argument("--connect", action="append", default=[])
    w.add_argument("--no-connect", action="store_true")
    w.add_argument("--reference")
    w.add_argument("--follow-up", action="append", default=[])
    args = ap.parse_args()
    try:
        (check_json if args.cmd == "json" else check_wire)(args)
    except Exception as e:  # a crash of the checker is a failed check, not a silent pass
        import traceback
        traceback.print_exc(file=sys.stdout)
        say(False, f"{args.label}: {args.cmd} checks ran to the end", f"{type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
