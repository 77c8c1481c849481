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
import sys
import time

import dnswire


def dump(buf):
    """One line for the header, then one per question and per record."""
    qid, flags, qd, an, ns, ar = dnswire.unpack_header(buf)
    lines = [f"id=0x{qid:04x} flags=0x{flags:04x} qd={qd} an={an} ns={ns} ar={ar}"]
    questions, off = dnswire.read_questions(buf, 12, qd)
    for name, qtype, qclass in questions:
        lines.append(f"  Q  {name} {dnswire.type_name(qtype)} class=0x{qclass:04x}")
    for r in dnswire.iter_records(buf, off, an, ns, ar):
        lines.append(f"  {r.section} {r.name} {dnswire.type_name(r.rtype)} class=0x{r.rclass:04x} ttl={r.ttl}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ip", default="192.0.2.10", help="local IPv4 address to send from")
    ap.add_argument("--name", default="_googlecast._tcp.local")
    ap.add_argument("--qtype", type=int, default=12)
    ap.add_argument("--id", type=lambda s: int(s, 0), default=0x4c55, help="DNS message ID")
    ap.add_argument("--wait", type=float, default=3.0)
    args = ap.parse_args()

    query = dnswire.query(args.name, args.qtype, qid=args.id)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.ip, 0))  # ephemeral source port
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    port = s.getsockname()[1]
    print(f"{time.time():.6f} legacy: sending id=0x{args.id:04x} {args.name} from {args.ip}:{port}", flush=True)
    s.sendto(query, (dnswire.MDNS_GROUP, dnswire.MDNS_PORT))
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
