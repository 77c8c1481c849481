#!/usr/bin/env python3
"""mDNS query relay that keeps the original source address (CastScope captures).

Reads every frame on --from (an AF_PACKET socket), and for each IPv4 UDP
packet to 224.0.0.251:5353 that is an mDNS QUERY (QR bit clear) and not from
--own-ip, writes the same IP packet (source address, TTL, header and payload
unchanged; only the UDP checksum is filled in, which veth leaves to checksum
offload) out of --to inside a new Ethernet header: destination
01:00:5e:00:00:fb, source --to's own MAC.  That is what L2-rewriting
reflectors do (e.g. bonjour-reflector): the query appears on the other
subnet with the querier's off-subnet source address, so devices that check
the source (RFC 6762 §11; Chromecasts) ignore it (RELAYED_QUERIES_IGNORED).
Responses are not relayed.

Runs until SIGINT/SIGTERM or --duration seconds; prints "ready" once both
sockets are open and one line per relayed query.  Must run as root inside a
network namespace; it only writes to --to.

stdlib only.
"""
import argparse
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
MDNS_MAC = bytes.fromhex("01005e0000fb")
MDNS_GROUP = socket.inet_aton("224.0.0.251")


def mac_of(ifname):
    with open(f"/sys/class/net/{ifname}/address") as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def mdns_query(frame, own_ip):
    """The IP packet of frame if it is an IPv4 mDNS query from someone else, else None."""
    if len(frame) < 14 + 20 + 8 + 12 or struct.unpack("!H", frame[12:14])[0] != ETH_P_IP:
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    total = struct.unpack("!H", ip[2:4])[0]
    if ip[0] >> 4 != 4 or ip[9] != 17 or ip[16:20] != MDNS_GROUP or ip[12:16] == own_ip or total > len(ip):
        return None
    udp = ip[ihl:]
    if struct.unpack("!H", udp[2:4])[0] != 5353 or len(udp) < 8 + 12:
        return None
    flags = struct.unpack("!H", udp[8 + 2:8 + 4])[0]
    return None if flags & 0x8000 else ip[:total]


def with_udp_checksum(ip):
    """ip with its UDP checksum computed (RFC 768, over the IPv4 pseudo-header)."""
    ihl = (ip[0] & 0x0F) * 4
    udp = bytearray(ip[ihl:])
    udp[6:8] = b"\0\0"
    data = ip[12:20] + struct.pack("!BBH", 0, 17, len(udp)) + bytes(udp)
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    udp[6:8] = struct.pack("!H", (~total & 0xFFFF) or 0xFFFF)
    return ip[:ihl] + bytes(udp)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="src", required=True, help="interface the queries are read on")
    ap.add_argument("--to", dest="dst", required=True, help="interface they are written to")
    ap.add_argument("--own-ip", required=True, help="the relay's IPv4 address on --from (not relayed)")
    ap.add_argument("--duration", type=float, default=120.0)
    args = ap.parse_args()

    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(1))
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    rx.bind((args.src, 0))
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((args.dst, 0))
    header = MDNS_MAC + mac_of(args.dst) + struct.pack("!H", ETH_P_IP)
    own_ip = socket.inet_aton(args.own_ip)
    print(f"relay: ready {args.src} -> {args.dst}, source addresses kept", flush=True)
    t_end = time.time() + args.duration
    while not stop and time.time() < t_end:
        try:
            r, _, _ = select.select([rx], [], [], 0.2)
        except InterruptedError:
            continue
        if not r:
            continue
        frame, addr = rx.recvfrom(65535)
        if addr[2] == PACKET_OUTGOING:
            continue
        ip = mdns_query(frame, own_ip)
        if ip is None:
            continue
        ip = with_udp_checksum(ip)
        tx.send(header + ip)
        print(f"{time.time():.6f} relay: query from {socket.inet_ntoa(ip[12:16])} "
              f"(TTL {ip[8]}, {len(ip)} bytes) -> {args.dst}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
