#!/usr/bin/env python3
"""Real-world acceptance: castscope's verdict on every public capture in ../shared/captures/external.

Tests/realworld/EXPECTED holds, for every capture there, a reviewed expectation:

    # why: one line from the frames, saying what the capture shows
    # tshark: the command that shows it
    ndpi/wechat.pcap  verdict=fail clients=2 devices=0 other=0 findings=QUERIES_UNANSWERED:error

`findings` is the set of CODE:severity of every finding (all severities, `-` for none);
`clients` counts hosts (not addresses), `devices` Cast devices, `other` other DIAL devices.
Every capture must have an entry and every entry a capture: a new file in external/ fails
until someone reviews it. Any difference fails, and the output says what changed.

    check.py CASTSCOPE EXTERNAL_DIR EXPECTED        compare
    check.py --print CASTSCOPE EXTERNAL_DIR         print the current values (to review, not to paste blindly)
"""

import json
import os
import subprocess
import sys

FIELDS = ("verdict", "clients", "devices", "other", "findings")


def observed(castscope, path):
    """The values castscope gives for one capture."""
    run = subprocess.run(
        [castscope, "analyze", "--format", "json", path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120,
    )
    try:
        report = json.loads(run.stdout)
    except ValueError:
        return {"error": f"exit {run.returncode}, no JSON: {run.stderr.decode(errors='replace')[:300]}"}
    findings = report.get("findings", [])
    verdict = report.get("verdict", {}).get("status")
    if verdict is None:  # reports before the verdict object: derive it the same way
        severities = {f["severity"] for f in findings}
        verdict = "fail" if "error" in severities else "warn" if "warning" in severities else "ok"
    codes = sorted({f"{f['code']}:{f['severity']}" for f in findings})
    return {
        "verdict": verdict,
        "clients": str(len(report.get("clients", []))),
        "devices": str(len(report.get("devices", []))),
        "other": str(len(report.get("otherDevices", []))),
        "findings": ",".join(codes) or "-",
    }


def read_expected(path):
    """{capture: ({field: value}, line number)}; comments must precede each entry."""
    entries = {}
    comments = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                comments.append(line)
                continue
            name, *pairs = line.split()
            values = dict(p.split("=", 1) for p in pairs)
            missing = [k for k in FIELDS if k not in values]
            if missing:
                sys.exit(f"{path}:{number}: {name} lacks {', '.join(missing)}")
            if not any(c.startswith("# why:") for c in comments) or not any(
                c.startswith("# tshark:") for c in comments
            ):
                sys.exit(f"{path}:{number}: {name} needs '# why:' and '# tshark:' lines above it")
            if name in entries:
                sys.exit(f"{path}:{number}: {name} listed twice")
            entries[name] = (values, number)
            comments = []
    return entries


def captures(external):
    found = []
    for root, _, files in os.walk(external):
        for name in files:
            if name.endswith((".pcap", ".pcapng", ".cap")):
                found.append(os.path.relpath(os.path.join(root, name), external))
    return sorted(found)


def main(argv):
    if argv[1:2] == ["--print"]:
        castscope, external = argv[2], argv[3]
        for name in captures(external):
            values = observed(castscope, os.path.join(external, name))
            print(name, " ".join(f"{k}={values.get(k, values.get('error'))}" for k in FIELDS))
        return 0
    castscope, external, expected_path = argv[1:4]
    expected = read_expected(expected_path)
    present = captures(external)
    failures = 0
    for name in present:
        if name not in expected:
            print(f"FAIL {name}: not in {expected_path} (review the capture and add an entry)")
            failures += 1
            continue
        want, number = expected[name]
        got = observed(castscope, os.path.join(external, name))
        if "error" in got:
            print(f"FAIL {name}: {got['error']}")
            failures += 1
            continue
        diffs = [f"{k}: expected {want[k]}, got {got[k]}" for k in FIELDS if want[k] != got[k]]
        if diffs:
            print(f"FAIL {name} ({expected_path}:{number}): " + "; ".join(diffs))
            failures += 1
        else:
            print(f"ok   {name}")
    for name in sorted(set(expected) - set(present)):
        print(f"FAIL {name}: listed in {expected_path} but not in {external}")
        failures += 1
    print(f"realworld: {len(present) - failures if failures <= len(present) else 0} of {len(present)} "
          f"captures as expected, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
