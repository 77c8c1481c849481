#!/usr/bin/env python3
"""Naive mDNS repeater: re-multicast every mDNS response heard, unchanged.

Joins 224.0.0.251 on --ip, binds UDP port 5353 and, for every packet whose
QR bit is set (a response) and whose source address is not --ip (not one of
its own re-sent copies), sends the same bytes again to 224.0.0.251:5353 from
its own address.  The socket's multicast TTL is left at the kernel default
of 1 -- what simple home-made repeaters and some Wi-Fi extenders do --
while RFC 6762 §11 requires IP TTL 255, so every repeated copy arrives with
TTL 1 (REFLECTED_TRAFFIC).  Queries are not repeated.

Runs until SIGINT/SIGTERM or --duration seconds; prints "ready" once joined
and one line per repeated packet.

stdlib only.
"""
import argparse
import select
import signal
import socket
import sys
import time

import dnswire
from dnswire import MDNS_GROUP as GROUP, MDNS_PORT as PORT


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="the repeater's own IPv4 address")
    ap.add_argument("--duration", type=float, default=120.0)
    args = ap.parse_args()

    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(1))

    # Deliberately no IP_MULTICAST_TTL: the default (1) is the bug this tool shows.
    # Multicast loop stays on too; our own copies are skipped below.
    s = dnswire.open_mdns_socket(args.ip, multicast_ttl=None, loop=None)
    ttl = s.getsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL)

    t0 = time.time()
    print(f"repeater: ready on {args.ip}, multicast TTL {ttl}", flush=True)
    repeated = 0
    while not stop and time.time() < t0 + args.duration:
        try:
            r, _, _ = select.select([s], [], [], 0.2)
        except InterruptedError:
            continue
        if not r:
            continue
        data, src = s.recvfrom(9000)
        if src[0] == args.ip:
            continue  # our own copy (multicast loop)
        if not dnswire.is_response(data):
            continue  # a query (not repeated) or not DNS
        s.sendto(data, (GROUP, PORT))
        repeated += 1
        _qid, _flags, _qd, an, ns, ar = dnswire.unpack_header(data)
        print(f"{time.time():.6f} (+{time.time() - t0:6.3f}s) repeater: response from {src[0]}:{src[1]} "
              f"({len(data)} bytes, AN={an} NS={ns} AR={ar}) re-sent to {GROUP}", flush=True)
    print(f"repeater: repeated {repeated} responses", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
