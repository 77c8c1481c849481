#!/usr/bin/env python3
"""Writes a pcap file to standard output cut in the middle of one of its records.

Usage: cut-capture.py FILE [RECORD]   (RECORD is 1-based; default: the last record)

The cut falls 10 bytes into the record's data, as when tcpdump is killed mid-write, so the
file ends with a partial record. Used by the golden tests; the capture itself is never edited.
"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
magic = data[:4]
endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
offsets = []
pos = 24
while pos + 16 <= len(data):
    caplen = struct.unpack(endian + "I", data[pos + 8:pos + 12])[0]
    offsets.append(pos)
    pos += 16 + caplen
record = int(sys.argv[2]) if len(sys.argv) > 2 else len(offsets)
cut = offsets[record - 1] + 16 + 10
sys.stdout.buffer.write(data[:cut])
