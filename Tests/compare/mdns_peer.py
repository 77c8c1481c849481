#!/usr/bin/env python3
"""The two ends of Tests/compare/run.sh's traffic: a Cast querier and a Cast responder (stdlib only).

  mdns_peer.py querier   --ip ADDR [--count N] [--interval S] [--repeat-every K]
  mdns_peer.py responder --ip ADDR --a-record ADDR --id HEX32 --uuid UUID --name NAME
                         [--announce-interval S]

Both bind 0.0.0.0:5353 (SO_REUSEADDR), join 224.0.0.251 on the interface holding --ip, and
send to 224.0.0.251:5353 from port 5353 with IP_MULTICAST_TTL 255 and IP_MULTICAST_LOOP 0.
The messages are built by hand (no name compression), so the run's UDP 5353 traffic is
exactly what castscope compare counts:

querier    sends --count (60) messages --interval (0.7 s) apart, all Cast queries: QR=0, one
           question `_googlecast._tcp.local PTR IN` (QM), nothing else.  Message i (1-based)
           has transaction ID i, except every --repeat-every-th (5th), which is a byte-for-byte
           copy of the one before it (same ID) -- repeated identical queries happen in real
           networks (Chrome sends ID 0 each time).  It never sends a response, and exits after
           the last one, printing `done N`.
responder  answers each Cast PTR query it receives with one multicast response, and every
           --announce-interval (1.5 s) sends the same response unsolicited.  Every message it
           sends is the SAME bytes: ID 0, QR=1 AA=1, answer PTR _googlecast._tcp.local ->
           Chromecast-<id>._googlecast._tcp.local (TTL 120), additionals SRV (8009,
           <uuid>.local), TXT (id, fn, md, ca, st, rs, ve, ic) and A.  It never sends a query
           and runs until SIGTERM/SIGINT, then prints `answered N, announced M`.

marker     sends one UDP datagram from --ip port 9 to --to (a subnet broadcast) port 9, not
           mDNS: run.sh sends one from each side before and after the traffic, so that each
           capture's first and last record brackets every Cast message (compare counts a
           message as lost only while the other capture was running: first to last record).

Both print `ready` once the socket is set up (run.sh waits for it).
"""
import argparse
import signal
import socket
import struct
import sys
import time

GROUP = "224.0.0.251"
PORT = 5353
SERVICE = "_googlecast._tcp.local"
T_A, T_PTR, T_TXT, T_SRV = 1, 12, 16, 33
IN, FLUSH = 1, 0x8001


def name(n):
    """A DNS name, uncompressed."""
    out = b""
    for label in n.rstrip(".").split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\x00"


def rr(owner, rtype, rclass, ttl, rdata):
    return name(owner) + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def query(ident):
    """A Cast query: one question, QM, nothing else."""
    return struct.pack("!HHHHHH", ident, 0, 1, 0, 0, 0) + name(SERVICE) + struct.pack("!HH", T_PTR, IN)


def response(dev_id, uuid, fn, a_record):
    instance = f"Chromecast-{dev_id}.{SERVICE}"
    host = f"{uuid}.local"
    txt = b"".join(bytes([len(s)]) + s for s in (
        f"id={dev_id}".encode(), f"fn={fn}".encode(), b"md=Chromecast", b"ca=4101", b"st=0", b"rs=",
        b"ve=05", b"ic=/setup/icon.png"))
    answers = [rr(SERVICE, T_PTR, IN, 120, name(instance))]
    additionals = [
        rr(instance, T_SRV, FLUSH, 120, struct.pack("!HHH", 0, 0, 8009) + name(host)),
        rr(instance, T_TXT, FLUSH, 120, txt),
        rr(host, T_A, FLUSH, 120, socket.inet_aton(a_record)),
    ]
    header = struct.pack("!HHHHHH", 0, 0x8400, 0, len(answers), 0, len(additionals))
    return header + b"".join(answers) + b"".join(additionals)


def read_name(msg, off):
    """(name, offset after it); follows compression pointers."""
    labels, end, hops = [], None, 0
    while True:
        n = msg[off]
        if n & 0xC0 == 0xC0:
            if end is None:
                end = off + 2
            off = ((n & 0x3F) << 8) | msg[off + 1]
            hops += 1
            if hops > 20:
                raise ValueError("pointer loop")
            continue
        if n == 0:
            return ".".join(labels), (end if end is not None else off + 1)
        labels.append(msg[off + 1:off + 1 + n].decode("utf-8", "replace"))
        off += 1 + n


def asks_for_cast(msg):
    """True when msg is a query with a question `_googlecast._tcp.local PTR`."""
    if len(msg) < 12:
        return False
    _, flags, qd = struct.unpack("!HHH", msg[:6])
    if flags & 0x8000:
        return False
    off = 12
    try:
        for _ in range(qd):
            qname, off = read_name(msg, off)
            qtype, _ = struct.unpack("!HH", msg[off:off + 4])
            off += 4
            if qname.lower() == SERVICE.lower() and qtype in (T_PTR, 255):
                return True
    except (IndexError, ValueError, struct.error):
        return False
    return False


def open_socket(ip):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", PORT))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    return s


def run_querier(a):
    s = open_socket(a.ip)
    print("ready", flush=True)
    sent, ident, prev = 0, 0, None
    for i in range(1, a.count + 1):
        if a.repeat_every and i % a.repeat_every == 0 and prev is not None:
            msg, what = prev, f"copy of id {ident}"
        else:
            ident += 1
            msg, what = query(ident), f"id {ident}"
        s.sendto(msg, (GROUP, PORT))
        sent += 1
        prev = msg
        print(f"query {i}: {what}", flush=True)
        if i < a.count:
            time.sleep(a.interval)
    print(f"done {sent}", flush=True)


def run_responder(a):
    s = open_socket(a.ip)
    msg = response(a.id, a.uuid, a.name, a.a_record)
    counts = {"answered": 0, "announced": 0}

    def bye(*_):
        print(f"answered {counts['answered']}, announced {counts['announced']}", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
    print("ready", flush=True)
    next_announce = time.monotonic() + a.announce_interval
    while True:
        s.settimeout(max(0.0, next_announce - time.monotonic()))
        try:
            data, _ = s.recvfrom(9000)
        except socket.timeout:
            s.sendto(msg, (GROUP, PORT))
            counts["announced"] += 1
            next_announce += a.announce_interval
            continue
        if asks_for_cast(data):
            s.sendto(msg, (GROUP, PORT))
            counts["answered"] += 1


def run_marker(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s.bind((a.ip, 9))
    s.sendto(b"castscope Tests/compare: capture marker, not mDNS", (a.to, 9))
    print(f"marker {a.ip} -> {a.to}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="role", required=True)
    q = sub.add_parser("querier")
    q.add_argument("--ip", required=True)
    q.add_argument("--count", type=int, default=60)
    q.add_argument("--interval", type=float, default=0.7)
    q.add_argument("--repeat-every", type=int, default=5)
    r = sub.add_parser("responder")
    r.add_argument("--ip", required=True)
    r.add_argument("--a-record", required=True)
    r.add_argument("--id", required=True)
    r.add_argument("--uuid", required=True)
    r.add_argument("--name", default="Living Room TV")
    r.add_argument("--announce-interval", type=float, default=1.5)
    m = sub.add_parser("marker")
    m.add_argument("--ip", required=True)
    m.add_argument("--to", required=True)
    a = p.parse_args()
    {"querier": run_querier, "responder": run_responder, "marker": run_marker}[a.role](a)


if __name__ == "__main__":
    main()
