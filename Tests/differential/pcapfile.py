"""pcap and pcapng files as Python values, written back byte for byte in either byte order.

The variant generator (variants.py) needs files that no tool writes: big-endian pcap and
pcapng, pcapng with an if_tsresol of 2^-20 or an if_tsoffset, Simple Packet Blocks, the
obsolete Packet Block, interfaces of another link type.  Instead of patching bytes in place,
a file is parsed into blocks whose fixed fields and options are numbers, and serialised again
in the byte order asked for.  parse + serialise in the same byte order gives the input back
byte for byte (checked on every capture by the self-test); in the other byte order it is the
byte swap, and swapping twice is the identity.

Every field that is a number is listed in the layouts below; an option or block this module
does not know raises ValueError instead of being copied unswapped (a half-swapped file would
test nothing).  Python 3 standard library only.
"""

import struct

# --------------------------------------------------------------------------
# Classic pcap
# --------------------------------------------------------------------------

PCAP_MAGIC_US = 0xA1B2C3D4
PCAP_MAGIC_NS = 0xA1B23C4D


class Pcap:
    """A classic pcap file: the global header's fields and the records
    [(seconds, fraction, captured bytes, original length)]."""

    def __init__(self, nanosecond, linktype, snaplen=262144, version=(2, 4), thiszone=0, sigfigs=0,
                 records=None, endian="<"):
        self.nanosecond = nanosecond
        self.linktype = linktype            # the whole 32-bit field (FCS bits included)
        self.snaplen = snaplen
        self.version = version
        self.thiszone = thiszone
        self.sigfigs = sigfigs
        self.records = records if records is not None else []
        self.endian = endian                # byte order it was read in

    def timestamps_ns(self):
        scale = 1 if self.nanosecond else 1000
        return [sec * 10**9 + frac * scale for sec, frac, _, _ in self.records]


def parse_pcap(data):
    if len(data) < 24:
        raise ValueError("pcap: %d bytes, shorter than the global header" % len(data))
    for endian in ("<", ">"):
        magic = struct.unpack(endian + "I", data[:4])[0]
        if magic in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
            break
    else:
        raise ValueError("pcap: unknown magic %s" % data[:4].hex())
    major, minor, thiszone, sigfigs, snaplen, linktype = struct.unpack(endian + "HHiIII", data[4:24])
    pcap = Pcap(magic == PCAP_MAGIC_NS, linktype, snaplen, (major, minor), thiszone, sigfigs, [], endian)
    offset = 24
    while offset < len(data):
        if offset + 16 > len(data):
            raise ValueError("pcap: record header cut at byte %d" % offset)
        sec, frac, caplen, origlen = struct.unpack(endian + "IIII", data[offset:offset + 16])
        body = data[offset + 16:offset + 16 + caplen]
        if len(body) != caplen:
            raise ValueError("pcap: record data cut at byte %d" % offset)
        pcap.records.append((sec, frac, bytes(body), origlen))
        offset += 16 + caplen
    return pcap


def write_pcap(pcap, endian="<"):
    magic = PCAP_MAGIC_NS if pcap.nanosecond else PCAP_MAGIC_US
    out = [struct.pack(endian + "IHHiIII", magic, pcap.version[0], pcap.version[1], pcap.thiszone,
                       pcap.sigfigs, pcap.snaplen, pcap.linktype)]
    for sec, frac, body, origlen in pcap.records:
        out.append(struct.pack(endian + "IIII", sec, frac, len(body), origlen))
        out.append(body)
    return b"".join(out)


# --------------------------------------------------------------------------
# pcapng
# --------------------------------------------------------------------------

SHB, IDB, PB, SPB, NRB, ISB, EPB = 0x0A0D0D0A, 1, 2, 3, 4, 5, 6
BYTE_ORDER_MAGIC = 0x1A2B3C4D

# Fixed fields after the block header, per block type ('' for none).  The packet data of
# EPB/PB (captured length, padded to 4) follows them; SPB's data is the rest of the block.
FIXED = {SHB: "IHHq", IDB: "HHI", EPB: "IIIII", PB: "HHIIII", SPB: "I", ISB: "III", NRB: ""}

# Option value layouts: a struct format (numbers, swapped), "bytes" (copied as is: strings,
# addresses, hashes) or "custom" (a 32-bit Private Enterprise Number, then bytes).
COMMON_OPTIONS = {1: "bytes", 2988: "custom", 2989: "custom", 19372: "custom", 19373: "custom"}
OPTIONS = {
    SHB: {2: "bytes", 3: "bytes", 4: "bytes"},
    IDB: {2: "bytes", 3: "bytes", 4: "bytes", 5: "bytes", 6: "bytes", 7: "bytes", 8: "Q", 9: "B",
          10: "I", 11: "bytes", 12: "bytes", 13: "B", 14: "q", 15: "bytes", 16: "Q", 17: "Q"},
    EPB: {2: "I", 3: "bytes", 4: "Q", 5: "Q", 6: "I", 7: "bytes"},
    PB: {2: "I", 3: "bytes"},
    ISB: {2: "II", 3: "II", 4: "Q", 5: "Q", 6: "Q", 7: "Q", 8: "Q"},
    NRB: {2: "bytes", 3: "bytes", 4: "bytes"},
    SPB: {},
}


class Block:
    """One pcapng block.  `fixed` is the tuple of FIXED fields, `data` the packet bytes
    (EPB, PB, SPB), `records` the NRB records [(type, value bytes)], `options`
    [(code, value)] with value a tuple of numbers, bytes, or (PEN, bytes); `end_of_options`
    says whether an opt_endofopt was written."""

    def __init__(self, btype, fixed=(), data=b"", options=None, records=None, end_of_options=None):
        self.type = btype
        self.fixed = tuple(fixed)
        self.data = data
        self.options = options if options is not None else []
        self.records = records if records is not None else []
        self.end_of_options = bool(self.options) if end_of_options is None else end_of_options

    def option(self, code):
        for c, value in self.options:
            if c == code:
                return value
        return None

    def set_option(self, code, value):
        """Replaces the first option `code` (or adds it before the end)."""
        for i, (c, _) in enumerate(self.options):
            if c == code:
                self.options[i] = (code, value)
                return
        self.options.append((code, value))
        self.end_of_options = True


class Section:
    def __init__(self, shb, blocks, endian):
        self.shb = shb
        self.blocks = blocks        # the blocks after the SHB
        self.endian = endian        # the byte order the section was read in


def _pad4(n):
    return (4 - n % 4) % 4


def _parse_options(endian, btype, body, offset):
    layouts = dict(COMMON_OPTIONS)
    layouts.update(OPTIONS[btype])
    options, end = [], False
    while offset + 4 <= len(body):
        code, length = struct.unpack(endian + "HH", body[offset:offset + 4])
        offset += 4
        if code == 0:
            end = True
            break
        value = body[offset:offset + length]
        if len(value) != length:
            raise ValueError("pcapng: option %d of block %d runs past the block" % (code, btype))
        layout = layouts.get(code)
        if layout is None:
            raise ValueError("pcapng: option %d of block type %d has no known layout" % (code, btype))
        if layout == "bytes":
            options.append((code, bytes(value)))
        elif layout == "custom":
            options.append((code, (struct.unpack(endian + "I", value[:4])[0], bytes(value[4:]))))
        else:
            if struct.calcsize(layout) != length:
                raise ValueError("pcapng: option %d of block %d has length %d" % (code, btype, length))
            options.append((code, struct.unpack(endian + layout, value)))
        pad = body[offset + length:offset + length + _pad4(length)]
        if any(pad):
            raise ValueError("pcapng: non-zero option padding (round trip would not be exact)")
        offset += length + _pad4(length)
    if offset != len(body) and any(body[offset:]):
        raise ValueError("pcapng: bytes after the options of block %d" % btype)
    return options, end


def _write_options(endian, btype, options, end):
    layouts = dict(COMMON_OPTIONS)
    layouts.update(OPTIONS[btype])
    out = []
    for code, value in options:
        layout = layouts[code]
        if layout == "bytes":
            raw = value
        elif layout == "custom":
            raw = struct.pack(endian + "I", value[0]) + value[1]
        else:
            raw = struct.pack(endian + layout, *value)
        out.append(struct.pack(endian + "HH", code, len(raw)) + raw + b"\x00" * _pad4(len(raw)))
    if end:
        out.append(b"\x00\x00\x00\x00")
    return b"".join(out)


def parse_pcapng(data, snaplens=None):
    """-> [Section].  SPB data length needs interface 0's snap length; it is taken from the
    section's first IDB."""
    sections, offset, endian = [], 0, None
    current = None
    while offset < len(data):
        if offset + 12 > len(data):
            raise ValueError("pcapng: block header cut at byte %d" % offset)
        btype_le = struct.unpack("<I", data[offset:offset + 4])[0]
        if btype_le == SHB:
            bom = data[offset + 8:offset + 12]
            if struct.unpack("<I", bom)[0] == BYTE_ORDER_MAGIC:
                endian = "<"
            elif struct.unpack(">I", bom)[0] == BYTE_ORDER_MAGIC:
                endian = ">"
            else:
                raise ValueError("pcapng: bad byte-order magic at byte %d" % offset)
        elif endian is None:
            raise ValueError("pcapng: the file does not start with a Section Header Block")
        btype, length = struct.unpack(endian + "II", data[offset:offset + 8])
        if length < 12 or length % 4 or offset + length > len(data):
            raise ValueError("pcapng: block at byte %d has length %d" % (offset, length))
        trailer = struct.unpack(endian + "I", data[offset + length - 4:offset + length])[0]
        if trailer != length:
            raise ValueError("pcapng: block at byte %d: trailer %d != %d" % (offset, trailer, length))
        body = data[offset + 8:offset + length - 4]
        if btype not in FIXED:
            raise ValueError("pcapng: block type 0x%x at byte %d is not handled" % (btype, offset))
        fmt = endian + FIXED[btype]
        size = struct.calcsize(fmt)
        fixed = struct.unpack(fmt, body[:size])
        pos, block = size, Block(btype, fixed)
        if btype in (EPB, PB):
            caplen = fixed[3] if btype == EPB else fixed[4]
            block.data = bytes(body[pos:pos + caplen])
            pos += caplen + _pad4(caplen)
        elif btype == SPB:
            idbs = [b for b in current.blocks if b.type == IDB] if current else []
            snaplen = idbs[0].fixed[2] if idbs else 0
            caplen = fixed[0] if snaplen == 0 else min(fixed[0], snaplen)
            block.data = bytes(body[pos:pos + caplen])
            pos = len(body)
            if any(body[size + caplen:]):
                raise ValueError("pcapng: SPB padding is not zero")
        elif btype == NRB:
            while True:
                rtype, rlen = struct.unpack(endian + "HH", body[pos:pos + 4])
                pos += 4
                if rtype == 0:
                    break
                block.records.append((rtype, bytes(body[pos:pos + rlen])))
                pos += rlen + _pad4(rlen)
        block.options, block.end_of_options = _parse_options(endian, btype, body, pos)
        if btype == SHB:
            current = Section(block, [], endian)
            sections.append(current)
        else:
            current.blocks.append(block)
        offset += length
    return sections


def write_block(block, endian, spb_snaplen=0):
    body = struct.pack(endian + FIXED[block.type], *block.fixed)
    if block.type in (EPB, PB):
        body += block.data + b"\x00" * _pad4(len(block.data))
    elif block.type == SPB:
        body += block.data + b"\x00" * _pad4(len(block.data))
    elif block.type == NRB:
        for rtype, value in block.records:
            body += struct.pack(endian + "HH", rtype, len(value)) + value + b"\x00" * _pad4(len(value))
        body += b"\x00\x00\x00\x00"
    body += _write_options(endian, block.type, block.options, block.end_of_options)
    length = len(body) + 12
    return struct.pack(endian + "II", block.type, length) + body + struct.pack(endian + "I", length)


def write_pcapng(sections, endian=None):
    """Serialise the sections; endian None keeps each section's own byte order, '<' or
    '>' forces one (a string of one character per section mixes them)."""
    out = []
    for i, section in enumerate(sections):
        e = section.endian if endian is None else (endian[i] if len(endian) > 1 else endian)
        shb = section.shb
        fixed = list(shb.fixed)
        fixed[0] = BYTE_ORDER_MAGIC
        out.append(write_block(Block(SHB, fixed, options=shb.options, end_of_options=shb.end_of_options), e))
        for block in section.blocks:
            out.append(write_block(block, e))
    return b"".join(out)


def swap_pcapng(data):
    """The same file in the other byte order, section by section."""
    sections = parse_pcapng(data)
    return write_pcapng(sections, "".join(">" if s.endian == "<" else "<" for s in sections))


def swap_pcap(data):
    pcap = parse_pcap(data)
    return write_pcap(pcap, ">" if pcap.endian == "<" else "<")


# --------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------

def tsresol_units(value):
    """if_tsresol byte -> units per second (10^n, or 2^n with the top bit set)."""
    return 2 ** (value & 0x7F) if value & 0x80 else 10 ** value


def interface_units(idb):
    tsresol = idb.option(9)
    return tsresol_units(tsresol[0]) if tsresol else 10**6


def interface_offset(idb):
    tsoffset = idb.option(14)
    return tsoffset[0] if tsoffset else 0


def wiretap_ns(ticks, units, offset_seconds=0):
    """Nanoseconds since the epoch as Wireshark's wiretap computes them from a pcapng
    timestamp: seconds = ticks / units, nanoseconds truncated, then the offset added."""
    seconds, rest = divmod(ticks, units)
    return (seconds + offset_seconds) * 10**9 + (rest * 10**9) // units


def ticks_from_ns(ns, units, offset_seconds=0):
    """The nearest tick count at `units` per second for a time in nanoseconds (rounded:
    the variant keeps the original time to within half a tick)."""
    ns -= offset_seconds * 10**9
    return (ns * units + 5 * 10**8) // 10**9


def epb_ticks(block):
    return (block.fixed[1] << 32) | block.fixed[2]


def set_epb_ticks(block, ticks):
    fixed = list(block.fixed)
    fixed[1], fixed[2] = ticks >> 32, ticks & 0xFFFFFFFF
    block.fixed = tuple(fixed)


def packets(sections):
    """[(interface index across the file, link type, ns, origlen, data, interface id in its
    section)] in file order, with the interface's resolution and offset applied as wiretap
    applies them (ns None for an SPB, which has no time)."""
    out, base = [], 0
    for section in sections:
        idbs = []
        for block in section.blocks:
            if block.type == IDB:
                idbs.append(block)
            elif block.type == EPB:
                idb = idbs[block.fixed[0]]
                ns = wiretap_ns(epb_ticks(block), interface_units(idb), interface_offset(idb))
                out.append((base + block.fixed[0], idb.fixed[0], ns, block.fixed[4], block.data, block.fixed[0]))
            elif block.type == PB:
                idb = idbs[block.fixed[0]]
                ticks = (block.fixed[2] << 32) | block.fixed[3]
                ns = wiretap_ns(ticks, interface_units(idb), interface_offset(idb))
                out.append((base + block.fixed[0], idb.fixed[0], ns, block.fixed[5], block.data, block.fixed[0]))
            elif block.type == SPB:
                out.append((base, idbs[0].fixed[0], None, block.fixed[0], block.data, 0))  # no time
        base += len(idbs)
    return out
