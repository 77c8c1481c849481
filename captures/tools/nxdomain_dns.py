#!/usr/bin/env python3
"""A tiny unicast DNS server that answers every query NXDOMAIN (CastScope captures).

Plays the LAN's ordinary DNS server (a router's resolver) for `local-name-dns`:
it knows nothing of `.local`, which only mDNS answers (RFC 6762 §3), so a
sender that asks it for `<uuid>.local` gets NXDOMAIN (RCODE 3), with the
question repeated, RA set, no records.  UDP only, one socket on --ip:53.

stdlib only.
"""
import argparse
import signal
import socket
import struct
import sys
import threading
import time

import dnswire


def log(msg):
    print(f"{time.time():.6f} nxdomain-dns: {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="address to listen on (port 53)")
    args = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.ip, 53))
    s.settimeout(0.2)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    log(f"ready on {args.ip}:53")
    while not stop.is_set():
        try:
            data, src = s.recvfrom(4096)
        except socket.timeout:
            continue
        if len(data) < 12:
            continue
        try:
            qid, flags, qd, _an, _ns, _ar = dnswire.unpack_header(data)
            questions, end = dnswire.read_questions(data, 12, qd)
        except (IndexError, struct.error):
            log(f"undecodable query from {src[0]}")
            continue
        if flags & dnswire.FLAG_QR:
            continue
        # QR, opcode 0, RD copied, RA, RCODE 3 (NXDOMAIN); the question section echoed.
        reply = dnswire.header(qid, 0x8183 | (flags & 0x0100), qd, 0, 0, 0) + data[12:end]
        s.sendto(reply, src)
        names = " ".join(f"{n} {dnswire.type_name(t)}" for n, t, _ in questions)
        log(f"NXDOMAIN to {src[0]}:{src[1]} for {names}")
    log("exit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
