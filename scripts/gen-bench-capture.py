#!/usr/bin/env python3
"""Deterministic large-capture generator for the CastScope benchmark (scripts/bench).

Writes a pcap (nanosecond magic, LINKTYPE_ETHERNET) made of:

  sparse  (default 1,000,000 packets) about 2% discovery traffic: the real mDNS and
          SSDP/DIAL frames of the Ethernet captures in captures/*.pcap, replayed in order
          (capture by capture, then again), re-timestamped and with fresh IPv4 ids,
          interleaved with varied background: IPv4 and IPv6 TCP segments of realistic sizes
          (pure ACKs, SYNs, full 1514-byte segments, TLS records), DNS on port 53, QUIC-like
          UDP on 443, UDP between random ports, ARP, and a few 802.1Q-tagged frames.
  dense   (default 200,000 packets) only the mDNS frames of the captures, replayed the
          same way.

The same arguments (and the same captures/) always give the same bytes.  `--size-gb N`
makes a sparse file of at least N GiB, generated as a stream in constant memory (for the
peak-RSS check on multi-gigabyte captures).  Timestamps advance about 1 ms per packet
(exponential), with an occasional pause of 0.5-5 s.

Addresses are from the documentation ranges: 192.0.2.0/24 for the local network,
198.51.100.0/24 and 203.0.113.0/24 for remote hosts, 2001:db8::/32 for IPv6.

Only the Python standard library is used.  Examples:

  scripts/gen-bench-capture.py -o .bench/sparse.pcap
  scripts/gen-bench-capture.py --mode dense -o .bench/dense.pcap
  scripts/gen-bench-capture.py --size-gb 4 -o .bench/big.pcap
"""

import argparse
import glob
import os
import random
import struct
import sys
import time

PCAP_MAGIC_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1
SNAPLEN = 262144
START_EPOCH_NS = 1_800_000_000 * 1_000_000_000  # 2027-01-15T08:00:00Z
MEAN_GAP_NS = 1_000_000  # ~1 ms between packets
PAUSE_PROBABILITY = 1 / 5000  # then a pause of 0.5-5 s
DISCOVERY_PORTS = (5353, 1900)
TEMPLATE_BITS = 13  # 8192 background frames, picked at random for each packet
FLUSH_PACKETS = 32768

GENERATOR_VERSION = "1"


# ---------------------------------------------------------------- checksums


def ones_sum(data):
    if len(data) & 1:
        data = data + b"\0"
    return sum(struct.unpack("!%dH" % (len(data) // 2), data))


def fold(s):
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def checksum(data, initial=0):
    return (~fold(ones_sum(data) + initial)) & 0xFFFF


# ---------------------------------------------------------------- reading captures/


def read_pcap(path):
    """Yields (linktype, frame bytes) for each record of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic_le = struct.unpack("<I", data[:4])[0]
    if magic_le in (0xA1B2C3D4, 0xA1B23C4D):
        endian = "<"
    elif struct.unpack(">I", data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D):
        endian = ">"
    else:
        return  # pcapng or not a capture: not used here
    linktype = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    off = 24
    rec = struct.Struct(endian + "IIII")
    while off + 16 <= len(data):
        _, _, caplen, origlen = rec.unpack_from(data, off)
        off += 16
        frame = data[off : off + caplen]
        off += caplen
        if caplen != origlen or len(frame) != caplen:
            continue  # truncated by the snap length: not replayable as is
        yield linktype, frame


def udp_of(frame):
    """Returns (l3 offset, ip version, udp offset) for an unfragmented UDP frame, else None."""
    off = 12
    ethertype = struct.unpack_from("!H", frame, off)[0]
    while ethertype in (0x8100, 0x88A8):
        off += 4
        ethertype = struct.unpack_from("!H", frame, off)[0]
    l3 = off + 2
    if ethertype == 0x0800 and len(frame) >= l3 + 20:
        ihl = (frame[l3] & 0x0F) * 4
        flags_frag = struct.unpack_from("!H", frame, l3 + 6)[0]
        if flags_frag & 0x3FFF:  # MF set or a non-zero offset: a fragment
            return None
        if frame[l3 + 9] != 17:
            return None
        return l3, 4, l3 + ihl
    if ethertype == 0x86DD and len(frame) >= l3 + 40:
        if frame[l3 + 6] != 17:
            return None
        return l3, 6, l3 + 40
    return None


def discovery_frames(captures_dir, mdns_only):
    """The discovery frames of every Ethernet capture in captures_dir, in file order."""
    frames = []
    for path in sorted(glob.glob(os.path.join(captures_dir, "*.pcap"))):
        for linktype, frame in read_pcap(path):
            if linktype != LINKTYPE_ETHERNET or len(frame) < 42:
                continue
            found = udp_of(frame)
            if found is None:
                continue
            l3, version, l4 = found
            if len(frame) < l4 + 8:
                continue
            sport, dport = struct.unpack_from("!HH", frame, l4)
            payload = frame[l4 + 8 : l4 + 16]
            is_mdns = 5353 in (sport, dport)
            is_ssdp = 1900 in (sport, dport) or payload.startswith(
                (b"HTTP/1.1", b"NOTIFY ", b"M-SEARCH")
            )
            if is_mdns or (is_ssdp and not mdns_only):
                frames.append((with_udp_checksum(frame, l3, version, l4), l3 if version == 4 else -1))
    return frames


def with_udp_checksum(frame, l3, version, l4):
    """The frame with a correct UDP checksum: the captures were taken on veth interfaces
    with checksum offload, so their outgoing datagrams carry partial checksums."""
    length = struct.unpack_from("!H", frame, l4 + 4)[0]
    if length < 8 or l4 + length > len(frame):
        return frame
    b = bytearray(frame)
    struct.pack_into("!H", b, l4 + 6, 0)
    datagram = bytes(b[l4 : l4 + length])
    if version == 4:
        pseudo = pseudo_v4(bytes(b[l3 + 12 : l3 + 16]), bytes(b[l3 + 16 : l3 + 20]), 17, length)
    else:
        pseudo = pseudo_v6(bytes(b[l3 + 8 : l3 + 24]), bytes(b[l3 + 24 : l3 + 40]), 17, length)
    struct.pack_into("!H", b, l4 + 6, checksum(datagram, pseudo) or 0xFFFF)
    return bytes(b)


# ---------------------------------------------------------------- background frames

LOCAL_MACS = [bytes([0x02, 0xBE, 0x4C, 0x00, 0x00, i]) for i in range(1, 41)]
GATEWAY_MAC = bytes([0x02, 0xBE, 0x4C, 0x00, 0x00, 0xFE])
LOCAL_V4 = [bytes([192, 0, 2, i]) for i in range(100, 140)]
GATEWAY_V4 = bytes([192, 0, 2, 1])
REMOTE_V4 = [bytes([198, 51, 100, i]) for i in range(1, 200)] + [
    bytes([203, 0, 113, i]) for i in range(1, 200)
]
DNS_NAMES = [
    "www.example.com", "api.example.net", "cdn.example.org", "mail.example.com",
    "clients4.example.com", "update.example.net", "time.example.org",
    "video-edge-1.example.net", "static.example.com", "push.example.org",
]


def ephemeral(rng):
    while True:
        p = rng.randint(32768, 60999)
        if p not in DISCOVERY_PORTS:
            return p


def random_port(rng):
    while True:
        p = rng.randint(1024, 65535)
        if p not in DISCOVERY_PORTS:
            return p


def v6_addr(rng, host):
    return bytes.fromhex("20010db8") + struct.pack("!HHHHHH", rng.randint(0, 0xFFFF), 0, 0, 0, 0, host)


def ethernet(dst, src, ethertype, vlan=None):
    if vlan is None:
        return dst + src + struct.pack("!H", ethertype)
    return dst + src + struct.pack("!HHH", 0x8100, vlan, ethertype)


def ipv4(src, dst, proto, payload, rng, ttl=64):
    header = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), rng.getrandbits(16), 0x4000, ttl, proto, 0, src, dst
    )
    csum = checksum(header)
    return header[:10] + struct.pack("!H", csum) + header[12:] + payload


def ipv6(src, dst, nxt, payload, rng, hlim=64):
    flow = rng.getrandbits(20)
    return struct.pack("!IHBB16s16s", (6 << 28) | flow, len(payload), nxt, hlim, src, dst) + payload


def pseudo_v4(src, dst, proto, length):
    return ones_sum(src + dst + struct.pack("!BBH", 0, proto, length))


def pseudo_v6(src, dst, proto, length):
    return ones_sum(src + dst + struct.pack("!IxxxB", length, proto))


def tcp_segment(sport, dport, flags, payload, rng, pseudo, syn=False):
    if syn:  # MSS, SACK permitted, timestamps, window scale
        options = struct.pack("!BBH", 2, 4, 1460) + b"\x04\x02" + struct.pack(
            "!BBII", 8, 10, rng.getrandbits(32), 0
        ) + b"\x01\x03\x03\x07"
    else:  # NOP NOP timestamps
        options = b"\x01\x01" + struct.pack("!BBII", 8, 10, rng.getrandbits(32), rng.getrandbits(32))
    offset = (20 + len(options)) // 4
    window = 64240 if syn else rng.choice((501, 1024, 2048, 4096, 16384))
    header = struct.pack(
        "!HHIIBBHHH", sport, dport, rng.getrandbits(32), 0 if flags == 0x02 else rng.getrandbits(32),
        offset << 4, flags, window, 0, 0,
    ) + options
    segment = header + payload
    csum = checksum(segment, pseudo(len(segment)))
    return segment[:16] + struct.pack("!H", csum) + segment[18:]


def udp_datagram(sport, dport, payload, pseudo):
    length = 8 + len(payload)
    datagram = struct.pack("!HHHH", sport, dport, length, 0) + payload
    csum = checksum(datagram, pseudo(length)) or 0xFFFF
    return datagram[:6] + struct.pack("!H", csum) + datagram[8:]


def tls_payload(rng, n):
    if n < 6:  # too short for a record header and a byte: continuation data
        return rng.randbytes(n)
    return b"\x17\x03\x03" + struct.pack("!H", n - 5) + rng.randbytes(n - 5)


def tcp_payload_size(rng, mss, syn_possible=True):
    """(flags, payload size, syn) with the shape of a busy network's TCP mix."""
    r = rng.random()
    if r < 0.38:
        return 0x10, 0, False  # pure ACK
    if r < 0.73:
        return 0x10, mss, False  # full segment
    if r < 0.95:
        return 0x18, rng.randint(1, mss - 1), False  # PSH with a partial segment
    if r < 0.975 and syn_possible:
        return rng.choice((0x02, 0x12)), 0, True  # SYN or SYN-ACK
    return rng.choice((0x11, 0x04, 0x14)), 0, False  # FIN-ACK, RST, RST-ACK


def bg_tcp4(rng, vlan=None):
    local_i = rng.randrange(len(LOCAL_V4))
    local, remote = LOCAL_V4[local_i], rng.choice(REMOTE_V4)
    server_port = rng.choice((443, 443, 443, 443, 443, 8009, 5228, 993, 8443))
    client_port = ephemeral(rng)
    mss = 1460 - 12 - (4 if vlan is not None else 0)
    flags, size, syn = tcp_payload_size(rng, mss)
    payload = tls_payload(rng, size)
    if rng.random() < 0.6:  # download direction: remote to local
        src, dst, sport, dport = remote, local, server_port, client_port
        emac_src, emac_dst = GATEWAY_MAC, LOCAL_MACS[local_i]
    else:
        src, dst, sport, dport = local, remote, client_port, server_port
        emac_src, emac_dst = LOCAL_MACS[local_i], GATEWAY_MAC
    seg = tcp_segment(sport, dport, flags, payload, rng, lambda n: pseudo_v4(src, dst, 6, n), syn)
    return ethernet(emac_dst, emac_src, 0x0800, vlan) + ipv4(src, dst, 6, seg, rng, rng.choice((64, 57, 118)))


def bg_tcp6(rng):
    local_i = rng.randrange(len(LOCAL_MACS))
    local = bytes.fromhex("20010db8000000010000000000") + bytes([0, 0, 0x10 + local_i])
    remote = v6_addr(rng, rng.randint(1, 0xFFFF))
    server_port = rng.choice((443, 443, 443, 5228))
    client_port = ephemeral(rng)
    flags, size, syn = tcp_payload_size(rng, 1440 - 12)
    payload = tls_payload(rng, size)
    if rng.random() < 0.6:
        src, dst, sport, dport = remote, local, server_port, client_port
        emac_src, emac_dst = GATEWAY_MAC, LOCAL_MACS[local_i]
    else:
        src, dst, sport, dport = local, remote, client_port, server_port
        emac_src, emac_dst = LOCAL_MACS[local_i], GATEWAY_MAC
    seg = tcp_segment(sport, dport, flags, payload, rng, lambda n: pseudo_v6(src, dst, 6, n), syn)
    return ethernet(emac_dst, emac_src, 0x86DD) + ipv6(src, dst, 6, seg, rng)


def dns_name(name):
    return b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"


def bg_dns(rng):
    local_i = rng.randrange(len(LOCAL_V4))
    local = LOCAL_V4[local_i]
    name = rng.choice(DNS_NAMES)
    qtype = rng.choice((1, 1, 28, 65))
    qid = rng.getrandbits(16)
    question = dns_name(name) + struct.pack("!HH", qtype, 1)
    port = ephemeral(rng)
    if rng.random() < 0.5:
        msg = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + question
        udp = udp_datagram(port, 53, msg, lambda n: pseudo_v4(local, GATEWAY_V4, 17, n))
        return ethernet(GATEWAY_MAC, LOCAL_MACS[local_i], 0x0800) + ipv4(local, GATEWAY_V4, 17, udp, rng)
    answers = b""
    count = rng.randint(1, 4)
    for _ in range(count):
        if qtype == 28:
            rdata = v6_addr(rng, rng.randint(1, 0xFFFF))
            rtype = 28
        else:
            rdata = rng.choice(REMOTE_V4)
            rtype = 1
        answers += b"\xc0\x0c" + struct.pack("!HHIH", rtype, 1, rng.randint(30, 3600), len(rdata)) + rdata
    msg = struct.pack("!HHHHHH", qid, 0x8180, 1, count, 0, 0) + question + answers
    udp = udp_datagram(53, port, msg, lambda n: pseudo_v4(GATEWAY_V4, local, 17, n))
    return ethernet(LOCAL_MACS[local_i], GATEWAY_MAC, 0x0800) + ipv4(GATEWAY_V4, local, 17, udp, rng)


def bg_quic(rng):
    local_i = rng.randrange(len(LOCAL_V4))
    local, remote = LOCAL_V4[local_i], rng.choice(REMOTE_V4)
    port = ephemeral(rng)
    if rng.random() < 0.05:  # long header (Initial), padded to 1200
        payload = bytes([0xC0 | rng.getrandbits(4)]) + b"\x00\x00\x00\x01" + rng.randbytes(1195)
    else:  # short header, 1-RTT
        size = rng.choice((rng.randint(25, 80), rng.randint(25, 1350), 1350, 1350))
        payload = bytes([0x40 | rng.getrandbits(6)]) + rng.randbytes(size - 1)
    if rng.random() < 0.7:
        src, dst, sport, dport, msrc, mdst = remote, local, 443, port, GATEWAY_MAC, LOCAL_MACS[local_i]
    else:
        src, dst, sport, dport, msrc, mdst = local, remote, port, 443, LOCAL_MACS[local_i], GATEWAY_MAC
    udp = udp_datagram(sport, dport, payload, lambda n: pseudo_v4(src, dst, 17, n))
    return ethernet(mdst, msrc, 0x0800) + ipv4(src, dst, 17, udp, rng, rng.choice((64, 55, 119)))


def bg_udp(rng):
    a, b = rng.sample(range(len(LOCAL_V4)), 2)
    src, dst = LOCAL_V4[a], LOCAL_V4[b]
    payload = rng.randbytes(rng.randint(8, 1200))
    udp = udp_datagram(random_port(rng), random_port(rng), payload, lambda n: pseudo_v4(src, dst, 17, n))
    return ethernet(LOCAL_MACS[b], LOCAL_MACS[a], 0x0800) + ipv4(src, dst, 17, udp, rng)


def bg_arp(rng):
    a, b = rng.sample(range(len(LOCAL_V4)), 2)
    if rng.random() < 0.7:  # who-has, broadcast
        body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, LOCAL_MACS[a], LOCAL_V4[a], b"\0" * 6, LOCAL_V4[b])
        frame = ethernet(b"\xff" * 6, LOCAL_MACS[a], 0x0806) + body
    else:  # is-at
        body = struct.pack(
            "!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 2, LOCAL_MACS[a], LOCAL_V4[a], LOCAL_MACS[b], LOCAL_V4[b]
        )
        frame = ethernet(LOCAL_MACS[b], LOCAL_MACS[a], 0x0806) + body
    if rng.random() < 0.5:  # received frames carry the Ethernet padding
        frame += b"\0" * (60 - len(frame))
    return frame


def background_templates(rng):
    kinds = (
        (0.74, lambda: bg_tcp4(rng)),
        (0.07, lambda: bg_tcp6(rng)),
        (0.05, lambda: bg_dns(rng)),
        (0.08, lambda: bg_quic(rng)),
        (0.03, lambda: bg_udp(rng)),
        (0.02, lambda: bg_arp(rng)),
        (0.01, lambda: bg_tcp4(rng, vlan=rng.randint(2, 4000))),
    )
    templates = []
    for _ in range(1 << TEMPLATE_BITS):
        r = rng.random()
        for weight, make in kinds:
            r -= weight
            if r < 0:
                break
        templates.append(make())
    return templates


# ---------------------------------------------------------------- discovery variation


def with_new_ip_id(frame, l3, ip_id):
    """The frame with a new IPv4 identification and its header checksum recomputed."""
    b = bytearray(frame)
    struct.pack_into("!HH", b, l3 + 4, ip_id, b[l3 + 6] << 8 | b[l3 + 7])
    ihl = (b[l3] & 0x0F) * 4
    struct.pack_into("!H", b, l3 + 10, 0)
    struct.pack_into("!H", b, l3 + 10, checksum(bytes(b[l3 : l3 + ihl])))
    return bytes(b)


def with_new_v4_source(frame, l3, host):
    """The frame with its IPv4 source moved to 192.0.2.<host>, both checksums fixed."""
    found = udp_of(frame)
    b = bytearray(frame)
    if b[l3 + 12 : l3 + 15] != b"\xc0\x00\x02" or found is None:
        return frame
    old = bytes(b[l3 + 12 : l3 + 16])
    new = bytes([192, 0, 2, host])
    b[l3 + 12 : l3 + 16] = new
    ihl = (b[l3] & 0x0F) * 4
    struct.pack_into("!H", b, l3 + 10, 0)
    struct.pack_into("!H", b, l3 + 10, checksum(bytes(b[l3 : l3 + ihl])))
    l4 = found[2]
    old_sum = struct.unpack_from("!H", b, l4 + 6)[0]
    if old_sum:  # RFC 1624 incremental update
        s = (~old_sum & 0xFFFF) + (~ones_sum(old) & 0xFFFF) + ones_sum(new)
        struct.pack_into("!H", b, l4 + 6, ((~fold(fold(s))) & 0xFFFF) or 0xFFFF)
    return bytes(b)


# ---------------------------------------------------------------- writing


def generate(args, out):
    rng = random.Random(args.seed)
    captures_dir = args.captures
    disc = discovery_frames(captures_dir, mdns_only=(args.mode == "dense"))
    if not disc:
        sys.exit("gen-bench-capture: no discovery frames found in %s/*.pcap" % captures_dir)
    templates = background_templates(rng) if args.mode == "sparse" else []
    fraction = args.discovery_fraction if args.mode == "sparse" else 1.0

    out.write(struct.pack("<IHHiIII", PCAP_MAGIC_NS, 2, 4, 0, 0, SNAPLEN, LINKTYPE_ETHERNET))
    written = 24
    limit_bytes = int(args.size_gb * (1 << 30)) if args.size_gb else None
    limit_packets = None if limit_bytes else args.packets

    rec = struct.Struct("<IIII").pack
    rnd = rng.random
    bits = rng.getrandbits
    expo = rng.expovariate
    lam = 1.0 / MEAN_GAP_NS
    vary_hosts = args.vary_hosts
    t = START_EPOCH_NS
    di = 0
    ndisc = len(disc)
    count = 0
    discovery = 0
    chunk = []
    append = chunk.append
    while True:
        if limit_packets is not None and count >= limit_packets:
            break
        if limit_bytes is not None and written >= limit_bytes:
            break
        n = FLUSH_PACKETS if limit_packets is None else min(FLUSH_PACKETS, limit_packets - count)
        for _ in range(n):
            t += int(expo(lam)) + 1
            if rnd() < PAUSE_PROBABILITY:
                t += 500_000_000 + bits(32) % 4_500_000_000
            if rnd() < fraction:
                frame, l3 = disc[di]
                di += 1
                if di == ndisc:
                    di = 0
                if l3 >= 0:
                    if vary_hosts and frame[l3 + 9] == 17:
                        frame = with_new_v4_source(frame, l3, 100 + bits(7))
                    frame = with_new_ip_id(frame, l3, bits(16))
                discovery += 1
            else:
                frame = templates[bits(TEMPLATE_BITS)]
            length = len(frame)
            sec, nsec = divmod(t, 1_000_000_000)
            append(rec(sec, nsec, length, length))
            append(frame)
            written += 16 + length
        count += n
        out.write(b"".join(chunk))
        chunk.clear()
    return count, discovery, written


def main():
    p = argparse.ArgumentParser(
        description="Deterministic large pcap for the CastScope benchmark.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("--mode", choices=("sparse", "dense"), default="sparse")
    p.add_argument("--packets", type=int, help="packet count (default 1000000 sparse, 200000 dense)")
    p.add_argument("--size-gb", type=float, help="sparse only: write at least this many GiB instead of --packets")
    p.add_argument("--seed", type=int, default=6, help="random seed (default 6)")
    p.add_argument("--discovery-fraction", type=float, default=0.02, help="sparse: share of discovery packets (default 0.02)")
    p.add_argument("--vary-hosts", action="store_true",
                   help="give replayed IPv4 discovery packets sources spread over 192.0.2.100-227 (more clients)")
    p.add_argument("--captures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures"),
                   help="directory of the source captures (default: the project's captures/)")
    p.add_argument("-o", "--output", required=True, help="output file ('-' for standard output)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args()
    if args.packets is None:
        args.packets = 1_000_000 if args.mode == "sparse" else 200_000
    if args.size_gb is not None and args.mode != "sparse":
        p.error("--size-gb is for --mode sparse")
    if args.packets < 0 or not 0 <= args.discovery_fraction <= 1:
        p.error("bad --packets or --discovery-fraction")

    started = time.monotonic()
    if args.output == "-":
        count, discovery, written = generate(args, sys.stdout.buffer)
    else:
        tmp = args.output + ".tmp"
        with open(tmp, "wb", buffering=1 << 22) as out:
            count, discovery, written = generate(args, out)
        os.replace(tmp, args.output)
    elapsed = time.monotonic() - started
    if not args.quiet:
        print(
            "gen-bench-capture: %s %d packets (%d discovery), %.1f MiB in %.2f s (%.0f packets/s)"
            % (args.mode, count, discovery, written / (1 << 20), elapsed, count / elapsed if elapsed else 0),
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
