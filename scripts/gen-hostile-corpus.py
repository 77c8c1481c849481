#!/usr/bin/env python3
"""Builds CastScope's hostile capture corpus (issue 7): small capture files that lie in every
way a capture file or a discovery packet can, each next to a well-formed Cast announcement so
that a test can check the real data still gets through.

Usage: gen-hostile-corpus.py DIR

Writes DIR/<name>.pcap or .pcapng for every case and DIR/MANIFEST.tsv, one line per file:

    name  file  exit  records  discovery  malformed  undecodable  device  note

`exit` is the status `castscope analyze` must end with (0: read to the end; 65: the file
stops being readable, and what came before is still reported); `records`, `discovery` and
`malformed` are the counts its JSON must give for the file (`packets`, `discoveryPackets`,
`malformedPackets`), `undecodable` its `undecodableFrames`; `device` is `yes` when the well-formed announcement in the file must come
out as a device ("Hostile Lab TV"); `note` says what the file does. Everything is deterministic: running it
twice gives identical bytes, and Tests/hostile/run.sh checks that the committed corpus is what
this script writes. Addresses come from 192.0.2.0/24 and 2001:db8::/32 only.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

DLT_EN10MB = 1
DLT_PKTAP = 258
SRC_MAC = bytes.fromhex("02000000c001")
MDNS_MAC = bytes.fromhex("01005e0000fb")
DEVICE = bytes([192, 0, 2, 21])
SENDER = bytes([192, 0, 2, 50])
MDNS_GROUP = bytes([224, 0, 0, 251])
BASE_TIME = 1_800_000_000


# --- DNS -----------------------------------------------------------------------------------

def name(*labels):
    """An uncompressed name from text labels."""
    out = b""
    for label in labels:
        raw = label if isinstance(label, bytes) else label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\x00"


def header(flags, qd=0, an=0, ns=0, ar=0, ident=0):
    return struct.pack(">HHHHHH", ident, flags, qd, an, ns, ar)


def rr(owner, rtype, rdata, ttl=120, rclass=0x8001, rdlength=None):
    length = len(rdata) if rdlength is None else rdlength
    return owner + struct.pack(">HHIH", rtype, rclass, ttl, length) + rdata


def txt(*strings):
    return b"".join(bytes([len(s)]) + s for s in strings)


BROWSE = name("_googlecast", "_tcp", "local")
INSTANCE = name("Chromecast-0a1b2c3d4e5f60718293a4b5c6d7e8f9", "_googlecast", "_tcp", "local")
HOST = name("0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", "local")


def announcement():
    """A complete, well-formed Cast announcement: PTR, SRV, TXT and A."""
    records = [
        rr(BROWSE, 12, INSTANCE, ttl=120, rclass=1),
        rr(INSTANCE, 33, struct.pack(">HHH", 0, 0, 8009) + HOST),
        rr(INSTANCE, 16, txt(b"id=0a1b2c3d4e5f60718293a4b5c6d7e8f9", b"md=Chromecast", b"fn=Hostile Lab TV",
                             b"ca=4101", b"st=0", b"rs=", b"ve=05")),
        rr(HOST, 1, DEVICE),
    ]
    return header(0x8400, an=len(records)) + b"".join(records)


def query():
    """A PTR query for the Cast browse name (QM)."""
    return header(0, qd=1) + BROWSE + struct.pack(">HH", 12, 1)


# --- Link, IP, UDP ---------------------------------------------------------------------------

def checksum(data):
    if len(data) % 2:
        data += b"\x00"
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(payload, src=DEVICE, dst=MDNS_GROUP, ident=1, ttl=255, flags_fragment=0, proto=17, total=None):
    length = 20 + len(payload) if total is None else total
    h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, length, ident, flags_fragment, ttl, proto, 0, src, dst)
    h = h[:10] + struct.pack(">H", checksum(h)) + h[12:]
    return h + payload


def udp(payload, sport=5353, dport=5353, length=None):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload) if length is None else length, 0) + payload


def ethernet(ip_packet, ethertype=0x0800, tags=()):
    out = MDNS_MAC + SRC_MAC
    for tpid, vid in tags:
        out += struct.pack(">HH", tpid, vid)
    return out + struct.pack(">H", ethertype) + ip_packet


def mdns_frame(message, src=DEVICE):
    return ethernet(ipv4(udp(message), src=src))


# --- Files -----------------------------------------------------------------------------------

def pcap(records, linktype=DLT_EN10MB, snaplen=262144, magic=0xA1B2C3D4):
    """A pcap file; each record is bytes, or (bytes, caplen, wirelen) to lie about lengths."""
    out = struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for i, r in enumerate(records):
        data, caplen, wirelen = (r, len(r), len(r)) if isinstance(r, bytes) else r
        out += struct.pack("<IIII", BASE_TIME + i, 1000 * i, caplen, wirelen) + data
    return out


def pcapng_block(btype, body, total=None):
    body += b"\x00" * (-len(body) % 4)
    length = 12 + len(body) if total is None else total
    return struct.pack("<II", btype, length) + body + struct.pack("<I", length)


def pcapng_shb():
    return pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))


def pcapng_idb(linktype=DLT_EN10MB):
    return pcapng_block(1, struct.pack("<HHI", linktype, 0, 262144))


def pcapng_epb(data, interface=0, i=0):
    t = (BASE_TIME + i) * 1_000_000
    return pcapng_block(6, struct.pack("<IIIII", interface, t >> 32, t & 0xFFFFFFFF, len(data), len(data)) + data)


CASES = []


def case(name, ext, exit_status, records, discovery, malformed, note, device=True, undecodable=0):
    def register(build):
        CASES.append((name, ext, exit_status, records, discovery, malformed, undecodable, device, note, build))
        return build
    return register


# File structure -------------------------------------------------------------------------------

@case("bad-magic", "pcap", 65, 0, 0, 0, "a file header whose magic number is no capture format", device=False)
def bad_magic():
    good = pcap([mdns_frame(announcement())])
    return b"\x00\x01\x02\x03" + good[4:]


@case("header-cut", "pcap", 65, 0, 0, 0, "the file ends 10 bytes into its 24-byte header", device=False)
def header_cut():
    return pcap([])[:10]


@case("snaplen-zero", "pcap", 0, 2, 2, 0, "snap length 0 in the file header, two whole packets")
def snaplen_zero():
    return pcap([mdns_frame(query(), src=SENDER), mdns_frame(announcement())], snaplen=0)


@case("caplen-over-snaplen", "pcap", 65, 0, 0, 0,
      "snap length 96 and an announcement record claiming all its bytes were captured (rejected "
      "with its frame and byte offset: nothing after it can be trusted), then a whole query", device=False)
def caplen_over_snaplen():
    big = mdns_frame(announcement())
    small = mdns_frame(query(), src=SENDER)
    return pcap([(big, len(big), len(big)), (small, len(small), len(small))], snaplen=96)


@case("zero-length-records", "pcap", 0, 4, 1, 0, "three records of 0 bytes around one announcement")
def zero_length_records():
    return pcap([(b"", 0, 0), (b"", 0, 60), mdns_frame(announcement()), (b"", 0, 0)])


@case("record-claims-4gb", "pcap", 65, 1, 1, 0,
      "one announcement, then a record header claiming 4 GiB captured (the file is 2 KiB)")
def record_claims_4gb():
    good = pcap([mdns_frame(announcement())])
    return good + struct.pack("<IIII", BASE_TIME + 9, 0, 0xFFFFFFFF, 0xFFFFFFFF) + b"\xAB" * 1500


@case("record-cut", "pcap", 0, 1, 1, 0,
      "the last record stops 30 bytes into its data (a capture cut short: a warning, not an error)")
def record_cut():
    data = pcap([mdns_frame(announcement()), mdns_frame(announcement())])
    return data[:len(data) - len(mdns_frame(announcement())) + 30]


@case("pcapng-huge-block", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a block whose length field says 4 GiB")
def pcapng_huge_block():
    return (pcapng_shb() + pcapng_idb() + pcapng_epb(mdns_frame(announcement()))
            + struct.pack("<II", 6, 0xFFFFFFF0) + b"\x00" * 64)


@case("pcapng-unknown-interface", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a packet on interface 7 of a file that describes one")
def pcapng_unknown_interface():
    return (pcapng_shb() + pcapng_idb() + pcapng_epb(mdns_frame(announcement()))
            + pcapng_epb(mdns_frame(announcement()), interface=7, i=1))


# DNS names ------------------------------------------------------------------------------------

def question_message(qname, qtype=12):
    return header(0, qd=1) + qname + struct.pack(">HH", qtype, 1)


@case("dns-pointer-loops", "pcap", 0, 6, 6, 5,
      "compression pointers: to itself, two pointing at each other, forward, a backward chain "
      "longer than 255 bytes; then an announcement")
def dns_pointer_loops():
    frames = []
    # 12: the question name is a pointer to offset 12 (itself).
    frames.append(header(0, qd=1) + b"\xC0\x0C" + struct.pack(">HH", 12, 1))
    # Two names pointing at each other: question at 12 -> 14, name at 14 -> 12 (in the answer).
    frames.append(header(0x8400, qd=1, an=1) + b"\xC0\x0E" + struct.pack(">HH", 12, 1)
                  + rr(b"\xC0\x0C", 1, DEVICE))
    # A forward pointer (to the answer after the question).
    frames.append(header(0, qd=1) + b"\xC0\x12" + struct.pack(">HH", 12, 1) + b"\x01a\x00")
    # A backward chain of pointers whose last name expands past 255 bytes.
    frames.append(chain_message())
    # A pointer with the reserved 0x40 label type.
    frames.append(header(0, qd=1) + b"\x40\x01" + struct.pack(">HH", 12, 1))
    frames.append(announcement())
    return pcap([mdns_frame(m) for m in frames])


def chain_message():
    """A query whose 131 questions form a backward pointer chain: question k is the label "a"
    then a pointer to question k-1, so question 131 expands to 262 bytes (over 255)."""
    questions = b""
    starts = []
    for k in range(131):
        starts.append(12 + len(questions))
        if k == 0:
            questions += b"\x01a\x00" + struct.pack(">HH", 1, 1)
        else:
            questions += b"\x01a" + struct.pack(">H", 0xC000 | starts[k - 1]) + struct.pack(">HH", 1, 1)
    return header(0, qd=131) + questions


@case("dns-names-past-end", "pcap", 0, 4, 4, 3,
      "a label longer than what is left, a question count of 5 with one question, a name with "
      "no terminating zero; then an announcement")
def dns_names_past_end():
    frames = [
        header(0, qd=1) + b"\x3F" + b"x" * 10,
        header(0, qd=5) + BROWSE + struct.pack(">HH", 12, 1),
        header(0, qd=1) + b"\x05local\x05local",
        announcement(),
    ]
    return pcap([mdns_frame(m) for m in frames])


@case("dns-long-names", "pcap", 0, 3, 3, 1,
      "a 255-byte name (the longest legal), a 321-byte name; then an announcement")
def dns_long_names():
    longest = name("a" * 63, "b" * 63, "c" * 63, "d" * 61)  # 64*3 + 62 + 1 = 255 bytes
    assert len(longest) == 255
    too_long = name("a" * 63, "b" * 63, "c" * 63, "d" * 63, "e" * 63)  # 321 bytes
    frames = [question_message(longest, qtype=1), question_message(too_long, qtype=1), announcement()]
    return pcap([mdns_frame(m) for m in frames])


# DNS records ------------------------------------------------------------------------------------

@case("dns-rdata-lies", "pcap", 0, 5, 5, 4,
      "a TXT string running past its rdata, an rdlength past the packet, an SRV too short for its "
      "fields, an A record of 3 bytes; then an announcement")
def dns_rdata_lies():
    frames = [
        # rdlength 15 holds "\x20id=short\x05md=T", but its first string claims 32 bytes.
        header(0x8400, an=1) + rr(INSTANCE, 16, (b"\x20id=short" + b"\x05md=TV")[:15]),
        header(0x8400, an=1) + rr(INSTANCE, 16, b"\x07fn=Lies", rdlength=0xFFFF),
        header(0x8400, an=1) + rr(INSTANCE, 33, b"\x00\x00\x1f"),
        header(0x8400, an=1) + rr(HOST, 1, b"\xC0\x00\x02"),
        announcement(),
    ]
    return pcap([mdns_frame(m) for m in frames])


# IP and UDP ---------------------------------------------------------------------------------------

def fragments(payload, ident, cut):
    """Two IPv4 fragments of a UDP datagram (`payload` is the UDP header and data)."""
    first = ipv4(payload[:cut], ident=ident, flags_fragment=0x2000)
    second = ipv4(payload[cut:], ident=ident, flags_fragment=cut // 8)
    return first, second


@case("ip-fragments", "pcap", 0, 208, 2, 1,
      "200 first fragments never completed, a datagram whose second fragment overlaps the first "
      "with different bytes, a duplicate first fragment before an announcement in two fragments "
      "that completes, two IPv4 headers longer than their packet (the capture filter drops "
      "one, the other is counted undecodable), a UDP length of 4", undecodable=1)
def ip_fragments():
    datagram = udp(announcement())
    frames = []
    for k in range(200):
        first, _ = fragments(datagram, ident=1000 + k, cut=104)
        frames.append(ethernet(first))
    # Overlap: the second fragment starts 8 bytes early with bytes that differ.
    first = ipv4(datagram[:104], ident=3000, flags_fragment=0x2000)
    clash = ipv4(b"\xEE" * 8 + datagram[104:], ident=3000, flags_fragment=96 // 8)
    frames += [ethernet(first), ethernet(clash)]
    # A duplicate first fragment, then the datagram completes (one discovery packet).
    first, second = fragments(datagram, ident=4000, cut=104)
    frames += [ethernet(first), ethernet(first), ethernet(second)]
    # An IPv4 header claiming 60 bytes in a 28-byte packet (libpcap's filter, which reads the
    # ports at the claimed header length, rejects it) and one whose total length is below its
    # own header (it passes the filter and is counted undecodable).
    short = ipv4(udp(query()), src=SENDER)
    frames.append(ethernet(bytes([0x4F]) + short[1:28]))
    frames.append(ethernet(short[:2] + struct.pack(">H", 12) + short[4:]))
    # A UDP length below 8 on port 5353: discovery, and malformed.
    assert len(frames) == 207
    return pcap(frames + [ethernet(ipv4(udp(query(), length=4), src=SENDER))])


# Link layers --------------------------------------------------------------------------------------

@case("vlan-chains", "pcap", 0, 4, 3, 0,
      "an announcement behind two VLAN tags (QinQ), one behind 8, a frame of 400 stacked tags, "
      "a query behind one tag")
def vlan_chains():
    ip = ipv4(udp(announcement()))
    frames = [
        ethernet(ip, tags=[(0x88A8, 10), (0x8100, 20)]),
        ethernet(ip, tags=[(0x8100, k) for k in range(1, 9)]),
        ethernet(b"", ethertype=0x8100, tags=[(0x8100, k % 4096) for k in range(400)]),
        ethernet(ipv4(udp(query()), src=SENDER), tags=[(0x8100, 30)]),
    ]
    return pcap(frames)


def pktap(frame, length=108, dlt=DLT_EN10MB, process=b"CastApp", pid=412):
    """An Apple PKTAP header (`pth_length` given) in front of `frame`."""
    h = struct.pack("<III", length, 1, dlt)  # pth_length, pth_type_next, pth_dlt
    h += b"en0".ljust(24, b"\x00")  # pth_ifname, offset 12
    h += struct.pack("<IIII", 1, 2, 0, 0)  # flags (inbound), protocol family, pre/post length
    h += struct.pack("<i", pid) + process.ljust(20, b"\x00")  # pth_pid 52, pth_comm 56
    h += struct.pack("<IHHi", 0, 6, 0, pid) + process.ljust(20, b"\x00")  # svc, iftype, unit, epid 84, ecomm 88
    h = h.ljust(108, b"\x00")
    return h + frame


@case("pktap-lengths", "pcap", 0, 5, 1, 0,
      "PKTAP headers claiming 0, 4, 2^32-1 and 4000 bytes (more than the record); then one "
      "announcement with a correct PKTAP header", undecodable=4)
def pktap_lengths():
    frame = mdns_frame(announcement())
    frames = [pktap(frame, length=0), pktap(frame, length=4), pktap(frame, length=0xFFFFFFFF),
              pktap(frame, length=4000), pktap(frame)]
    return pcap(frames, linktype=DLT_PKTAP)


# The native reader (issue 14) ------------------------------------------------------------------

def pcapng_idb_options(options, linktype=DLT_EN10MB):
    """An IDB with options, each (code, value bytes), padded and closed by opt_endofopt."""
    body = struct.pack("<HHI", linktype, 0, 262144)
    for code, value in options:
        body += struct.pack("<HH", code, len(value)) + value + b"\x00" * (-len(value) % 4)
    return pcapng_block(1, body + struct.pack("<HH", 0, 0))


def pcapng_good_start():
    """A section, an interface and one announcement: what every damaged pcapng case starts with."""
    return pcapng_shb() + pcapng_idb() + pcapng_epb(mdns_frame(announcement()))


def query_epb(i=1):
    return pcapng_epb(mdns_frame(query(), src=SENDER), i=i)


@case("pcapng-lengths-disagree", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a packet block whose trailing length is 4 more than its leading one, then a query")
def pcapng_lengths_disagree():
    block = bytearray(query_epb())
    block[-4:] = struct.pack("<I", len(block) + 4)
    return pcapng_good_start() + bytes(block) + query_epb(i=2)


@case("pcapng-block-shorter-than-fixed", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a packet block of 16 bytes (its fixed part alone takes 32), then a query")
def pcapng_block_shorter_than_fixed():
    return pcapng_good_start() + pcapng_block(6, struct.pack("<I", 0)) + query_epb(i=2)


@case("pcapng-length-not-multiple-of-4", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a packet block whose length says 1 byte more than it has (not a multiple of 4)")
def pcapng_length_not_multiple_of_4():
    block = query_epb()
    return pcapng_good_start() + pcapng_block(6, block[8:-4], total=len(block) + 1) + query_epb(i=2)


@case("pcapng-zero-length-block", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a block header whose length is 0, then a query")
def pcapng_zero_length_block():
    return pcapng_good_start() + struct.pack("<II", 6, 0) + query_epb(i=2)


@case("pcapng-block-claims-4gb", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a block claiming 0xfffffffc bytes (the file is 1 KiB)")
def pcapng_block_claims_4gb():
    return pcapng_good_start() + struct.pack("<II", 6, 0xFFFFFFFC) + b"\x00" * 64


@case("pcapng-interface-of-other-section", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement on interface 0, then a second section with no interface whose packet names interface 0")
def pcapng_interface_of_other_section():
    return pcapng_good_start() + pcapng_shb() + query_epb()


@case("pcapng-tsresol-2-63", "pcapng", 0, 1, 1, 0,
      "pcapng: an interface whose if_tsresol is 2^-63 (0xbf), one announcement on it")
def pcapng_tsresol_2_63():
    return pcapng_shb() + pcapng_idb_options([(9, b"\xbf")]) + pcapng_epb(mdns_frame(announcement()))


@case("pcapng-tsresol-10-19", "pcapng", 0, 1, 1, 0,
      "pcapng: an interface whose if_tsresol is 10^-19 (0x13), one announcement on it")
def pcapng_tsresol_10_19():
    return pcapng_shb() + pcapng_idb_options([(9, b"\x13")]) + pcapng_epb(mdns_frame(announcement()))


@case("pcapng-second-section-bad-magic", "pcapng", 65, 1, 1, 0,
      "pcapng: an announcement, then a second section header whose byte-order magic is 0xdeadbeef, an interface and a query")
def pcapng_second_section_bad_magic():
    shb = bytearray(pcapng_shb())
    shb[8:12] = struct.pack("<I", 0xDEADBEEF)
    return pcapng_good_start() + bytes(shb) + pcapng_idb() + query_epb()


@case("record-claims-4gb-big-endian", "pcap", 65, 1, 1, 0,
      "big-endian nanosecond pcap: one announcement, then a record header claiming caplen 0xffffffff")
def record_claims_4gb_big_endian():
    frame = mdns_frame(announcement())
    out = struct.pack(">IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, DLT_EN10MB)
    out += struct.pack(">IIII", BASE_TIME, 0, len(frame), len(frame)) + frame
    return out + struct.pack(">IIII", BASE_TIME + 1, 0, 0xFFFFFFFF, 60) + b"\xAB" * 1500


# Compressed captures ---------------------------------------------------------------------------

def gzip_bytes(data):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def tool(command, chunks):
    """`command` (zstd or lz4, fixed level) compressing `chunks`, streamed through its stdin."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out)
        for chunk in chunks:
            p.stdin.write(chunk)
        p.stdin.close()
        if p.wait() != 0:
            sys.exit("%s failed" % command[0])
        out.seek(0)
        return out.read()


COMPRESSORS = {
    "gz": lambda chunks: gzip_stream(chunks),
    "zst": lambda chunks: tool(["zstd", "-19", "-q", "-c"], chunks),
    "lz4": lambda chunks: tool(["lz4", "-9", "-q", "-c"], chunks),
}


def gzip_stream(chunks):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(c.compress(chunk) for chunk in chunks) + c.flush()


def two_frames(ext):
    """An announcement in one compressed frame (member), then 40 queries in a second one."""
    first = pcap([mdns_frame(announcement())])
    rest = pcap([mdns_frame(query(), src=SENDER) for _ in range(40)])[24:]
    return COMPRESSORS[ext]([first]), COMPRESSORS[ext]([rest])


for _ext, _tool in (("gz", "gzip"), ("zst", "zstd"), ("lz4", "lz4")):
    def _cut(ext=_ext):
        first, second = two_frames(ext)
        return first + second[:len(second) // 2]

    def _corrupt(ext=_ext):
        first, second = two_frames(ext)
        damaged = bytearray(second)
        for k in range(len(damaged) // 3, len(damaged) // 3 + 16):
            damaged[k] ^= 0x5A
        return first + bytes(damaged)

    def _bomb(ext=_ext):
        zeros = bytes(1 << 20)
        return COMPRESSORS[ext]([pcap([mdns_frame(announcement())])] + [zeros] * 256)

    # gzip inflates a cut member up to the cut (8 of its queries come out); zstd and lz4
    # decompress whole blocks, so nothing of the cut frame does.
    _cut_records = 9 if _ext == "gz" else 1
    case("%s-cut" % _tool, "pcap." + _ext, 0, _cut_records, _cut_records, 0,
         "%s: an announcement in one frame, then a frame of 40 queries that stops halfway" % _tool)(_cut)
    case("%s-corrupt" % _tool, "pcap." + _ext, 65, 1, 1, 0,
         "%s: an announcement in one frame, then a frame of 40 queries with 16 bytes flipped" % _tool)(_corrupt)
    # The zeros read as empty records until the limit stops the stream at 64 MiB + 4 KiB of
    # output: past the minimum the limit is checked at fixed 4 KiB output points, whatever
    # sizes the reader asks for, so all three formats stop at the same record.
    _bomb_records = 4194526
    case("%s-bomb" % _tool, "pcap." + _ext, 65, _bomb_records, 1, 0,
         "%s: an announcement, then 256 MiB of zeros (empty records): stops at the decompression limit, "
         "saying so" % _tool)(_bomb)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = ["# name\tfile\texit\trecords\tdiscovery\tmalformed\tundecodable\tdevice\tnote"]
    for name_, ext, exit_status, records, discovery, malformed, undecodable, device, note, build in CASES:
        data = build()
        fname = "%s.%s" % (name_, ext)
        with open(os.path.join(out, fname), "wb") as f:
            f.write(data)
        fields = [name_, fname, str(exit_status), str(records), str(discovery), str(malformed), str(undecodable)]
        lines.append("\t".join(fields + ["yes" if device else "no", note]))
    with open(os.path.join(out, "MANIFEST.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
