#!/usr/bin/env python3
"""Checks for Tests/checkapp/run.sh (python3 stdlib only).

  check_app.py doc LABEL --json J --json-rc N --text T --text-rc N [--err E]... [expectations]
      the JSON and the text of `castscope check-app` on one input (run.sh ran both)
  check_app.py analyze LABEL --json J --rc N [--err E] [expectations]
      the JSON of `castscope analyze --app APP --format json CAPTURE`

doc expectations:
  --input STR              the JSON's "input" is exactly STR (the PATH as given)
  --kind KIND              project | podfile-lock | package-resolved | info-plist | ipa | app
  --codes A,B,...          the exact set of finding codes; repeat for alternatives where the
                           contract leaves a choice (README.md, "Ambiguities")
  --severity CODE=SEV      CODE's severity here (default: the SEVERITY table below)
  --targets N              targets has N entries
  --target FIELD=VALUE     targets[0].FIELD (name, infoPlist, bundleId, deploymentTarget,
                           build.xcode, build.sdk) is VALUE; `a|b` alternatives, `null` for
                           null, `*/x` a path ending in /x (or equal to x)
  --cast-sdk NAME@VERSION@FLAVOUR@SOURCE  (repeatable) the castSdk entries of all targets:
                           each spec matches at least one entry and each entry one spec, and
                           there are exactly as many entries as specs unless --cast-sdk-slices;
                           NAME `a|b`, `~x` contains x; VERSION or `null`; FLAVOUR `a|b` or `*`;
                           SOURCE a path suffix or `*`
  --cast-sdk-slices        several entries may match one spec (an xcframework's slices)
  --no-cast-sdk            no castSdk entry at all
  --app-id ID@HOW@SRC|SRC  (repeatable) appIds has ID (letter case ignored) found HOW
                           (literal | constant | default-media-receiver) at one of the SRCs
                           (`File.swift:12`: the source is that, or ends in /that)
  --app-ids-exact          ... and no other app ID
  --discovery A,B          targets[0].discovery is {autostartDisabled: A, afterFirstTap: B}
                           (true | false | null; `a|b` alternatives)
  --detail CODE=WORD       CODE's detail mentions WORD (letter case ignored; `a|b` either)
  --subject CODE=ID        CODE's subjects.appIds has ID
  --rc N                   both exit statuses are N (default: 1 if an error finding, else 0)
analyze expectations:
  --finding CODE=SEV       the analysis has CODE with severity SEV (`a|b` alternatives)
  --no-finding CODE        ... and not CODE
  --detail CODE=WORD       as above

Prints one `ok ...` / `FAIL ...` line per check (run.sh counts them), `# ...` notes; exits 0
even when checks fail, 2 on bad usage.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import say  # noqa: E402  (Tests/lib/checks.py)

# The codes of check-app and their severities (the contract; APP_CAST_SDK_UPDATE_RECOMMENDED is a
# warning only for an .ipa built with Xcode < 12: run.sh says so with --severity).
SEVERITY = {
    "PLIST_MISSING_SERVICE": "error",
    "PLIST_MISSING_APP_ID": "error",
    "PLIST_MISSING_USAGE_DESCRIPTION": "error",
    "APP_ID_MISMATCH": "error",
    "APP_CAST_SDK_TOO_OLD": "error",
    "APP_CAST_SDK_UPDATE_RECOMMENDED": "info",
    "APP_BLUETOOTH_USAGE_MISSING": "error",
    "APP_DISCOVERY_AUTOSTART_DISABLED": "info",
    "APP_DISCOVERY_AFTER_TAP": "info",
    "APP_NO_CAST_SDK": "warning",
    "APP_CAST_SDK_VERSION_UNKNOWN": "info",
    "APP_OK": "info",
}
SEVERITIES = ("error", "warning", "info")
KINDS = ("project", "podfile-lock", "package-resolved", "info-plist", "ipa", "app")
FLAVOURS = ("guest-mode", "no-bluetooth", "single", "unknown")
HOWS = ("literal", "constant", "default-media-receiver")
TARGET_KEYS = ("name", "infoPlist", "bundleId", "deploymentTarget", "castSdk", "build", "appIds", "discovery")
FINDING_KEYS = ("code", "severity", "title", "detail", "advice", "frames", "subjects", "evidence")


def short(x, n=300):
    s = json.dumps(x) if not isinstance(x, str) else x
    return s if len(s) <= n else s[:n] + "…"


def load_json(label, path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        say(False, f"{label}: the JSON output can be read", str(e))
        return None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        say(False, f"{label}: stdout is one JSON document", f"{e}; starts {text[:200]!r}")
        return None
    if not say(isinstance(doc, dict), f"{label}: the JSON is one object", type(doc).__name__):
        return None
    return doc


def path_ends(value, want):
    """value equals want or ends in /want."""
    return isinstance(value, str) and (value == want or value.endswith("/" + want))


def match_value(value, spec):
    """spec: `a|b` alternatives; `null`; `*/x` a path ending in x."""
    for alt in spec.split("|"):
        if alt == "null":
            if value is None:
                return True
        elif alt.startswith("*/"):
            if path_ends(value, alt[2:]):
                return True
        elif value == alt:
            return True
    return False


def check_findings_shape(label, findings, severity_of):
    bad = []
    for i, f in enumerate(findings):
        if not isinstance(f, dict):
            bad.append(f"#{i} is not an object")
            continue
        missing = [k for k in FINDING_KEYS if k not in f]
        if missing:
            bad.append(f"{f.get('code', '#' + str(i))} lacks {missing}")
            continue
        for k in ("code", "severity", "title", "detail", "advice"):
            if not isinstance(f[k], str) or not f[k].strip():
                bad.append(f"{f['code']}: {k} empty or not a string")
        if f["severity"] not in SEVERITIES:
            bad.append(f"{f['code']}: severity {f['severity']!r}")
        if not isinstance(f["frames"], list) or not isinstance(f["evidence"], list):
            bad.append(f"{f['code']}: frames/evidence not lists")
        s = f["subjects"]
        if not (isinstance(s, dict) and all(isinstance(s.get(k), list) for k in ("clients", "devices", "appIds"))):
            bad.append(f"{f['code']}: subjects is not {{clients:[],devices:[],appIds:[]}}: {short(s, 120)}")
    say(not bad, f"{label}: every finding has code, severity, title, detail, non-empty advice, frames, "
        "subjects {clients, devices, appIds} and evidence", "; ".join(bad[:4]))
    wrong = [f"{f['code']} is {f['severity']}, want {severity_of(f['code'])}" for f in findings
             if isinstance(f, dict) and f.get("code") in SEVERITY and f.get("severity") != severity_of(f["code"])]
    unknown = sorted({f.get("code") for f in findings if isinstance(f, dict) and f.get("code") not in SEVERITY})
    say(not wrong and not unknown, f"{label}: each code has its contract severity",
        "; ".join(wrong + [f"{c} is not a check-app code" for c in unknown]))


def check_doc(a):
    L = a.label
    sev_over = dict(x.split("=", 1) for x in a.severity)
    severity_of = lambda c: sev_over.get(c, SEVERITY.get(c))  # noqa: E731
    for e in a.err:
        try:
            text = open(e, encoding="utf-8", errors="replace").read()
        except OSError:
            text = ""
        say(text == "", f"{L}: nothing on stderr ({os.path.basename(e)})", short(text, 200))
    doc = load_json(L, a.json)
    if doc is None:
        return
    keys = ("schemaVersion", "input", "kind", "targets", "findings")
    say(all(k in doc for k in keys) and doc.get("schemaVersion") == 1,
        f"{L}: the JSON has schemaVersion 1, input, kind, targets and findings",
        f"keys {sorted(doc)}, schemaVersion {doc.get('schemaVersion')!r}")
    if a.input is not None:
        say(doc.get("input") == a.input, f"{L}: input is the PATH as given ({a.input})", short(doc.get("input")))
    if a.kind:
        say(doc.get("kind") == a.kind, f"{L}: kind {a.kind}", short(doc.get("kind")))
    else:
        say(doc.get("kind") in KINDS, f"{L}: kind is one of {', '.join(KINDS)}", short(doc.get("kind")))
    findings = doc.get("findings") if isinstance(doc.get("findings"), list) else []
    targets = doc.get("targets") if isinstance(doc.get("targets"), list) else []
    check_findings_shape(L, findings, severity_of)
    codes = {f.get("code") for f in findings if isinstance(f, dict)}

    # --- codes, exit status, verdict
    if a.codes:
        alts = [frozenset(c for c in x.split(",") if c) for x in a.codes]
        say(frozenset(codes) in alts, f"{L}: finding codes are exactly "
            + " or ".join("{" + ", ".join(sorted(x)) + "}" for x in alts), f"got {{{', '.join(sorted(codes))}}}")
    sevs = [f.get("severity") for f in findings if isinstance(f, dict)]
    worst = "error" if "error" in sevs else "warning" if "warning" in sevs else "info"
    want_rc = a.rc if a.rc is not None else (1 if worst == "error" else 0)
    say(a.json_rc == want_rc, f"{L}: --format json exits {want_rc}", f"exit {a.json_rc}")
    if a.text is not None:
        say(a.text_rc == want_rc, f"{L}: text exits {want_rc}", f"exit {a.text_rc}")
        check_text(L, a.text, findings, worst)
    say(("APP_OK" in codes) == (worst == "info"), f"{L}: APP_OK if and only if no error and no warning",
        f"codes {sorted(codes)}")

    # --- targets
    shape = [f"#{i}: lacks {[k for k in TARGET_KEYS if k not in t]}" for i, t in enumerate(targets)
             if not isinstance(t, dict) or any(k not in t for k in TARGET_KEYS)]
    for i, t in enumerate(targets):
        if not isinstance(t, dict) or shape:
            continue
        if not (isinstance(t["build"], dict) and "xcode" in t["build"] and "sdk" in t["build"]):
            shape.append(f"#{i}: build is not {{xcode, sdk}}")
        d = t["discovery"]
        if not (isinstance(d, dict) and all(d.get(k, 0) in (True, False, None) for k in ("autostartDisabled", "afterFirstTap"))
                and "autostartDisabled" in d and "afterFirstTap" in d):
            shape.append(f"#{i}: discovery is not {{autostartDisabled: bool|null, afterFirstTap: bool|null}}")
        for s in t["castSdk"] if isinstance(t["castSdk"], list) else [None]:
            if not (isinstance(s, dict) and all(k in s for k in ("name", "version", "flavour", "source"))
                    and s["flavour"] in FLAVOURS):
                shape.append(f"#{i}: castSdk entry {short(s, 120)}")
        for x in t["appIds"] if isinstance(t["appIds"], list) else [None]:
            if not (isinstance(x, dict) and all(k in x for k in ("id", "source", "how")) and x["how"] in HOWS):
                shape.append(f"#{i}: appIds entry {short(x, 120)}")
    say(not shape, f"{L}: each target has {', '.join(TARGET_KEYS)} in the documented shape", "; ".join(shape[:3]))
    if shape:
        return
    if a.targets is not None:
        say(len(targets) == a.targets, f"{L}: {a.targets} target(s)",
            f"{len(targets)}: {[t.get('name') for t in targets]}")
    t0 = targets[0] if targets else None
    for spec in a.target:
        field, _, want = spec.partition("=")
        if t0 is None:
            say(False, f"{L}: targets[0].{field} is {want}", "no target")
            continue
        value = t0.get("build", {}).get(field[6:]) if field.startswith("build.") else t0.get(field)
        say(match_value(value, want), f"{L}: targets[0].{field} is {want}", short(value))
    sdks = [s for t in targets for s in t["castSdk"]]
    if a.no_cast_sdk:
        say(not sdks, f"{L}: no castSdk entry", short(sdks))
    if a.cast_sdk:
        specs = [x.split("@") for x in a.cast_sdk]

        def fits(s, spec):
            name, version, flavour, source = spec
            ok_name = any((alt.startswith("~") and alt[1:] in (s["name"] or "")) or s["name"] == alt
                          for alt in name.split("|"))
            ok_version = s["version"] is None if version == "null" else s["version"] == version
            ok_flavour = flavour == "*" or s["flavour"] in flavour.split("|")
            ok_source = source == "*" or any(path_ends(s["source"], alt) for alt in source.split("|"))
            return ok_name and ok_version and ok_flavour and ok_source

        unmatched_specs = ["@".join(sp) for sp in specs if not any(fits(s, sp) for s in sdks)]
        unmatched_sdks = [s for s in sdks if not any(fits(s, sp) for sp in specs)]
        count_ok = a.cast_sdk_slices or len(sdks) == len(specs)
        say(not unmatched_specs and not unmatched_sdks and count_ok,
            f"{L}: castSdk is " + "; ".join(a.cast_sdk) + (" (one or more entries each)" if a.cast_sdk_slices else ""),
            f"got {short(sdks, 500)}")
    ids = [x for t in targets for x in t["appIds"]]
    for spec in a.app_id:
        want_id, how, srcs = spec.split("@")
        hits = [x for x in ids if str(x["id"]).upper() == want_id.upper()]
        good = any(x["how"] == how and any(path_ends(x["source"], s) for s in srcs.split("|")) for x in hits)
        say(good, f"{L}: appIds has {want_id} ({how}) at {' or '.join(srcs.split('|'))}", f"got {short(ids, 400)}")
    if a.app_ids_exact:
        want = {s.split("@")[0].upper() for s in a.app_id}
        got = {str(x["id"]).upper() for x in ids}
        say(got == want, f"{L}: no other app ID in appIds (comments, Pods/, Carthage/, build/, DerivedData/ "
            f"are not read)", f"got {sorted(got)}, want {sorted(want)}")
    if a.discovery:
        want = [[None if v == "null" else v == "true" for v in part.split("|")] for part in a.discovery.split(",")]
        got = [t0["discovery"].get("autostartDisabled"), t0["discovery"].get("afterFirstTap")] if t0 else None
        good = got is not None and all(any(g is w for w in ws) for g, ws in zip(got, want))
        say(good, f"{L}: discovery is autostartDisabled {a.discovery.split(',')[0]}, "
            f"afterFirstTap {a.discovery.split(',')[1]}", f"got {got}")

    # --- details and subjects
    by_code = {}
    for f in findings:
        if isinstance(f, dict):
            by_code.setdefault(f.get("code"), []).append(f)
    check_details(L, by_code, a.detail)
    for spec in a.subject:
        code, _, want = spec.partition("=")
        got = [x for f in by_code.get(code, []) for x in f.get("subjects", {}).get("appIds", [])]
        say(any(str(x).upper() == want.upper() for x in got), f"{L}: {code} names app ID {want} in subjects.appIds",
            f"subjects.appIds {got}" if code in by_code else f"no {code}")


def check_details(L, by_code, specs):
    for spec in specs:
        code, _, words = spec.partition("=")
        texts = [f.get("detail", "") for f in by_code.get(code, [])]
        good = any(w.lower() in t.lower() for t in texts for w in words.split("|"))
        say(good, f"{L}: the detail of {code} mentions {' or '.join(words.split('|'))}",
            short(texts[0], 300) if texts else f"no {code}")


def check_text(L, path, findings, worst):
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        say(False, f"{L}: the text output can be read", str(e))
        return
    lines = text.splitlines()
    first = lines[0] if lines else ""
    want = {"error": "FAIL: ", "warning": "WARN: ", "info": "OK: "}[worst]
    say(first.startswith(want), f"{L}: text verdict line starts {want.strip()}", repr(first[:160]))
    listed = [m.group(1) for m in (re.match(r"^\s*\* ([A-Z][A-Z0-9_]+):", x) for x in lines) if m]
    json_codes = sorted(f.get("code") for f in findings if isinstance(f, dict))
    say(sorted(listed) == json_codes, f"{L}: the text lists each finding as `* CODE: title`, as the JSON has them",
        f"text {sorted(listed)}, JSON {json_codes}")
    rank = {"error": 0, "warning": 1, "info": 2}
    sev = {f.get("code"): rank.get(f.get("severity"), 3) for f in findings if isinstance(f, dict)}
    order = [sev.get(c, 3) for c in listed]
    say(order == sorted(order), f"{L}: the text lists errors, then warnings, then infos", f"order {listed}")


def check_analyze(a):
    L = a.label
    for e in a.err:
        try:
            text = open(e, encoding="utf-8", errors="replace").read()
        except OSError:
            text = ""
        say(text == "", f"{L}: nothing on stderr", short(text, 200))
    say(a.json_rc == (a.rc if a.rc is not None else 0), f"{L}: exits {a.rc if a.rc is not None else 0}",
        f"exit {a.json_rc}")
    doc = load_json(L, a.json)
    if doc is None:
        return
    findings = [f for f in doc.get("findings", []) if isinstance(f, dict)]
    by_code = {}
    for f in findings:
        by_code.setdefault(f.get("code"), []).append(f)
    for spec in a.finding:
        code, _, sev = spec.partition("=")
        got = [f.get("severity") for f in by_code.get(code, [])]
        say(any(s in sev.split("|") for s in got), f"{L}: {code} ({sev})", f"got {got or 'none'}; codes {sorted(by_code)}")
    for code in a.no_finding:
        say(code not in by_code, f"{L}: no {code}", short(by_code.get(code), 300))
    check_details(L, by_code, a.detail)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("doc")
    z = sub.add_parser("analyze")
    for x in (d, z):
        x.add_argument("label")
        x.add_argument("--json", required=True)
        x.add_argument("--json-rc", type=int, required=True)
        x.add_argument("--err", action="append", default=[])
        x.add_argument("--rc", type=int)
        x.add_argument("--detail", action="append", default=[])
    d.add_argument("--text")
    d.add_argument("--text-rc", type=int)
    d.add_argument("--input")
    d.add_argument("--kind", choices=KINDS)
    d.add_argument("--codes", action="append", default=[])
    d.add_argument("--severity", action="append", default=[])
    d.add_argument("--targets", type=int)
    d.add_argument("--target", action="append", default=[])
    d.add_argument("--cast-sdk", action="append", default=[])
    d.add_argument("--cast-sdk-slices", action="store_true")
    d.add_argument("--no-cast-sdk", action="store_true")
    d.add_argument("--app-id", action="append", default=[])
    d.add_argument("--app-ids-exact", action="store_true")
    d.add_argument("--discovery")
    d.add_argument("--subject", action="append", default=[])
    z.add_argument("--finding", action="append", default=[])
    z.add_argument("--no-finding", action="append", default=[])
    args = ap.parse_args()
    for spec in getattr(args, "cast_sdk", []):
        if spec.count("@") != 3:
            ap.error(f"--cast-sdk {spec!r}: want NAME@VERSION@FLAVOUR@SOURCE")
    for spec in getattr(args, "app_id", []):
        if spec.count("@") != 2:
            ap.error(f"--app-id {spec!r}: want ID@HOW@SOURCE")
    try:
        (check_doc if args.cmd == "doc" else check_analyze)(args)
    except Exception as e:  # a crash of the checker is a failed check, not a silent pass
        import traceback
        traceback.print_exc(file=sys.stdout)
        say(False, f"{args.label}: {args.cmd} checks ran to the end", f"{type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
