#!/usr/bin/env python3
"""Checks `castscope analyze --format rows` (docs/rows.md) on the bundled captures.

Writes each capture's rows to a file of its own (`-o`), validates every row against
docs/rows.schema.json, compares the rows with the capture's JSON document
(`castscope analyze --format json`, read here independently): as many rows of each type as the
document has entries, and the same values; checks that the columns of a type are the same in
every row and that docs/rows.md lists them; then loads all the files into DuckDB, both with the
types it infers and with the columns scripts/rows-columns gives, and checks aggregate queries
(devices per capture, client queries in all, findings by code, the p50 and p90 first-answer
latency per capture, a sum of milliseconds, connections by outcome, verdicts) against the
same figures computed from the JSON documents. Also: several files in one run (each its own
rows, a file that cannot be read), `--merge`, standard output against `-o`.

Prints one `ok …` or `FAIL …` line per check (Tests/rows/run.sh counts them).
Usage: check_rows.py CASTSCOPE WORKDIR   (run from the repository root)
Needs: jsonschema and duckdb (PyPI; `make test-deps` installs them for python3).
"""

import collections
import glob
import json
import os
import re
import subprocess
import sys

import duckdb
import jsonschema

TYPES = ["capture", "device", "client", "latency", "response", "connection", "finding", "evidence"]
# The document's list each row type stands for.
LISTS = {
    "device": "devices",
    "client": "clients",
    "latency": "latency",
    "response": "responses",
    "connection": "connections",
    "finding": "findings",
}
# Columns holding the length of a list of the document's object.
COUNTS = {
    "device": {"instanceCount": "instances", "appIdCount": "appIds", "sourceCount": "sources"},
    "client": {"appIdCount": "appIdsQueried", "intervalCount": "intervalsMs", "localNamesOverDnsCount": "localNamesOverDns"},
    "response": {"missedFrameCount": "missedFrames"},
    "finding": {"frameCount": "frames", "evidenceCount": "evidence"},
    "evidence": {"frameCount": "frames"},
}
# Columns of another name than the document's key (with the key).
RENAMED = {
    "device": {"dialLocation": ("dial", "location"), "dialServer": ("dial", "server")},
    "client": {"appIds": ("appIdsQueried",)},
    "response": {
        "delayMinMs": ("delayMs", "min"),
        "delayP50Ms": ("delayMs", "p50"),
        "delayP90Ms": ("delayMs", "p90"),
        "delayMaxMs": ("delayMs", "max"),
        "firstMissedFrame": ("missedFrames", 0),
    },
    "finding": {
        "firstFrame": ("frames", 0),
        "clientSubjects": ("subjects", "clients", len),
        "deviceSubjects": ("subjects", "devices", len),
        "appIdSubjects": ("subjects", "appIds", len),
    },
    "evidence": {"firstFrame": ("frames", 0)},
}

results = []


def check(ok, label, why=""):
    results.append(ok)
    print(f"ok {label}" if ok else f"FAIL {label}{': ' + why if why else ''}", flush=True)
    return ok


def run(binary, *args):
    """Runs castscope; returns (exit status, stdout bytes, stderr text)."""
    p = subprocess.run([binary, *args], capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def parse_rows(data):
    """The rows of NDJSON bytes: each line one object, keys in order (pairs kept)."""
    text = data.decode("utf-8")
    if text and not text.endswith("\n"):
        raise ValueError("the last line has no newline")
    rows = []
    for line in text.split("\n")[:-1]:
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
        if not isinstance(pairs, list):
            raise ValueError(f"not an object: {line[:80]}")
        rows.append(pairs)
    return rows


def json_type(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "container"


def document_objects(t, doc):
    if t == "capture":
        return doc["captures"][:1]
    if t == "evidence":
        return [e for f in doc["findings"] for e in f["evidence"]]
    return doc[LISTS[t]]


def expected_value(t, column, obj, doc):
    """What the document says a column holds (a KeyError when it says nothing of it)."""
    if column in COUNTS.get(t, {}):
        return len(obj[COUNTS[t][column]])
    path = RENAMED.get(t, {}).get(column, (column,))
    v = obj
    for step in path:
        if callable(step):
            v = step(v)
        elif isinstance(step, int):
            v = v[step] if v else None
        else:
            v = None if v is None else v[step]
    return v


def same(row_value, doc_value):
    """A row's value against the document's: a frame as its number, a list joined by a space."""
    if isinstance(doc_value, dict) and "frame" in doc_value:
        return row_value == doc_value["frame"]
    if isinstance(doc_value, list):
        return row_value == " ".join(doc_value)
    return row_value == doc_value and json_type(row_value) == json_type(doc_value)


def compare(name, rows, doc, mismatches, capture_row=True):
    """Rows of one timeline against its document; appends what differs. `capture_row`: check the
    capture row against the document's first capture too (a merged timeline's sums them)."""
    by_type = collections.defaultdict(list)
    for r in rows:
        by_type[dict(r)["type"]].append(dict(r))
    first = doc["captures"][0]
    for t in TYPES[1:]:
        objects = document_objects(t, doc)
        if len(by_type[t]) != len(objects):
            mismatches.append(f"{name}: {len(by_type[t])} {t} rows, {len(objects)} in the JSON")
            continue
        for row, obj in zip(by_type[t], objects):
            for column, value in row.items():
                if column in ("type", "capture", "captureStart"):
                    continue
                try:
                    want = expected_value(t, column, obj, doc)
                except KeyError:
                    continue  # a column the document has no key of that name for
                if not same(value, want):
                    mismatches.append(f"{name} {t}.{column}: {value!r} in the rows, {want!r} in the JSON")
    for r in rows:
        r = dict(r)
        if r["capture"] != first["file"] or r["captureStart"] != first["start"]:
            mismatches.append(f"{name}: a {r['type']} row names {r['capture']!r} at {r['captureStart']!r}")
            break
    cap = by_type["capture"]
    if not capture_row:
        return
    if len(cap) != 1:
        mismatches.append(f"{name}: {len(cap)} capture rows")
        return
    c = cap[0]
    v = doc["verdict"]
    want = {
        "verdict": v["status"], "headline": v["headline"], "errors": v["errors"], "warnings": v["warnings"],
        "notes": v["notes"], "sessionGapMs": doc["sessionGapMs"], "connectionPhaseSeen": doc["connectionPhaseSeen"],
        "captureEnd": first["end"], "error": None, "files": len(doc["captures"]),
        "deviceCount": len(doc["devices"]), "otherDeviceCount": len(doc["otherDevices"]),
        "clientCount": len(doc["clients"]), "latencyCount": len(doc["latency"]),
        "responseCount": len(doc["responses"]), "connectionCount": len(doc["connections"]),
        "findingCount": len(doc["findings"]),
    }
    for key in ("linkType", "packets", "discoveryPackets", "malformedPackets", "mdnsPackets", "ssdpPackets",
                "undecodableFrames", "truncated"):
        want[key] = first[key]
    for key, value in want.items():
        if c[key] != value:
            mismatches.append(f"{name} capture.{key}: {c[key]!r} in the rows, {value!r} in the JSON")


def doc_tables(path):
    """The columns docs/rows.md lists: {section heading's row type: [column, …]}, plus `common`."""
    tables = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^### `(\w+)` rows", line) or re.match(r"^### (Every row)", line)
            if m:
                current = "common" if m.group(1) == "Every row" else m.group(1)
                tables[current] = []
            elif line.startswith("## "):
                current = None
            elif current and line.startswith("| `"):
                tables[current].append(line.split("`")[1])
    return tables


def main(binary, work):
    captures = sorted(glob.glob("captures/*.pcap"))
    with open("docs/rows.schema.json", encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    # ------------------------------------------------------------ each capture on its own
    docs, all_rows, outputs, failures = {}, {}, {}, []
    for path in captures:
        out = os.path.join(work, os.path.basename(path) + ".ndjson")
        rc, _, err = run(binary, "analyze", "-q", "--format", "rows", "-o", out, path)
        rc_json, doc, err_json = run(binary, "analyze", "-q", "--format", "json", path)
        if rc != 0 or rc_json != 0 or not os.path.exists(out):
            failures.append(f"{path}: exit {rc} / {rc_json}: {(err or err_json)[:200]}")
            continue
        with open(out, "rb") as f:
            outputs[path] = f.read()
        try:
            all_rows[path] = parse_rows(outputs[path])
        except ValueError as e:
            failures.append(f"{path}: {e}")
            continue
        docs[path] = json.loads(doc)
    check(not failures and len(all_rows) == len(captures) >= 30,
          f"rows and JSON written for all {len(captures)} bundled captures (-o)", "; ".join(failures[:3]))
    rc, stdout, _ = run(binary, "analyze", "-q", "--format", "rows", captures[0])
    check(rc == 0 and stdout == outputs.get(captures[0]), "standard output holds the same rows as -o FILE")

    # ------------------------------------------------------------ every row against the schema
    flat = [r for rows in all_rows.values() for r in rows]
    invalid = []
    for r in flat:
        for e in validator.iter_errors(dict(r)):
            invalid.append(f"{dict(r)['type']}: {e.message[:120]}")
    check(flat and not invalid, f"all {len(flat)} rows validate against docs/rows.schema.json",
          "; ".join(invalid[:3]))
    nested = [dict(r)["type"] for r in flat if any(json_type(v) == "container" for _, v in r)]
    check(not nested, "every row is flat: no value is an object or an array", ", ".join(nested[:3]))
    types_seen = collections.Counter(dict(r)["type"] for r in flat)
    check(set(types_seen) == set(TYPES), f"every row type occurs: {dict(types_seen)}")
    first_keys = [k for k, _ in flat[0]][:3] if flat else []
    check(all([k for k, _ in r][:3] == ["type", "capture", "captureStart"] for r in flat),
          "every row starts with type, capture, captureStart", str(first_keys))

    # ------------------------------------------------------------ stable columns
    keys_of_type, type_of_key, unstable = {}, {}, []
    for r in flat:
        t = dict(r)["type"]
        keys = [k for k, _ in r]
        if keys_of_type.setdefault(t, keys) != keys:
            unstable.append(f"{t}: {keys} != {keys_of_type[t]}")
        for k, v in r:
            jt = json_type(v)
            if jt and type_of_key.setdefault(k, jt) != jt:
                unstable.append(f"{k} is a {jt} in a {t} row, a {type_of_key[k]} elsewhere")
    check(not unstable, "each type's rows have the same keys in the same order; each key one JSON type in all types",
          "; ".join(unstable[:3]))
    for t in TYPES:
        props = list(schema["$defs"][f"{t}Row"]["properties"])
        if keys_of_type.get(t) != props:
            check(False, f"{t} rows have the schema's columns in its order", f"{keys_of_type.get(t)} vs {props}")
    tables = doc_tables("docs/rows.md")
    listed = []
    for t in TYPES:
        want = list(schema["$defs"][f"{t}Row"]["properties"])
        got = tables.get("common", []) + tables.get(t, [])
        if got != want:
            listed.append(f"{t}: rows.md lists {got}, the schema {want}")
    check(not listed, "docs/rows.md lists every column of every row type, in order, as the schema does",
          "; ".join(listed[:2]))

    # ------------------------------------------------------------ the rows against the JSON
    mismatches = []
    for path, rows in all_rows.items():
        compare(path, rows, docs[path], mismatches)
    counted = {t: sum(len(document_objects(t, d)) for d in docs.values()) for t in TYPES[1:]}
    check(not mismatches, f"as many rows of each type as the JSON documents have entries ({counted}), "
          "with the documents' values", "; ".join(mismatches[:4]))

    # ------------------------------------------------------------ the schema can say no
    device = next(dict(r) for r in flat if dict(r)["type"] == "device")
    for label, mutate in [
        ("a row without a column", lambda d: d.pop("port")),
        ("a row with a column of another type", lambda d: d.update(extra=1)),
        ("a count written as a string", lambda d: d.update(port="8009")),
        ("a nested object", lambda d: d.update(firstFrame={"capture": 0, "frame": 3})),
        ("a time without microseconds", lambda d: d.update(firstSeen="2026-11-29T23:42:33Z")),
        ("an unknown row type", lambda d: d.update(type="query")),
    ]:
        d = dict(device)
        mutate(d)
        check(bool(list(validator.iter_errors(d))), f"the schema rejects {label}")

    # ------------------------------------------------------------ several files in one run
    missing = os.path.join(work, "missing.pcap")
    rc, stdout, err = run(binary, "analyze", "-q", "--format", "rows", *captures, missing)
    try:
        together = parse_rows(stdout)
    except ValueError as e:
        together = []
        err += str(e)
    per_file = collections.defaultdict(list)
    for r in together:
        per_file[dict(r)["capture"]].append(r)
    same_rows = all(per_file.get(p) == all_rows[p] for p in all_rows)
    check(rc == 66 and same_rows and set(per_file) == set(all_rows) | {missing},
          "several files without --merge: each file's rows are those of the file alone, named by it (exit 66 "
          "for the missing one)", f"rc={rc} {err[:200]}")
    gone = [dict(r) for r in per_file.get(missing, [])]
    check(len(gone) == 1 and gone[0]["type"] == "capture" and "No such file" in (gone[0]["error"] or "")
          and gone[0]["verdict"] is None and not list(validator.iter_errors(gone[0])),
          "a file that cannot be read is one capture row with its error and nulls", str(gone)[:200])

    # ------------------------------------------------------------ --merge
    merged = ["captures/healthy-ipv4.pcap", "captures/ipv6.pcap"]
    rc, stdout, err = run(binary, "analyze", "-q", "--format", "rows", "--merge", *merged)
    rc_json, doc, _ = run(binary, "analyze", "-q", "--format", "json", "--merge", *merged)
    rows = parse_rows(stdout) if rc == 0 else []
    doc = json.loads(doc) if rc_json == 0 else {}
    problems = []
    if rows and doc:
        name = " + ".join(merged)
        start = min(c["start"] for c in doc["captures"])
        # Named and timed as one timeline; the rest compares as for one file.
        compare(name, rows, dict(doc, captures=[dict(doc["captures"][0], file=name, start=start)]), problems,
                capture_row=False)
        cap = dict(rows[0])
        sums = {k: sum(c[k] for c in doc["captures"]) for k in ("packets", "discoveryPackets", "mdnsPackets")}
        if cap["type"] != "capture" or cap["files"] != 2 or any(cap[k] != v for k, v in sums.items()) \
                or cap["captureEnd"] != max(c["end"] for c in doc["captures"]) \
                or cap["headline"] != doc["verdict"]["headline"] or cap["latencyCount"] != len(doc["latency"]):
            problems.append(f"capture row {cap}")
    check(rc == 0 and rows and not problems,
          "--merge: one timeline named 'a + b', starting at its first frame, with the merged JSON's values",
          "; ".join(problems[:3]) or err[:200])

    # ------------------------------------------------------------ DuckDB
    files = [os.path.join(work, os.path.basename(p) + ".ndjson") for p in captures]
    columns = subprocess.run(["scripts/rows-columns", "duckdb"], capture_output=True, text=True, check=True).stdout
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE auto AS SELECT * FROM read_json_auto(?, format='newline_delimited', sample_size=-1, "
        "maximum_sample_files=-1)", [files])
    con.execute(f"CREATE TABLE typed AS SELECT * FROM read_json(?, format='newline_delimited', columns={columns})",
                [files])
    declared = dict(re.findall(r"'(\w+)': '(\w+)'", columns))
    got = {name: t for name, t, *_ in con.execute("DESCRIBE typed").fetchall()}
    check(got == {k: {"TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE"}.get(v, v) for k, v in declared.items()},
          f"DuckDB: a table with the {len(declared)} columns and types of scripts/rows-columns duckdb")
    inferred = {name: t for name, t, *_ in con.execute("DESCRIBE auto").fetchall()}
    differ = [f"{k}: {inferred.get(k)} vs {got[k]}" for k in got
              if inferred.get(k) not in (got[k], '"NULL"')]
    check(not differ, "DuckDB's read_json_auto infers the same types (a column null in every row: NULL)",
          "; ".join(differ[:4]))
    check(con.execute("SELECT count(*) FROM auto").fetchone()[0] == len(flat) == con.execute(
        "SELECT count(*) FROM typed").fetchone()[0], f"DuckDB loads all {len(flat)} rows")

    def both(sql, expected, label):
        """Runs `sql` on both tables; each result must equal `expected`."""
        outcomes = []
        for table in ("auto", "typed"):
            try:
                got = normalise(con.execute(sql.format(t=table)).fetchall())
            except duckdb.Error as e:
                got = f"error {e}"
            outcomes.append(got)
        check(all(o == normalise(expected) for o in outcomes), label,
              f"expected {normalise(expected)!r:.300}, got {outcomes[0]!r:.300} / {outcomes[1]!r:.300}")

    def normalise(result):
        if isinstance(result, list):
            return sorted(tuple(round(x, 3) if isinstance(x, float) else x for x in r) for r in result)
        return result

    both("SELECT capture, count(*) FROM {t} WHERE type = 'device' GROUP BY capture",
         [(p, len(d["devices"])) for p, d in docs.items() if d["devices"]], "DuckDB: devices per capture")
    both("SELECT capture, deviceCount, clientCount, findingCount FROM {t} WHERE type = 'capture'",
         [(p, len(d["devices"]), len(d["clients"]), len(d["findings"])) for p, d in docs.items()],
         "DuckDB: each capture row's device, client and finding counts")
    both("SELECT sum(queries), sum(dialSearches) FROM {t} WHERE type = 'client'",
         [(sum(c["queries"] for d in docs.values() for c in d["clients"]),
           sum(c["dialSearches"] for d in docs.values() for c in d["clients"]))],
         "DuckDB: client queries and DIAL searches over all captures")
    both("SELECT code, severity, count(*) FROM {t} WHERE type = 'finding' GROUP BY code, severity",
         [(c, s, n) for (c, s), n in collections.Counter(
             (f["code"], f["severity"]) for d in docs.values() for f in d["findings"]).items()],
         "DuckDB: findings by code and severity")
    both("SELECT f.code, count(e.type) FROM {t} f JOIN {t} e ON e.type = 'evidence' AND e.capture = f.capture "
         "AND e.code = f.code AND e.severity = f.severity WHERE f.type = 'finding' GROUP BY f.code",
         list(collections.Counter(f["code"] for d in docs.values() for f in d["findings"]
                                  for _ in f["evidence"]).items()),
         "DuckDB: evidence rows joined to their findings by capture, code and severity")
    nearest = ("SELECT capture, quantile_disc(firstAnswerMs, 0.5), list_sort(list(firstAnswerMs))"
               "[CAST(ceil(0.5 * count(firstAnswerMs)) AS BIGINT)], list_sort(list(firstAnswerMs))"
               "[CAST(ceil(0.9 * count(firstAnswerMs)) AS BIGINT)] FROM {t} WHERE type = 'latency' AND via = '%s' "
               "AND firstAnswerMs IS NOT NULL GROUP BY capture")
    for via, key in (("mdns", "firstAnswerMs"), ("dial", "dialAnswerMs")):
        want = [(p, s["p50"], s["p50"], s["p90"]) for p, d in docs.items()
                if (s := d["summaries"]["overall"][key]) is not None]
        both(nearest % via, want, f"DuckDB: p50 and p90 of {via} first-answer latency per capture = the JSON's "
             f"summaries.overall.{key}")
    both("SELECT capture, min(resolvedMs), max(resolvedMs) FROM {t} WHERE type = 'latency' AND via = 'mdns' "
         "AND resolvedMs IS NOT NULL GROUP BY capture",
         [(p, s["min"], s["max"]) for p, d in docs.items() if (s := d["summaries"]["overall"]["resolvedMs"])],
         "DuckDB: min and max resolution time per capture = the JSON's summaries")
    total = sum(r["firstAnswerMs"] for d in docs.values() for r in d["latency"] if r["firstAnswerMs"] is not None)
    both("SELECT round(sum(firstAnswerMs), 3), count(firstAnswerMs), count(*) FROM {t} WHERE type = 'latency'",
         [(round(total, 3), sum(r["firstAnswerMs"] is not None for d in docs.values() for r in d["latency"]),
           sum(len(d["latency"]) for d in docs.values()))],
         "DuckDB: the sum of firstAnswerMs over every latency row")
    both("SELECT outcome, count(*), sum(syns) FROM {t} WHERE type = 'connection' GROUP BY outcome",
         [(o, len(v), sum(c["syns"] for c in v)) for o, v in group(
             [c for d in docs.values() for c in d["connections"]], "outcome").items()],
         "DuckDB: connections by outcome, with their SYNs")
    both("SELECT verdict, count(*) FROM {t} WHERE type = 'capture' GROUP BY verdict",
         list(collections.Counter(d["verdict"]["status"] for d in docs.values()).items()),
         "DuckDB: captures by verdict")
    both("SELECT count(*) FROM {t} WHERE type = 'device' AND firstSeen < captureStart",
         [(0,)], "DuckDB: times load as timestamps (no device seen before its capture started)")
    both("SELECT sum(answered), sum(missed), sum(suppressed), sum(expected) FROM {t} WHERE type = 'response'",
         [tuple(sum(s[k] for d in docs.values() for s in d["responses"])
                for k in ("answered", "missed", "suppressed", "expected"))],
         "DuckDB: response counts over all captures")
    return 0


def group(items, key):
    out = collections.defaultdict(list)
    for i in items:
        out[i[key]].append(i)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as e:  # a crash is a failure with its reason, not a silent pass
        check(False, "check_rows.py ran to the end", f"{type(e).__name__}: {e}")
    sys.exit(0 if all(results) else 1)
