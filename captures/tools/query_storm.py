#!/usr/bin/env python3
"""Misbehaving Cast sender: multicast `PTR _googlecast._tcp.local` far too often.

Sends a hand-built QM query (id 0, QD=1, class IN, no known answers) from
UDP port 5353 (so it is a normal mDNS querier, not legacy unicast) to
224.0.0.251 every 100-200 ms for --duration seconds.  RFC 6762 §5.2 wants
at least 1 s between the first two queries and doubling after that, and
§7.1 wants known answers listed; this tool does neither (QUERY_STORM).

The intervals are a fixed cycle (100, 150, 200, 120, 180 ms), so every run
sends the same number of queries.  Answers received are counted and logged.

stdlib only.
"""
import argparse
import select
import sys
import time

import dnswire
from dnswire import MDNS_GROUP as GROUP, MDNS_PORT as PORT, T_PTR

INTERVALS = (0.100, 0.150, 0.200, 0.120, 0.180)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="local IPv4 address")
    ap.add_argument("--name", default="_googlecast._tcp.local")
    ap.add_argument("--duration", type=float, default=5.0)
    args = ap.parse_args()

    query = dnswire.query(args.name, T_PTR)
    s = dnswire.open_mdns_socket(args.ip, multicast_ttl=255, loop=False)

    t0 = time.time()
    sent = answers = i = 0
    next_send = t0
    while True:
        now = time.time()
        if now >= t0 + args.duration:
            break
        if now >= next_send:
            s.sendto(query, (GROUP, PORT))
            sent += 1
            next_send += INTERVALS[i % len(INTERVALS)]
            i += 1
            continue
        r, _, _ = select.select([s], [], [], max(0.0, next_send - now))
        if r:
            data, src = s.recvfrom(9000)
            if dnswire.is_response(data):
                answers += 1
                an = dnswire.unpack_header(data)[3]
                print(f"{time.time():.6f} (+{time.time() - t0:6.3f}s) storm: response from {src[0]} AN={an}", flush=True)
    dnswire.leave_group(s, args.ip)
    print(f"storm: sent {sent} queries in {args.duration}s, {answers} responses", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
