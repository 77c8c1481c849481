#!/usr/bin/env python3
"""Checks for Tests/compare/run.sh (python3 stdlib + tshark).

  check_compare.py truth LABEL --a A.pcap --b B.pcap --sender IP --device IP [--nft NFT.json]
                   [--relay-a IP --relay-b IP [--relay-delay MS [--relay-log LOG]]] --out TRUTH.json
      The ground truth of one two-point capture, and its own sanity: A is the sender's eth0,
      B the device's.  Every UDP 5353 frame from the sender must be a Cast query, every one
      from the device a Cast response (as castscope's CastMessageKind defines them), and
      nothing else may be in the captures except the relay's (reflector's) copies.  With
      --nft (`nft -j list table bridge ...` of the loss bridge), the counters must add up to
      the pcaps: A's queries == dropped + passed, B's queries == passed, and the same for the
      answers the other way.  The queries lost are also found frame by frame (a frame of A
      whose bytes B has within 0.3 s is not lost) and must be as many as the drop counter.
      Each capture must begin and end with run.sh's marker (UDP 9, not mDNS), so that every
      Cast message lies inside both captures' spans.
      tshark's counts of `ip.src==...` must agree with this reader.  Writes TRUTH.json with the
      counters and the numbers a `compare` report must give.  Without --nft (the reflector),
      it describes the relay's copies (source, IP TTL, ID, same bytes or not) in `# ` notes and
      in TRUTH.json["reflected"].  With --relay-delay MS (the relay is `mdns_peer.py relay`), it
      checks instead that every sender's query reached B and every device's response reached A
      as the relay's byte-identical copy, exactly one each, MS (up to +100) ms later, and nothing
      was relayed back (and, with --relay-log, that the relay's own counts are those copies);
      TRUTH.json["relayed"] has the delays measured in the pcaps.
  check_compare.py report LABEL REPORT.json TRUTH.json --expect loss|noloss|reflector|delay|nodelay
      `castscope compare --format json` of A B against TRUTH.json (delay/nodelay: across the
      relay, nothing lost, every copy changed in source only, both-directions clock offset, the
      p50 delays, COMPARE_LARGE_DELAY present or absent).
  check_compare.py same LABEL R1.json R2.json
      two reports give the same numbers (e.g. with and without --sender/--device).
  check_compare.py text LABEL REPORT.txt TRUTH.json
      the text report has a line naming both the arrived and the seen count, for the
      queries and for the answers.
  check_compare.py before-after LABEL REPORT.json ANALYZE_A.json ANALYZE_B.json
      mode before-after, and devices/findings appeared, disappeared, resolved as the two
      `castscope analyze --format json` documents say.
  check_compare.py mode LABEL REPORT.json MODE
  check_compare.py schema LABEL SCHEMA.json FILE.json   (needs the jsonschema module)
  check_compare.py exit-status REPORT.json
      prints the exit status `castscope help compare` promises for that report (default
      --fail-on error): 1 if a finding of severity error exists (before-after: one that
      appeared), else 0 (no ok/FAIL line).

Prints one `ok ...` / `FAIL ...` line per check (run.sh counts them), `# ...` notes;
exits 0 even when checks fail, 2 on bad usage.
"""
import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys

from mdns_peer import read_name  # the same directory: one DNS name reader for both scripts

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import say  # noqa: E402  (Tests/lib/checks.py)

# =====================================================================================
# The shape of `castscope compare --format json`, in ONE place.  If the implementation
# names a key differently, change it here (our name -> JSON key); nothing below uses the
# report's JSON keys directly.
K = {
    "mode": "mode", "senders": "senders", "devices": "devices", "clockOffset": "clockOffsetMs",
    "clockOffsetBasis": "clockOffsetBasis", "clockOffsetSpread": "clockOffsetSpreadMs", "matchedPairs": "matchedPairs",
    "queries": "queries", "answers": "answers", "findings": "findings",
    # two-points: queries / answers
    "seen": "seen", "arrived": "arrived", "lost": "lost", "changed": "changed",
    "lostFrames": "lostFrames", "delay": "delayMs", "p50": "p50", "outsideOverlap": "outsideOverlap",
    "sourceChanged": "sourceChanged", "ttlChanged": "ttlChanged", "reencoded": "reencoded",
    "knownAnswersAdded": "knownAnswersAdded",
    # senders[] / devices[]
    "addresses": "addresses", "name": "name", "id": "id",
    # findings[]
    "code": "code", "severity": "severity",
    # before-after: devices.{appeared,disappeared}, findings.{appeared,resolved}
    "appeared": "appeared", "disappeared": "disappeared", "resolved": "resolved",
}
FINDING_KEYS = ("code", "severity", "title", "detail", "advice", "framesA", "framesB")
MODE_TWO, MODE_BA = "two-points", "before-after"
LOST_SEVERITIES = ("warning", "error")
SERVICE = "_googlecast._tcp.local"
DEVICE_NAME = "Living Room TV"
# =====================================================================================

MISSING = object()


def get(d, *path):
    """d[k1][k2]... with our names mapped through K; MISSING when absent."""
    for p in path:
        key = K.get(p, p) if isinstance(p, str) else p
        if isinstance(d, dict) and key in d:
            d = d[key]
        elif isinstance(d, list) and isinstance(key, int) and -len(d) <= key < len(d):
            d = d[key]
        else:
            return MISSING
    return d


def show(v):
    return "missing" if v is MISSING else json.dumps(v)[:200]


def eq(label, what, got, want):
    return say(got == want, f"{label}: {what} == {want}", f"got {show(got)}")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# --------------------------------------------------------------------------- pcap + DNS
class Frame:
    __slots__ = ("no", "t", "src", "dst", "ttl", "ipid", "sport", "dport", "payload", "kind", "dns")


def read_pcap(path):
    """Frames of a classic pcap (Ethernet or Linux cooked), IPv4/UDP decoded; others kept with src None."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: not a pcap file ({len(data)} bytes)")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file (magic {magic.hex()})")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0FFFFFFF
    frames, off, no = [], 24, 0
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        no += 1
        fr = Frame()
        fr.no, fr.t = no, sec + frac / (1e9 if nano else 1e6)
        fr.src = fr.dst = fr.ttl = fr.ipid = fr.sport = fr.dport = fr.payload = fr.kind = fr.dns = None
        if linktype == 1:
            etype, l3 = struct.unpack("!H", pkt[12:14])[0], 14
            while etype in (0x8100, 0x88A8) and len(pkt) >= l3 + 4:
                etype, l3 = struct.unpack("!H", pkt[l3 + 2:l3 + 4])[0], l3 + 4
        elif linktype == 113:
            etype, l3 = struct.unpack("!H", pkt[14:16])[0], 16
        else:
            raise ValueError(f"{path}: link type {linktype} not handled")
        if etype == 0x0800 and len(pkt) >= l3 + 20 and pkt[l3] >> 4 == 4:
            ihl = (pkt[l3] & 15) * 4
            total = struct.unpack("!H", pkt[l3 + 2:l3 + 4])[0]
            fr.ipid = struct.unpack("!H", pkt[l3 + 4:l3 + 6])[0]
            fr.ttl, proto = pkt[l3 + 8], pkt[l3 + 9]
            fr.src, fr.dst = socket.inet_ntoa(pkt[l3 + 12:l3 + 16]), socket.inet_ntoa(pkt[l3 + 16:l3 + 20])
            if proto == 17:
                u = l3 + ihl
                fr.sport, fr.dport, ulen = struct.unpack("!HHH", pkt[u:u + 6])
                fr.payload = bytes(pkt[u + 8:min(u + ulen, l3 + total)])
                fr.dns = parse_dns(fr.payload)
                fr.kind = cast_kind(fr)
        frames.append(fr)
    return frames


TYPES = {1: "A", 12: "PTR", 16: "TXT", 28: "AAAA", 33: "SRV", 47: "NSEC", 255: "ANY"}


def parse_dns(msg):
    """{id, qr, flags, questions [(name, type, qu)], answers/authorities/additionals [(name, type, class, ttl, rdata)]} or None."""
    try:
        ident, flags, qd, an, ns, ar = struct.unpack("!HHHHHH", msg[:12])
        off, d = 12, {"id": ident, "flags": flags, "qr": bool(flags & 0x8000), "questions": []}
        for _ in range(qd):
            n, off = read_name(msg, off)
            t, c = struct.unpack("!HH", msg[off:off + 4])
            off += 4
            d["questions"].append((n, TYPES.get(t, str(t)), bool(c & 0x8000)))
        for sect, count in (("answers", an), ("authorities", ns), ("additionals", ar)):
            d[sect] = []
            for _ in range(count):
                n, off = read_name(msg, off)
                t, c, ttl, rdlen = struct.unpack("!HHIH", msg[off:off + 10])
                off += 10
                rdata = msg[off:off + rdlen]
                if t in (12,):
                    rdata = read_name(msg, off)[0]
                elif t == 33:
                    rdata = (struct.unpack("!HHH", msg[off:off + 6]), read_name(msg, off + 6)[0])
                elif t == 1:
                    rdata = socket.inet_ntoa(rdata)
                else:
                    rdata = bytes(rdata)
                off += rdlen
                d[sect].append((n, TYPES.get(t, str(t)), c, ttl, rdata))
        return d
    except (IndexError, ValueError, struct.error):
        return None


def cast_name(n):
    return n.lower().rstrip(".").endswith(SERVICE.lower())


def cast_kind(fr):
    """'query' / 'response' as castscope's CastMessageKind, else None."""
    d = fr.dns
    if d is None:
        return None
    if not d["qr"]:
        if fr.dport == 5353 and not d["authorities"] and any(cast_name(q[0]) for q in d["questions"]):
            return "query"
        return None
    if fr.sport == 5353 and any(cast_name(r[0]) for s in ("answers", "authorities", "additionals") for r in d[s]):
        return "response"
    return None


def tshark_count(pcap, src):
    """tshark's count of UDP 5353 frames from src."""
    if not shutil.which("tshark"):
        return None
    r = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", f"ip.src=={src} && udp.port==5353"], capture_output=True,
                       text=True, timeout=60)
    return len([ln for ln in r.stdout.splitlines() if ln.strip()])


def nft_counters(path):
    """{comment: packets} of the rules of `nft -j list table ...`."""
    out = {}
    for item in json.load(open(path))["nftables"]:
        rule = item.get("rule")
        if not rule or "comment" not in rule:
            continue
        for e in rule.get("expr", []):
            if isinstance(e, dict) and "counter" in e:
                out[rule["comment"]] = e["counter"]["packets"]
    return out


MARKER_PORT = 9  # run.sh's capture markers (mdns_peer.py marker): UDP 9 -> 9, not mDNS


def is_marker(f):
    return f.sport == MARKER_PORT and f.dport == MARKER_PORT


def pair_lost(a_frames, b_frames, window=0.3):
    """The frames of a_frames with no frame of b_frames of the same bytes within `window` s (each used once)."""
    used, lost = set(), []
    for fa in a_frames:
        best = None
        for fb in b_frames:
            if fb.no in used or fb.payload != fa.payload:
                continue
            dt = abs(fb.t - fa.t)
            if dt <= window and (best is None or dt < abs(best.t - fa.t)):
                best = fb
        if best is None:
            lost.append(fa.no)
        else:
            used.add(best.no)
    return lost


def describe(d):
    """A short line for a DNS message."""
    if d is None:
        return "not DNS"
    qs = ", ".join(f"{n} {t}{' QU' if qu else ''}" for n, t, qu in d["questions"])
    rs = {s: len(d[s]) for s in ("answers", "authorities", "additionals")}
    return (f"id {d['id']} flags 0x{d['flags']:04x} questions [{qs}] "
            f"an/ns/ar {rs['answers']}/{rs['authorities']}/{rs['additionals']}")


# --------------------------------------------------------------------------- truth
def cmd_truth(a):
    L = a.label
    A, B = read_pcap(a.a), read_pcap(a.b)
    relays = {x for x in (a.relay_a, a.relay_b) if x}
    allowed = {a.sender, a.device} | relays
    truth = {"scenario": L, "sender": a.sender, "device": a.device, "files": {"A": a.a, "B": a.b}}

    for tag, frames in (("A", A), ("B", B)):
        bad = [f.no for f in frames if f.src is None or f.sport is None]
        say(not bad, f"{L}: {tag} ({os.path.basename(getattr(a, tag.lower()))}, {len(frames)} frames) "
            f"holds only IPv4 UDP", f"frames {bad[:10]}")
        mdns = [f for f in frames if not is_marker(f)]
        say(bool(mdns) and is_marker(frames[0]) and is_marker(frames[-1]) and frames[0].t < mdns[0].t
            and frames[-1].t - mdns[-1].t >= 1.0,
            f"{L}: {tag}: a marker is its first and its last frame (>= 1 s after the last mDNS one), so "
            "every message is inside both captures' spans",
            f"first {frames[0].no if frames else '-'}, last {frames[-1].no if frames else '-'}")
        frames = mdns
        bad = [f.no for f in frames if 5353 not in (f.sport, f.dport)]
        say(not bad, f"{L}: {tag}: every other frame is UDP 5353", f"frames {bad[:10]}")
        others = sorted({f.src for f in frames if f.src and f.src not in allowed})
        say(not others, f"{L}: {tag} has no source but {sorted(allowed)}", f"also {others}")
        wrong_q = [f.no for f in frames if f.src == a.sender and f.kind != "query"]
        say(not wrong_q, f"{L}: {tag}: every frame from the sender {a.sender} is a Cast query",
            f"frames {wrong_q[:10]}")
        wrong_r = [f.no for f in frames if f.src == a.device and f.kind != "response"]
        say(not wrong_r, f"{L}: {tag}: every frame from the device {a.device} is a Cast response",
            f"frames {wrong_r[:10]}")
        for who in sorted({a.sender, a.device} | relays):
            n = sum(1 for f in frames if f.src == who and 5353 in (f.sport, f.dport))
            tn = tshark_count(getattr(a, tag.lower()), who)
            if tn is not None:
                say(tn == n, f"{L}: {tag}: tshark counts {tn} UDP 5353 frames from {who}, as this reader does",
                    f"reader {n}")

    q_a = [f for f in A if f.src == a.sender and f.kind == "query"]
    q_b = [f for f in B if f.src == a.sender and f.kind == "query"]
    r_b = [f for f in B if f.src == a.device and f.kind == "response"]
    r_a = [f for f in A if f.src == a.device and f.kind == "response"]
    truth["pcaps"] = {"A": {"queriesFromSender": len(q_a), "responsesFromDevice": len(r_a)},
                      "B": {"queriesFromSender": len(q_b), "responsesFromDevice": len(r_b)}}
    for tag, frames in (("A", A), ("B", B)):
        for rl in sorted(relays):
            truth["pcaps"][tag][f"from {rl}"] = {
                "queries": sum(1 for f in frames if f.src == rl and f.kind == "query"),
                "responses": sum(1 for f in frames if f.src == rl and f.kind == "response"),
                "other": sum(1 for f in frames if f.src == rl and f.kind is None)}
    distinct = len({f.payload for f in q_a})
    print(f"# {L}: A: {len(q_a)} queries from {a.sender} ({distinct} distinct payloads), "
          f"{len(r_a)} responses from {a.device}; B: {len(q_b)} queries, {len(r_b)} responses", flush=True)

    if a.nft:
        c = nft_counters(a.nft)
        truth["counters"] = c
        need = ("queries-dropped", "queries-passed", "answers-dropped", "answers-passed")
        if not say(all(k in c for k in need), f"{L}: the nft table has the four counters", f"got {c}"):
            json.dump(truth, open(a.out, "w"), indent=2)
            return
        qd, qp, ad, ap = (c[k] for k in need)
        print(f"# {L}: nft counters: queries {qd} dropped + {qp} passed, answers {ad} dropped + {ap} passed",
              flush=True)
        say(len(q_a) == qd + qp, f"{L}: A's {len(q_a)} queries == dropped {qd} + passed {qp}")
        say(len(q_b) == qp, f"{L}: B's {len(q_b)} queries == passed {qp}")
        say(len(r_b) == ad + ap, f"{L}: B's {len(r_b)} responses == dropped {ad} + passed {ap}")
        say(len(r_a) == ap, f"{L}: A's {len(r_a)} responses == passed {ap}")
        lost = pair_lost(q_a, q_b)
        say(len(lost) == qd, f"{L}: the queries of A with no copy in B within 0.3 s are as many as dropped ({qd})",
            f"{len(lost)}: frames {lost[:20]}")
        lost_r = pair_lost(r_b, r_a)
        say(len(lost_r) == ad, f"{L}: the responses of B with no copy in A within 0.3 s are as many as "
            f"dropped ({ad})", f"{len(lost_r)}")
        # The device sends the same bytes each time: of two copies less than 0.3 s apart either may
        # be the one lost, so lostFrames may name either of those.
        twins = sorted({f.no for f in r_b for g in r_b if f is not g and abs(f.t - g.t) < 0.3})
        truth["expected"] = {
            "queries": {"seen": qd + qp, "arrived": qp, "lost": qd, "lostFrames": lost},
            "answers": {"seen": ad + ap, "arrived": ap, "lost": ad, "lostFrames": lost_r, "ambiguousFrames": twins},
        }
    elif a.relay_delay is not None:
        truth["relayed"] = relayed(L, a, A, B, q_a, r_b, q_b, r_a)
        if a.relay_log:
            check_relay_log(L, a.relay_log, truth["relayed"])
        truth["expected"] = {side: {k: truth["relayed"][side][k] for k in (
            "seen", "arrived", "lost", "sourceChanged", "ttlChanged", "delayP50Ms")} for side in ("queries", "answers")}
    else:
        truth["expected"] = {"queries": {"seen": len(q_a)}, "answers": {"seen": len(r_b)}}
        truth["reflected"] = reflected(L, a, A, B, q_a, r_b)
    json.dump(truth, open(a.out, "w"), indent=2)


def nearest_rank(values, p):
    """The p quantile (0..1) by nearest rank, as compare's delay summary; None for no values."""
    s = sorted(values)
    if not s:
        return None
    return s[max(0, min(len(s) - 1, -(-int(p * 100) * len(s) // 100) - 1))]


def check_relay_log(L, path, rel):
    """The relay's own count (`relayed a->b N, b->a M, own K, late max X ms`, its last line) against the pcaps."""
    import re
    lines = [ln for ln in open(path, errors="replace").read().splitlines() if ln.startswith("relayed ")]
    m = re.match(r"relayed a->b (\d+), b->a (\d+), own (\d+), late max ([\d.]+) ms", lines[-1] if lines else "")
    if not say(bool(m), f"{L}: the relay printed its counts", f"log {os.path.basename(path)}: {lines[-1:]}"):
        return
    ab, ba, own, late = int(m[1]), int(m[2]), int(m[3]), float(m[4])
    say(ab == rel["queries"]["copies"] and ba == rel["answers"]["copies"],
        f"{L}: the relay's counts (a->b {ab}, b->a {ba}) are the copies in the pcaps",
        f"pcaps: {rel['queries']['copies']} in B, {rel['answers']['copies']} in A")
    say(own == 0, f"{L}: the relay heard none of its own packets (IP_MULTICAST_LOOP 0)", f"own {own}")
    print(f"# {L}: relay: a->b {ab}, b->a {ba}, own {own}, at most {late} ms after the due time", flush=True)


def relayed(L, a, A, B, q_a, r_b, q_b, r_a):
    """The user-space relay (mdns_peer.py relay): the truth is that every message crossed.

    Checks, in the pcaps, that the sender's queries reach B only as the relay's copies (from
    relay_b) and the device's responses reach A only as copies from relay_a; that every copy is
    the SAME bytes as an original; that each original has exactly one copy (per payload, the
    k-th copy is the k-th original's: the relay is FIFO with one fixed delay), sent
    --relay-delay ms later (up to +100 ms of scheduling); that nothing is relayed back onto the
    side it came from (no relay copy of a response in B, of a query in A) and no copy is relayed
    again.  Returns per direction: seen = arrived = originals, lost 0, the delays and their p50.
    """
    d_ms, slack = a.relay_delay, 100.0
    out = {}
    say(not q_b, f"{L}: B holds none of the sender's own packets (another subnet: only the relay's copies)",
        f"{len(q_b)}")
    say(not r_a, f"{L}: A holds none of the device's own packets (another subnet: only the relay's copies)",
        f"{len(r_a)}")
    for what, kind, orig, here, there, relay in (
            ("queries", "query", q_a, A, B, a.relay_b),
            ("answers", "response", r_b, B, A, a.relay_a)):
        copies = [f for f in there if f.src == relay]
        wrong = [f.no for f in copies if f.kind != kind]
        say(not wrong, f"{L}: {what}: every frame from {relay} on the far side is a Cast {kind} (nothing relayed "
            "back onto the side it came from)", f"frames {wrong[:10]}")
        # (a copy sent back onto the originals' side would come from back_relay there, and fail the
        # other direction's "every frame from ..." check; from this address it would be misrouted)
        back = [f.no for f in here if f.src == relay]
        say(not back, f"{L}: {what}: no frame from {relay} on the originals' side", f"frames {back[:10]}")
        foreign = [f.no for f in copies if f.payload not in {o.payload for o in orig}]
        say(not foreign, f"{L}: {what}: every copy from {relay} has the same bytes as one of the originals",
            f"frames {foreign[:10]}")
        # FIFO per payload: the k-th copy of a payload is the k-th original's
        by_payload = {}
        for o in orig:
            by_payload.setdefault(o.payload, ([], []))[0].append(o)
        for c in copies:
            if c.payload in by_payload:
                by_payload[c.payload][1].append(c)
        pairs, unpaired, extra = [], [], []
        for os_, cs in by_payload.values():
            pairs += list(zip(os_, cs))
            unpaired += [o.no for o in os_[len(cs):]]
            extra += [c.no for c in cs[len(os_):]]
        say(not unpaired and not extra and len(copies) == len(orig),
            f"{L}: {what}: each of the {len(orig)} originals has exactly one copy from {relay} ({len(copies)})",
            f"originals without copy {unpaired[:10]}, extra copies {extra[:10]}")
        delays = sorted(round((c.t - o.t) * 1000, 3) for o, c in pairs)
        bad = [(o.no, c.no, round((c.t - o.t) * 1000, 3)) for o, c in pairs
               if not d_ms - 1.0 <= (c.t - o.t) * 1000 <= d_ms + slack]
        say(not bad, f"{L}: {what}: every copy was sent {d_ms:g} ms after its original (up to +{slack:g} ms)",
            f"(frame A/B, ms) {bad[:8]}")
        ttl_changed = sum(1 for o, c in pairs if o.ttl != c.ttl)
        say(all(c.ttl == 255 for c in copies) and all(c.sport == 5353 and c.dst == "224.0.0.251" for c in copies),
            f"{L}: {what}: the copies go from {relay}:5353 to 224.0.0.251:5353 with IP TTL 255",
            f"TTLs {sorted({c.ttl for c in copies})}, ports {sorted({c.sport for c in copies})}, "
            f"to {sorted({c.dst for c in copies})}")
        p50 = nearest_rank(delays, 0.5)
        out[what] = {
            "relay": relay, "originals": len(orig), "copies": len(copies),
            "seen": len(orig), "arrived": len(pairs), "lost": len(orig) - len(pairs),
            "sourceChanged": sum(1 for o, c in pairs if o.src != c.src), "ttlChanged": ttl_changed,
            "delaysMs": delays, "delayP50Ms": p50,
        }
        print(f"# {L}: {what}: {len(orig)} originals, {len(copies)} byte-identical copies from {relay}, "
              f"delay (pcaps) min {delays[0] if delays else '-'} p50 {p50 if p50 is not None else '-'} "
              f"p90 {nearest_rank(delays, 0.9) if delays else '-'} max {delays[-1] if delays else '-'} ms, "
              f"IP TTL {sorted({c.ttl for c in copies})} (originals {sorted({o.ttl for o in orig})})", flush=True)
    return out


def reflected(L, a, A, B, q_a, r_b):
    """What the relay did: for the sender's queries (A -> B) and the device's responses (B -> A)."""
    out = {}
    for what, orig, other, relay in (("queries", q_a, B, a.relay_b), ("responses", r_b, A, a.relay_a)):
        copies = [f for f in other if f.src == relay]
        kind = "query" if what == "queries" else "response"
        same = [f for f in copies if any(f.payload == o.payload for o in orig)]
        info = {
            "relay": relay, "originals": len(orig), "copies": len(copies),
            "copiesOfKind": sum(1 for f in copies if f.kind == kind),
            "copiesOtherKind": [describe(f.dns) for f in copies if f.kind != kind][:5],
            "byteIdenticalCopies": len(same),
            "ipTTLs": sorted({f.ttl for f in copies}), "originalIpTTLs": sorted({f.ttl for f in orig}),
            "sourcePorts": sorted({f.sport for f in copies}),
            "dnsIDs": sorted({f.dns["id"] for f in copies if f.dns})[:20],
            "originalDnsIDs": sorted({f.dns["id"] for f in orig if f.dns})[:20],
            "delaysMs": [],
            # copies that carry records in the answer section: for queries, known answers
            "copiesWithAnswers": sum(1 for f in copies if f.kind == kind and f.dns and f.dns["answers"]),
            "knownAnswerTTLs": sorted({r[3] for f in copies if f.kind == kind and f.dns and not f.dns["qr"]
                                       for r in f.dns["answers"]}),
            "originalsWithoutCopy": [],
        }
        # each original's nearest later copy of the same kind (by time only), for the delay
        for o in orig:
            later = [f for f in copies if f.kind == kind and 0 <= f.t - o.t <= 2.0]
            if later and later[0].t - o.t <= 0.05:
                info["delaysMs"].append(round((later[0].t - o.t) * 1000, 3))
            else:
                info["originalsWithoutCopy"].append(o.no)
        if orig:
            info["exampleOriginal"] = describe(orig[0].dns)
            info["exampleOriginalHex"] = orig[0].payload.hex()
        ex = [f for f in copies if f.kind == kind]
        if ex:
            info["exampleCopy"] = describe(ex[0].dns)
            info["exampleCopyHex"] = ex[0].payload.hex()
            info["exampleCopyRecords"] = [
                f"{s[:2]} {r[0]} {r[1]} class 0x{r[2]:04x} ttl {r[3]}"
                for s in ("answers", "authorities", "additionals") for r in ex[0].dns[s]] if ex[0].dns else []
        d = sorted(info["delaysMs"])
        print(f"# {L}: {what}: {len(orig)} originals, {len(copies)} copies from {relay} "
              f"({info['copiesOfKind']} Cast {what}, {len(same)} byte-identical to an original), "
              f"IP TTL of copies {info['ipTTLs']} (originals {info['originalIpTTLs']}), "
              f"DNS IDs of copies {info['dnsIDs'][:8]} (originals {info['originalDnsIDs'][:8]}), "
              f"delay p50 {d[len(d) // 2] if d else '-'} ms", flush=True)
        print(f"# {L}:   {len(info['originalsWithoutCopy'])} originals have no copy within 50 ms "
              f"(frames {info['originalsWithoutCopy'][:12]}); {info['copiesWithAnswers']} copies carry "
              f"answer-section records" + (f" (known answers, TTL {info['knownAnswerTTLs']})"
                                           if info["knownAnswerTTLs"] else ""), flush=True)
        if orig:
            print(f"# {L}:   original: {info['exampleOriginal']}", flush=True)
        if ex:
            print(f"# {L}:   copy:     {info['exampleCopy']}", flush=True)
            for line in info["exampleCopyRecords"]:
                print(f"# {L}:     {line}", flush=True)
        out[what] = info
    say(out["queries"]["copiesOfKind"] >= 1, f"{L}: the relay {a.relay_b} sent copies of the sender's queries to B")
    say(out["responses"]["copiesOfKind"] >= 1, f"{L}: the relay {a.relay_a} sent copies of the device's responses to A")
    return out


# --------------------------------------------------------------------------- report
def finding_codes(r):
    f = get(r, "findings")
    return [get(x, "code") for x in f] if isinstance(f, list) else []


def check_findings_shape(L, r):
    f = get(r, "findings")
    if not say(isinstance(f, list), f"{L}: findings is a list", f"got {show(f)}"):
        return
    bad = [(get(x, "code"), [k for k in FINDING_KEYS if not isinstance(x, dict) or k not in x]) for x in f]
    bad = [b for b in bad if b[1]]
    say(not bad, f"{L}: every finding has {', '.join(FINDING_KEYS)}", f"missing {bad[:5]}")
    frames_bad = [get(x, "code") for x in f if isinstance(x, dict) and not all(
        isinstance(x.get(k), list) and all(is_int(n) for n in x.get(k)) for k in ("framesA", "framesB"))]
    say(not frames_bad, f"{L}: every finding's framesA/framesB are lists of frame numbers", f"{frames_bad[:5]}")


def has_finding(L, r, code, severities=None):
    f = get(r, "findings")
    hits = [x for x in f if get(x, "code") == code] if isinstance(f, list) else []
    if not hits:
        return say(False, f"{L}: findings has {code}", f"codes {finding_codes(r)}")
    if severities:
        sev = get(hits[0], "severity")
        return say(sev in severities, f"{L}: finding {code} (severity {'/'.join(severities)})", f"severity {show(sev)}")
    return say(True, f"{L}: findings has {code}")


def no_finding(L, r, code):
    return say(code not in finding_codes(r), f"{L}: findings has no {code}", f"codes {finding_codes(r)}")


def check_roles(L, r, t):
    s = get(r, "senders")
    ok_s = isinstance(s, list) and len(s) == 1 and t["sender"] in (get(s[0], "addresses") or [])
    say(ok_s, f"{L}: senders has one entry, with address {t['sender']}", f"got {show(s)}")
    d = get(r, "devices")
    ok_d = isinstance(d, list) and len(d) == 1 and t["device"] in (get(d[0], "addresses") or [])
    say(ok_d, f"{L}: devices has one entry, with address {t['device']}", f"got {show(d)}")
    if isinstance(d, list) and d:
        eq(L, "devices[0].name", get(d[0], "name"), DEVICE_NAME)


def cmd_report(a):
    L = a.label
    r = json.load(open(a.report))
    t = json.load(open(a.truth))
    e = t["expected"]
    eq(L, "mode", get(r, "mode"), MODE_TWO)
    check_findings_shape(L, r)
    if a.expect == "reflector":
        qa, aa = get(r, "queries", "arrived"), get(r, "answers", "arrived")
        say(is_int(qa) and qa >= 1, f"{L}: queries.arrived >= 1", f"got {show(qa)}")
        say(is_int(aa) and aa >= 1, f"{L}: answers.arrived >= 1", f"got {show(aa)}")
        qc, ac = get(r, "queries", "changed"), get(r, "answers", "changed")
        say(is_int(qc) and is_int(ac) and qc + ac >= 1, f"{L}: queries.changed + answers.changed >= 1 "
            "(the reflected copies have the reflector's source address)", f"got {show(qc)} + {show(ac)}")
        has_finding(L, r, "COMPARE_REFLECTOR")
        print(f"# {L}: report: queries {show(get(r, 'queries'))}", flush=True)
        print(f"# {L}: report: answers {show(get(r, 'answers'))}", flush=True)
        print(f"# {L}: report: findings {finding_codes(r)}", flush=True)
        return
    if a.expect in ("delay", "nodelay"):
        check_relay(L, r, t, a.expect == "delay")
        return
    for side in ("queries", "answers"):
        for k in ("seen", "arrived", "lost"):
            eq(L, f"{side}.{k} (nft counters)", get(r, side, k), e[side][k])
        eq(L, f"{side}.changed (one L2 segment, no relay)", get(r, side, "changed"), 0)
        p50 = get(r, side, "delay", "p50")
        say(is_num(p50) and 0 <= p50 < 50, f"{L}: {side}.delayMs.p50 in [0, 50)", f"got {show(p50)}")
    eq(L, "queries.seen == the sender's packets in A", get(r, "queries", "seen"), t["pcaps"]["A"]["queriesFromSender"])
    eq(L, "answers.seen == the device's packets in B", get(r, "answers", "seen"), t["pcaps"]["B"]["responsesFromDevice"])
    lf = get(r, "queries", "lostFrames")
    if say(isinstance(lf, list) and all(is_int(n) for n in lf), f"{L}: queries.lostFrames is a list of frame numbers",
           f"got {show(lf)}"):
        eq(L, "len(queries.lostFrames) == queries.lost", len(lf), get(r, "queries", "lost"))
        A = read_pcap(t["files"]["A"])
        from_sender = {f.no for f in A if f.src == t["sender"]}
        bad = [n for n in lf if n not in from_sender]
        say(not bad, f"{L}: every lost frame is a frame of A from {t['sender']}", f"not: {bad[:10]}")
        want = sorted(e["queries"]["lostFrames"])
        say(sorted(lf) == want, f"{L}: queries.lostFrames are the frames of A that B has no copy of",
            f"got {sorted(lf)[:20]}, want {want[:20]}")
    lf = get(r, "answers", "lostFrames")
    if say(isinstance(lf, list) and all(is_int(n) for n in lf), f"{L}: answers.lostFrames is a list of frame numbers",
           f"got {show(lf)}"):
        eq(L, "len(answers.lostFrames) == answers.lost", len(lf), get(r, "answers", "lost"))
        want, twins = set(e["answers"]["lostFrames"]), set(e["answers"].get("ambiguousFrames", []))
        odd = sorted(set(lf) ^ want)
        say(set(odd) <= twins, f"{L}: answers.lostFrames are the frames of B that A has no copy of "
            f"(up to {len(twins)} frames sent < 0.3 s after an identical one)", f"differ: {odd[:20]}")
    for side in ("queries", "answers"):
        v = get(r, side, "outsideOverlap")
        if v is not MISSING:
            eq(L, f"{side}.outsideOverlap (the captures are bracketed by markers)", v, 0)
    off = get(r, "clockOffset")
    say(is_num(off) and abs(off) < 50, f"{L}: |clockOffsetMs| < 50 (one kernel clock)", f"got {show(off)}")
    check_roles(L, r, t)
    if a.expect == "loss":
        # The severity follows docs/compare.md from the counters: nothing arrived is an error,
        # 20 % or more a warning, less a note (or a warning when the last ones all died).
        for side, code in (("queries", "COMPARE_QUERIES_LOST"), ("answers", "COMPARE_ANSWERS_LOST")):
            seen, lost = e[side]["seen"], e[side]["lost"]
            if lost == 0:
                no_finding(L, r, code)
            elif lost == seen:
                has_finding(L, r, code, ("error",))
            elif lost * 100 >= 20 * seen:
                has_finding(L, r, code, LOST_SEVERITIES)
            else:
                has_finding(L, r, code, ("info", "warning"))
    else:
        has_finding(L, r, "COMPARE_OK")
        no_finding(L, r, "COMPARE_QUERIES_LOST")
        no_finding(L, r, "COMPARE_ANSWERS_LOST")


DELAY_P50_MS = (280, 400)  # the relay's 300 ms plus scheduling
NODELAY_P50_MS = 50        # the same relay with --delay-ms 0
DELAY_VS_PCAP_MS = 5       # compare's p50 against the pcaps' (both directions: off by half their difference)


def check_relay(L, r, t, delayed):
    """Across mdns_peer.py relay (same bytes, other source, a fixed delay): everything arrived."""
    e = t["expected"]
    for side in ("queries", "answers"):
        seen, arrived = get(r, side, "seen"), get(r, side, "arrived")
        eq(L, f"{side}.seen (the originals in the pcaps)", seen, e[side]["seen"])
        say(is_int(arrived) and arrived == seen, f"{L}: {side}.arrived == {side}.seen (nothing lost)",
            f"arrived {show(arrived)}, seen {show(seen)}")
        eq(L, f"{side}.arrived (every original has its copy in the pcaps)", arrived, e[side]["arrived"])
        eq(L, f"{side}.lost", get(r, side, "lost"), 0)
        v = get(r, side, "outsideOverlap")
        if v is not MISSING:
            eq(L, f"{side}.outsideOverlap (the captures are bracketed by markers)", v, 0)
        for k in ("changed", "sourceChanged"):
            say(is_int(get(r, side, k)) and get(r, side, k) == arrived,
                f"{L}: {side}.{k} == {side}.arrived (every copy from the relay's address)",
                f"{k} {show(get(r, side, k))}, arrived {show(arrived)}")
        eq(L, f"{side}.reencoded (the relay keeps the bytes)", get(r, side, "reencoded"), 0)
        eq(L, f"{side}.ttlChanged (IP TTL 255 before and after the relay)", get(r, side, "ttlChanged"),
           e[side]["ttlChanged"])
        v = get(r, side, "knownAnswersAdded")
        if v is not MISSING:
            eq(L, f"{side}.knownAnswersAdded", v, 0)
        p50, truth = get(r, side, "delay", "p50"), e[side]["delayP50Ms"]
        if delayed:
            lo, hi = DELAY_P50_MS
            say(is_num(p50) and lo <= p50 <= hi, f"{L}: {side}.delayMs.p50 in [{lo}, {hi}]", f"got {show(p50)}")
        else:
            say(is_num(p50) and 0 <= p50 < NODELAY_P50_MS, f"{L}: {side}.delayMs.p50 in [0, {NODELAY_P50_MS})",
                f"got {show(p50)}")
        say(is_num(p50) and truth is not None and abs(p50 - truth) <= DELAY_VS_PCAP_MS,
            f"{L}: {side}.delayMs.p50 within {DELAY_VS_PCAP_MS} ms of the pcaps' p50 ({truth} ms)",
            f"got {show(p50)}")
        print(f"# {L}: report: {side} delayMs {show(get(r, side, 'delay'))}", flush=True)
    basis = get(r, "clockOffsetBasis")
    eq(L, "clockOffsetBasis", basis, "both-directions")
    off = get(r, "clockOffset")
    say(is_num(off) and abs(off) < 50, f"{L}: |clockOffsetMs| < 50 (one kernel clock)", f"got {show(off)}")
    check_roles(L, r, t)
    has_finding(L, r, "COMPARE_REFLECTOR", ("info",))
    if delayed:
        has_finding(L, r, "COMPARE_LARGE_DELAY", ("warning",))
    else:
        no_finding(L, r, "COMPARE_LARGE_DELAY")
    no_finding(L, r, "COMPARE_QUERIES_LOST")
    no_finding(L, r, "COMPARE_ANSWERS_LOST")
    has_finding(L, r, "COMPARE_OK")
    print(f"# {L}: report: clockOffsetMs {show(off)}, spread {show(get(r, 'clockOffsetSpread'))}, "
          f"basis {show(basis)}, matchedPairs {show(get(r, 'matchedPairs'))}; findings {finding_codes(r)}", flush=True)


def numbers(r):
    out = {"mode": get(r, "mode")}
    for side in ("queries", "answers"):
        for k in ("seen", "arrived", "lost", "changed", "lostFrames"):
            out[f"{side}.{k}"] = get(r, side, k)
    out["findings"] = sorted(str(c) for c in finding_codes(r))
    return out


def cmd_same(a):
    n1, n2 = numbers(json.load(open(a.r1))), numbers(json.load(open(a.r2)))
    diff = {k: (n1[k], n2[k]) for k in n1 if n1[k] != n2[k]}
    say(not diff, f"{a.label}: the same numbers ({', '.join(k for k in n1 if k != 'findings')}) and finding codes",
        f"differ: {str(diff)[:300]}")


def cmd_text(a):
    import re
    L = a.label
    text = open(a.report, encoding="utf-8", errors="replace").read()
    e = json.load(open(a.truth))["expected"]
    lines = text.splitlines()
    for side in ("queries", "answers"):
        arrived, seen = e[side]["arrived"], e[side]["seen"]
        hits = [ln for ln in lines if re.search(rf"(?<!\d){arrived}(?!\d)", ln) and re.search(rf"(?<!\d){seen}(?!\d)", ln)]
        say(bool(hits), f"{L}: a line names the {side} arrived ({arrived}) and seen ({seen})",
            f"none in {len(lines)} lines")
        if hits:
            print(f"# {L}: {hits[0].strip()[:160]}", flush=True)


def ids_of(v, key):
    """A list of strings or of objects with `key` -> the set of those values; None when not a list."""
    if not isinstance(v, list):
        return None
    return {x if isinstance(x, str) else get(x, key) for x in v}


def cmd_before_after(a):
    L = a.label
    r = json.load(open(a.report))
    A, B = json.load(open(a.analyze_a)), json.load(open(a.analyze_b))
    eq(L, "mode", get(r, "mode"), MODE_BA)
    dev_a = {d.get("id") for d in A.get("devices", [])}
    dev_b = {d.get("id") for d in B.get("devices", [])}
    code_a = {f.get("code") for f in A.get("findings", [])}
    code_b = {f.get("code") for f in B.get("findings", [])}
    print(f"# {L}: analyze: devices A {sorted(dev_a)}, B {sorted(dev_b)}; findings A {sorted(code_a)}, "
          f"B {sorted(code_b)}", flush=True)
    for what, want in (("appeared", dev_b - dev_a), ("disappeared", dev_a - dev_b)):
        v = get(r, "devices", what)
        got = ids_of(v, "id")
        if say(got is not None, f"{L}: devices.{what} is a list", f"got {show(v)}"):
            say(got == want, f"{L}: devices.{what} == {sorted(want)} (analyze's device ids)", f"got {sorted(got, key=str)}")
    for what, want in (("appeared", code_b - code_a), ("resolved", code_a - code_b)):
        v = get(r, "findings", what)
        ok_shape = isinstance(v, list) and all(isinstance(x, dict) and "code" in x for x in v)
        if say(ok_shape, f"{L}: findings.{what} is a list of objects with code", f"got {show(v)}"):
            got = {x["code"] for x in v}
            say(got == want, f"{L}: findings.{what} == {sorted(want)} (analyze's finding codes)", f"got {sorted(got)}")


def cmd_mode(a):
    eq(a.label, "mode", get(json.load(open(a.report)), "mode"), a.mode)


def cmd_exit_status(a):
    """Prints the exit status `help compare` promises for REPORT (default --fail-on error): 1 when a
    finding of severity error exists (before-after: appeared), else 0; `?` when unreadable."""
    try:
        r = json.load(open(a.report))
    except (OSError, ValueError):
        print("?")
        return
    f = get(r, "findings")
    if get(r, "mode") == MODE_BA and isinstance(f, dict):
        f = get(f, "appeared")
    errors = [x for x in f if get(x, "severity") == "error"] if isinstance(f, list) else []
    print(1 if errors else 0)


def cmd_schema(a):
    import jsonschema
    schema = json.load(open(a.schema))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = list(cls(schema).iter_errors(json.load(open(a.file))))
    # inside a oneOf (two-points | before-after) the deepest error names the real problem, not
    # "... is not valid under any of the given schemas"
    def leaves(errs):
        for e in errs:
            if e.context:
                yield from leaves(e.context)
            else:
                yield e
    deepest = sorted(leaves(errors), key=lambda e: -len(e.absolute_path))[:3]
    detail = "; ".join("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:150]) for e in deepest)
    say(not errors, f"{a.label}: the JSON is valid against {os.path.basename(a.schema)}", detail)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("truth")
    s.add_argument("label")
    s.add_argument("--a", required=True)
    s.add_argument("--b", required=True)
    s.add_argument("--sender", required=True)
    s.add_argument("--device", required=True)
    s.add_argument("--nft")
    s.add_argument("--relay-a")
    s.add_argument("--relay-b")
    s.add_argument("--relay-delay", type=float, help="ms: the relay is mdns_peer.py relay (same bytes, this delay)")
    s.add_argument("--relay-log", help="with --relay-delay: the relay's log, its counts against the pcaps")
    s.add_argument("--out", required=True)
    s.set_defaults(fn=cmd_truth)
    s = sub.add_parser("report")
    s.add_argument("label")
    s.add_argument("report")
    s.add_argument("truth")
    s.add_argument("--expect", choices=("loss", "noloss", "reflector", "delay", "nodelay"), required=True)
    s.set_defaults(fn=cmd_report)
    s = sub.add_parser("same")
    s.add_argument("label")
    s.add_argument("r1")
    s.add_argument("r2")
    s.set_defaults(fn=cmd_same)
    s = sub.add_parser("text")
    s.add_argument("label")
    s.add_argument("report")
    s.add_argument("truth")
    s.set_defaults(fn=cmd_text)
    s = sub.add_parser("before-after")
    s.add_argument("label")
    s.add_argument("report")
    s.add_argument("analyze_a")
    s.add_argument("analyze_b")
    s.set_defaults(fn=cmd_before_after)
    s = sub.add_parser("mode")
    s.add_argument("label")
    s.add_argument("report")
    s.add_argument("mode")
    s.set_defaults(fn=cmd_mode)
    s = sub.add_parser("exit-status")
    s.add_argument("report")
    s.set_defaults(fn=cmd_exit_status, label="exit-status")
    s = sub.add_parser("schema")
    s.add_argument("label")
    s.add_argument("schema")
    s.add_argument("file")
    s.set_defaults(fn=cmd_schema)
    a = p.parse_args()
    try:
        a.fn(a)
    except (OSError, ValueError, KeyError) as e:  # an unreadable report is a failure, not a crash
        say(False, f"{a.label}: {a.cmd} could not run", f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
