#!/usr/bin/env python3
"""Look a host name up over unicast DNS, as a misconfigured sender does (CastScope captures).

What a sender whose resolver does not do mDNS sends after it found a Cast
device over mDNS: an A query for the SRV target (`<uuid>.local`) to its
ordinary DNS server, UDP port 53 from an ephemeral port, RD set (as
getaddrinfo without nss-mdns, or Node's dns.lookup in a container).  Sends
the query, waits up to --timeout for the answer and logs the RCODE.

stdlib only.
"""
import argparse
import random
import socket
import struct
import sys
import time

import dnswire

RCODES = {0: "NOERROR", 2: "SERVFAIL", 3: "NXDOMAIN", 5: "REFUSED"}


def log(msg):
    print(f"{time.time():.6f} unicast-lookup: {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="local address to send from")
    ap.add_argument("--server", required=True, help="the DNS server")
    ap.add_argument("--name", required=True, help="the name to look up (a .local name)")
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=53)
    args = ap.parse_args()
    qid = random.Random(args.seed).randrange(1, 0xFFFF)
    q = dnswire.header(qid, 0x0100, 1, 0, 0, 0) + dnswire.question(args.name, dnswire.T_A)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.ip, 0))
    s.settimeout(args.timeout)
    s.sendto(q, (args.server, 53))
    log(f"query {args.name} A to {args.server}:53 from port {s.getsockname()[1]} (id {qid})")
    try:
        data, _ = s.recvfrom(4096)
    except socket.timeout:
        log("no answer")
        return 1
    rid, flags, _qd, an, _ns, _ar = dnswire.unpack_header(data)
    rcode = flags & 0x000F
    log(f"answer id {rid}: {RCODES.get(rcode, f'RCODE {rcode}')}, {an} answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
