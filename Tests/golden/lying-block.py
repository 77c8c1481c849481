#!/usr/bin/env python3
"""Writes a pcapng file to standard output with a lying block length in one packet block.

Usage: lying-block.py FILE.pcapng PACKET [LENGTH]   (PACKET is 1-based over the Enhanced,
Simple and obsolete Packet Blocks; LENGTH is the block total length written in its header,
default 13: not a multiple of 4 and shorter than any packet block)

Everything before that block is intact, so a reader must analyse the PACKET - 1 frames before
it and report the file as unreadable from frame PACKET at the block's byte offset (printed on
standard error, for the tests). The file itself is never edited: the input is read only.
"""
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
target = int(sys.argv[2])
length = int(sys.argv[3]) if len(sys.argv) > 3 else 13
pos = 0
endian = "<"
packets = 0
while pos + 12 <= len(data):
    block_type = struct.unpack(endian + "I", data[pos:pos + 4])[0]
    if block_type == 0x0A0D0D0A:
        # Section Header Block: its byte-order magic sets the order of the section.
        endian = "<" if data[pos + 8:pos + 12] == b"\x4d\x3c\x2b\x1a" else ">"
    total = struct.unpack(endian + "I", data[pos + 4:pos + 8])[0]
    if block_type in (2, 3, 6):
        packets += 1
        if packets == target:
            struct.pack_into(endian + "I", data, pos + 4, length)
            sys.stderr.write("lying-block.py: packet block %d at byte offset %d\n" % (target, pos))
            break
    pos += total
else:
    sys.exit("lying-block.py: %s has fewer than %d packet blocks" % (sys.argv[1], target))
sys.stdout.buffer.write(bytes(data))
