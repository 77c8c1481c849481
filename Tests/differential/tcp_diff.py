#!/usr/bin/env python3
"""Differential test: castscope's connection-phase packets against tshark's, frame by frame.

castscope's `dump --format jsonl` keeps, besides mDNS and SSDP, the packets of the
connection phase (docs/dump-format.md):

  * TCP segments with SYN, RST or FIN set, or whose payload *starts* a TLS ClientHello or
    ServerHello (content type 0x16, version major 3, handshake type 1 or 2 at payload byte 5):
    lines with "protocol":"tcp" and a `tcp` object;
  * ICMP type 3 / ICMPv6 type 1 destination unreachables that quote TCP, or a UDP datagram
    to or from port 5353 or 1900: lines with "protocol":"icmp"/"icmpv6" and an `icmp` object.

For every capture this runs

    castscope dump --format jsonl FILE        (the tcp, icmp and icmpv6 lines)
    tshark -n -r FILE -d tcp.port==8009,tls -d tcp.port==8443,tls
           -T fields -E occurrence=a ... -Y KEPT_FILTER

where KEPT_FILTER (built by kept_filter() below) is the rule above as a display filter:

  * TCP: a frame with exactly one IP layer (no tunnel, no ICMP quote: an ICMP error quoting
    a SYN has tcp.flags.syn == 1 too) that is not an IP fragment (castscope does not
    reassemble TCP; tshark does, and would show the TCP header in the last fragment), and
    `tcp.flags.syn/reset/fin == 1` or the hello test on the raw payload bytes
    `tcp.payload[0:2] == 16:03 && (tcp.payload[5] == 01 || tcp.payload[5] == 02)`
    (tshark's tls.handshake.type also matches hellos in the middle of a segment or
    reassembled from several, which castscope rightly does not keep);
  * ICMP: the outer IPv4 layer carries ICMP (ip.proto#1 == 1), is not a fragment,
    icmp.type#1 == 3, and the quoted IP header (ip.proto#2) is TCP, or UDP with port 5353 or
    1900 (the quoted udp.port);
  * ICMPv6 likewise: frame.protocols shows ipv6[:ext...]:icmpv6:ipv6, icmpv6.type#1 == 1,
    the quote is TCP (a tcp layer or ipv6.nxt#2 == 6) or UDP 5353/1900;
  * the HTTP segments of DIAL's device-description fetch (docs/dump-format.md): captured
    payload starting with "GET " or "HTTP/1.", or PSH data from port 8008 (HTTP_CLAUSE);
    --no-http leaves them out.

and checks

  * both tools keep the same set of frames (frames only one side has are listed, with what
    the other side made of them: castscope's protocol, tshark's frame.protocols and Info);
  * per common frame: the protocol (tcp/icmp/icmpv6), the time (castscope `epoch` against
    tshark `frame.time_epoch`: equal as strings when both have 9 decimals, else within
    1 microsecond), ipVersion, the outer addresses (compared as binary addresses), TTL / hop
    limit;
  * TCP: ports, the flags' low byte (`flagsCode` against tshark's tcp.flags & 0xFF), the
    flags' text (against the `[SYN, ACK]` bracket of tshark's Info column, or the same
    rendering of tcp.flags when a higher protocol took over the Info column), seq and ack
    raw (tcp.seq_raw, tcp.ack_raw), payloadLength against tcp.len (castscope counts the
    *captured* payload: when frame.cap_len < frame.len it must lie between
    tcp.len - (frame.len - frame.cap_len) and tcp.len), and tlsHello against the first
    bytes tshark reports as the segment's payload;
  * ICMP: srcPort/dstPort 0, type, code, and the quoted packet: addresses, protocol and
    ports (or their absence).

KNOWN_TSHARK_BUGS lists differences proven to be tshark's fault; they are printed as
`known` and do not fail.

Usage:
    Tests/differential/tcp_diff.py [--verbose] [--max-diffs N] [--no-http] [PATH ...]
    Tests/differential/tcp_diff.py --self-test

PATH: capture files or directories (searched recursively for *.pcap and *.pcapng).
Default: captures/ of the repository and ../shared/captures/external relative to the
repository root, and a generated capture of the rule's edges (the self-test's, decoded by
castscope too: ICMPv6, ICMP quoting UDP 5353/1900, a hello in the middle of a segment,
fragmented TCP, a snaplen-cut SYN, ECN flags, HTTP).  Environment: CASTSCOPE (binary, default .build/release/castscope under
the repository root), TSHARK (default tshark), CI=true (a missing external capture
directory fails instead of being skipped).

Exit status: 0 when nothing failed, 1 otherwise (2 for usage errors).
Python 3 standard library only.
"""

import argparse
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import namedtuple
from decimal import Decimal, InvalidOperation
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CASTSCOPE = REPO_ROOT / ".build" / "release" / "castscope"
EXTERNAL_DIR = (REPO_ROOT / ".." / "shared" / "captures" / "external").resolve()
REPO_CAPTURES_DIR = REPO_ROOT / "captures"
CAPTURE_SUFFIXES = (".pcap", ".pcapng")
TOOL_TIMEOUT = 600  # seconds per tool run
CONNECTION_PROTOCOLS = ("tcp", "icmp", "icmpv6")

# Differences that are tshark's fault, proven case by case.  Each entry is
# (capture basename, frame number, reason) and optionally a 4th element: a
# substring that the difference's field name must contain (without it, every
# difference in that frame is covered).
KNOWN_TSHARK_BUGS = [
]

# --------------------------------------------------------------------------
# tshark: the display filter of the rule, the fields
# --------------------------------------------------------------------------

DISCOVERY_UDP_PORTS = (5353, 1900)
TLS_PORTS = (8009, 8443)
CAST_HTTP_PORT = 8008

# The HTTP part of the rule (Sources/WireFormat/TCP.swift TCPSummary.isKept,
# docs/dump-format.md): segments whose captured payload starts with "GET " or "HTTP/1.", and
# segments from port 8008 with PSH and captured payload.  On by default; --no-http leaves it out.
KEEP_HTTP = True
HTTP_CLAUSE = ("tcp.payload[0:4] == 47:45:54:20 || tcp.payload[0:7] == 48:54:54:50:2f:31:2e"
               " || (tcp.srcport == %d && tcp.flags.push == 1 && tcp.payload)" % CAST_HTTP_PORT)


def kept_filter(http=None):
    """The display filter that matches exactly the frames castscope keeps as connection phase
    (with the HTTP part when `http`, default KEEP_HTTP)."""
    http = KEEP_HTTP if http is None else http
    ports = "{%s}" % ", ".join(str(p) for p in DISCOVERY_UDP_PORTS)
    one_ip_layer = "((ip && !ipv6 && count(ip) == 1) || (ipv6 && !ip && count(ipv6) == 1))"
    not_fragment = ("(!ip || (ip.flags.mf == 0 && ip.frag_offset == 0))"
                    " && !(ipv6.fraghdr.more == 1) && !(ipv6.fraghdr.offset > 0)")
    hello = ("(tcp.len >= 6 && tcp.payload[0:2] == 16:03"
             " && (tcp.payload[5] == 01 || tcp.payload[5] == 02))")
    tcp_kept = ("(tcp && !icmp && !icmpv6 && %s && %s"
                " && (tcp.flags.syn == 1 || tcp.flags.reset == 1 || tcp.flags.fin == 1 || %s%s))"
                % (one_ip_layer, not_fragment, hello, " || " + HTTP_CLAUSE if http else ""))
    icmp_kept = ("(ip && !ipv6 && count(ip) == 2 && ip.proto#1 == 1"
                 " && ip.flags.mf#1 == 0 && ip.frag_offset#1 == 0 && icmp.type#1 == 3"
                 " && (ip.proto#2 == 6 || (ip.proto#2 == 17 && udp.port in %s)))" % ports)
    # The ICMPv6 layer sits right after the first IPv6 header (and its extension headers);
    # an outer fragment header (before icmpv6) that is a real fragment excludes the frame.
    outer6_fragment = ('(frame.protocols matches "ipv6\\\\.fraghdr(:ipv6\\\\.[a-z]+)*:icmpv6:"'
                       " && (ipv6.fraghdr.more#1 == 1 || ipv6.fraghdr.offset#1 > 0))")
    icmpv6_kept = ('(ipv6 && !ip && count(ipv6) == 2'
                   ' && frame.protocols matches "(^|:)ipv6(:ipv6\\\\.[a-z]+)*:icmpv6:ipv6(:|$)"'
                   " && icmpv6.type#1 == 1 && !%s"
                   " && (tcp || ipv6.nxt#2 == 6 || udp.port in %s))" % (outer6_fragment, ports))
    return " || ".join((tcp_kept, icmp_kept, icmpv6_kept))


# Fields asked for, in this order; -E occurrence=a joins repeated values with ','.
TSHARK_FIELDS = (
    "frame.number", "frame.time_epoch", "frame.len", "frame.cap_len", "frame.protocols",
    "ip.src", "ip.dst", "ip.ttl", "ip.proto",
    "ipv6.src", "ipv6.dst", "ipv6.hlim", "ipv6.nxt",
    "tcp.srcport", "tcp.dstport", "tcp.flags", "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "tcp.payload",
    "udp.srcport", "udp.dstport",
    "icmp.type", "icmp.code", "icmpv6.type", "icmpv6.code",
    "_ws.col.Info",
)
# Fields that are never split on ',' (a single value that may contain commas).
UNSPLIT_FIELDS = ("frame.protocols", "_ws.col.Info")


def tshark_command(tshark, path, display_filter, fields=TSHARK_FIELDS):
    cmd = [tshark, "-n", "-r", str(path)]
    for port in TLS_PORTS:
        cmd += ["-d", "tcp.port==%d,tls" % port]
    cmd += ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,",
            "-E", "quote=n", "-E", "header=n"]
    for field in fields:
        cmd += ["-e", field]
    return cmd + ["-Y", display_filter]


def split_fields(line, fields=TSHARK_FIELDS):
    """One tshark -T fields line -> {field: [values]} ([] when absent)."""
    parts = line.rstrip("\r\n").split("\t")
    if len(parts) < len(fields):
        parts += [""] * (len(fields) - len(parts))
    elif len(parts) > len(fields):                 # a tab inside the Info column
        parts = parts[:len(fields) - 1] + ["\t".join(parts[len(fields) - 1:])]
    out = {}
    for name, value in zip(fields, parts):
        if name in UNSPLIT_FIELDS:
            out[name] = [value] if value else []
        else:
            out[name] = value.split(",") if value else []
    return out


def tshark_int(text):
    """tshark prints integers in decimal or, for hex fields, as 0x...."""
    if text is None:
        return None
    text = str(text).strip()
    try:
        if text.lower().startswith("0x"):
            return int(text, 16)
        return int(text, 10)
    except ValueError:
        return None


def first(values, index=0):
    return values[index] if len(values) > index else None


# Wireshark's Info column names the flags of the low byte in this order (FIN first).
TCP_FLAG_NAMES = ("FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR")
_INFO_FLAGS = re.compile(r"\d+ \u2192 \d+ \[([^\]]*)\]")


def render_tcp_flags(code):
    """The low 8 flag bits as Wireshark 4.0's Info column lists them: `SYN, ACK`."""
    names = [name for bit, name in enumerate(TCP_FLAG_NAMES) if code & (1 << bit)]
    return ", ".join(names) if names else "<None>"


def info_flags(info):
    """`38125 → 8009 [SYN, ACK] Seq=0 …` -> `SYN, ACK`; None when a higher protocol wrote
    the Info column."""
    m = _INFO_FLAGS.search(info or "")
    return m.group(1) if m else None


def tls_hello(payload_hex):
    """clientHello / serverHello when the payload bytes start a TLS hello, else None."""
    try:
        data = bytes.fromhex(payload_hex or "")
    except ValueError:
        return None
    if len(data) >= 6 and data[0] == 0x16 and data[1] == 3 and data[5] in (1, 2):
        return "clientHello" if data[5] == 1 else "serverHello"
    return None


_PROTOCOL_NUMBERS = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58, "sctp": 132, "gre": 47,
                     "esp": 50, "ah": 51, "igmp": 2}


def quoted_ipv6_protocol(chain, nxt_values):
    """The upper-layer protocol of the IPv6 packet an ICMPv6 error quotes: the protocol
    after its extension headers in frame.protocols, else the quoted header's Next Header."""
    try:
        i = chain.index("icmpv6") + 1
    except ValueError:
        return None
    if i < len(chain) and chain[i] == "ipv6":
        i += 1
        while i < len(chain) and chain[i].startswith("ipv6."):
            i += 1
        if i < len(chain) and chain[i] in _PROTOCOL_NUMBERS:
            return _PROTOCOL_NUMBERS[chain[i]]
    return tshark_int(first(nxt_values, 1))


TsFrame = namedtuple("TsFrame", "frame epoch frame_len cap_len protocols info ip_version src dst ttl "
                                "protocol src_port dst_port tcp icmp")


def parse_tshark_line(line):
    """A tshark fields line of a kept frame -> TsFrame (what castscope should print)."""
    f = split_fields(line)
    protocols = first(f["frame.protocols"]) or ""
    chain = protocols.split(":")
    v4 = bool(f["ip.src"]) and "ip" in chain and (
        "ipv6" not in chain or chain.index("ip") < chain.index("ipv6"))
    src, dst = (f["ip.src"], f["ip.dst"]) if v4 else (f["ipv6.src"], f["ipv6.dst"])
    ttl = f["ip.ttl"] if v4 else f["ipv6.hlim"]
    tcp = icmp = None
    if v4 and f["icmp.type"]:
        protocol = "icmp"
    elif not v4 and f["icmpv6.type"]:
        protocol = "icmpv6"
    else:
        protocol = "tcp"
    src_port = dst_port = 0
    if protocol == "tcp":
        src_port, dst_port = tshark_int(first(f["tcp.srcport"])), tshark_int(first(f["tcp.dstport"]))
        flags = tshark_int(first(f["tcp.flags"]))
        info = first(f["_ws.col.Info"])
        text = info_flags(info)
        tcp = {
            "flagsCode": None if flags is None else flags & 0xFF,
            "flags": text if text is not None else (None if flags is None else render_tcp_flags(flags & 0xFF)),
            "flagsFromInfo": text is not None,
            "seq": tshark_int(first(f["tcp.seq_raw"])),
            "ack": tshark_int(first(f["tcp.ack_raw"])),
            "length": tshark_int(first(f["tcp.len"])),
            "tlsHello": tls_hello(first(f["tcp.payload"])),
        }
    else:
        if protocol == "icmp":
            itype, code = f["icmp.type"], f["icmp.code"]
            quoted_protocol = tshark_int(first(f["ip.proto"], 1))
        else:
            itype, code = f["icmpv6.type"], f["icmpv6.code"]
            quoted_protocol = quoted_ipv6_protocol(chain, f["ipv6.nxt"])
        quoted = {"src": first(src, 1), "dst": first(dst, 1), "protocol": quoted_protocol}
        port_layer = "tcp" if quoted_protocol == 6 else "udp" if quoted_protocol == 17 else None
        if port_layer and f[port_layer + ".srcport"]:
            quoted["srcPort"] = tshark_int(first(f[port_layer + ".srcport"]))
            quoted["dstPort"] = tshark_int(first(f[port_layer + ".dstport"]))
        icmp = {"type": tshark_int(first(itype)), "code": tshark_int(first(code)), "quoted": quoted}
    return TsFrame(
        frame=tshark_int(first(f["frame.number"])), epoch=first(f["frame.time_epoch"]),
        frame_len=tshark_int(first(f["frame.len"])), cap_len=tshark_int(first(f["frame.cap_len"])),
        protocols=protocols, info=first(f["_ws.col.Info"]) or "", ip_version=4 if v4 else 6,
        src=first(src), dst=first(dst), ttl=tshark_int(first(ttl)), protocol=protocol,
        src_port=src_port, dst_port=dst_port, tcp=tcp, icmp=icmp)


def run_tshark(tshark, path, http=None):
    """frame -> TsFrame for every frame the rule keeps."""
    cmd = tshark_command(tshark, path, kept_filter(http))
    proc = subprocess.run(cmd, capture_output=True, timeout=TOOL_TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd[:4]), proc.returncode,
                                                   proc.stderr.decode("utf-8", "replace").strip()[:500]))
    frames = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        if line.strip():
            packet = parse_tshark_line(line)
            frames[packet.frame] = packet
    return frames


def tshark_describe(tshark, path, frames):
    """frame -> 'frame.protocols: Info' for the given frames (to explain set differences)."""
    if not frames:
        return {}
    fields = ("frame.number", "frame.protocols", "_ws.col.Info")
    out = {}
    ordered = sorted(frames)
    for i in range(0, len(ordered), 200):
        chunk = ordered[i:i + 200]
        flt = "frame.number in {%s}" % ", ".join(str(n) for n in chunk)
        proc = subprocess.run(tshark_command(tshark, path, flt, fields), capture_output=True,
                              timeout=TOOL_TIMEOUT)
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            parts = line.split("\t", 2)
            if len(parts) == 3 and parts[0].isdigit():
                out[int(parts[0])] = "%s: %s" % (parts[1], parts[2])
    return out


# --------------------------------------------------------------------------
# castscope
# --------------------------------------------------------------------------

def run_castscope(castscope, path):
    """Returns (frame -> line for tcp/icmp/icmpv6 lines, frame -> protocol of other lines, problems)."""
    cmd = [str(castscope), "dump", "--format", "jsonl", str(path)]
    proc = subprocess.run(cmd, capture_output=True, timeout=TOOL_TIMEOUT)
    out = proc.stdout.decode("utf-8", "replace")
    problems = []
    if proc.returncode != 0 and not out.strip():
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), proc.returncode,
                                                   proc.stderr.decode("utf-8", "replace").strip()[:500]))
    if proc.returncode != 0:
        problems.append("castscope exited %d (stderr: %s)" % (
            proc.returncode, proc.stderr.decode("utf-8", "replace").strip()[:200]))
    conn, other, line_problems = parse_castscope_lines(out.splitlines())
    return conn, other, problems + line_problems


def parse_castscope_lines(lines):
    conn, other, problems = {}, {}, []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            problems.append("castscope output line %d is not JSON (%s): %.80s" % (number, exc, line))
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("frame"), int):
            problems.append("castscope output line %d has no integer frame" % number)
            continue
        frame = obj["frame"]
        if obj.get("protocol") in CONNECTION_PROTOCOLS:
            if frame in conn:
                problems.append("castscope reports frame %d twice" % frame)
            conn[frame] = obj
        else:
            other[frame] = obj.get("protocol")
    return conn, other, problems


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

Diff = namedtuple("Diff", "frame field cs ts")


def show(value):
    if value is None:
        return "(absent)"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def parse_ip(text):
    try:
        return ipaddress.ip_address(str(text).split("%")[0])
    except ValueError:
        return None


def parse_epoch(text):
    try:
        return Decimal(str(text))
    except (InvalidOperation, ValueError):
        return None


def same_time(cs, ts):
    """Equal strings when both give 9 decimals, else within 1 microsecond."""
    if not isinstance(cs, str) or not isinstance(ts, str):
        return False
    if re.fullmatch(r"\d+\.\d{9}", cs) and re.fullmatch(r"\d+\.\d{9}", ts):
        return cs == ts
    a, b = parse_epoch(cs), parse_epoch(ts)
    return a is not None and b is not None and abs(a - b) <= Decimal("0.000001")


class FrameComparer:
    def __init__(self, frame, cs, ts):
        self.frame, self.cs, self.ts = frame, cs, ts
        self.diffs = []

    def diff(self, field, cs, ts):
        self.diffs.append(Diff(self.frame, field, cs, ts))

    def eq(self, field, cs, ts):
        if cs != ts or type(cs) is not type(ts):
            self.diff(field, cs, ts)

    def address(self, field, cs, ts):
        a, b = parse_ip(cs), parse_ip(ts)
        if a is None or b is None or a != b:
            self.diff(field, cs, ts)

    def run(self):
        cs, ts = self.cs, self.ts
        self.eq("protocol", cs.get("protocol"), ts.protocol)
        if not same_time(cs.get("epoch"), ts.epoch):
            self.diff("epoch", cs.get("epoch"), ts.epoch)
        self.eq("ipVersion", cs.get("ipVersion"), ts.ip_version)
        self.address("src", cs.get("src"), ts.src)
        self.address("dst", cs.get("dst"), ts.dst)
        self.eq("ttl", cs.get("ttl"), ts.ttl)
        self.eq("srcPort", cs.get("srcPort"), ts.src_port)
        self.eq("dstPort", cs.get("dstPort"), ts.dst_port)
        if cs.get("protocol") != ts.protocol:
            return self.diffs
        if ts.tcp is not None:
            self.tcp(cs.get("tcp"), ts)
        else:
            self.icmp(cs.get("icmp"), ts.icmp)
        return self.diffs

    def tcp(self, c, ts):
        t = ts.tcp
        if not isinstance(c, dict):
            self.diff("tcp", c, "a TCP segment")
            return
        self.eq("tcp.flagsCode", c.get("flagsCode"), t["flagsCode"])
        self.eq("tcp.flags", c.get("flags"), t["flags"])
        self.eq("tcp.seq", c.get("seq"), t["seq"])
        self.eq("tcp.ack", c.get("ack"), t["ack"])
        length, wire = c.get("payloadLength"), t["length"]
        cut = (ts.cap_len is not None and ts.frame_len is not None and ts.cap_len < ts.frame_len)
        if cut and isinstance(length, int) and isinstance(wire, int):
            lowest = max(0, wire - (ts.frame_len - ts.cap_len))
            if not lowest <= length <= wire:
                self.diff("tcp.payloadLength (frame cut by snaplen: %d..%d)" % (lowest, wire), length, wire)
        else:
            self.eq("tcp.payloadLength", length, wire)
        self.eq("tcp.tlsHello", c.get("tlsHello"), t["tlsHello"])

    def icmp(self, c, t):
        if not isinstance(c, dict):
            self.diff("icmp", c, "a destination unreachable")
            return
        self.eq("icmp.type", c.get("type"), t["type"])
        self.eq("icmp.code", c.get("code"), t["code"])
        cq, tq = c.get("quoted"), t["quoted"]
        if not isinstance(cq, dict):
            self.diff("icmp.quoted", cq, tq)
            return
        self.address("icmp.quoted.src", cq.get("src"), tq["src"])
        self.address("icmp.quoted.dst", cq.get("dst"), tq["dst"])
        self.eq("icmp.quoted.protocol", cq.get("protocol"), tq["protocol"])
        self.eq("icmp.quoted.srcPort", cq.get("srcPort"), tq.get("srcPort"))
        self.eq("icmp.quoted.dstPort", cq.get("dstPort"), tq.get("dstPort"))


def describe_cs(obj):
    if obj.get("protocol") == "tcp" and isinstance(obj.get("tcp"), dict):
        t = obj["tcp"]
        return "tcp %s:%s > %s:%s [%s]%s" % (obj.get("src"), obj.get("srcPort"), obj.get("dst"),
                                             obj.get("dstPort"), t.get("flags"),
                                             " " + t["tlsHello"] if t.get("tlsHello") else "")
    if isinstance(obj.get("icmp"), dict):
        i = obj["icmp"]
        return "%s %s > %s type %s code %s" % (obj.get("protocol"), obj.get("src"), obj.get("dst"),
                                               i.get("type"), i.get("code"))
    return str(obj.get("protocol"))


def compare_capture_data(cs_conn, cs_other, ts_frames, ts_descriptions=None):
    """castscope's connection-phase lines against tshark's kept frames for one capture.
    Returns (frames compared, diffs)."""
    ts_descriptions = ts_descriptions or {}
    diffs = []
    compared = 0
    for frame in sorted(set(cs_conn) | set(ts_frames)):
        if frame not in ts_frames:
            diffs.append(Diff(frame, "frame only castscope keeps", describe_cs(cs_conn[frame]),
                              "not kept (%s)" % ts_descriptions.get(frame, "not matched by the filter")))
            continue
        if frame not in cs_conn:
            what = cs_other.get(frame)
            ts = ts_frames[frame]
            diffs.append(Diff(frame, "frame only tshark keeps",
                              "not reported" if what is None else "reported as %s" % what,
                              "%s: %s" % (ts.protocols, ts.info)))
            continue
        compared += 1
        diffs.extend(FrameComparer(frame, cs_conn[frame], ts_frames[frame]).run())
    return compared, diffs


def known_reason(basename, diff):
    for entry in KNOWN_TSHARK_BUGS:
        name, frame, reason = entry[0], entry[1], entry[2]
        match = entry[3] if len(entry) > 3 else None
        if name != basename or frame != diff.frame:
            continue
        if match and match not in diff.field:
            continue
        return reason
    return None


def format_diff(diff, prefix=""):
    return "    %sframe %d %s: castscope %s vs tshark %s" % (
        prefix, diff.frame, diff.field, show(diff.cs), show(diff.ts))


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

def find_captures(paths):
    found = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*")
                                if p.is_file() and p.name.lower().endswith(CAPTURE_SUFFIXES)))
        else:
            found.append(path)
    return found


def display_path(path):
    """Repository-relative when inside the repository, else as absolute path."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(REPO_ROOT))
    except ValueError:
        return str(absolute)


CaptureResult = namedtuple("CaptureResult", "ok frames tcp icmp failing known")


def check_capture(path, castscope, tshark, max_diffs, verbose, http=None, label=None):
    shown = label or display_path(path)
    basename = Path(path).name
    try:
        ts_frames = run_tshark(tshark, path, http)
        cs_conn, cs_other, problems = run_castscope(castscope, path)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
        print("FAIL %s: %s" % (shown, exc))
        return CaptureResult(False, 0, 0, 0, 1, 0)
    only_cs = [f for f in cs_conn if f not in ts_frames]
    frames, diffs = compare_capture_data(cs_conn, cs_other, ts_frames,
                                         tshark_describe(tshark, path, only_cs))
    failing, known = [], []
    for diff in diffs:
        reason = known_reason(basename, diff)
        (known if reason else failing).append((diff, reason))
    stale = [e for e in KNOWN_TSHARK_BUGS
             if e[0] == basename and not any(d.frame == e[1] for d, _ in known)]
    ok = not failing and not problems
    common = set(cs_conn) & set(ts_frames)
    n_tcp = sum(1 for f in common if ts_frames[f].protocol == "tcp")
    summary = "%s %s: %d connection-phase frames compared (%d tcp, %d icmp/icmpv6)" % (
        "ok" if ok else "FAIL", shown, frames, n_tcp, frames - n_tcp)
    extras = []
    if failing:
        extras.append("%d differences" % len(failing))
    if known:
        extras.append("%d known tshark differences" % len(known))
    print(summary + ("; " + ", ".join(extras) if extras else ""))
    for problem in problems:
        print("    problem: %s" % problem)
    limit = None if verbose else max_diffs
    for diff, _ in failing[:limit]:
        print(format_diff(diff))
    if limit is not None and len(failing) > limit:
        print("    ... %d more differences (use --verbose or --max-diffs)" % (len(failing) - limit))
    for diff, reason in known[:limit]:
        print(format_diff(diff, "known ") + "  [%s]" % reason)
    for entry in stale:
        print("    note: KNOWN_TSHARK_BUGS entry for frame %d matched nothing (%s)" % (entry[1], entry[2]))
    return CaptureResult(ok, frames, n_tcp, frames - n_tcp, len(failing) + len(problems), len(known))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Compare castscope's connection-phase packets (TCP, ICMP) with tshark's, frame by frame.")
    parser.add_argument("paths", nargs="*", help="capture files or directories")
    parser.add_argument("--self-test", action="store_true",
                        help="run the comparer's own unit checks and exit")
    parser.add_argument("--max-diffs", type=int, default=20,
                        help="differences to print per capture (default 20)")
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    parser.add_argument("--no-http", action="store_true",
                        help="leave out the HTTP segments (GET / HTTP/1. payload starts, PSH data "
                             "from port 8008) from the rule")
    args = parser.parse_args(argv)

    if args.self_test:
        return self_test()

    ci = os.environ.get("CI") == "true"
    tshark = os.environ.get("TSHARK", "tshark")
    if shutil.which(tshark) is None:
        print("tcp_diff: tshark not found (%s)" % tshark)
        return 1
    castscope = Path(os.environ.get("CASTSCOPE", str(DEFAULT_CASTSCOPE)))
    if not castscope.is_absolute() and os.sep in str(castscope) and not castscope.exists():
        castscope = REPO_ROOT / castscope        # relative to the repository root
    if not (castscope.is_file() and os.access(castscope, os.X_OK)) and shutil.which(str(castscope)) is None:
        print("tcp_diff: castscope binary not found or not executable: %s "
              "(build with `swift build -c release` or set CASTSCOPE)" % castscope)
        return 1

    passed = failed = 0
    if args.paths:
        missing = [p for p in args.paths if not Path(p).exists()]
        if missing:
            print("tcp_diff: no such file or directory: %s" % ", ".join(missing))
            return 2
        roots = args.paths
    else:
        roots = []
        if REPO_CAPTURES_DIR.is_dir():
            roots.append(REPO_CAPTURES_DIR)
        else:
            print("note: %s does not exist" % display_path(REPO_CAPTURES_DIR))
        if EXTERNAL_DIR.is_dir():
            roots.append(EXTERNAL_DIR)
        elif ci:
            print("FAIL %s: external capture directory is missing and CI=true "
                  "(it must be provisioned in CI)" % EXTERNAL_DIR)
            failed += 1
        else:
            print("SKIP %s: external capture directory missing (set CI=true to make this fatal)"
                  % EXTERNAL_DIR)

    found = find_captures(roots)
    captures = [(c, None) for c in found]
    tmp = tempfile.TemporaryDirectory()
    if not args.paths:
        # The rule's edges the corpus lacks (ICMPv6, ICMP quoting UDP 5353/1900, a hello in
        # the middle of a segment, fragmented TCP, a snaplen-cut SYN, ECN flags, HTTP): the
        # self-test's capture, here decoded by castscope too.
        edge = Path(tmp.name) / "tcp_diff-edge-cases.pcap"
        _write_pcap(edge, _self_test_capture()[0])
        captures.append((edge, "(generated) tcp_diff-edge-cases.pcap"))
    frames = tcp = icmp = differences = known = 0
    for capture, label in captures:
        result = check_capture(capture, castscope, tshark, args.max_diffs, args.verbose,
                               KEEP_HTTP and not args.no_http, label)
        passed += result.ok
        failed += not result.ok
        frames += result.frames
        tcp += result.tcp
        icmp += result.icmp
        differences += result.failing
        known += result.known
    tmp.cleanup()
    if not found:
        print("warning: no captures found")
        if ci and failed == 0:
            failed += 1
    print("tcp_diff: %d captures passed, %d failed; %d connection-phase frames compared "
          "(%d tcp, %d icmp/icmpv6), %d differences%s%s"
          % (passed, failed, frames, tcp, icmp, differences,
             " (rule without HTTP segments)" if args.no_http else "",
             ", %d known tshark differences" % known if known else ""))
    return 0 if failed == 0 else 1


# --------------------------------------------------------------------------
# Self-test
# --------------------------------------------------------------------------

def _checksum(data):
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _ipv4(src, dst, proto, payload, ttl=64, flags_offset=0x4000, ident=1):
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, flags_offset, ttl, proto, 0,
                         ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed)
    header = header[:10] + struct.pack("!H", _checksum(header)) + header[12:]
    return header + payload


def _ipv6(src, dst, nxt, payload, hlim=64):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nxt, hlim,
                       ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed) + payload


def _tcp(sport, dport, seq, ack, flags, payload=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 64240, 0, 0) + payload


def _udp(sport, dport, payload=b""):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def _icmp(itype, code, quote):
    return struct.pack("!BBHI", itype, code, 0, 0) + quote


def _eth(packet, v6=False):
    return (bytes.fromhex("020000000002020000000001") + (b"\x86\xdd" if v6 else b"\x08\x00") + packet)


def _write_pcap(path, frames):
    """Nanosecond pcap, Ethernet.  frames: [(bytes, original length or None)]."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for i, (data, orig) in enumerate(frames):
            f.write(struct.pack("<IIII", 1796293250 + i, 123456789, len(data), orig or len(data)) + data)


def _self_test_capture():
    """Frames covering the rule's edges, and the castscope lines expected for the kept ones."""
    a, b, r = "192.0.2.10", "192.0.2.21", "192.0.2.1"
    a6, b6 = "2001:db8::10", "2001:db8::21"
    # a record of 59 bytes holding a 55-byte handshake message of type 1 / 2
    client_hello = bytes.fromhex("160301003b010000370303") + bytes(53)
    server_hello = bytes.fromhex("160303003b020000370303") + bytes(53)
    frames, expected = [], {}

    def add(data, line=None, orig=None):
        frames.append((data, orig))
        if line is not None:
            n = len(frames)
            line = dict(line, frame=n, epoch="%d.123456789" % (1796293250 + n - 1))
            expected[n] = line

    def tcp_line(src, dst, sport, dport, flags, code, seq, ack, length, hello=None, v=4, ttl=64):
        t = {"flags": flags, "flagsCode": code, "seq": seq, "ack": ack, "payloadLength": length}
        if hello:
            t["tlsHello"] = hello
        return {"protocol": "tcp", "ipVersion": v, "src": src, "dst": dst, "srcPort": sport,
                "dstPort": dport, "ttl": ttl, "tcp": t}

    def icmp_line(proto, src, dst, itype, code, quoted, v=4):
        return {"protocol": proto, "ipVersion": v, "src": src, "dst": dst, "srcPort": 0, "dstPort": 0,
                "ttl": 64, "icmp": {"type": itype, "code": code, "reason": "x", "quoted": quoted}}

    syn = _tcp(40000, 8009, 1000, 0, 0x02)
    # 1 SYN; 2 SYN-ACK; 3 bare ACK (not kept)
    add(_eth(_ipv4(a, b, 6, syn)), tcp_line(a, b, 40000, 8009, "SYN", 2, 1000, 0, 0))
    add(_eth(_ipv4(b, a, 6, _tcp(8009, 40000, 5000, 1001, 0x12))),
        tcp_line(b, a, 8009, 40000, "SYN, ACK", 18, 5000, 1001, 0))
    add(_eth(_ipv4(a, b, 6, _tcp(40000, 8009, 1001, 5001, 0x10))))
    # 4 ClientHello at the payload start; 5 ServerHello; 6 a hello in the middle (not kept)
    add(_eth(_ipv4(a, b, 6, _tcp(40000, 8009, 1001, 5001, 0x18, client_hello))),
        tcp_line(a, b, 40000, 8009, "PSH, ACK", 24, 1001, 5001, len(client_hello), "clientHello"))
    add(_eth(_ipv4(b, a, 6, _tcp(8009, 40000, 5001, 1065, 0x18, server_hello))),
        tcp_line(b, a, 8009, 40000, "PSH, ACK", 24, 5001, 1065, len(server_hello), "serverHello"))
    add(_eth(_ipv4(a, b, 6, _tcp(40000, 8009, 1065, 5065, 0x18, b"\x17\x03\x03\x00\x05hello" + client_hello))))
    # 7 FIN, PSH, ACK with data; 8 RST, ACK over IPv6; 9 SYN with ECE and CWR (ECN setup)
    add(_eth(_ipv4(a, b, 6, _tcp(40000, 8009, 1065, 5065, 0x19, b"bye"))),
        tcp_line(a, b, 40000, 8009, "FIN, PSH, ACK", 25, 1065, 5065, 3))
    add(_eth(_ipv6(b6, a6, 6, _tcp(8009, 40001, 0, 77, 0x14)), v6=True),
        tcp_line(b6, a6, 8009, 40001, "RST, ACK", 20, 0, 77, 0, v=6))
    add(_eth(_ipv4(a, b, 6, _tcp(40002, 8009, 9, 0, 0xC2))),
        tcp_line(a, b, 40002, 8009, "SYN, ECE, CWR", 194, 9, 0, 0))
    # 10 ICMP port unreachable quoting the SYN; 11 ICMP time exceeded quoting it (not kept)
    add(_eth(_ipv4(b, a, 1, _icmp(3, 3, _ipv4(a, b, 6, syn)[:28]))),
        icmp_line("icmp", b, a, 3, 3, {"src": a, "dst": b, "protocol": 6, "srcPort": 40000, "dstPort": 8009}))
    add(_eth(_ipv4(r, a, 1, _icmp(11, 0, _ipv4(a, b, 6, syn)[:28]))))
    # 12 ICMP quoting UDP 5353; 13 ICMP quoting UDP 53 (not kept); 14 ICMPv6 quoting UDP 1900
    add(_eth(_ipv4(b, a, 1, _icmp(3, 3, _ipv4(a, b, 17, _udp(5353, 5353, b"\0" * 12)))), ),
        icmp_line("icmp", b, a, 3, 3, {"src": a, "dst": b, "protocol": 17, "srcPort": 5353, "dstPort": 5353}))
    add(_eth(_ipv4(b, a, 1, _icmp(3, 3, _ipv4(a, b, 17, _udp(40000, 53, b"\0" * 12))))))
    add(_eth(_ipv6(b6, a6, 58, _icmp(1, 4, _ipv6(a6, b6, 17, _udp(40003, 1900, b"M-SEARCH")))), v6=True),
        icmp_line("icmpv6", b6, a6, 1, 4, {"src": a6, "dst": b6, "protocol": 17, "srcPort": 40003,
                                           "dstPort": 1900}, v=6))
    # 15, 16 a SYN in two IPv4 fragments: tshark reassembles it in 16, castscope does not
    # reassemble TCP (neither is kept)
    fragmented = _tcp(40004, 8009, 3, 0, 0x02, b"x" * 20)
    add(_eth(_ipv4(a, b, 6, fragmented[:24], flags_offset=0x2000, ident=7)))
    add(_eth(_ipv4(a, b, 6, fragmented[24:], flags_offset=24 // 8, ident=7)))
    # 17 a SYN cut by the snap length: 20 of its 100 payload bytes captured
    cut = _eth(_ipv4(a, b, 6, _tcp(40005, 8009, 4, 0, 0x02, b"y" * 100)))
    add(cut[:14 + 20 + 20 + 20], tcp_line(a, b, 40005, 8009, "SYN", 2, 4, 0, 20), orig=len(cut))
    # HTTP (kept only under the HTTP rule, http_frames): 18 a GET to 8008; 19 the response's
    # head; 20 the rest of the body from 8008 (PSH); 21 data from 8008 without PSH, 22 a
    # "GET " inside the payload, 23 PSH data from port 80 (not kept); 24 a response head
    # from port 80
    get = b"GET /ssdp/device-desc.xml HTTP/1.1\r\nHost: x\r\n\r\n"
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n0123456789"
    http_frames = []

    def add_http(data, line=None):
        add(data, line)
        if line is not None:
            http_frames.append(len(frames))

    add_http(_eth(_ipv4(a, b, 6, _tcp(40006, 8008, 10, 20, 0x18, get))),
             tcp_line(a, b, 40006, 8008, "PSH, ACK", 24, 10, 20, len(get)))
    add_http(_eth(_ipv4(b, a, 6, _tcp(8008, 40006, 20, 10 + len(get), 0x18, head))),
             tcp_line(b, a, 8008, 40006, "PSH, ACK", 24, 20, 10 + len(get), len(head)))
    add_http(_eth(_ipv4(b, a, 6, _tcp(8008, 40006, 20 + len(head), 10 + len(get), 0x18, b"abcdefghij"))),
             tcp_line(b, a, 8008, 40006, "PSH, ACK", 24, 20 + len(head), 10 + len(get), 10))
    add_http(_eth(_ipv4(b, a, 6, _tcp(8008, 40007, 1, 1, 0x10, b"more data"))))
    add_http(_eth(_ipv4(a, b, 6, _tcp(40008, 8008, 1, 1, 0x18, b"xx" + get))))
    add_http(_eth(_ipv4(b, a, 6, _tcp(80, 40009, 1, 1, 0x18, b"body only"))))
    add_http(_eth(_ipv4(b, a, 6, _tcp(80, 40010, 1, 1, 0x10, head))),
             tcp_line(b, a, 80, 40010, "ACK", 16, 1, 1, len(head)))
    return frames, expected, http_frames


def self_test():
    failures = []

    def check(label, condition):
        if not condition:
            failures.append(label)
            print("  FAIL %s" % label)

    print("self-test: parsing and normalisation")
    check("flags rendering SYN, ACK", render_tcp_flags(0x12) == "SYN, ACK")
    check("flags rendering FIN, PSH, ACK", render_tcp_flags(0x19) == "FIN, PSH, ACK")
    check("flags rendering ECN", render_tcp_flags(0xC2) == "SYN, ECE, CWR")
    check("flags rendering none", render_tcp_flags(0) == "<None>")
    check("Info flags", info_flags("[TCP Retransmission] 39137 \u2192 8009 [SYN] Seq=0 Win=1") == "SYN")
    check("Info flags absent", info_flags("Client Hello") is None)
    check("hello client", tls_hello("160301020001") == "clientHello")
    check("hello server", tls_hello("16030300ff02aa") == "serverHello")
    check("hello too short", tls_hello("1603010200") is None)
    check("not a hello (alert)", tls_hello("150301000201") is None)
    check("not a hello (major 2)", tls_hello("160201000201") is None)
    check("not a hello (finished)", tls_hello("160303000214") is None)
    check("time: 9 decimals compared as strings", same_time("1.123456789", "1.123456789")
          and not same_time("1.123456789", "1.123456788"))
    check("time: 6 decimals within 1 us", same_time("1.123456000", "1.123456")
          and not same_time("1.123458", "1.123456000"))
    check("IPv6 forms", parse_ip("2001:db8:0:0::1") == parse_ip("2001:db8::1"))
    check("quoted IPv6 protocol after extension headers",
          quoted_ipv6_protocol("eth:ethertype:ipv6:icmpv6:ipv6:ipv6.hopopts:udp".split(":"), ["58", "0"]) == 17)
    check("quoted IPv6 protocol without a transport layer",
          quoted_ipv6_protocol("eth:ethertype:ipv6:icmpv6:ipv6".split(":"), ["58", "6"]) == 6)

    tcp_fields = {
        "frame.number": "7", "frame.time_epoch": "1796293250.733222591", "frame.len": "74",
        "frame.cap_len": "74", "frame.protocols": "eth:ethertype:ip:tcp",
        "ip.src": "192.0.2.21", "ip.dst": "192.0.2.10", "ip.ttl": "64", "ip.proto": "6",
        "tcp.srcport": "8009", "tcp.dstport": "38125", "tcp.flags": "0x0012",
        "tcp.seq_raw": "3903112292", "tcp.ack_raw": "420801851", "tcp.len": "0",
        "_ws.col.Info": "8009 \u2192 38125 [SYN, ACK] Seq=0 Ack=1 Win=65160 Len=0",
    }
    ts_line = "\t".join(tcp_fields.get(name, "") for name in TSHARK_FIELDS)
    ts = parse_tshark_line(ts_line)
    check("tshark TCP line parsed", ts.frame == 7 and ts.protocol == "tcp" and ts.src == "192.0.2.21"
          and ts.tcp["flagsCode"] == 0x12 and ts.tcp["flags"] == "SYN, ACK" and ts.tcp["flagsFromInfo"]
          and ts.tcp["seq"] == 3903112292 and ts.tcp["ack"] == 420801851 and ts.ttl == 64)
    icmp_fields = {
        "frame.number": "12", "frame.time_epoch": "1796294697.842422627", "frame.len": "70",
        "frame.cap_len": "70", "frame.protocols": "eth:ethertype:ip:icmp:ip:tcp",
        "ip.src": "192.0.2.1,192.0.2.10", "ip.dst": "192.0.2.10,198.51.100.7", "ip.ttl": "64,64",
        "ip.proto": "1,6", "tcp.srcport": "46089", "tcp.dstport": "8009", "tcp.flags": "0x0002",
        "icmp.type": "3", "icmp.code": "1", "_ws.col.Info": "Destination unreachable (Host unreachable)",
    }
    ts_icmp = parse_tshark_line("\t".join(icmp_fields.get(name, "") for name in TSHARK_FIELDS))
    check("tshark ICMP line parsed: outer and quoted occurrences picked apart",
          ts_icmp.protocol == "icmp" and ts_icmp.src == "192.0.2.1" and ts_icmp.dst == "192.0.2.10"
          and ts_icmp.src_port == 0 and ts_icmp.icmp["quoted"] == {
              "src": "192.0.2.10", "dst": "198.51.100.7", "protocol": 6, "srcPort": 46089, "dstPort": 8009})

    print("self-test: comparer on hand-made lines")
    cs_line = {"frame": 7, "epoch": "1796293250.733222591", "ipVersion": 4, "src": "192.0.2.21",
               "dst": "192.0.2.10", "srcPort": 8009, "dstPort": 38125, "ttl": 64, "protocol": "tcp",
               "tcp": {"flags": "SYN, ACK", "flagsCode": 18, "seq": 3903112292, "ack": 420801851,
                       "payloadLength": 0}}
    check("identical TCP line: no difference", FrameComparer(7, cs_line, ts).run() == [])
    mutations = [
        ("epoch", lambda o: o.update(epoch="1796293250.733222592")),
        ("src", lambda o: o.update(src="192.0.2.22")),
        ("dstPort", lambda o: o.update(dstPort=38126)),
        ("ttl", lambda o: o.update(ttl=63)),
        ("ipVersion", lambda o: o.update(ipVersion=6)),
        ("tcp.flagsCode", lambda o: o["tcp"].update(flagsCode=2)),
        ("tcp.flags", lambda o: o["tcp"].update(flags="SYN-ACK")),
        ("tcp.seq", lambda o: o["tcp"].update(seq=3903112293)),
        ("tcp.ack", lambda o: o["tcp"].update(ack=0)),
        ("tcp.payloadLength", lambda o: o["tcp"].update(payloadLength=6)),
        ("tcp.tlsHello", lambda o: o["tcp"].update(tlsHello="clientHello")),
        ("protocol", lambda o: o.update(protocol="icmp")),
    ]
    for field, mutate in mutations:
        mutated = json.loads(json.dumps(cs_line))
        mutate(mutated)
        diffs = FrameComparer(7, mutated, ts).run()
        check("mutated %s is reported" % field, any(d.field == field for d in diffs))
    cs_icmp = {"frame": 12, "epoch": "1796294697.842422627", "ipVersion": 4, "src": "192.0.2.1",
               "dst": "192.0.2.10", "srcPort": 0, "dstPort": 0, "ttl": 64, "protocol": "icmp",
               "icmp": {"type": 3, "code": 1, "reason": "host unreachable",
                        "quoted": {"src": "192.0.2.10", "dst": "198.51.100.7", "protocol": 6,
                                   "srcPort": 46089, "dstPort": 8009}}}
    check("identical ICMP line: no difference", FrameComparer(12, cs_icmp, ts_icmp).run() == [])
    for field, mutate in [
        ("icmp.code", lambda o: o["icmp"].update(code=3)),
        ("icmp.quoted.dst", lambda o: o["icmp"]["quoted"].update(dst="198.51.100.8")),
        ("icmp.quoted.protocol", lambda o: o["icmp"]["quoted"].update(protocol=17)),
        ("icmp.quoted.srcPort", lambda o: o["icmp"]["quoted"].pop("srcPort")),
        ("srcPort", lambda o: o.update(srcPort=46089)),
    ]:
        mutated = json.loads(json.dumps(cs_icmp))
        mutate(mutated)
        check("mutated %s is reported" % field,
              any(d.field == field for d in FrameComparer(12, mutated, ts_icmp).run()))
    cut_ts = ts._replace(frame_len=1514, cap_len=96, tcp=dict(ts.tcp, length=1448))
    cut_cs = json.loads(json.dumps(cs_line))
    cut_cs["tcp"]["payloadLength"] = 30
    check("snaplen-cut segment: captured payload length tolerated", FrameComparer(7, cut_cs, cut_ts).run() == [])
    cut_cs["tcp"]["payloadLength"] = 1449
    check("snaplen-cut segment: a length above tcp.len is reported",
          any(d.field.startswith("tcp.payloadLength") for d in FrameComparer(7, cut_cs, cut_ts).run()))
    _, diffs = compare_capture_data({}, {7: "mdns"}, {7: ts})
    check("frame only tshark keeps is reported", len(diffs) == 1 and diffs[0].field == "frame only tshark keeps"
          and diffs[0].cs == "reported as mdns")
    _, diffs = compare_capture_data({7: cs_line}, {}, {})
    check("frame only castscope keeps is reported", len(diffs) == 1 and diffs[0].field == "frame only castscope keeps")
    conn, other, problems = parse_castscope_lines(
        ['{"frame":1,"protocol":"mdns"}', "", '{"frame":2,"protocol":"tcp"}', '{"frame":3,"protocol":"icmpv6"}',
         '{"frame":2,"protocol":"tcp"}', "oops"])
    check("castscope line parsing", sorted(conn) == [2, 3] and other == {1: "mdns"} and len(problems) == 2)
    KNOWN_TSHARK_BUGS.append(("x.pcap", 5, "test entry", "tcp.seq"))
    try:
        check("known table matches by field", known_reason("x.pcap", Diff(5, "tcp.seq", 1, 2)))
        check("known table ignores other fields", not known_reason("x.pcap", Diff(5, "tcp.ack", 1, 2)))
    finally:
        KNOWN_TSHARK_BUGS.pop()

    tshark = os.environ.get("TSHARK", "tshark")
    if shutil.which(tshark) is None:
        print("self-test: tshark not found, skipping the end-to-end part")
    else:
        print("self-test: the display filter and the comparer against real tshark output")
        frames, expected_all, http_frames = _self_test_capture()
        expected = {k: v for k, v in expected_all.items() if k not in http_frames}
        with tempfile.TemporaryDirectory() as tmp:
            pcap = Path(tmp) / "selftest.pcap"
            _write_pcap(pcap, frames)
            ts_frames = run_tshark(tshark, pcap, http=False)
            ts_http = run_tshark(tshark, pcap, http=True)
        check("the filter keeps exactly the frames of the rule (kept %s, expected %s)"
              % (sorted(ts_frames), sorted(expected)), sorted(ts_frames) == sorted(expected))
        check("the filter with HTTP keeps exactly the frames of that rule (kept %s, expected %s)"
              % (sorted(ts_http), sorted(expected_all)), sorted(ts_http) == sorted(expected_all))
        compared, diffs = compare_capture_data(expected_all, {}, ts_http)
        for d in diffs:
            print("  unexpected (HTTP rule):" + format_diff(d))
        check("castscope-equivalent lines match tshark (HTTP rule)", not diffs and compared == len(expected_all))
        check("tshark's Info flags text equals the rendering of tcp.flags",
              all(t.tcp["flags"] == render_tcp_flags(t.tcp["flagsCode"])
                  for t in ts_frames.values() if t.tcp and t.tcp["flagsFromInfo"]))
        compared, diffs = compare_capture_data(expected, {}, ts_frames)
        for d in diffs:
            print("  unexpected:" + format_diff(d))
        check("castscope-equivalent lines match tshark", not diffs and compared == len(expected))
        for frame, path_, value, field in [
            (2, ("tcp", "flags"), "SYN-ACK", "tcp.flags"),
            (4, ("tcp", "tlsHello"), "serverHello", "tcp.tlsHello"),
            (5, ("tcp", "seq"), 5002, "tcp.seq"),
            (7, ("tcp", "payloadLength"), 4, "tcp.payloadLength"),
            (8, ("dst",), "2001:db8::11", "dst"),
            (9, ("tcp", "flagsCode"), 2, "tcp.flagsCode"),
            (10, ("icmp", "quoted", "dstPort"), 8008, "icmp.quoted.dstPort"),
            (14, ("icmp", "quoted", "protocol"), 6, "icmp.quoted.protocol"),
            (17, ("tcp", "payloadLength"), 101, "tcp.payloadLength"),
        ]:
            mutated = json.loads(json.dumps(expected))
            mutated = {int(k): v for k, v in mutated.items()}
            target = mutated[frame]
            for step in path_[:-1]:
                target = target[step]
            target[path_[-1]] = value
            _, diffs = compare_capture_data(mutated, {}, ts_frames)
            check("synthetic capture: mutated frame %d %s is reported" % (frame, "/".join(path_)),
                  any(d.frame == frame and d.field.startswith(field) for d in diffs))
        dropped = {k: v for k, v in expected.items() if k != 12}
        _, diffs = compare_capture_data(dropped, {}, ts_frames)
        check("synthetic capture: a missing castscope line is reported",
              [d.frame for d in diffs] == [12])

    if failures:
        print("self-test: %d checks FAILED" % len(failures))
        return 1
    print("self-test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
