#!/usr/bin/python3
"""Checks `castscope analyze --format json` against its contract (docs/json-schema.md).

Usage: Tests/schema/validate.py [--self-test] [DOCUMENT.json ...]

Without arguments: runs `castscope analyze --format json` on every captures/*.pcap, once on
all of them together, and once with --merge on all of them in chronological order; checks each
document against docs/analyze.schema.json (JSON Schema draft 2020-12, with the `jsonschema`
library from Debian's python3-jsonschema) and then for what a schema cannot say: references
between arrays, frame numbers within their capture, count arithmetic, percentile order,
summaries that match the rows they summarise, null values that come with a reason, times
in order, and durations written with exactly 3 decimals. The example in docs/json-schema.md is
checked too.

With DOCUMENT.json arguments (`-` for standard input): checks those documents only (of a
`castscope probe --format json` document, its `analysis`).

--self-test: proves the checks can fail: a valid document, mutated in many ways (a missing
key, a wrong type, a bad time, a dangling deviceId...), must be rejected every time.

The binary is $CASTSCOPE, default .build/release/castscope. Prints one line per check, then
`schema: N passed, M failed`; exits 1 when a check failed, 2 on a usage error.
"""

import copy
import datetime
import decimal
import glob
import ipaddress
import json
import os
import re
import subprocess
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover - environment problem, reported plainly
    sys.stderr.write("validate.py: the jsonschema module is missing: apt-get install -y python3-jsonschema\n")
    sys.exit(2)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(ROOT, "docs", "analyze.schema.json")
DOC_PATH = os.path.join(ROOT, "docs", "json-schema.md")
BINARY = os.path.abspath(os.environ.get("CASTSCOPE") or os.path.join(ROOT, ".build", "release", "castscope"))
TIME_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$")
MILLI = decimal.Decimal("0.001")


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def report(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        line = ("ok   " if ok else "FAIL ") + name
        if detail:
            line += ": " + detail
        print(line, flush=True)


def load_json(text):
    """Parses JSON keeping non-integers exact (Decimal), so '0.863' stays '0.863'."""
    return json.loads(text, parse_float=decimal.Decimal)


def load_schema():
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def make_validator(schema):
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def path_text(path):
    out = "$"
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else "." + str(p)
    return out


def schema_errors(validator, doc):
    errors = []
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        # anyOf/oneOf: name the alternative that came closest, not "valid under none of them";
        # "is not of type 'null'" from a nullable value says nothing, so it is skipped.
        while e.context:
            useful = [c for c in e.context if not (c.validator == "type" and c.validator_value == "null")]
            if not useful:
                break
            e = jsonschema.exceptions.best_match(useful)
        message = e.message if len(e.message) <= 160 else e.message[:157] + "..."
        errors.append("%s: %s" % (path_text(e.absolute_path), message))
    return errors


# ---------------------------------------------------------------------------------------------
# Checks a schema cannot express. Each returns a list of problems (empty: passed). They are
# written defensively, so a document that failed the schema does not crash them.


def items(doc, key):
    v = doc.get(key) if isinstance(doc, dict) else None
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def walk(value, path=()):
    """Yields (path, value) for every value in the document."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, path + (i,))


def show(v):
    """A value as it reads in JSON."""
    if v is None:
        return "null"
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, tuple):
        return "none" if not v else "count %s, min %s, max %s" % tuple(show(x) for x in v)
    return repr(v)


def is_number(v):
    return isinstance(v, (int, decimal.Decimal, float)) and not isinstance(v, bool)


def check_references(doc):
    problems = []
    devices = items(doc, "devices")
    ids = [d.get("id") for d in devices]
    seen = set()
    for i, x in enumerate(ids):
        if x in seen:
            problems.append("devices[%d].id %r appears twice" % (i, x))
        seen.add(x)
    clients = {c.get("address") for c in items(doc, "clients")}
    for key in ("latency", "responses"):
        for i, row in enumerate(items(doc, key)):
            if row.get("deviceId") not in seen:
                problems.append("%s[%d].deviceId %r is not a devices[].id" % (key, i, row.get("deviceId")))
            if row.get("client") not in clients:
                problems.append("%s[%d].client %r is not a clients[].address" % (key, i, row.get("client")))
    for i, q in enumerate(items(doc, "queries")):
        if q.get("client") not in clients:
            problems.append("queries[%d].client %r is not a clients[].address" % (i, q.get("client")))
        named = [a.get("deviceId") for a in (q.get("answered") or []) if isinstance(a, dict)]
        named += list(q.get("suppressed") or []) + list(q.get("missed") or [])
        for x in named:
            if x not in seen:
                problems.append("queries[%d] names device %r that is not a devices[].id" % (i, x))
        if len(named) != len(set(named)):
            problems.append("queries[%d] puts a device in more than one of answered/suppressed/missed" % i)
    summaries = doc.get("summaries") if isinstance(doc.get("summaries"), dict) else {}
    summarised = set()
    for i, s in enumerate(items(summaries, "devices")):
        if s.get("deviceId") not in seen:
            problems.append("summaries.devices[%d].deviceId %r is not a devices[].id" % (i, s.get("deviceId")))
        if s.get("deviceId") in summarised:
            problems.append("summaries.devices[%d].deviceId %r appears twice" % (i, s.get("deviceId")))
        summarised.add(s.get("deviceId"))
    for d in devices:
        if "mdns" in (d.get("via") or []) and d.get("id") not in summarised:
            problems.append("mDNS device %r has no summaries.devices entry" % d.get("id"))
    dial_rows = {r.get("deviceId") for r in items(doc, "latency") if r.get("via") == "dial"}
    for d in devices:
        if d.get("id") in dial_rows and d.get("id") not in summarised:
            problems.append("device %r has DIAL latency rows but no summaries.devices entry" % d.get("id"))
    # Other DIAL devices are not Cast devices: never among devices[], never in a latency row.
    others = [o.get("id") for o in items(doc, "otherDevices")]
    for i, x in enumerate(others):
        if x in seen:
            problems.append("otherDevices[%d].id %r is also a devices[].id" % (i, x))
        if others.index(x) != i:
            problems.append("otherDevices[%d].id %r appears twice" % (i, x))
    for i, o in enumerate(items(doc, "otherDevices")):
        for c in o.get("answeredClients") or []:
            if c not in clients:
                problems.append("otherDevices[%d].answeredClients %r is not a clients[].address" % (i, c))
    return problems


def check_frames(doc):
    problems = []
    captures = items(doc, "captures")
    count = 0
    for path, v in walk(doc):
        if not (isinstance(v, dict) and "capture" in v and "frame" in v):
            continue
        count += 1
        c, f = v.get("capture"), v.get("frame")
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < len(captures):
            problems.append("%s.capture %r is not an index into captures (%d)" % (path_text(path), c, len(captures)))
            continue
        packets = captures[c].get("packets")
        if not isinstance(f, int) or isinstance(f, bool) or f < 1 or not isinstance(packets, int) or f > packets:
            problems.append("%s.frame %r is not in 1...%r (captures[%d].packets)" % (path_text(path), f, packets, c))
    return problems


def check_counts(doc):
    problems = []
    for path, v in walk(doc):
        if isinstance(v, int) and not isinstance(v, bool) and v < 0:
            problems.append("%s is negative (%d)" % (path_text(path), v))
    for i, c in enumerate(items(doc, "captures")):
        p, dp, mp = c.get("packets"), c.get("discoveryPackets"), c.get("malformedPackets")
        if all(isinstance(x, int) for x in (p, dp, mp)) and not mp <= dp <= p:
            problems.append("captures[%d]: expected malformedPackets <= discoveryPackets <= packets, got %r/%r/%r"
                            % (i, mp, dp, p))
    for i, c in enumerate(items(doc, "clients")):
        q, qu, qm = c.get("queries"), c.get("quQuestions"), c.get("qmQuestions")
        if all(isinstance(x, int) for x in (q, qu, qm)) and qu + qm < q:
            problems.append("clients[%d]: %d QU + %d QM questions for %d queries" % (i, qu, qm, q))
        if isinstance(q, int) and (q == 0) != (c.get("firstQuery") is None):
            problems.append("clients[%d]: queries %d but firstQuery %r" % (i, q, c.get("firstQuery")))
        if (c.get("firstQuery") is None) != (c.get("lastQuery") is None) or \
           (c.get("firstQuery") is None) != (c.get("firstQueryFrame") is None):
            problems.append("clients[%d]: firstQuery, lastQuery and firstQueryFrame must be null together" % i)
        ds = c.get("dialSearches")
        if isinstance(ds, int) and (ds == 0) != (c.get("firstDialSearch") is None):
            problems.append("clients[%d]: dialSearches %d but firstDialSearch %r" % (i, ds, c.get("firstDialSearch")))
    for i, r in enumerate(items(doc, "responses")):
        e, a, s, m = (r.get(k) for k in ("expected", "answered", "suppressed", "missed"))
        if not all(isinstance(x, int) for x in (e, a, s, m)):
            continue
        if a + s + m != e:
            problems.append("responses[%d]: answered %d + suppressed %d + missed %d != expected %d" % (i, a, s, m, e))
        delay = r.get("delayMs")
        n = delay.get("count") if isinstance(delay, dict) else 0
        if n != a:
            problems.append("responses[%d]: delayMs.count %r != answered %d" % (i, n, a))
        if isinstance(r.get("missedFrames"), list) and len(r["missedFrames"]) > m:
            problems.append("responses[%d]: %d missedFrames for %d misses" % (i, len(r["missedFrames"]), m))
    return problems


def summary_objects(doc):
    """Yields (path, summary) for every non-null summary object."""
    for i, r in enumerate(items(doc, "responses")):
        if isinstance(r.get("delayMs"), dict):
            yield "responses[%d].delayMs" % i, r["delayMs"]
    summaries = doc.get("summaries") if isinstance(doc.get("summaries"), dict) else {}
    groups = [("summaries.devices[%d]" % i, s) for i, s in enumerate(items(summaries, "devices"))]
    if isinstance(summaries.get("overall"), dict):
        groups.append(("summaries.overall", summaries["overall"]))
    for where, s in groups:
        for key in ("firstAnswerMs", "resolvedMs", "responseDelayMs", "dialAnswerMs"):
            if isinstance(s.get(key), dict):
                yield "%s.%s" % (where, key), s[key]


def check_summaries(doc):
    problems = []
    for where, s in summary_objects(doc):
        values = [s.get(k) for k in ("min", "p50", "p90", "max")]
        if all(is_number(v) for v in values) and not values[0] <= values[1] <= values[2] <= values[3]:
            problems.append("%s: expected min <= p50 <= p90 <= max, got %s" % (where, "/".join(map(str, values))))

    # Per-device and overall summaries must summarise exactly the rows they stand for.
    def describe(values):
        if not values:
            return ()
        return (len(values), min(values), max(values))

    def actual(s):
        if not isinstance(s, dict):
            return ()
        return (s.get("count"), s.get("min"), s.get("max"))

    summaries = doc.get("summaries") if isinstance(doc.get("summaries"), dict) else {}
    latency, responses = items(doc, "latency"), items(doc, "responses")
    totals = {"firstAnswerMs": [], "resolvedMs": [], "responseDelayMs": [], "dialAnswerMs": []}
    for i, s in enumerate(items(summaries, "devices")):
        rows = [r for r in latency if r.get("deviceId") == s.get("deviceId")]
        # mDNS figures from mDNS rows (no `via`: a document from before DIAL rows), DIAL from DIAL rows.
        mdns = [r for r in rows if r.get("via", "mdns") == "mdns"]
        dial = [r for r in rows if r.get("via") == "dial"]
        expected = {
            "firstAnswerMs": [r["firstAnswerMs"] for r in mdns if is_number(r.get("firstAnswerMs"))],
            "resolvedMs": [r["resolvedMs"] for r in mdns if is_number(r.get("resolvedMs"))],
        }
        if "dialAnswerMs" in s or dial:
            expected["dialAnswerMs"] = [r["firstAnswerMs"] for r in dial if is_number(r.get("firstAnswerMs"))]
        delays = [r.get("delayMs") for r in responses if r.get("deviceId") == s.get("deviceId")]
        delays = [d for d in delays if isinstance(d, dict)]
        for key, values in expected.items():
            totals[key] += values
            if describe(values) != actual(s.get(key)):
                problems.append("summaries.devices[%d].%s is %s, the latency rows give %s"
                                % (i, key, show(actual(s.get(key))), show(describe(values))))
        n = sum(d.get("count", 0) for d in delays if isinstance(d.get("count"), int))
        got = s.get("responseDelayMs")
        if (got.get("count") if isinstance(got, dict) else 0) != n:
            problems.append("summaries.devices[%d].responseDelayMs.count is %r, responses give %d"
                            % (i, got.get("count") if isinstance(got, dict) else None, n))
        for d in delays:
            if isinstance(got, dict) and all(is_number(x) for x in (d.get("min"), d.get("max"), got.get("min"),
                                                                     got.get("max"))):
                if d["min"] < got["min"] or d["max"] > got["max"]:
                    problems.append("summaries.devices[%d].responseDelayMs does not cover a responses[].delayMs" % i)
                    break
        totals["responseDelayMs"].append(n)
    overall = summaries.get("overall") if isinstance(summaries.get("overall"), dict) else {}
    for key in ("firstAnswerMs", "resolvedMs", "dialAnswerMs"):
        if key == "dialAnswerMs" and "dialAnswerMs" not in overall and not totals[key]:
            continue
        if overall and describe(totals[key]) != actual(overall.get(key)):
            problems.append("summaries.overall.%s is %s, the device summaries give %s"
                            % (key, show(actual(overall.get(key))), show(describe(totals[key]))))
    got = overall.get("responseDelayMs")
    if overall and (got.get("count") if isinstance(got, dict) else 0) != sum(totals["responseDelayMs"]):
        problems.append("summaries.overall.responseDelayMs.count is %r, the device summaries give %d"
                        % (got.get("count") if isinstance(got, dict) else None, sum(totals["responseDelayMs"])))
    return problems


def check_missing_reasons(doc):
    problems = []
    for i, row in enumerate(items(doc, "latency")):
        for key in ("firstAnswer", "resolved"):
            ms, frame, why = row.get(key + "Ms"), row.get(key + "Frame"), row.get(key + "Missing")
            has_reason = isinstance(why, str) and why != ""
            if (ms is None) != has_reason:
                problems.append("latency[%d]: %sMs is %s but %sMissing is %s (null iff a non-empty reason)"
                                % (i, key, show(ms), key, show(why)))
            if (ms is None) != (frame is None):
                problems.append("latency[%d]: %sMs is %s but %sFrame is %s" % (i, key, show(ms), key, show(frame)))
    return problems


def parse_time(value):
    if not isinstance(value, str) or not TIME_RE.match(value):
        return None
    try:
        return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return None


def check_times(doc):
    problems = []
    captures = items(doc, "captures")
    for i, c in enumerate(captures):
        s, e = parse_time(c.get("start")), parse_time(c.get("end"))
        if (c.get("start") is None) != (c.get("end") is None):
            problems.append("captures[%d]: start and end must be null together" % i)
        if (c.get("start") is None) != (c.get("packets") == 0):
            problems.append("captures[%d]: start is %r with %r packets" % (i, c.get("start"), c.get("packets")))
        if s and e and s > e:
            problems.append("captures[%d]: start %s is after end %s" % (i, c["start"], c["end"]))

    def ordered(where, first, last):
        a, b = parse_time(first), parse_time(last)
        if a and b and a > b:
            problems.append("%s: %s is after %s" % (where, first, last))

    for i, d in enumerate(items(doc, "devices")):
        ordered("devices[%d] firstSeen/lastSeen" % i, d.get("firstSeen"), d.get("lastSeen"))
        if d.get("leftFrame") is not None and d.get("leftAt") is None:
            problems.append("devices[%d]: leftFrame without leftAt" % i)
        if isinstance(d.get("dial"), dict):
            ordered("devices[%d].dial firstSeen/lastSeen" % i, d["dial"].get("firstSeen"), d["dial"].get("lastSeen"))
    for i, c in enumerate(items(doc, "clients")):
        ordered("clients[%d] firstQuery/lastQuery" % i, c.get("firstQuery"), c.get("lastQuery"))
    for i, row in enumerate(items(doc, "latency")):
        ref = row.get("sessionStartFrame")
        if isinstance(ref, dict) and isinstance(ref.get("capture"), int) and 0 <= ref["capture"] < len(captures):
            c = captures[ref["capture"]]
            t, s, e = parse_time(row.get("sessionStart")), parse_time(c.get("start")), parse_time(c.get("end"))
            if t and s and e and not s <= t <= e:
                problems.append("latency[%d].sessionStart %s is outside captures[%d] (%s ... %s)"
                                % (i, row["sessionStart"], ref["capture"], c["start"], c["end"]))
    for path, v in walk(doc):
        if isinstance(v, str) and TIME_RE.match(v) and parse_time(v) is None:
            problems.append("%s: %s is not a real date and time" % (path_text(path), v))
    return problems


def check_decimals(doc):
    problems = []
    for path, v in walk(doc):
        if isinstance(v, float):
            problems.append("%s: %r is not a decimal with 3 places" % (path_text(path), v))
        elif isinstance(v, decimal.Decimal) and (not v.is_finite() or v.as_tuple().exponent != -3):
            problems.append("%s: %s is not written with exactly 3 decimals" % (path_text(path), v))
    return problems


def check_addresses(doc):
    problems = []

    def address(where, v):
        try:
            parsed = ipaddress.ip_address(v)
        except (TypeError, ValueError):
            problems.append("%s: %r is not an IP address" % (where, v))
            return
        if parsed.version == 6 and not str(v).startswith("::ffff:") and parsed.compressed != v:
            problems.append("%s: %r is not in RFC 5952 form (%s)" % (where, v, parsed.compressed))

    for i, d in enumerate(items(doc, "devices")):
        for key in ("addresses", "sources"):
            for j, a in enumerate(d.get(key) or []):
                address("devices[%d].%s[%d]" % (i, key, j), a)
    for i, c in enumerate(items(doc, "clients")):
        address("clients[%d].address" % i, c.get("address"))
    addrs = [c.get("address") for c in items(doc, "clients")]
    if len(addrs) != len(set(addrs)):
        problems.append("a client address appears twice in clients[]")
    # A host's addresses: its primary address first, no address in two hosts.
    every = []
    for i, c in enumerate(items(doc, "clients")):
        host = c.get("addresses")
        if host is None:
            continue
        for j, a in enumerate(host):
            address("clients[%d].addresses[%d]" % (i, j), a)
        if not host or host[0] != c.get("address"):
            problems.append("clients[%d].addresses does not start with its address %r" % (i, c.get("address")))
        every += host
    if len(every) != len(set(every)):
        problems.append("an address appears in two clients[].addresses")
    return problems


def check_findings(doc):
    """One finding per code and severity; a client subject of the evidence is a subject."""
    problems = []
    seen = set()
    for i, f in enumerate(items(doc, "findings")):
        key = (f.get("code"), f.get("severity"))
        if key in seen:
            problems.append("findings[%d]: a second %s %s finding (one per code)" % (i, key[1], key[0]))
        seen.add(key)
        clients = set((f.get("subjects") or {}).get("clients") or [])
        for j, e in enumerate(f.get("evidence") or []):
            if e.get("kind") == "client" and e.get("subject", "").split(" / ")[0] not in clients:
                problems.append("findings[%d].evidence[%d]: client %r is not in subjects.clients"
                                % (i, j, e.get("subject")))
    return problems


def check_verdict(doc):
    """The verdict agrees with the findings and the unreadable files (docs/json-schema.md)."""
    v = doc.get("verdict")
    if not isinstance(v, dict):
        return []  # the schema reports it
    problems = []
    counts = {"errors": "error", "warnings": "warning", "notes": "info"}
    for key, severity in counts.items():
        n = sum(1 for f in items(doc, "findings") if f.get("severity") == severity)
        if v.get(key) != n:
            problems.append("verdict.%s is %r, the findings have %d" % (key, v.get(key), n))
    unreadable = items(doc, "unreadable")
    if v.get("unreadable") != len(unreadable):
        problems.append("verdict.unreadable is %r, unreadable[] has %d" % (v.get("unreadable"), len(unreadable)))
    errors = sum(1 for f in items(doc, "findings") if f.get("severity") == "error")
    warnings = sum(1 for f in items(doc, "findings") if f.get("severity") == "warning")
    status = "fail" if errors else "warn" if warnings or unreadable else "ok"
    if v.get("status") != status:
        problems.append("verdict.status is %r, expected %r" % (v.get("status"), status))
    tag = {"fail": "FAIL: ", "warn": "WARN: ", "ok": "OK: "}[status]
    headline = v.get("headline")
    if not isinstance(headline, str) or not headline.startswith(tag):
        problems.append("verdict.headline %r does not start with %r" % (headline, tag))
    elif "\n" in headline or "\u2026" in headline:
        problems.append("verdict.headline is wrapped or cut: %r" % headline)
    else:
        for u in unreadable:
            if isinstance(u, dict) and u.get("file") and u["file"] not in headline:
                problems.append("verdict.headline does not name the unreadable %r" % u["file"])
    return problems


SEMANTIC_CHECKS = [
    ("verdict", check_verdict),
    ("references", check_references),
    ("frames", check_frames),
    ("counts", check_counts),
    ("summaries", check_summaries),
    ("missing-reasons", check_missing_reasons),
    ("times", check_times),
    ("decimals", check_decimals),
    ("addresses", check_addresses),
    ("findings", check_findings),
]


def all_problems(validator, doc):
    """Every problem with `doc`, as (check name, [problems])."""
    out = [("schema", schema_errors(validator, doc))]
    for name, check in SEMANTIC_CHECKS:
        try:
            out.append((name, check(doc)))
        except Exception as e:  # a check must never crash the run: report it
            out.append((name, ["check crashed: %s: %s" % (type(e).__name__, e)]))
    return out


def summarise(problems, limit=3):
    text = "; ".join(problems[:limit])
    if len(problems) > limit:
        text += "; ... (%d more)" % (len(problems) - limit)
    return text


def check_document(tally, validator, label, doc):
    for name, problems in all_problems(validator, doc):
        tally.report(not problems, "%s %s" % (name, label), summarise(problems))


# ---------------------------------------------------------------------------------------------


def run_analyze(tally, label, arguments, files, merged, missing=()):
    """Runs castscope; reports the run itself; returns the document or None. `missing` are
    files among `files` that do not exist: they must be in `unreadable`, not in `captures`,
    and the exit status must be 66."""
    command = [BINARY, "analyze", "--format", "json"] + arguments + files
    try:
        p = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        tally.report(False, "run %s" % label, "%s: %s" % (" ".join(command), e))
        return None
    problems = []
    if p.returncode != (66 if missing else 0):
        problems.append("exit status %d: %s" % (p.returncode, p.stderr.decode("utf-8", "replace").strip()[:300]))
    try:
        text = p.stdout.decode("utf-8")
        doc = load_json(text)
    except (UnicodeDecodeError, ValueError) as e:
        tally.report(False, "run %s" % label, "output is not UTF-8 JSON: %s" % e)
        return None
    if not text.endswith("}\n"):
        problems.append("output does not end with a newline after the object")
    if isinstance(doc, dict):
        caps = [c.get("file") for c in items(doc, "captures")]
        read = [f for f in files if f not in missing]
        if caps != read:
            problems.append("captures[].file %r != the files read %r" % (caps, read))
        unread = [u.get("file") for u in items(doc, "unreadable")]
        if unread != list(missing):
            problems.append("unreadable[].file %r != the missing files %r" % (unread, list(missing)))
        if doc.get("merged") is not merged:
            problems.append("merged is %r, expected %r" % (doc.get("merged"), merged))
    else:
        problems.append("output is not a JSON object")
    tally.report(not problems, "run %s" % label, summarise(problems))
    return doc if isinstance(doc, dict) else None


def docs_example():
    """The JSON example of docs/json-schema.md (the first ```json block), or None."""
    try:
        with open(DOC_PATH, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"^```json\n(.*?)^```", text, re.S | re.M)
    return m.group(1) if m else None


def default_runs(tally, validator):
    captures = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "captures", "*.pcap")))
    if not captures:
        tally.report(False, "captures", "no captures/*.pcap")
        return
    if not os.access(BINARY, os.X_OK):
        tally.report(False, "binary %s" % BINARY, "not found: run `swift build -c release` or set CASTSCOPE")
        captures = []
    starts = {}
    for f in captures:
        doc = run_analyze(tally, f, [], [f], False)
        if doc is not None:
            check_document(tally, validator, f, doc)
            c = items(doc, "captures")
            starts[f] = (c[0].get("start") or "") if c else ""
    if captures:
        doc = run_analyze(tally, "multi-file", [], captures, False)
        if doc is not None:
            check_document(tally, validator, "multi-file", doc)
        # --merge treats the files as one timeline: give them in the order they were captured.
        chronological = sorted(captures, key=lambda f: (starts.get(f, ""), f))
        doc = run_analyze(tally, "merge", ["--merge"], chronological, True)
        if doc is not None:
            check_document(tally, validator, "merge", doc)
        # A file that cannot be opened among others: listed in unreadable, named by the verdict.
        absent = "captures/no-such-capture.pcap"
        doc = run_analyze(tally, "missing-file", [], [captures[0], absent], False, missing=(absent,))
        if doc is not None:
            check_document(tally, validator, "missing-file", doc)
    example = docs_example()
    if example is None:
        tally.report(False, "docs example", "no ```json block in %s" % os.path.relpath(DOC_PATH, ROOT))
    else:
        try:
            doc = load_json(example)
        except ValueError as e:
            tally.report(False, "docs example", "not JSON: %s" % e)
        else:
            check_document(tally, validator, "docs-example", doc)


# ---------------------------------------------------------------------------------------------
# Self-test: every mutation of a valid document must be rejected.


def mutations(doc):
    """(name, check expected to catch it, function that mutates a deep copy in place)."""
    D = decimal.Decimal

    def first_with(key, predicate):
        for x in items(doc, key):
            if predicate(x):
                return items(doc, key).index(x)
        raise LookupError("the self-test document has no suitable %s entry" % key)

    lat = first_with("latency", lambda r: r.get("firstAnswerMs") is not None)
    res = first_with("responses", lambda r: isinstance(r.get("delayMs"), dict))

    def set_path(*path_and_value):
        *path, value = path_and_value

        def mutate(d):
            for p in path[:-1]:
                d = d[p]
            d[path[-1]] = value
        return mutate

    def delete(*path):
        def mutate(d):
            for p in path[:-1]:
                d = d[p]
            del d[path[-1]]
        return mutate

    def add_finding(severity):
        def mutate(d):
            d["findings"].append({"code": "DEVICE_LEFT", "severity": severity, "title": "t", "detail": "",
                                  "advice": "", "frames": [{"capture": 0, "frame": 1}]})
        return mutate

    def swap_percentiles(d):
        s = d["summaries"]["overall"]["firstAnswerMs"]
        s["p50"], s["p90"] = s["max"] + D("1.000"), s["min"]

    packets = items(doc, "captures")[0]["packets"]
    return [
        ("drop top-level key responses", "schema", delete("responses")),
        ("drop top-level key findings", "schema", delete("findings")),
        ("drop top-level key verdict", "schema", delete("verdict")),
        ("drop top-level key unreadable", "schema", delete("unreadable")),
        ("bad enum: verdict.status good", "schema", set_path("verdict", "status", "good")),
        ("verdict.status ok with an error finding", "verdict",
         lambda d: (add_finding("error")(d), d["verdict"].update(errors=d["verdict"]["errors"] + 1))),
        ("verdict.warnings off by one", "verdict", set_path("verdict", "warnings", doc["verdict"]["warnings"] + 1)),
        ("verdict.headline cut", "verdict", set_path("verdict", "headline", doc["verdict"]["headline"][:8] + "\u2026")),
        ("unreadable file not counted by the verdict", "verdict",
         lambda d: d["unreadable"].append({"file": "gone.pcap", "error": "cannot open"})),
        ("drop captures[0].linkType", "schema", delete("captures", 0, "linkType")),
        ("drop devices[0].friendlyName", "schema", delete("devices", 0, "friendlyName")),
        ("drop clients[0].legacyUnicast", "schema", delete("clients", 0, "legacyUnicast")),
        ("drop latency[].resolvedMs", "schema", delete("latency", lat, "resolvedMs")),
        ("schemaVersion 2", "schema", set_path("schemaVersion", 2)),
        ("wrong type: captures[0].packets as string", "schema", set_path("captures", 0, "packets", str(packets))),
        ("wrong type: captures[0].truncated as 0", "schema", set_path("captures", 0, "truncated", 0)),
        ("wrong type: devices[0].addresses as string", "schema", set_path("devices", 0, "addresses", "192.0.2.1")),
        ("wrong type: devices[0].txt value as number", "schema", set_path("devices", 0, "txt", "ca", 4101)),
        ("wrong type: latency[].firstAnswerMs as string", "schema", set_path("latency", lat, "firstAnswerMs", "0.863")),
        ("null not allowed: devices[0].id", "schema", set_path("devices", 0, "id", None)),
        ("null not allowed: devices[0].firstSeen", "schema", set_path("devices", 0, "firstSeen", None)),
        ("bad time: 3 fractional digits", "schema", set_path("devices", 0, "firstSeen", "2026-11-29T23:42:49.690Z")),
        ("bad time: 9 fractional digits", "schema", set_path("devices", 0, "lastSeen", "2026-11-29T23:42:49.690313000Z")),
        ("bad time: +00:00 instead of Z", "schema", set_path("captures", 0, "start", "2026-11-29T23:42:49.588382+00:00")),
        ("bad time: space instead of T", "schema", set_path("latency", lat, "sessionStart", "2026-11-29 23:42:49.689450Z")),
        ("bad time: February 30", "times", set_path("clients", 0, "firstQuery", "2026-02-30T23:42:49.689450Z")),
        ("bad enum: kind tv", "schema", set_path("devices", 0, "kind", "tv")),
        ("bad enum: via bonjour", "schema", set_path("devices", 0, "via", ["bonjour"])),
        ("bad enum: latency[].via bonjour", "schema", set_path("latency", lat, "via", "bonjour")),
        ("an mDNS latency row marked dial", "summaries", set_path("latency", lat, "via", "dial")),
        ("a Cast device listed among otherDevices", "references",
         set_path("otherDevices", [{"id": items(doc, "devices")[0]["id"], "location": None, "usn": None,
                                    "server": None, "address": "192.0.2.99",
                                    "firstSeen": items(doc, "devices")[0]["firstSeen"],
                                    "lastSeen": items(doc, "devices")[0]["firstSeen"], "leftAt": None,
                                    "firstFrame": {"capture": 0, "frame": 1}}])),
        ("bad enum: finding severity fatal", "schema", add_finding("fatal")),
        ("bad address: clients[0].address", "schema", set_path("clients", 0, "address", "192.0.2.300")),
        ("two findings of one code", "findings", lambda d: d["findings"].extend(
            [{"code": "DEVICE_LEFT", "severity": "info", "title": "t", "detail": "", "advice": "", "frames": [],
              "subjects": {"clients": [], "devices": [], "appIds": []}, "evidence": []}] * 2)),
        ("clients[0].addresses without its address", "addresses",
         set_path("clients", 0, "addresses", ["2001:db8::99"])),
        ("dangling deviceId in latency", "references", set_path("latency", lat, "deviceId", "no-such-device")),
        ("dangling deviceId in responses", "references", set_path("responses", res, "deviceId", "no-such-device")),
        ("dangling deviceId in summaries", "references", set_path("summaries", "devices", 0, "deviceId", "no-such-device")),
        ("dangling client in latency", "references", set_path("latency", lat, "client", "192.0.2.254")),
        ("frame beyond the capture's packets", "frames",
         set_path("latency", lat, "firstAnswerFrame", {"capture": 0, "frame": packets + 1})),
        ("frame in a capture that does not exist", "frames",
         set_path("devices", 0, "firstFrame", {"capture": len(items(doc, "captures")), "frame": 1})),
        ("frame 0", "schema", set_path("clients", 0, "firstQueryFrame", {"capture": 0, "frame": 0})),
        ("negative count: responses[].missed", "schema", set_path("responses", res, "missed", -1)),
        ("negative count: captures[0].malformedPackets", "schema", set_path("captures", 0, "malformedPackets", -1)),
        ("count arithmetic: answered + suppressed + missed != expected", "counts",
         set_path("responses", res, "expected", items(doc, "responses")[res]["expected"] + 1)),
        ("p50 > p90", "summaries", swap_percentiles),
        ("negative duration", "schema", set_path("latency", lat, "firstAnswerMs", D("-1.000"))),
        ("duration with 4 decimals", "decimals", set_path("clients", 0, "intervalsMs", 0, D("1001.9795"))),
        ("summary min that no row has", "summaries", set_path("summaries", "overall", "firstAnswerMs", "min", D("0.001"))),
        ("firstAnswerMs null without a reason", "missing-reasons", set_path("latency", lat, "firstAnswerMs", None)),
        ("firstAnswerMissing empty string with null firstAnswerMs", "missing-reasons",
         lambda d: d["latency"][lat].update(firstAnswerMs=None, firstAnswerFrame=None, firstAnswerMissing="")),
        ("firstAnswerMs with a reason", "missing-reasons", set_path("latency", lat, "firstAnswerMissing", "because")),
        ("resolvedMissing with a resolvedMs", "missing-reasons", set_path("latency", lat, "resolvedMissing", "because")),
        ("firstSeen after lastSeen", "times", set_path("devices", 0, "firstSeen", "2099-01-01T00:00:00.000000Z")),
        ("duplicate device id", "references",
         lambda d: d["devices"].append(copy.deepcopy(d["devices"][0]))),
    ]


def self_test(tally, validator):
    doc = run_analyze(tally, "self-test base (multi-device.pcap)", [], ["captures/multi-device.pcap"], False)
    if doc is None:
        return
    base = [(n, p) for n, p in all_problems(validator, doc) if p]
    tally.report(not base, "self-test base document is accepted",
                 summarise(["%s: %s" % (n, summarise(p, 1)) for n, p in base]))
    try:
        cases = mutations(doc)
    except (LookupError, KeyError, IndexError, TypeError) as e:
        tally.report(False, "self-test mutations", str(e))
        return
    for name, expected, mutate in cases:
        mutated = copy.deepcopy(doc)
        try:
            mutate(mutated)
        except (LookupError, KeyError, IndexError, TypeError) as e:
            tally.report(False, "self-test %s" % name, "could not mutate: %s" % e)
            continue
        caught = {n: p for n, p in all_problems(validator, mutated) if p}
        if expected in caught:
            detail = "rejected by %s (%s)" % (", ".join(caught), summarise(caught[expected], 1))
        elif caught:
            detail = "rejected by %s but not by %s" % (", ".join(caught), expected)
        else:
            detail = "NOT rejected (expected the %s check to catch it)" % expected
        tally.report(expected in caught, "self-test %s" % name, detail)


def main(argv):
    args = argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        return 0
    unknown = [a for a in args if a.startswith("--") and a != "--self-test"]
    if unknown:
        sys.stderr.write("validate.py: unknown option %s\n" % unknown[0])
        return 2
    tally = Tally()
    try:
        schema = load_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        tally.report(False, "schema file %s" % os.path.relpath(SCHEMA_PATH, ROOT), str(e).splitlines()[0])
        print("schema: %d passed, %d failed" % (tally.passed, tally.failed))
        return 1
    tally.report(True, "schema file %s is a valid draft 2020-12 schema" % os.path.relpath(SCHEMA_PATH, ROOT))
    validator = make_validator(schema)
    documents = [a for a in args if a != "--self-test"]
    if "--self-test" in args:
        self_test(tally, validator)
    elif documents:
        for path in documents:
            try:
                text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
                doc = load_json(text)
            except (OSError, ValueError) as e:
                tally.report(False, "read %s" % path, str(e))
                continue
            # A `castscope probe --format json` document: its analysis is analyze's document.
            if isinstance(doc, dict) and set(doc) == {"probe", "analysis"}:
                doc = doc["analysis"]
                path += " (probe's analysis)"
            check_document(tally, validator, path, doc)
    else:
        default_runs(tally, validator)
    print("schema: %d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
