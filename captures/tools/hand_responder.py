#!/usr/bin/env python3
"""Minimal hand-built mDNS responder for one Cast service (CastScope captures).

Unlike avahi and python-zeroconf this is NOT a conforming mDNS stack: it only
answers PTR (or ANY) questions for `_googlecast._tcp.local`, never probes,
never announces, never answers SRV/TXT/A/AAAA questions, and sends every
answer by multicast to 224.0.0.251:5353 from port 5353 (IP TTL 255).  It
exists to make faulty devices on purpose:

  --mode ptr-only   the response carries ONLY the PTR (no SRV/TXT/A
                    additionals); follow-up SRV/TXT/A queries are ignored,
                    so the instance can never be resolved
                    (INCOMPLETE_RESOLUTION).
  --mode full       the response looks like a real Chromecast's
                    (DOMAIN.md §1.1): flags 0x8400, AN = PTR (TTL 120, shared),
                    AR = TXT (cache-flush, 4500), SRV (cache-flush, 120),
                    A (cache-flush, 120).
  --delay S         wait S seconds after the query before answering
                    (0.7 -> SLOW_RESPONSE).

Known-answer suppression (RFC 6762 §7.1) is honoured: a query that lists our
PTR with at least half its TTL left is not answered.  Queries from a port
other than 5353 (legacy unicast) are logged and ignored.

The service identity comes from a tools/zc/*.json spec (first service).

stdlib only.
"""
import argparse
import json
import signal
import socket
import struct
import sys
import threading
import time

GROUP = "224.0.0.251"
PORT = 5353
BASE = "_googlecast._tcp.local"
T_A, T_PTR, T_TXT, T_SRV, T_ANY = 1, 12, 16, 33, 255
TYPES = {1: "A", 12: "PTR", 16: "TXT", 28: "AAAA", 33: "SRV", 47: "NSEC", 255: "ANY"}


def log(msg):
    print(f"{time.time():.6f} hand-responder: {msg}", flush=True)


def encode_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\x00"


def read_name(buf, off):
    labels, jumped, end = [], False, off
    for _ in range(128):
        ln = buf[off]
        if ln & 0xC0 == 0xC0:
            if not jumped:
                end = off + 2
            off = ((ln & 0x3F) << 8) | buf[off + 1]
            jumped = True
            continue
        off += 1
        if ln == 0:
            break
        labels.append(buf[off:off + ln].decode(errors="replace"))
        off += ln
    return ".".join(labels), (end if jumped else off)


def rr(name, rtype, rclass, ttl, rdata):
    return encode_name(name) + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def parse_query(buf):
    """-> (flags, [(qname, qtype, qclass)], [(name, type, ttl, ptr_target|None)])"""
    _qid, flags, qd, an, _ns, _ar = struct.unpack("!6H", buf[:12])
    off = 12
    questions, answers = [], []
    for _ in range(qd):
        name, off = read_name(buf, off)
        qtype, qclass = struct.unpack("!HH", buf[off:off + 4])
        off += 4
        questions.append((name, qtype, qclass))
    for _ in range(an):
        name, off = read_name(buf, off)
        rtype, _rclass, ttl, rdlen = struct.unpack("!HHIH", buf[off:off + 10])
        off += 10
        target = read_name(buf, off)[0] if rtype == T_PTR else None
        off += rdlen
        answers.append((name, rtype, ttl, target))
    return flags, questions, answers


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", required=True, help="tools/zc/*.json (first service is used)")
    ap.add_argument("--ip", required=True, help="IPv4 address of this device (A record, interface)")
    ap.add_argument("--mode", choices=["ptr-only", "full"], default="full")
    ap.add_argument("--delay", type=float, default=0.06, help="seconds between query and answer")
    ap.add_argument("--ptr-ttl", type=int, default=120)
    ap.add_argument("--duration", type=float, default=0, help="seconds to run (0 = until SIGINT/SIGTERM)")
    args = ap.parse_args()

    with open(args.spec) as f:
        spec = json.load(f)
    svc = spec["services"][0]
    host = spec["host"].rstrip(".")
    instance = f"{svc['instance']}.{BASE}"
    txt = b"".join(
        bytes([len(s)]) + s for s in (f"{k}={v}".encode() for k, v in svc.get("txt", []))
    )

    answer = rr(BASE, T_PTR, 0x0001, args.ptr_ttl, encode_name(instance))
    additionals = []
    if args.mode == "full":
        additionals = [
            rr(instance, T_TXT, 0x8001, 4500, txt),
            rr(instance, T_SRV, 0x8001, 120, struct.pack("!HHH", 0, 0, svc["port"]) + encode_name(host)),
            rr(host, T_A, 0x8001, 120, socket.inet_aton(args.ip)),
        ]
    response = struct.pack("!6H", 0, 0x8400, 0, 1, 0, len(additionals)) + answer + b"".join(additionals)

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", PORT))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(args.ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    s.settimeout(0.2)
    lock = threading.Lock()

    def send(qdesc):
        with lock:
            s.sendto(response, (GROUP, PORT))
        log(f"answered {qdesc} ({args.mode}, {len(response)} bytes, AN=1 AR={len(additionals)})")

    log(f"ready: {instance} host={host} ip={args.ip} mode={args.mode} delay={args.delay}s")
    t_end = time.time() + args.duration if args.duration > 0 else None
    while not stop.is_set() and (t_end is None or time.time() < t_end):
        try:
            data, src = s.recvfrom(9000)
        except socket.timeout:
            continue
        if src[0] == args.ip or len(data) < 12:
            continue
        try:
            flags, questions, answers = parse_query(data)
        except (IndexError, struct.error):
            log(f"undecodable packet from {src[0]}")
            continue
        if flags & 0x8000:
            continue  # a response from someone else
        qdesc = " ".join(f"{n} {TYPES.get(t, t)}{' QU' if c & 0x8000 else ''}" for n, t, c in questions)
        if src[1] != PORT:
            log(f"ignored legacy query from {src[0]}:{src[1]}: {qdesc}")
            continue
        wanted = any(n.lower() == BASE.lower() and t in (T_PTR, T_ANY) for n, t, _ in questions)
        if not wanted:
            log(f"ignored query from {src[0]}: {qdesc}")
            continue
        known = [a for a in answers if a[0].lower() == BASE.lower() and a[1] == T_PTR
                 and (a[3] or "").lower() == instance.lower() and a[2] >= args.ptr_ttl // 2]
        if known:
            log(f"known answer (ttl {known[0][2]}) from {src[0]}: suppressed")
            continue
        log(f"query from {src[0]}: {qdesc}; answering in {args.delay}s")
        threading.Timer(args.delay, send, args=(f"{src[0]}: {qdesc}",)).start()
    log("exit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
