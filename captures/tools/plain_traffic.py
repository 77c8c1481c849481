#!/usr/bin/env python3
"""Ordinary non-mDNS traffic between two hosts (CastScope `no-mdns` capture).

  plain_traffic.py server --ip 192.0.2.21 [--port 7] [--duration 10]
      UDP echo server (RFC 862 style) on --ip:--port.
  plain_traffic.py client --ip 192.0.2.10 --peer 192.0.2.21 [--port 7] [--count 3]
      --count ICMP echo requests (raw socket, so needs root; the kernel of
      the peer answers them) and --count UDP datagrams to the echo server,
      each waiting for its reply.  The first packet triggers ARP.

Nothing here touches UDP 5353 or 1900.  Payloads, ICMP id/sequence numbers
and the client's UDP source port (40007) are fixed.

stdlib only.
"""
import argparse
import select
import socket
import struct
import sys
import time


def log(msg):
    print(f"{time.time():.6f} plain: {msg}", flush=True)


def checksum(data):
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def server(args):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.ip, args.port))
    log(f"udp echo listening on {args.ip}:{args.port}")
    end = time.time() + args.duration
    while time.time() < end:
        r, _, _ = select.select([s], [], [], 0.2)
        if r:
            data, src = s.recvfrom(2048)
            s.sendto(data, src)
            log(f"echoed {len(data)} bytes to {src[0]}:{src[1]}")
    return 0


def client(args):
    ok = 0
    icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    for seq in range(1, args.count + 1):
        payload = b"castscope-no-mdns-%02d" % seq
        hdr = struct.pack("!BBHHH", 8, 0, 0, 0x4353, seq)
        pkt = struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), 0x4353, seq) + payload
        t = time.time()
        icmp.sendto(pkt, (args.peer, 0))
        while time.time() - t < 1.0:
            r, _, _ = select.select([icmp], [], [], 1.0 - (time.time() - t))
            if not r:
                break
            data, src = icmp.recvfrom(2048)
            ihl = (data[0] & 0x0F) * 4
            typ, _code, _ck, ident, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            if typ == 0 and ident == 0x4353 and rseq == seq and src[0] == args.peer:
                log(f"icmp echo reply seq={seq} from {src[0]} in {1000 * (time.time() - t):.2f} ms")
                ok += 1
                break
        time.sleep(0.5)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((args.ip, 40007))
    u.settimeout(1.0)
    for seq in range(1, args.count + 1):
        msg = b"castscope udp exchange %d" % seq
        t = time.time()
        u.sendto(msg, (args.peer, args.port))
        try:
            data, src = u.recvfrom(2048)
            log(f"udp reply {data!r} from {src[0]}:{src[1]} in {1000 * (time.time() - t):.2f} ms")
            ok += 1
        except socket.timeout:
            log(f"udp request {seq}: no reply")
        time.sleep(0.5)
    log(f"{ok}/{2 * args.count} replies")
    return 0 if ok == 2 * args.count else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("role", choices=["server", "client"])
    ap.add_argument("--ip", required=True)
    ap.add_argument("--peer")
    ap.add_argument("--port", type=int, default=7)
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--duration", type=float, default=10)
    args = ap.parse_args()
    if args.port in (5353, 1900):
        ap.error("port must not be 5353 or 1900")
    return server(args) if args.role == "server" else client(args)


if __name__ == "__main__":
    sys.exit(main())
