#!/usr/bin/env python3
"""One-shot ("legacy unicast", RFC 6762 §6.7) mDNS query.

Sends ONE hand-built DNS query from an ephemeral UDP source port (not 5353)
to 224.0.0.251:5353 (or ff02::fb), then prints every reply that comes back
to that port within --wait seconds.  A conforming responder answers by
unicast to the ephemeral port, with the same message ID, the question
repeated, TTLs <= 10 s and no cache-flush bit.

stdlib only.
"""
import argparse
import select
import socket
import struct
import sys
import time

TYPES = {1: "A", 12: "PTR", 16: "TXT", 28: "AAAA", 33: "SRV", 47: "NSEC", 255: "ANY"}


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


def dump(buf):
    qid, flags, qd, an, ns, ar = struct.unpack("!6H", buf[:12])
    lines = [f"id=0x{qid:04x} flags=0x{flags:04x} qd={qd} an={an} ns={ns} ar={ar}"]
    off = 12
    for _ in range(qd):
        name, off = read_name(buf, off)
        qtype, qclass = struct.unpack("!HH", buf[off:off + 4])
        off += 4
        lines.append(f"  Q  {name} {TYPES.get(qtype, qtype)} class=0x{qclass:04x}")
    for sect, count in (("AN", an), ("NS", ns), ("AR", ar)):
        for _ in range(count):
            name, off = read_name(buf, off)
            rtype, rclass, ttl, rdlen = struct.unpack("!HHIH", buf[off:off + 10])
            off += 10 + rdlen
            lines.append(f"  {sect} {name} {TYPES.get(rtype, rtype)} class=0x{rclass:04x} ttl={ttl}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ip", default="192.0.2.10", help="local IPv4 address to send from")
    ap.add_argument("--name", default="_googlecast._tcp.local")
    ap.add_argument("--qtype", type=int, default=12)
    ap.add_argument("--id", type=lambda s: int(s, 0), default=0x4c55, help="DNS message ID")
    ap.add_argument("--wait", type=float, default=3.0)
    args = ap.parse_args()

    query = struct.pack("!6H", args.id, 0, 1, 0, 0, 0) + encode_name(args.name) + struct.pack("!HH", args.qtype, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.ip, 0))  # ephemeral source port
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    port = s.getsockname()[1]
    print(f"{time.time():.6f} legacy: sending id=0x{args.id:04x} {args.name} from {args.ip}:{port}", flush=True)
    s.sendto(query, ("224.0.0.251", 5353))
    deadline = time.time() + args.wait
    n = 0
    while True:
        left = deadline - time.time()
        if left <= 0:
            break
        r, _, _ = select.select([s], [], [], left)
        if not r:
            break
        data, src = s.recvfrom(9000)
        n += 1
        print(f"{time.time():.6f} legacy: reply from {src[0]}:{src[1]} to port {port} ({len(data)} bytes)\n{dump(data)}", flush=True)
    print(f"legacy: {n} replies", flush=True)
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
