#!/usr/bin/env python3
"""PTR queries for `_googlecast._tcp.local` from port 5353 at fixed times (stdlib).

Sends a hand-built query (id 0, one PTR question of class IN, no known
answers) from UDP port 5353 to 224.0.0.251 at each --at offset, counted in
seconds from --t0 (a Unix time; default: when the tool starts), then keeps
listening on the same socket for --wait seconds after the last one.  With
--qu the question has the "unicast response" bit (QU, RFC 6762 §5.4),
otherwise it is QM.  Every response that reaches the socket is logged; the
last line is `ptr-query: sent N queries, M responses`.

Because the source port is 5353 this is a normal mDNS querier, not legacy
unicast (RFC 6762 §6.7): a responder that answers a QU question by unicast
sends the answer to <this host>:5353.  --t0 lets two hosts (two namespaces,
one clock) ask at fixed times relative to each other: in
mdns-port-unreachable a phone asks (QM) and the sender asks (QU) 0.35 s
later, while the TV has just multicast its answer.  The sender's own
firewall there rejects incoming UDP to port 5353, so its socket can send but
receives nothing.

stdlib only.
"""
import argparse
import select
import struct
import sys
import time

import dnswire
from dnswire import CLASS_IN, MDNS_GROUP as GROUP, MDNS_PORT as PORT, T_PTR, UNICAST_RESPONSE

T0 = time.time()


def log(msg):
    print(f"{time.time():.6f} (+{time.time() - T0:6.3f}s) ptr-query: {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="local IPv4 address")
    ap.add_argument("--name", default="_googlecast._tcp.local")
    ap.add_argument("--qu", action="store_true", help="set the QU bit (ask for a unicast response)")
    ap.add_argument("--t0", type=float, default=0, help="Unix time the --at offsets count from (default: now)")
    ap.add_argument("--at", type=float, action="append", default=[],
                    help="send a query this many seconds after --t0 (repeatable; default 0)")
    ap.add_argument("--wait", type=float, default=1.5, help="seconds to listen after the last query")
    args = ap.parse_args()
    offsets = sorted(args.at or [0.0])
    start = args.t0 or T0
    kind = "QU" if args.qu else "QM"

    qclass = CLASS_IN | (UNICAST_RESPONSE if args.qu else 0)
    query = dnswire.message(questions=[dnswire.question(args.name, T_PTR, qclass)])
    s = dnswire.open_mdns_socket(args.ip, multicast_ttl=255, loop=False)
    log(f"socket {args.ip}:{PORT}, {kind} PTR {args.name} at t0+{', +'.join(f'{o:g}' for o in offsets)}s "
        f"(t0 {start:.3f}, in {start - time.time():.3f}s)")

    t_end = start + offsets[-1] + args.wait
    pending = list(offsets)
    sent = answers = 0
    while True:
        now = time.time()
        if pending and now >= start + pending[0]:
            pending.pop(0)
            s.sendto(query, (GROUP, PORT))
            sent += 1
            log(f"query {kind} [{args.name} PTR] #{sent} at t0+{time.time() - start:.3f}s")
            continue
        if now >= t_end:
            break
        wake = start + pending[0] if pending else t_end
        r, _, _ = select.select([s], [], [], max(0.0, wake - now))
        if not r:
            continue
        data, src = s.recvfrom(9000)
        try:
            if not dnswire.is_response(data):
                continue
            an = dnswire.unpack_header(data)[3]
        except (IndexError, struct.error):
            continue
        answers += 1
        log(f"response from {src[0]}:{src[1]} AN={an}")
    dnswire.leave_group(s, args.ip)
    log(f"sent {sent} queries, {answers} responses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
