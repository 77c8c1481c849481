#!/usr/bin/env python3
"""User-space "access point" that stops forwarding multicast after a while (CastScope captures).

Relays Ethernet frames between two interfaces of its namespace with AF_PACKET
sockets, like a two-port switch.  For the first --pass-seconds everything
passes both ways; after that, frames to a multicast MAC address (01:00:5e:..
for IPv4, 33:33:.. for IPv6; not the broadcast ff:ff:ff:ff:ff:ff, so ARP
still works) that arrive on --device-side are dropped instead of being
forwarded to --sender-side.  Unicast frames always pass, and so does
everything the sender side sends.  IPv4 UDP checksums are computed on the
way (veth leaves them to the receiver's "hardware"); nothing else in a frame
is changed.

That is what a sender on Wi-Fi sees when the access point's multicast-to-
unicast conversion ("multicast enhancement") or snooping table forgets that
the sender is a member of 224.0.0.251 (DOMAIN.md §7.2 #6/#7): its own
queries still reach the device, the device's multicast answers and
announcements no longer reach it, unicast (QU) answers still do.  The kernel
bridge cannot be made to do this here (it floods 224.0.0.0/24, RFC 4541, and
there is no nftables/ebtables), so the relay does it in user space.

Logs "ready", then "pruning multicast from <device-side>" when the drop
starts, and counts of frames passed and dropped at the end.

stdlib only; needs root (CAP_NET_RAW) inside the namespace.
"""
import argparse
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def log(msg):
    print(f"{time.time():.6f} pruner: {msg}", flush=True)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def fix_udp_checksum(frame):
    """The frame with its IPv4 UDP checksum computed.

    A veth sender leaves the checksum to "hardware" (CHECKSUM_PARTIAL): the
    bytes read from the peer hold only the pseudo-header sum, and a frame
    sent on as it is would be dropped by the receiver's UDP layer."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return frame
    ihl = (frame[14] & 0x0F) * 4
    start = 14 + ihl
    total = struct.unpack("!H", frame[16:18])[0]
    udp = bytearray(frame[start:14 + total])
    if len(udp) < 8 or struct.unpack("!H", frame[20:22])[0] & 0x3FFF:
        return frame  # fragments: leave them
    udp[6:8] = b"\0\0"
    pseudo = frame[26:34] + struct.pack("!BBH", 0, 17, len(udp))
    c = checksum(pseudo + bytes(udp)) or 0xFFFF
    udp[6:8] = struct.pack("!H", c)
    return frame[:start] + bytes(udp) + frame[14 + total:]


def open_port(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, 0))
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sender-side", required=True, help="interface towards the sender")
    ap.add_argument("--device-side", required=True, help="interface towards the device")
    ap.add_argument("--pass-seconds", type=float, required=True, help="seconds before multicast is dropped")
    args = ap.parse_args()

    sender, device = open_port(args.sender_side), open_port(args.device_side)
    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    t_prune = time.time() + args.pass_seconds
    pruning = False
    passed = dropped = 0
    log(f"ready: {args.sender_side} <-> {args.device_side}, multicast from {args.device_side} "
        f"dropped after {args.pass_seconds}s")
    while not stop:
        try:
            readable, _, _ = select.select([sender, device], [], [], 0.2)
        except InterruptedError:
            continue
        if not pruning and time.time() >= t_prune:
            pruning = True
            log(f"pruning multicast from {args.device_side}")
        for s in readable:
            frame, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue  # our own transmission on this port
            out = device if s is sender else sender
            multicast = frame[0] & 1 and frame[:6] != b"\xff" * 6
            if pruning and s is device and multicast:
                dropped += 1
                continue
            out.send(fix_udp_checksum(frame))
            passed += 1
    log(f"exit: {passed} frames passed, {dropped} multicast frames dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
