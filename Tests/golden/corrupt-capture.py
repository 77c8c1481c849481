#!/usr/bin/env python3
"""Writes a pcap file to standard output with some bytes of some records overwritten.

Usage: corrupt-capture.py FILE RECORD OFFSET HEX [RECORD OFFSET HEX ...]

RECORD is 1-based, OFFSET is the byte offset within the record's data (as Wireshark shows
it), HEX the replacement bytes. Used by the golden tests to turn a real capture into a
malformed one reproducibly; the capture itself is never edited.
"""
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
starts = []
pos = 24
while pos + 16 <= len(data):
    caplen = struct.unpack(endian + "I", data[pos + 8:pos + 12])[0]
    starts.append(pos + 16)
    pos += 16 + caplen
edits = sys.argv[2:]
for i in range(0, len(edits), 3):
    record, offset, replacement = int(edits[i]), int(edits[i + 1]), bytes.fromhex(edits[i + 2])
    at = starts[record - 1] + offset
    data[at:at + len(replacement)] = replacement
sys.stdout.buffer.write(bytes(data))
