#!/usr/bin/env python3
"""Merge access-port captures into one 802.1Q trunk capture (CastScope captures).

    vlan_trunk.py -o trunk.pcap a.pcap:10 b.pcap:20

Each input is a classic pcap file of Ethernet frames recorded on one access
port (one VLAN); every frame of it gets an 802.1Q tag with that VLAN id
(TPID 0x8100, PCP 0, DEI 0) inserted after the source MAC, and the frames of
all inputs are written in timestamp order (ties: the input listed first), as
a mirror of the trunk between the two access switches would show them.
Frames are tagged by the port they were recorded on, which is the subnet
they belong to (ARP and IPv6 link-local frames included, which carry no
subnet of their own).

Why in user space: the kernel these captures are made on has no 8021q
module, so no VLAN interface can be created; the two VLANs are two
separate Linux bridges, and this script adds the tags afterwards.  Nothing
else in the frames is changed.

All inputs must have the same byte order, timestamp precision and link type
(Ethernet); the output has them too.  stdlib only.
"""
import argparse
import struct
import sys

MAGICS = {0xA1B2C3D4: "micro", 0xA1B23C4D: "nano"}
LINKTYPE_ETHERNET = 1


def read_pcap(path):
    """-> (endian, magic, snaplen, [(ts_sec, ts_frac, frame_bytes, orig_len)])"""
    with open(path, "rb") as f:
        data = f.read()
    for endian in ("<", ">"):
        magic = struct.unpack(endian + "I", data[:4])[0]
        if magic in MAGICS:
            break
    else:
        sys.exit(f"vlan_trunk.py: {path}: not a classic pcap file")
    _major, _minor, _zone, _sigfigs, snaplen, linktype = struct.unpack(endian + "HHiIII", data[4:24])
    if linktype != LINKTYPE_ETHERNET:
        sys.exit(f"vlan_trunk.py: {path}: link type {linktype}, want Ethernet (1)")
    records, off = [], 24
    while off + 16 <= len(data):
        sec, frac, caplen, orig = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        records.append((sec, frac, data[off:off + caplen], orig))
        off += caplen
    return endian, magic, snaplen, records


def tag(frame, vlan):
    """The frame with an 802.1Q tag for vlan inserted after the two MAC addresses."""
    return frame[:12] + struct.pack("!HH", 0x8100, vlan & 0x0FFF) + frame[12:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("inputs", nargs="+", metavar="FILE:VLAN")
    args = ap.parse_args()

    merged, header = [], None
    for order, spec in enumerate(args.inputs):
        path, _, vlan = spec.rpartition(":")
        if not path or not vlan.isdigit() or not 1 <= int(vlan) <= 4094:
            sys.exit(f"vlan_trunk.py: '{spec}': want FILE:VLAN with VLAN 1-4094")
        endian, magic, snaplen, records = read_pcap(path)
        if header is None:
            header = (endian, magic, snaplen)
        elif header[:2] != (endian, magic):
            sys.exit(f"vlan_trunk.py: {path}: byte order or timestamp precision differs from the first input")
        for index, (sec, frac, frame, orig) in enumerate(records):
            merged.append(((sec, frac, order, index), tag(frame, int(vlan)), orig + 4))
    merged.sort(key=lambda r: r[0])
    endian, magic, snaplen = header
    with open(args.output, "wb") as out:
        out.write(struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen + 4, LINKTYPE_ETHERNET))
        for (sec, frac, _, _), frame, orig in merged:
            out.write(struct.pack(endian + "IIII", sec, frac, len(frame), orig))
            out.write(frame)
    print(f"vlan_trunk.py: wrote {args.output}: {len(merged)} frames from {len(args.inputs)} access ports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
