#!/usr/bin/env python3
"""Differential test on capture variants: every file format castscope must read, made from
the project's real captures, decoded exactly as tshark decodes it and analysed to the same
devices as the original (issue 14).

From captures/ (and two files of ../shared/captures/external) this writes, into a temporary
directory, variants made with editcap, mergecap, cat, gzip, zstd and lz4, and with
pcapfile.py where no tool writes the format:

  pcapng           editcap -F pcapng (if_tsresol 10^-9)
  nsec-pcap        editcap -F nsecpcap            us-pcap   editcap -F pcap (from ns)
  be-pcap          big-endian classic pcap        be-pcapng big-endian pcapng
  tsresol-2^-20    if_tsresol 0x94, timestamps rescaled (rounded to the nearest tick)
  tsresol-1e-6     no if_tsresol (the default, microseconds)
  tsoffset         if_tsoffset = the first second, timestamps relative to it
  spb              Simple Packet Blocks only (no timestamps: tshark shows 0)
  pb               the obsolete Packet Block
  split-sections   editcap -c N, the pieces concatenated: one section per piece
  mixed-endian     those sections alternately little- and big-endian
  alt-sll2         two interfaces, Ethernet and LINUX_SLL2: every other frame rewritten as
                   SLL2 (same IP packet, the Ethernet source MAC as SLL2 address)
  alt-raw          two interfaces, Ethernet and RAW: every other IP frame as raw IP
  .gz .zst .lz4    gzip -c, zstd -c, lz4 -c of several of the above
and, across captures: mergecap -F pcapng of an Ethernet and a LINUX_SLL2 capture (also two
that overlap in time, one of them turned into SLL2), and `cat` of two pcapng files.

Each variant is checked in four ways:
  1. the writer: tshark reads it (frame number, epoch, lengths, interface id, MD5 of the
     bytes) exactly as pcapfile.py says the file holds, and the packets are the original's
     (same bytes, the time at the variant's precision; for merges, the parts' packets in
     time order);
  2. tshark_diff.py's frame-by-frame mDNS comparison (frame numbers included);
  3. every castscope `dump --format jsonl` line: its frame's time equals tshark's at the
     variant's precision, its linkType is that of the frame's interface; for variants that
     hold the original's packets the lines equal the original's (file, linkType, time and the
     link-layer fields of rewritten frames excepted);
  4. `castscope analyze --format json` equals the original's, except the keys that describe
     the file (ANALYSIS_FILE_KEYS); for variants whose times moved (microseconds, 2^-20), the
     devices (DEVICE_KEYS) and the finding codes; for merges, the same against
     `analyze --merge PARTS`.

Usage:
    Tests/differential/variants.py [--keep DIR] [--only SUBSTRING] [--jobs N] [--list]
    Tests/differential/variants.py --self-test
Environment: CASTSCOPE (default .build/release/castscope), TSHARK, EDITCAP, MERGECAP.
Exit status 0 when every variant passed.  Python 3 standard library only.

Run time: 211 variants of 33 captures, about 160 CPU-seconds (tshark, twice per uncompressed
variant, is most of it): about 1.5 minutes on two idle cores, 6.5 minutes measured on two
cores shared with six builds.  FULL_MATRIX and FEW_VARIANTS choose the cost.
"""

import argparse
import concurrent.futures
import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pcapfile  # noqa: E402
import tshark_diff  # noqa: E402

REPO_ROOT = tshark_diff.REPO_ROOT
CAPTURES = REPO_ROOT / "captures"
EXTERNAL = tshark_diff.EXTERNAL_DIR

# Captures that get every variant; the others get FEW_VARIANTS (run time: every variant costs
# four tshark runs).  Chosen for what they hold: IPv4 and IPv6 fragments, SSDP/DIAL,
# LINUX_SLL2, 802.1Q, timing findings (slow answers, storms), REFLECTED_TRAFFIC (MACs).
FULL_MATRIX = ["fragmented", "dial-ssdp", "any-sll2", "slow-response", "repeater", "vlan-separated"]
# Compression is independent of the format inside: each full-matrix capture has one compressed
# copy of six of its variants.
FULL_COMPRESSED = {"pcapng": ".zst", "be-pcap": ".gz", "be-pcapng": ".lz4", "split-sections": ".gz",
                   "tsresol-2^-20": ".zst", "mixed-endian": ".lz4"}
FEW_VARIANTS = ["be-pcapng.zst", "mixed-endian.gz"]
EXTERNAL_CAPTURES = ["nfstream/mdns.pcap", "zeek/mdns.pcap"]       # LINUX_SLL, microseconds

# libpcap's names for the link types (castscope's jsonl linkType).
DLT_NAMES = {1: "EN10MB", 101: "RAW", 113: "LINUX_SLL", 276: "LINUX_SLL2", 105: "IEEE802_11",
             127: "IEEE802_11_RADIO"}

# Keys of analyze's `captures[]` entries that describe the file, not the traffic: they may
# differ between a capture and its variants.
ANALYSIS_FILE_KEYS = {"file", "linkType", "interfaces", "format", "compression", "fileSize"}
# ... and evidence frames ({"capture", "frame"}) also carry the interface index, which differs
# when a variant puts the packets on other interfaces (sections, two link types).
# The device fields compared when times moved or the packets were merged.
DEVICE_KEYS = ("id", "instance", "instances", "friendlyName", "model", "kind", "capabilityBits",
               "version", "host", "port", "addresses", "txt", "appIds", "dial")
# The DIAL fields of a device compared then (not its times and frames).
DIAL_KEYS = ("location", "usn", "server", "address", "castLocation", "answers", "answeredClients")
# jsonl keys that belong to the file or the time, not to the packet.
LINE_FILE_KEYS = {"file", "linkType", "interface", "interfaceName"}
LINE_TIME_KEYS = {"time", "epoch", "relative"}
# jsonl keys a link-layer rewrite (Ethernet -> SLL2 / RAW) legitimately changes.
LINE_LINK_KEYS = {"srcMAC", "dstMAC", "vlan", "linkType"}

TOOL_TIMEOUT = 300


def tool(name, default):
    return os.environ.get(name, default)


def run(cmd, **kwargs):
    return subprocess.run([str(c) for c in cmd], capture_output=True, timeout=TOOL_TIMEOUT, **kwargs)


def check_run(cmd, **kwargs):
    proc = run(cmd, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(map(str, cmd)), proc.returncode,
                                                 proc.stderr.decode("utf-8", "replace").strip()[:300]))
    return proc.stdout


# --------------------------------------------------------------------------
# What a file holds
# --------------------------------------------------------------------------

def model_listing(data):
    """([(interface id, ns, origlen, md5)], [(link type, interface index across the file) of
    each frame]) from our own parser (uncompressed bytes).  The interface id of the rows is the
    one in the frame's section, as tshark 4.0 shows frame.interface_id."""
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        packets = pcapfile.packets(pcapfile.parse_pcapng(data))
        rows = [(local, ns, origlen, hashlib.md5(body).hexdigest())
                for _, _, ns, origlen, body, local in packets]
        return rows, [(dlt, index) for index, dlt, _, _, _, _ in packets]
    pcap = pcapfile.parse_pcap(data)
    rows = [(0, ns, rec[3], hashlib.md5(rec[2]).hexdigest())
            for ns, rec in zip(pcap.timestamps_ns(), pcap.records)]
    return rows, [(pcap.linktype & 0xFFFF, 0)] * len(rows)


def interface_count(data):
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return sum(1 for s in pcapfile.parse_pcapng(data) for b in s.blocks if b.type == pcapfile.IDB)
    return 1


def epoch_ns(text):
    """'1795995753.188369823' -> ns; '' (tshark: the packet has no time, an SPB) -> None."""
    if text == "":
        return None
    return int(Decimal(text) * 10**9)


def tshark_listing(path):
    """([(interface id, ns, origlen, md5)], fragments) as tshark reads the file: frame i+1 is
    row i; fragments is tshark_diff.tshark_fragments' result (frame of a reassembled mDNS
    datagram -> its fragments' frames), from the same run."""
    out = check_run([tool("TSHARK", "tshark"), "-n", "-r", path, "-o", "frame.generate_md5_hash:TRUE",
                     "-T", "fields", "-E", "separator=/t", "-E", "aggregator=,",
                     "-e", "frame.number", "-e", "frame.time_epoch", "-e", "frame.len",
                     "-e", "frame.interface_id", "-e", "frame.md5_hash", "-e", "frame.protocols",
                     "-e", "ip.fragment", "-e", "ipv6.fragment"])
    rows, fragments = [], {}
    for number, line in enumerate(out.decode().splitlines(), 1):
        cols = line.split("\t")
        if int(cols[0]) != number:
            raise RuntimeError("tshark numbered frame %s as %d" % (number, int(cols[0])))
        rows.append((int(cols[3] or 0), epoch_ns(cols[1]), int(cols[2]), cols[4]))
        frags = [int(x) for c in cols[6:8] for x in c.split(",") if x.strip().isdigit()]
        if frags and "mdns" in cols[5].split(":"):
            fragments[number] = frags
    return rows, fragments


# --------------------------------------------------------------------------
# Writing variants
# --------------------------------------------------------------------------

def write(path, data):
    Path(path).write_bytes(data)
    return path


def ns_records(pcap):
    return list(zip(pcap.timestamps_ns(), pcap.records))


def pcapng_from(dlt_snaplens, packets, shb_options=None):
    """One section: IDBs [(dlt, snaplen, options)] and EPBs [(interface, ticks, origlen, data)]."""
    blocks = [pcapfile.Block(pcapfile.IDB, (dlt, 0, snaplen), options=list(opts))
              for dlt, snaplen, opts in dlt_snaplens]
    for iface, ticks, origlen, data in packets:
        blocks.append(pcapfile.Block(pcapfile.EPB, (iface, ticks >> 32, ticks & 0xFFFFFFFF, len(data), origlen),
                                     data))
    shb = pcapfile.Block(pcapfile.SHB, (pcapfile.BYTE_ORDER_MAGIC, 1, 0, -1),
                         options=shb_options or [(4, b"castscope Tests/differential/variants.py")])
    return [pcapfile.Section(shb, blocks, "<")]


def rescaled(pcapng_bytes, tsresol, offset_seconds=None):
    """The file with every interface's if_tsresol set to `tsresol` (None: removed, the default
    10^-6) and its timestamps rescaled; with offset_seconds, if_tsoffset set and the
    timestamps made relative to it."""
    sections = pcapfile.parse_pcapng(pcapng_bytes)
    for section in sections:
        idbs = []
        for block in section.blocks:
            if block.type == pcapfile.IDB:
                idbs.append((pcapfile.interface_units(block), pcapfile.interface_offset(block)))
                if tsresol is None:
                    block.options = [(c, v) for c, v in block.options if c != 9]
                else:
                    block.set_option(9, (tsresol,))
                if offset_seconds is not None:
                    block.set_option(14, (offset_seconds,))
            elif block.type == pcapfile.EPB:
                units, offset = idbs[block.fixed[0]]
                ns = pcapfile.wiretap_ns(pcapfile.epb_ticks(block), units, offset)
                new_units = pcapfile.tsresol_units(tsresol) if tsresol is not None else 10**6
                pcapfile.set_epb_ticks(block, pcapfile.ticks_from_ns(ns, new_units, offset_seconds or 0))
    return pcapfile.write_pcapng(sections)


def simple_blocks(pcapng_bytes):
    """EPBs replaced by Simple Packet Blocks (one interface; SPBs carry no time)."""
    sections = pcapfile.parse_pcapng(pcapng_bytes)
    for section in sections:
        section.blocks = [pcapfile.Block(pcapfile.SPB, (b.fixed[4],), b.data) if b.type == pcapfile.EPB else b
                          for b in section.blocks]
    return pcapfile.write_pcapng(sections)


def packet_blocks(pcapng_bytes):
    """EPBs replaced by obsolete Packet Blocks (16-bit interface id, drops count 0)."""
    sections = pcapfile.parse_pcapng(pcapng_bytes)
    for section in sections:
        section.blocks = [pcapfile.Block(pcapfile.PB, (b.fixed[0], 0, b.fixed[1], b.fixed[2], b.fixed[3], b.fixed[4]),
                                         b.data) if b.type == pcapfile.EPB else b
                          for b in section.blocks]
    return pcapfile.write_pcapng(sections)


def mixed_endian(pcapng_bytes):
    sections = pcapfile.parse_pcapng(pcapng_bytes)
    return pcapfile.write_pcapng(sections, "".join("<>"[i % 2] for i in range(len(sections))))


def sll2_frame(eth, capture_mac, ifindex=2):
    """Ethernet frame -> Linux cooked v2 frame with the same network-layer packet."""
    dst, src, ethertype = eth[0:6], eth[6:12], eth[12:14]
    if dst == b"\xff" * 6:
        packet_type = 1
    elif dst[0] & 1:
        packet_type = 2
    elif src == capture_mac:
        packet_type = 4
    else:
        packet_type = 0
    # protocol, reserved, interface index, ARPHRD_ETHER, packet type, address length, address
    header = (ethertype + b"\x00\x00" + ifindex.to_bytes(4, "big") + b"\x00\x01"
              + bytes([packet_type, 6]) + src + b"\x00\x00")
    return header + eth[14:]


def raw_frame(eth):
    """Ethernet frame holding IPv4/IPv6 directly -> the IP packet (LINKTYPE_RAW), else None."""
    if eth[12:14] in (b"\x08\x00", b"\x86\xdd"):
        return eth[14:]
    return None


def alternating(pcap, kind, capture_mac):
    """Two interfaces, Ethernet (0) and SLL2 or RAW (1); every other frame goes to interface 1
    with its link header rewritten."""
    dlt = 276 if kind == "sll2" else 101
    packets = []
    for i, (ns, (_, _, data, origlen)) in enumerate(ns_records(pcap)):
        if i % 2 == 1:
            new = sll2_frame(data, capture_mac) if kind == "sll2" else raw_frame(data)
            if new is not None:
                packets.append((1, ns, origlen - len(data) + len(new), new))
                continue
        packets.append((0, ns, origlen, data))
    idbs = [(1, pcap.snaplen, [(2, b"eth0"), (9, (9,))]), (dlt, pcap.snaplen, [(2, b"any"), (9, (9,))])]
    return pcapfile.write_pcapng(pcapng_from(idbs, packets))


def to_sll2_pcap(pcap, capture_mac):
    out = pcapfile.Pcap(pcap.nanosecond, 276, pcap.snaplen, records=[])
    for sec, frac, data, origlen in pcap.records:
        new = sll2_frame(data, capture_mac)
        out.records.append((sec, frac, new, origlen - len(data) + len(new)))
    return pcapfile.write_pcap(out)


def capture_mac(pcap):
    """The capturing host's MAC: the most frequent Ethernet source."""
    counts = {}
    for _, _, data, _ in pcap.records:
        counts[data[6:12]] = counts.get(data[6:12], 0) + 1
    return max(counts, key=counts.get)


COMPRESSORS = {".gz": ["gzip", "-c", "-n"], ".zst": ["zstd", "-q", "-c"], ".lz4": ["lz4", "-q", "-c"]}


class Variant:
    """One file to check.  original: the capture it holds the packets of (None for merges);
    parts: the captures a merge holds; precision_ns: how far a packet's time may be from the
    original's (None: times not kept, SPB); binary_tick_ns: for binary if_tsresol, the tick
    (castscope may round where wiretap truncates); analysis: full | devices | devices-only |
    merge | None; link_rewrite: some frames' link layer was rewritten."""

    def __init__(self, name, path, original=None, parts=None, precision_ns=0, binary_tick_ns=None,
                 analysis="full", link_rewrite=False, raw=None):
        self.name, self.path, self.original, self.parts = name, Path(path), original, parts or []
        self.precision_ns, self.binary_tick_ns = precision_ns, binary_tick_ns
        self.analysis, self.link_rewrite = analysis, link_rewrite
        self.raw = raw          # the uncompressed file, for compressed variants


def make_variants(tmp, capture_names):
    """-> [Variant], written into tmp."""
    tmp = Path(tmp)
    editcap, mergecap = tool("EDITCAP", "editcap"), tool("MERGECAP", "mergecap")
    variants = []

    def add(v):
        variants.append(v)
        return v

    def compress(v, suffix):
        out = tmp / (v.path.name + suffix)
        with open(out, "wb") as f:
            subprocess.run(COMPRESSORS[suffix] + [str(v.path)], stdout=f, check=True, timeout=TOOL_TIMEOUT)
        return add(Variant(v.name + suffix, out, v.original, v.parts, v.precision_ns, v.binary_tick_ns,
                           v.analysis, v.link_rewrite, raw=v.path))

    for key, source in capture_names:
        wanted = None if key in FULL_MATRIX or key.startswith("ext-") else set(FEW_VARIANTS)
        base = tmp / key
        data = source.read_bytes()
        pcap = pcapfile.parse_pcap(data)

        def want(name):
            return wanted is None or name in wanted or any(w.startswith(name + ".") for w in wanted)

        def made(name, path, **kw):
            v = Variant(key + ":" + name, path, source, **kw)
            if wanted is None or name in wanted:
                add(v)
            for suffix in COMPRESSORS:
                if (wanted is None and FULL_COMPRESSED.get(name) == suffix) or \
                        (wanted is not None and name + suffix in wanted):
                    compress(v, suffix)
            return v

        ng = Path(str(base) + ".pcapng")
        check_run([editcap, "-F", "pcapng", source, ng])
        ngdata = ng.read_bytes()
        if want("pcapng"):
            made("pcapng", ng)
        if want("nsec-pcap"):
            out = Path(str(base) + ".nsec.pcap")
            check_run([editcap, "-F", "nsecpcap", ng, out])
            made("nsec-pcap", out)
        if want("us-pcap"):
            out = Path(str(base) + ".us.pcap")
            check_run([editcap, "-F", "pcap", source, out])
            made("us-pcap", out, precision_ns=0 if not pcap.nanosecond else 999, analysis="devices")
        if want("be-pcap"):
            made("be-pcap", write(str(base) + ".be.pcap", pcapfile.swap_pcap(data)))
        if want("be-pcapng"):
            made("be-pcapng", write(str(base) + ".be.pcapng", pcapfile.swap_pcapng(ngdata)))
        if want("tsresol-2^-20"):
            tick = 10**9 / 2**20
            made("tsresol-2^-20", write(str(base) + ".tsresol20.pcapng", rescaled(ngdata, 0x94)),
                 precision_ns=int(tick) + 1, binary_tick_ns=tick, analysis="devices")
        if want("tsresol-1e-6"):
            made("tsresol-1e-6", write(str(base) + ".tsresol6.pcapng", rescaled(ngdata, None)),
                 precision_ns=500 if pcap.nanosecond else 0, analysis="devices" if pcap.nanosecond else "full")
        if want("tsoffset"):
            first = pcap.records[0][0] if pcap.records else 0
            made("tsoffset", write(str(base) + ".tsoffset.pcapng", rescaled(ngdata, 9, first)))
        if want("spb"):
            made("spb", write(str(base) + ".spb.pcapng", simple_blocks(ngdata)), precision_ns=None,
                 analysis="devices-only")
        if want("pb"):
            made("pb", write(str(base) + ".pb.pcapng", packet_blocks(ngdata)))
        if want("split-sections") or want("mixed-endian"):
            pieces_dir = tmp / (key + ".pieces")
            pieces_dir.mkdir()
            per_piece = max(1, (len(pcap.records) + 2) // 3)
            check_run([editcap, "-F", "pcapng", "-c", per_piece, source, pieces_dir / "piece.pcapng"])
            joined = b"".join(p.read_bytes() for p in sorted(pieces_dir.iterdir()))
            split = write(str(base) + ".split.pcapng", joined)
            if want("split-sections"):
                made("split-sections", split)
            if want("mixed-endian"):
                made("mixed-endian", write(str(base) + ".mixed-endian.pcapng", mixed_endian(joined)))
        if (pcap.linktype & 0xFFFF) == 1 and key != "vlan-separated":
            mac = capture_mac(pcap)
            if want("alt-sll2"):
                made("alt-sll2", write(str(base) + ".alt-sll2.pcapng", alternating(pcap, "sll2", mac)),
                     analysis="devices", link_rewrite=True)
            if want("alt-raw"):
                made("alt-raw", write(str(base) + ".alt-raw.pcapng", alternating(pcap, "raw", mac)),
                     analysis=None, link_rewrite=True)

    # Across captures.
    names = dict(capture_names)
    if {"healthy-ipv4", "any-sll2"} <= set(names):
        out = tmp / "merge-eth-sll2.pcapng"
        check_run([mergecap, "-F", "pcapng", "-w", out, names["healthy-ipv4"], names["any-sll2"]])
        v = add(Variant("merge:eth+sll2", out, parts=[names["healthy-ipv4"], names["any-sll2"]], analysis="merge"))
        compress(v, ".gz")
    if {"dial-other-device", "relayed-queries"} <= set(names):
        # These two overlap in time: the merge interleaves Ethernet and SLL2 frames.
        relayed = pcapfile.parse_pcap(names["relayed-queries"].read_bytes())
        sll2 = write(tmp / "relayed-queries.sll2.pcap", to_sll2_pcap(relayed, capture_mac(relayed)))
        out = tmp / "merge-overlap-eth-sll2.pcapng"
        check_run([mergecap, "-F", "pcapng", "-w", out, names["dial-other-device"], sll2])
        v = add(Variant("merge:overlap-eth+sll2", out, parts=[names["dial-other-device"], sll2], analysis="merge"))
        compress(v, ".zst")
    if {"healthy-ipv4", "multi-device", "any-sll2"} <= set(names):
        pieces = []
        for key in ("healthy-ipv4", "multi-device", "any-sll2"):
            piece = tmp / (key + ".pcapng")
            if not piece.exists():
                check_run([editcap, "-F", "pcapng", names[key], piece])
            pieces.append(piece)
        out = write(tmp / "concat-3.pcapng", b"".join(p.read_bytes() for p in pieces))
        v = add(Variant("cat:healthy+multi+sll2", out,
                        parts=[names[k] for k in ("healthy-ipv4", "multi-device", "any-sll2")], analysis="merge"))
        compress(v, ".lz4")
        be = write(tmp / "concat-3.mixed-endian.pcapng", mixed_endian(out.read_bytes()))
        add(Variant("cat:healthy+multi+sll2 mixed-endian", be, parts=v.parts, analysis="merge"))
    return variants


# --------------------------------------------------------------------------
# Checking variants
# --------------------------------------------------------------------------

DECOMPRESSORS = {".gz": ["gzip", "-dc"], ".zst": ["zstd", "-q", "-dc"], ".lz4": ["lz4", "-q", "-dc"]}


class Checker:
    """Checks variants; tshark's and castscope's results for a file are kept, so the
    original's are computed once per task and a compressed variant reuses tshark's reading of
    the bytes it decompresses to (verified with the compressor's own -d)."""

    def __init__(self, castscope):
        self.castscope = castscope
        self._listings, self._tshark_json, self._analyses, self._lines = {}, {}, {}, {}

    def listing(self, path):
        """tshark_listing of the file, or of its uncompressed twin."""
        path = str(path)
        if path not in self._listings:
            self._listings[path] = tshark_listing(path)
        return self._listings[path]

    def tshark_json(self, path):
        path = str(path)
        if path not in self._tshark_json:
            self._tshark_json[path] = tshark_diff.run_tshark(tool("TSHARK", "tshark"), path)
        return self._tshark_json[path]

    def dump(self, path):
        """(exit status, [jsonl objects], stderr, tshark_diff.run_castscope's result or None)."""
        path = str(path)
        if path not in self._lines:
            proc = run([self.castscope, "dump", "--format", "jsonl", path])
            out = proc.stdout.decode("utf-8", "replace")
            stderr = proc.stderr.decode("utf-8", "replace").strip()
            lines = []
            for text in out.splitlines():
                try:
                    lines.append(json.loads(text))
                except ValueError:
                    pass
            parsed = None
            if proc.returncode == 0 or out.strip():
                mdns, other, problems = tshark_diff.parse_castscope_lines(out.splitlines())
                if proc.returncode != 0:
                    problems.insert(0, "castscope exited %d (stderr: %s)" % (proc.returncode, stderr[:200]))
                parsed = (mdns, other, problems)
            self._lines[path] = (proc.returncode, lines, stderr, parsed)
        return self._lines[path]

    def analysis(self, paths, merge=False):
        key = (tuple(map(str, paths)), merge)
        if key not in self._analyses:
            cmd = [self.castscope, "analyze", "--format", "json"] + (["--merge"] if merge else []) + list(paths)
            proc = run(cmd)
            try:
                self._analyses[key] = json.loads(proc.stdout.decode("utf-8", "replace"))
            except ValueError:
                self._analyses[key] = {"error": "exit %d: %s" % (
                    proc.returncode, proc.stderr.decode("utf-8", "replace").strip()[:300])}
        return self._analyses[key]

    # 1. the writer, against tshark
    def writer(self, v, problems):
        if v.raw is not None:
            suffix = v.path.suffix
            if check_run(DECOMPRESSORS[suffix] + [v.path]) != v.raw.read_bytes():
                problems.append("writer: %s -d does not give the uncompressed file back" % DECOMPRESSORS[suffix][0])
        raw = (v.raw or v.path).read_bytes()
        model, dlts = model_listing(raw)
        ts, fragments = self.listing(v.raw or v.path)
        if ts != model:
            problems.append("writer: tshark reads %d frames, the file holds %d; first difference: %s" % (
                len(ts), len(model), first_difference(ts, model)))
        if v.original is not None:
            expected = [(0,) + row[1:] for row in self.listing(v.original)[0]]
            got = [(0,) + row[1:] for row in ts]
            self.same_packets(got, expected, v.precision_ns, problems, not v.link_rewrite)
        else:
            expected = sorted(((0,) + row[1:] for p in v.parts for row in self.listing(p)[0]),
                              key=lambda r: (r[1], r[3]))
            got = [(0,) + row[1:] for row in ts]
            if [r[1] for r in got] != sorted(r[1] for r in got):
                problems.append("writer: the merge is not in time order")
            self.same_packets(sorted(got, key=lambda r: (r[1], r[3])), expected, v.precision_ns, problems)
        return ts, fragments, dlts

    @staticmethod
    def same_packets(got, expected, precision_ns, problems, same_bytes=True):
        """Rows (interface, ns, length, md5): same count, bytes (unless the link layer was
        rewritten) and times within precision_ns (None: times not kept)."""
        if len(got) != len(expected):
            problems.append("writer: %d frames, the original has %d" % (len(got), len(expected)))
            return
        for i, (g, e) in enumerate(zip(got, expected), 1):
            if same_bytes and g[2:] != e[2:]:
                problems.append("writer: frame %d: length/bytes %s, original %s" % (i, g[2:], e[2:]))
                return
            if precision_ns is not None and abs(g[1] - e[1]) > precision_ns:
                problems.append("writer: frame %d: time %d ns, original %d ns (precision %d ns)" % (
                    i, g[1], e[1], precision_ns))
                return

    # 3. castscope's lines: time and link type per frame, and equal to the original's
    def lines(self, v, ts, dlts, problems, interfaces=1):
        code, lines, stderr, _ = self.dump(v.path)
        if code != 0:
            problems.append("castscope dump exited %d: %s" % (code, stderr[:300]))
        worst = 0
        for line in lines:
            frame = line.get("frame")
            if not isinstance(frame, int) or not 1 <= frame <= len(ts):
                problems.append("castscope line with frame %r; tshark has %d frames" % (frame, len(ts)))
                continue
            iface, tns = ts[frame - 1][0], ts[frame - 1][1]
            if tns is None:     # tshark: no time (an SPB); castscope must then say 0, 1970-01-01
                tns = 0
            try:
                cns = epoch_ns(line.get("epoch"))
            except Exception:  # noqa: BLE001 - any unparsable epoch is a difference
                problems.append("frame %d: castscope epoch %r" % (frame, line.get("epoch")))
                continue
            diff = abs(cns - tns)
            worst = max(worst, diff)
            # Decimal resolutions: exactly tshark's nanoseconds.  Binary ones: within one tick
            # (tshark truncates the nanoseconds; a reader that rounds is not wrong).
            if (v.binary_tick_ns is None and diff != 0) or (v.binary_tick_ns and diff >= v.binary_tick_ns):
                problems.append("frame %d: castscope time %s, tshark %d.%09d (%d ns apart)" % (
                    frame, line.get("epoch"), tns // 10**9, tns % 10**9, diff))
            dlt, index = dlts[frame - 1] if frame <= len(dlts) else (-1, -1)
            expected_link = DLT_NAMES.get(dlt)
            if line.get("linkType") != expected_link:
                problems.append("frame %d: castscope linkType %r, the frame's interface (%d in its section) is %s" % (
                    frame, line.get("linkType"), iface, expected_link))
            # `interface`: an index across the file; absent means 0 (a streaming reader knows
            # of one interface until the next IDB, so the first frames may go without it).
            if line.get("interface", 0) != index:
                problems.append("frame %d: castscope interface %r, the frame's is %d of %d" % (
                    frame, line.get("interface"), index, interfaces))
        if v.original is not None:
            original = self.dump(v.original)[1]
            ignore = LINE_FILE_KEYS | (LINE_TIME_KEYS if v.precision_ns != 0 else set())
            ignore |= LINE_LINK_KEYS if v.link_rewrite else set()
            a = [{k: x for k, x in line.items() if k not in ignore} for line in lines]
            b = [{k: x for k, x in line.items() if k not in ignore} for line in original]
            if a != b:
                problems.append("castscope lines differ from the original's: %s" % first_difference(a, b))
        return worst, len(lines)

    # 4. analysis
    def analysed(self, v, problems):
        if v.analysis is None:
            return "not compared"
        mine = self.analysis([v.path])
        if v.analysis == "merge":
            theirs = self.analysis(v.parts, merge=True)
        else:
            theirs = self.analysis([v.original])
        for side, result in (("variant", mine), ("original", theirs)):
            if "error" in result:
                problems.append("analyze (%s) %s" % (side, result["error"]))
                return "failed"
        if v.analysis == "full":
            a, b = strip_file_keys(mine), strip_file_keys(theirs)
            what = "whole report"
        else:
            findings = v.analysis != "devices-only"
            a, b = devices_view(mine, findings), devices_view(theirs, findings)
            what = "devices" + (" and finding codes" if findings else "")
        if a != b:
            problems.append("analysis (%s) differs from the %s: %s" % (
                what, "parts' (--merge)" if v.analysis == "merge" else "original's", first_difference(a, b)))
        return what

    def check(self, v):
        problems, out = [], []
        try:
            ts, fragments, dlts = self.writer(v, problems)
            tshark_data = (self.tshark_json(v.raw or v.path), fragments)
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            return False, "FAIL %s: %s\n" % (v.name, exc)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            diff_ok = tshark_diff.check_capture(v.path, self.castscope, tool("TSHARK", "tshark"), 10, False,
                                                tshark_data, self.dump(v.path)[3])
        interfaces = interface_count((v.raw or v.path).read_bytes())
        worst, nlines = self.lines(v, ts, dlts, problems, interfaces)
        what = self.analysed(v, problems)
        ok = diff_ok and not problems
        out.append("%s %s: %d frames, %d interfaces, %d castscope lines (times within %d ns), analysis: %s" % (
            "ok  " if ok else "FAIL", v.name, len(ts), interfaces, nlines, worst, what))
        if not diff_ok:
            out.extend("    " + line for line in buf.getvalue().splitlines())
        out.extend("    " + p for p in problems[:12])
        if len(problems) > 12:
            out.append("    ... %d more" % (len(problems) - 12))
        return ok, "\n".join(out) + "\n"

    def check_all(self, variants):
        results = [self.check(v) for v in variants]
        failures = sum(1 for ok, _ in results if not ok)
        return failures == 0, "".join(text for _, text in results), failures


def first_difference(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k, "(absent)") != b.get(k, "(absent)"):
                return "%s: %s" % (k, first_difference(a.get(k, "(absent)"), b.get(k, "(absent)")))
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return "[%d] %s" % (i, first_difference(x, y))
        if len(a) != len(b):
            return "%d items vs %d" % (len(a), len(b))
    return "%.200s vs %.200s" % (json.dumps(a, default=str), json.dumps(b, default=str))


def strip_file_keys(report):
    report = json.loads(json.dumps(report))
    for capture in report.get("captures", []):
        for key in ANALYSIS_FILE_KEYS:
            capture.pop(key, None)

    def frames(value):
        if isinstance(value, dict):
            if "capture" in value and "frame" in value:
                value.pop("interface", None)
            for item in value.values():
                frames(item)
        elif isinstance(value, list):
            for item in value:
                frames(item)
    frames(report)
    return report


def devices_view(report, with_findings):
    def one(device):
        view = {k: device.get(k) for k in DEVICE_KEYS}
        if isinstance(view.get("dial"), dict):
            view["dial"] = {k: view["dial"].get(k) for k in DIAL_KEYS}
        return view

    def project(devices):
        return sorted((one(d) for d in devices), key=lambda d: json.dumps(d, sort_keys=True))
    view = {"devices": project(report.get("devices", [])), "otherDevices": project(report.get("otherDevices", []))}
    if with_findings:
        view["findings"] = sorted("%s/%s" % (f.get("code"), f.get("severity")) for f in report.get("findings", []))
    return view


_CHECKER = None


def _check_in_worker(group):
    return _CHECKER.check_all(group)


def task_groups(variants):
    """Variants of one original (or one merge) form one task: the original's tshark and
    castscope results are computed once.  Largest tasks first."""
    groups = {}
    for v in variants:
        key = str(v.original) if v.original is not None else "merge:" + "+".join(map(str, v.parts))
        groups.setdefault(key, []).append(v)
    return sorted(groups.values(), key=lambda g: -sum((x.raw or x.path).stat().st_size for x in g))


def capture_list():
    names = [(p.stem, p) for p in sorted(CAPTURES.glob("*.pcap"))]
    for rel in EXTERNAL_CAPTURES:
        path = EXTERNAL / rel
        if path.exists():
            names.append(("ext-" + rel.replace("/", "-").rsplit(".", 1)[0], path))
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", help="write the variants into this directory and keep them")
    parser.add_argument("--only", help="check only variants whose name contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--list", action="store_true", help="write and list the variants, check nothing")
    parser.add_argument("--self-test", action="store_true", help="check pcapfile.py and the checks, then exit")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    castscope = Path(os.environ.get("CASTSCOPE", str(tshark_diff.DEFAULT_CASTSCOPE)))
    if not castscope.is_absolute() and not castscope.exists():
        castscope = REPO_ROOT / castscope
    castscope = castscope.resolve() if castscope.exists() else castscope
    for name in (tool("TSHARK", "tshark"), tool("EDITCAP", "editcap"), tool("MERGECAP", "mergecap"),
                 "gzip", "zstd", "lz4"):
        if shutil.which(name) is None:
            print("variants: %s not found" % name)
            return 1
    if not args.list and not (castscope.is_file() and os.access(castscope, os.X_OK)):
        print("variants: castscope binary not found: %s (set CASTSCOPE)" % castscope)
        return 1
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.keep:
            tmp = Path(args.keep)
            if tmp.exists():
                shutil.rmtree(tmp)
            tmp.mkdir(parents=True)
        else:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="castscope-variants-")))
        captures = capture_list()
        variants = make_variants(tmp, captures)
        if args.only:
            variants = [v for v in variants if args.only in v.name]
        if args.list:
            for v in variants:
                print("%-45s %s" % (v.name, v.path))
            return 0
        global _CHECKER
        _CHECKER = Checker(castscope)
        failed = 0
        with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for _, text, failures in pool.map(_check_in_worker, task_groups(variants)):
                sys.stdout.write(text)
                sys.stdout.flush()
                failed += failures
        print("variants: %d variants of %d captures, %d passed, %d failed (%.0f s)" % (
            len(variants), len(captures), len(variants) - failed, failed, time.monotonic() - started))
        return 0 if failed == 0 else 1


# --------------------------------------------------------------------------
# Self-test
# --------------------------------------------------------------------------

def self_test():
    failures = []

    def check(label, condition):
        print("  %s %s" % ("ok  " if condition else "FAIL", label))
        if not condition:
            failures.append(label)

    print("self-test: pcapfile.py round trips on every capture")
    sources = [p for _, p in capture_list()]
    with tempfile.TemporaryDirectory() as tmp:
        identical = swapped_twice = tshark_same = True
        for source in sources:
            data = source.read_bytes()
            pcap = pcapfile.parse_pcap(data)
            identical &= pcapfile.write_pcap(pcap, pcap.endian) == data
            be = pcapfile.swap_pcap(data)
            swapped_twice &= be != data and pcapfile.swap_pcap(be) == data and be[:2] == b"\xa1\xb2"
            ng = Path(tmp) / (source.stem + ".pcapng")
            check_run([tool("EDITCAP", "editcap"), "-F", "pcapng", source, ng])
            ngdata = ng.read_bytes()
            identical &= pcapfile.write_pcapng(pcapfile.parse_pcapng(ngdata)) == ngdata
            bng = pcapfile.swap_pcapng(ngdata)
            swapped_twice &= bng != ngdata and pcapfile.swap_pcapng(bng) == ngdata
            if source.stem not in ("healthy-ipv4", "any-sll2", "fragmented"):
                continue        # tshark is slow; the variant run checks every swapped file with it
            for name, variant in (("be.pcap", be), ("be.pcapng", bng)):
                path = write(Path(tmp) / (source.stem + "." + name), variant)
                tshark_same &= [r[1:] for r in tshark_listing(path)[0]] == [r[1:] for r in tshark_listing(source)[0]]
        check("parse + write in the same byte order gives the bytes back (pcap and pcapng)", identical)
        check("swap twice = identity, swap once changes the file", swapped_twice)
        check("tshark reads the byte-swapped pcap and pcapng as the original (3 captures)", tshark_same)

        print("self-test: timestamps")
        check("tsresol 0x94 is 2^20 units, 9 is 10^9", pcapfile.tsresol_units(0x94) == 2**20
              and pcapfile.tsresol_units(9) == 10**9 and pcapfile.tsresol_units(6) == 10**6)
        ns = 1795995753188369823
        ticks = pcapfile.ticks_from_ns(ns, 2**20)
        back = pcapfile.wiretap_ns(ticks, 2**20)
        check("2^-20 rescale keeps the time within one tick", abs(back - ns) < 10**9 / 2**20)
        check("tsoffset: relative ticks + offset = the time", pcapfile.wiretap_ns(
            pcapfile.ticks_from_ns(ns, 10**9, 1795995753), 10**9, 1795995753) == ns)
        healthy = CAPTURES / "healthy-ipv4.pcap"
        ngdata = (Path(tmp) / "healthy-ipv4.pcapng").read_bytes()
        for label, data, precision in (("2^-20", rescaled(ngdata, 0x94), 954),
                                       ("tsoffset", rescaled(ngdata, 9, 1795995753), 0),
                                       ("no tsresol", rescaled(ngdata, None), 500)):
            path = write(Path(tmp) / ("rescaled-" + label.replace("^", "")), data)
            ts, original = tshark_listing(path)[0], tshark_listing(healthy)[0]
            model, _ = model_listing(data)
            check("%s: tshark reads the times our model computes" % label, ts == model)
            check("%s: tshark's times within %d ns of the original" % (label, precision),
                  len(ts) == len(original)
                  and all(abs(a[1] - b[1]) <= precision and a[2:] == b[2:] for a, b in zip(ts, original)))
        spb = write(Path(tmp) / "spb.pcapng", simple_blocks(ngdata))
        check("SPB: tshark reads the bytes, no time", tshark_listing(spb)[0] == model_listing(spb.read_bytes())[0])
        pb = write(Path(tmp) / "pb.pcapng", packet_blocks(ngdata))
        check("PB: tshark reads it as the original",
              [r[1:] for r in tshark_listing(pb)[0]] == [r[1:] for r in tshark_listing(healthy)[0]])
        pcap = pcapfile.parse_pcap(healthy.read_bytes())
        alt = write(Path(tmp) / "alt.pcapng", alternating(pcap, "sll2", capture_mac(pcap)))
        fields = check_run([tool("TSHARK", "tshark"), "-n", "-r", alt, "-T", "fields", "-e", "frame.interface_id",
                            "-e", "frame.protocols", "-e", "ip.src"]).decode().splitlines()
        orig = check_run([tool("TSHARK", "tshark"), "-n", "-r", healthy, "-T", "fields",
                          "-e", "ip.src"]).decode().splitlines()
        check("alt-sll2: odd frames on interface 1 decoded as sll, same IP source",
              all(f.split("\t")[2] == o for f, o in zip(fields, orig))
              and all(("sll" in f) == (f.startswith("1")) for f in fields) and len(fields) == len(orig))

    print("self-test: the comparisons can fail")
    report = {"captures": [{"file": "a", "linkType": "EN10MB", "packets": 3}], "devices": [{"id": "x", "port": 8009}],
              "findings": [{"code": "SLOW_RESPONSE", "severity": "warning", "frames": [1]}]}
    other = json.loads(json.dumps(report))
    other["captures"][0]["file"] = "b"
    check("file keys are ignored", strip_file_keys(report) == strip_file_keys(other))
    other["captures"][0]["packets"] = 4
    check("a packet count is not", strip_file_keys(report) != strip_file_keys(other))
    other = json.loads(json.dumps(report))
    other["devices"][0]["port"] = 8008
    check("a device's port is compared", devices_view(report, True) != devices_view(other, True))
    other = json.loads(json.dumps(report))
    other["findings"][0]["frames"] = [2]
    check("finding frames are not compared in the devices view",
          devices_view(report, True) == devices_view(other, True))
    other["findings"][0]["code"] = "QUERY_STORM"
    check("finding codes are", devices_view(report, True) != devices_view(other, True))
    problems = []
    Checker.same_packets([(0, 10, 5, "aa")], [(0, 1010, 5, "aa")], 999, problems)
    check("a time 1000 ns off at precision 999 fails", problems)
    problems = []
    Checker.same_packets([(0, 10, 5, "aa")], [(0, 10, 5, "ab")], 0, problems)
    check("other bytes fail", problems)
    checker = Checker("castscope")
    v = Variant("x", "/nonexistent/x.pcapng", original=None)
    ts = [(0, 1000, 60, "a"), (0, 2000, 60, "b"), (0, 3000, 60, "c")]
    good = [{"frame": 2, "epoch": "0.000002000", "linkType": "EN10MB"},
            {"frame": 3, "epoch": "0.000003000", "linkType": "EN10MB"}]
    checker._lines[str(v.path)] = (0, good, "", None)
    problems = []
    checker.lines(v, ts, [(1, 0)] * 3, problems)
    check("castscope lines with tshark's frames and times pass", problems == [])
    # A reader that numbers frames per section: section 2 starts again at frame 1.
    checker._lines[str(v.path)] = (0, [dict(good[0]), dict(good[1], frame=1)], "", None)
    problems = []
    checker.lines(v, ts, [(1, 0)] * 3, problems)
    check("frames numbered per section are caught (time of another frame)", any("frame 1:" in p for p in problems))
    checker._lines[str(v.path)] = (0, good, "", None)
    problems = []
    checker.lines(v, ts, [(1, 0), (1, 0), (276, 0)], problems)
    check("a frame decoded with another interface's link type is caught", any("linkType" in p for p in problems))
    checker._lines[str(v.path)] = (0, [dict(good[0], interface=0), dict(good[1], interface=0)], "", None)
    problems = []
    checker.lines(v, ts, [(1, 0), (1, 0), (1, 1)], problems, interfaces=2)
    check("a frame given the wrong interface index is caught", any("interface 0" in p for p in problems))
    checker._lines[str(v.path)] = (0, [dict(good[0]), dict(good[1])], "", None)
    problems = []
    checker.lines(v, ts, [(1, 0), (1, 0), (1, 1)], problems, interfaces=2)
    check("... also when the key is missing (0)", any("interface None" in p for p in problems))
    report["findings"][0]["frames"] = [{"capture": 0, "frame": 1}]
    other = json.loads(json.dumps(report))
    other["findings"][0]["frames"][0]["interface"] = 1
    check("an evidence frame's interface index is not compared", strip_file_keys(report) == strip_file_keys(other))
    other["findings"][0]["frames"][0]["frame"] = 2
    check("its frame number is", strip_file_keys(report) != strip_file_keys(other))
    v.binary_tick_ns = 10**9 / 2**20
    checker._lines[str(v.path)] = (0, [dict(good[0], epoch="0.000002954")], "", None)
    problems = []
    checker.lines(v, ts, [(1, 0)] * 3, problems)
    check("2^-20: a time one tick off is caught", problems)
    if failures:
        print("self-test: %d checks FAILED" % len(failures))
        return 1
    print("self-test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
