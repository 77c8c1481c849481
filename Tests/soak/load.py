#!/usr/bin/env python3
"""The load of Tests/soak/run.sh: bundled captures replayed into a veth at a high rate, and a
stream of ever-new clients and devices (stdlib only; tcpreplay and tcpdump from Debian).

  load.py prepare --filter-file F --out DIR --fixed PCAP... --churn PCAP... [--churn-ttl S]
      Counts, with `tcpdump -r FILE -w - FILTER` (FILTER: the discovery filter castscope printed
      in its started event), which frames of each capture pass the kernel filter; checks that
      the churn templates can be rewritten (one client each, no IP fragments, addresses found),
      and counts their Cast queries itself. Writes DIR/prepared.json.

  load.py run --iface rp0 --out DIR --until EPOCH [--pps N] [--churn-rate R]
      Two senders until EPOCH (wall clock), then DIR/load.json:
      - fixed: `tcpreplay --timer=nano --pps N --loop K` over every --fixed capture, invocation
        after invocation (each about 2 s; the last one ends after EPOCH); tcpreplay's
        "Successful packets" and "Failed packets" are recorded per invocation;
      - churn: loop n of the churn templates (round robin, R loops a second, each at the speed
        it was captured, overlapping) is sent through an AF_PACKET socket with its own identity:
        every unicast MAC becomes 02:c5:<n>:<k>, every unicast IPv4 address one of a pool of
        198.51.100.1-254 and 203.0.113.1-252 less the addresses the fixed captures use (reused
        after about 500), every 2001:db8::X
        2001:db8:c5:<n>::X, every device id (32 hex digits, or a UUID) a new one, the record TTLs
        are capped at --churn-ttl, and the IP, UDP and TCP checksums are recomputed. Frame by
        frame it records what it sent: frames, frames passing the filter, Cast queries and when.

Safety: frames go out of the named interface only (a veth into the soak's namespaces); every
address written is one of the documentation ranges above, or the capture's own (192.0.2.0/24,
198.51.100.0/24, 2001:db8::/32, fe80::/10 link-local, and the mDNS/SSDP multicast groups).
"""
import argparse
import heapq
import ipaddress
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time

# ----------------------------------------------------------------------------- pcap files


def read_pcap(path):
    """[(timestamp seconds, frame bytes)] of a classic pcap file (any byte order, µs or ns)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    table = {
        b"\xd4\xc3\xb2\xa1": ("<", 1e-6), b"\xa1\xb2\xc3\xd4": (">", 1e-6),
        b"\x4d\x3c\xb2\xa1": ("<", 1e-9), b"\xa1\xb2\x3c\x4d": (">", 1e-9),
    }
    if magic not in table:
        raise ValueError(f"{path}: not a classic pcap file")
    endian, unit = table[magic]
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    frames, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        frames.append((sec + frac * unit, data[off:off + incl]))
        off += incl
    return linktype, frames


def passing_flags(path, filt, frames):
    """Which frames of the capture pass the BPF filter: tcpdump writes the passing ones, which
    are matched in order against the capture (they are a subsequence of it)."""
    out = subprocess.run(["tcpdump", "-r", path, "-w", "-", filt], capture_output=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"tcpdump -r {path}: {out.stderr.decode(errors='replace').strip()}")
    tmp = out.stdout
    # parse the pcap on stdout (same format as the input)
    path_tmp = None
    try:
        import tempfile
        fd, path_tmp = tempfile.mkstemp(suffix=".pcap")
        os.write(fd, tmp)
        os.close(fd)
        _, passed = read_pcap(path_tmp)
    finally:
        if path_tmp:
            os.unlink(path_tmp)
    flags, j = [], 0
    for ts, fr in frames:
        if j < len(passed) and passed[j][1] == fr and abs(passed[j][0] - ts) < 1e-5:
            flags.append(True)
            j += 1
        else:
            flags.append(False)
    if j != len(passed):
        raise RuntimeError(f"{path}: {len(passed)} frames pass the filter, only {j} matched in order")
    return flags


# ----------------------------------------------------------------------------- packet layout


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def layout(frame):
    """(ethertype offset, L3 offset, ethertype) after the Ethernet header and any VLAN tags."""
    off = 12
    et = struct.unpack("!H", frame[off:off + 2])[0]
    while et in (0x8100, 0x88A8, 0x9100):
        off += 4
        et = struct.unpack("!H", frame[off:off + 2])[0]
    return off, off + 2, et


def l4_of(frame):
    """(family, l3 offset, proto, l4 offset, l4 end) of an IPv4/IPv6 frame, or None. IPv6 with
    extension headers gives proto None (its L4 is not touched)."""
    _, l3, et = layout(frame)
    if et == 0x0800:
        ihl = (frame[l3] & 0x0F) * 4
        total = struct.unpack("!H", frame[l3 + 2:l3 + 4])[0]
        return (4, l3, frame[l3 + 9], l3 + ihl, l3 + total)
    if et == 0x86DD:
        plen = struct.unpack("!H", frame[l3 + 4:l3 + 6])[0]
        nh = frame[l3 + 6]
        return (6, l3, nh if nh in (6, 17, 58) else None, l3 + 40, l3 + 40 + plen)
    return None


def is_fragment(frame):
    info = l4_of(frame)
    if not info:
        return False
    fam, l3, _, _, _ = info
    if fam == 4:
        return struct.unpack("!H", frame[l3 + 6:l3 + 8])[0] & 0x3FFF != 0
    return frame[l3 + 6] == 44


def fix_checksums(buf):
    """Recomputes the IPv4 header checksum and the UDP/TCP/ICMPv6 checksum in place."""
    info = l4_of(bytes(buf))
    if not info:
        return
    fam, l3, proto, l4, end = info
    if fam == 4:
        ihl = (buf[l3] & 0x0F) * 4
        buf[l3 + 10:l3 + 12] = b"\0\0"
        buf[l3 + 10:l3 + 12] = struct.pack("!H", csum(bytes(buf[l3:l3 + ihl])))
        src, dst = bytes(buf[l3 + 12:l3 + 16]), bytes(buf[l3 + 16:l3 + 20])
        frag = struct.unpack("!H", bytes(buf[l3 + 6:l3 + 8]))[0] & 0x3FFF
        if frag or proto not in (6, 17):
            return
        pseudo = src + dst + struct.pack("!BBH", 0, proto, end - l4)
    else:
        if proto is None:
            return
        src, dst = bytes(buf[l3 + 8:l3 + 24]), bytes(buf[l3 + 24:l3 + 40])
        pseudo = src + dst + struct.pack("!IxxxB", end - l4, proto)
    ck = {17: 6, 6: 16, 58: 2}[proto]
    if proto == 17 and fam == 4 and buf[l4 + 6:l4 + 8] == b"\0\0":
        return  # IPv4 UDP without a checksum stays without one
    buf[l4 + ck:l4 + ck + 2] = b"\0\0"
    value = csum(pseudo + bytes(buf[l4:end]))
    if proto == 17 and value == 0:
        value = 0xFFFF
    buf[l4 + ck:l4 + ck + 2] = struct.pack("!H", value)


# ----------------------------------------------------------------------------- DNS


def skip_name(msg, i):
    """Index after the (possibly compressed) name at msg[i]."""
    while True:
        if i >= len(msg):
            raise ValueError("name runs off the message")
        n = msg[i]
        if n == 0:
            return i + 1
        if n & 0xC0 == 0xC0:
            return i + 2
        if n & 0xC0:
            raise ValueError("bad label")
        i += 1 + n


def read_name(msg, i, depth=0):
    labels = []
    while True:
        n = msg[i]
        if n == 0:
            return ".".join(labels)
        if n & 0xC0 == 0xC0:
            if depth > 20:
                raise ValueError("pointer loop")
            ptr = ((n & 0x3F) << 8) | msg[i + 1]
            rest = read_name(msg, ptr, depth + 1)
            return ".".join(labels + ([rest] if rest else []))
        labels.append(msg[i + 1:i + 1 + n].decode("latin-1"))
        i += 1 + n


def dns_of(frame):
    """(payload offset, payload end) of a UDP datagram to or from port 5353, else None."""
    info = l4_of(frame)
    if not info or info[2] != 17:
        return None
    _, _, _, l4, end = info
    sport, dport = struct.unpack("!HH", frame[l4:l4 + 4])
    if 5353 not in (sport, dport):
        return None
    return l4 + 8, end


CAST_TYPE = re.compile(r"^(?:[^.]+\._sub\.)?_googlecast\._tcp\.local\.?$", re.I)


def is_cast_query(frame):
    """An mDNS query (QR 0) with a question for _googlecast._tcp.local or a subtype of it: what
    castscope counts as a client's Cast query (checked against `castscope analyze`)."""
    d = dns_of(frame)
    if not d:
        return False
    msg = frame[d[0]:d[1]]
    if len(msg) < 12 or msg[2] & 0x80:
        return False
    qd = struct.unpack("!H", msg[4:6])[0]
    i = 12
    try:
        for _ in range(qd):
            name = read_name(msg, i)
            i = skip_name(msg, i) + 4
            if CAST_TYPE.match(name):
                return True
    except (ValueError, IndexError):
        return False
    return False


def rewrite_records(buf, start, end, ttl_cap, addr_map):
    """In the DNS message buf[start:end]: caps every TTL above 0 at ttl_cap, maps A and AAAA
    data through addr_map (bytes -> bytes)."""
    msg = bytes(buf[start:end])
    if len(msg) < 12:
        return
    qd, an, ns, ar = struct.unpack("!HHHH", msg[4:12])
    i = 12
    for _ in range(qd):
        i = skip_name(msg, i) + 4
    for _ in range(an + ns + ar):
        i = skip_name(msg, i)
        rtype, _cls, ttl, rdlen = struct.unpack("!HHIH", msg[i:i + 10])
        if ttl_cap and 0 < ttl and ttl > ttl_cap and rtype != 41:
            buf[start + i + 4:start + i + 8] = struct.pack("!I", ttl_cap)
        rd = i + 10
        if rtype == 1 and rdlen == 4 and msg[rd:rd + 4] in addr_map:
            buf[start + rd:start + rd + 4] = addr_map[msg[rd:rd + 4]]
        elif rtype == 28 and rdlen == 16 and msg[rd:rd + 16] in addr_map:
            buf[start + rd:start + rd + 16] = addr_map[msg[rd:rd + 16]]
        i = rd + rdlen


# ----------------------------------------------------------------------------- churn templates

HEX32 = re.compile(rb"(?<![0-9a-fA-F])[0-9a-fA-F]{32}(?![0-9a-fA-F])")
UUID = re.compile(rb"(?<![0-9a-fA-F-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9a-fA-F-])")
POOL = [f"198.51.100.{i}" for i in range(1, 255)] + [f"203.0.113.{i}" for i in range(1, 253)]  # .253/.254: metrics link
DOC6 = ipaddress.ip_network("2001:db8::/32")


def same_case(new_hex, old):
    """new_hex (lower case str) with the letter case of old (bytes), position by position."""
    return "".join(c.upper() if o.isupper() else c for c, o in zip(new_hex, old.decode())).encode()


class Template:
    def __init__(self, path, filt, analysis):
        self.path = path
        self.name = os.path.basename(path)
        linktype, frames = read_pcap(path)
        if linktype != 1:
            raise ValueError(f"{self.name}: link type {linktype}, not Ethernet")
        if any(is_fragment(fr) for _, fr in frames):
            raise ValueError(f"{self.name}: has IP fragments (not rewritten)")
        t0 = frames[0][0]
        self.offsets = [ts - t0 for ts, _ in frames]
        self.frames = [fr for _, fr in frames]
        self.passing = passing_flags(path, filt, frames)
        self.queries = [is_cast_query(fr) for fr in self.frames]
        clients = analysis["clients"]
        if len(clients) != 1:
            raise ValueError(f"{self.name}: {len(clients)} clients (a template needs exactly one)")
        c = clients[0]
        if c["queries"] != sum(self.queries):
            raise ValueError(f"{self.name}: castscope analyze counts {c['queries']} Cast queries, this classifier {sum(self.queries)}")
        self.client_mac = bytes.fromhex(c["mac"].replace(":", ""))
        self.client_addrs = [ipaddress.ip_address(a) for a in c.get("addresses") or [c["address"]]]
        # every unicast IPv4 and 2001:db8:: address and unicast MAC of the capture
        self.v4, self.v6, self.macs = [], [], []
        for fr in self.frames:
            for mac in (fr[0:6], fr[6:12]):
                if not mac[0] & 1 and mac not in self.macs:
                    self.macs.append(mac)
            info = l4_of(fr)
            if not info:
                continue
            fam, l3 = info[0], info[1]
            if fam == 4:
                for a in (fr[l3 + 12:l3 + 16], fr[l3 + 16:l3 + 20]):
                    ip = ipaddress.IPv4Address(a)
                    if not (ip.is_multicast or ip == ipaddress.IPv4Address("255.255.255.255") or ip.is_unspecified) and a not in self.v4:
                        self.v4.append(a)
            else:
                for a in (fr[l3 + 8:l3 + 24], fr[l3 + 24:l3 + 40]):
                    if ipaddress.IPv6Address(a) in DOC6 and a not in self.v6:
                        self.v6.append(a)
        for ip in self.v4:
            if ipaddress.IPv4Address(ip) not in ipaddress.ip_network("192.0.2.0/24"):
                raise ValueError(f"{self.name}: IPv4 address {ipaddress.IPv4Address(ip)} outside 192.0.2.0/24")
        for a in self.client_addrs:
            packed = a.packed
            if a.version == 6 and a not in DOC6 and not a.is_link_local:
                raise ValueError(f"{self.name}: client address {a} outside 2001:db8::/32")
            if a.version == 4 and packed not in self.v4:
                raise ValueError(f"{self.name}: client address {a} not found in its frames")
        ids = set()
        for fr in self.frames:
            for m in HEX32.finditer(fr):
                ids.add(m.group(0).lower())
            for m in UUID.finditer(fr):
                ids.add(m.group(0).replace(b"-", b"").lower())
        self.ids = sorted(ids)
        self.span = self.offsets[-1]

    def loop(self, n, pool_next, ttl_cap):
        """The frames of loop n, rewritten, and the loop's identity."""
        mac_map = {m: bytes([0x02, 0xC5]) + struct.pack("!I", n)[1:] + bytes([k]) for k, m in enumerate(self.macs)}
        addr_map = {}
        for a in self.v4:
            addr_map[a] = ipaddress.IPv4Address(pool_next()).packed
        for a in self.v6:
            suffix = int.from_bytes(a[8:], "big") & 0xFFFF_FFFF_FFFF
            new = ipaddress.IPv6Address((0x20010DB8_00C5 << 80) | ((n & 0xFFFF_FFFF) << 48) | suffix)
            addr_map[a] = new.packed
        id_map = {old: (f"{(0xC5000000 | (n & 0xFFFFFF)):08x}" + old[8:].decode()) for old in self.ids}
        out = []
        for fr in self.frames:
            b = bytearray(fr)
            for m in HEX32.finditer(fr):
                new = id_map[m.group(0).lower()]
                b[m.start():m.end()] = same_case(new, m.group(0))
            for m in UUID.finditer(fr):
                old = m.group(0)
                new = id_map[old.replace(b"-", b"").lower()]
                new = f"{new[:8]}-{new[8:12]}-{new[12:16]}-{new[16:20]}-{new[20:]}"
                b[m.start():m.end()] = same_case(new, old)
            for lo in (0, 6):
                mac = bytes(b[lo:lo + 6])
                if mac in mac_map:
                    b[lo:lo + 6] = mac_map[mac]
            _, l3, et = layout(fr)
            if et == 0x0806:  # ARP: sender and target hardware and protocol addresses
                for lo, ln in ((l3 + 8, 6), (l3 + 14, 4), (l3 + 18, 6), (l3 + 24, 4)):
                    v = bytes(b[lo:lo + ln])
                    b[lo:lo + ln] = mac_map.get(v, addr_map.get(v, v))
            info = l4_of(fr)
            if info:
                fam, l3, proto, l4, end = info
                span = ((l3 + 12, 4), (l3 + 16, 4)) if fam == 4 else ((l3 + 8, 16), (l3 + 24, 16))
                changed = False
                for lo, ln in span:
                    v = bytes(b[lo:lo + ln])
                    if v in addr_map:
                        b[lo:lo + ln] = addr_map[v]
                        changed = True
                if changed and fam == 6 and proto is None:
                    raise ValueError(f"{self.name}: IPv6 extension headers and a rewritten address")
                d = dns_of(fr)
                if d:
                    rewrite_records(b, d[0], d[1], ttl_cap, addr_map)
                fix_checksums(b)
            out.append(bytes(b))
        primary = next((a for a in self.client_addrs if a.version == 4), self.client_addrs[0])
        client = ipaddress.ip_address(addr_map.get(primary.packed, primary.packed))
        return out, {
            "client": str(client),
            "addresses": [str(ipaddress.ip_address(addr_map.get(a.packed, a.packed))) for a in self.client_addrs],
            "mac": ":".join(f"{x:02x}" for x in mac_map[self.client_mac]),
            "ids": sorted(id_map.values()),
        }


# ----------------------------------------------------------------------------- commands


def addresses_in(frames):
    """Every IPv4 address in the IP headers and ARP of the frames (dotted strings)."""
    out = set()
    for _, fr in frames:
        _, l3, et = layout(fr)
        if et == 0x0800:
            out.update(str(ipaddress.IPv4Address(fr[o:o + 4])) for o in (l3 + 12, l3 + 16))
        elif et == 0x0806:
            out.update(str(ipaddress.IPv4Address(fr[o:o + 4])) for o in (l3 + 14, l3 + 24))
    return out


def prepare(args):
    filt = open(args.filter_file).read().strip()
    fixed = []
    used = set()
    for path in args.fixed:
        linktype, frames = read_pcap(path)
        if linktype != 1:
            raise SystemExit(f"{path}: link type {linktype}, not Ethernet")
        flags = passing_flags(path, filt, frames)
        fixed.append({"file": path, "frames": len(frames), "passing": sum(flags)})
        used |= addresses_in(frames)
    # the churn's IPv4 addresses: the documentation ranges less those the fixed captures use
    # and the metrics link's
    pool = [a for a in POOL if a not in used]
    churn = []
    for path in args.churn:
        analysis = json.load(open(os.path.join(args.analyses, os.path.basename(path) + ".json")))
        t = Template(path, filt, analysis)
        churn.append({
            "file": path, "frames": len(t.frames), "passing": sum(t.passing), "queries": sum(t.queries),
            "span": t.span, "ids": len(t.ids), "v4": len(t.v4), "v6": len(t.v6), "macs": len(t.macs),
            "clientAddresses": [str(a) for a in t.client_addrs],
        })
    out = {"filter": filt, "fixed": fixed, "churn": churn, "churnTTL": args.churn_ttl, "pool": pool,
           "fixedFramesPerLoop": sum(f["frames"] for f in fixed),
           "fixedPassingPerLoop": sum(f["passing"] for f in fixed)}
    with open(os.path.join(args.out, "prepared.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"prepared: {len(fixed)} fixed captures ({out['fixedFramesPerLoop']} frames a loop, "
          f"{out['fixedPassingPerLoop']} pass the filter), {len(churn)} churn templates")


def run_fixed(args, prep, until, record):
    files = [f["file"] for f in prep["fixed"]]
    per_loop = prep["fixedFramesPerLoop"]
    loops = max(1, round(args.pps * args.invocation_seconds / per_loop))
    while time.time() < until:
        cmd = ["tcpreplay", "--timer=nano", "-i", args.iface, f"--pps={args.pps}", f"--loop={loops}", "--no-flow-stats", *files]
        started = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        text = p.stdout + p.stderr
        ok = re.search(r"Successful packets:\s+(\d+)", text)
        bad = re.search(r"Failed packets:\s+(\d+)", text)
        rec = {"started": started, "ended": time.time(), "loops": loops, "rc": p.returncode,
               "successful": int(ok.group(1)) if ok else None, "failed": int(bad.group(1)) if bad else None}
        if rec["successful"] is None:
            rec["output"] = text[-600:]
        record.append(rec)
        if p.returncode != 0 or rec["successful"] is None:
            break


def run_churn(args, prep, until, record, errors):
    filt = prep["filter"]
    analyses = args.analyses
    templates = [Template(c["file"], filt, json.load(open(os.path.join(analyses, os.path.basename(c["file"]) + ".json"))))
                 for c in prep["churn"]]
    if not templates or args.churn_rate <= 0:
        return
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((args.iface, 0))
    pool_i = [0]
    pool = prep["pool"]

    def pool_next():
        a = pool[pool_i[0] % len(pool)]
        pool_i[0] += 1
        return a

    heap = []
    seq = 0
    n = 0
    t0 = time.time() + 0.2
    next_loop = t0
    ttl = prep["churnTTL"]
    while True:
        now = time.time()
        if now >= until:
            break
        while next_loop <= now + 0.001 and next_loop < until:
            t = templates[n % len(templates)]
            frames, ident = t.loop(n, pool_next, ttl)
            rec = {"n": n, "template": t.name, **ident, "start": next_loop, "frames": len(frames), "sent": 0,
                   "passed": 0, "queries": 0, "templateQueries": sum(t.queries), "firstQuery": None,
                   "lastQuery": None, "queryTimes": [], "lastFrame": None, "complete": False}
            record.append(rec)
            for i, fr in enumerate(frames):
                heapq.heappush(heap, (next_loop + t.offsets[i], seq, rec, i, fr, t))
                seq += 1
            n += 1
            next_loop = t0 + n / args.churn_rate
        wake = min(heap[0][0] if heap else until, next_loop, until)
        if wake > now:
            time.sleep(min(wake - now, 0.05))
            continue
        while heap and heap[0][0] <= time.time() and time.time() < until:
            _, _, rec, i, fr, t = heapq.heappop(heap)
            try:
                sock.send(fr)
            except OSError as e:
                errors.append(f"churn send {t.name} loop {rec['n']} frame {i + 1}: {e}")
                continue
            sent_at = time.time()
            rec["sent"] += 1
            rec["passed"] += int(t.passing[i])
            rec["lastFrame"] = sent_at
            if t.queries[i]:
                rec["queries"] += 1
                rec["firstQuery"] = rec["firstQuery"] or sent_at
                rec["lastQuery"] = sent_at
                rec["queryTimes"].append(round(sent_at, 4))
            rec["complete"] = rec["sent"] == rec["frames"]
    sock.close()


def run(args):
    prep = json.load(open(os.path.join(args.out, "prepared.json")))
    until = args.until
    fixed, churn, errors = [], [], []
    result = {"started": time.time(), "pps": args.pps, "churnRate": args.churn_rate}

    def guarded(fn, *a):
        try:
            fn(*a)
        except Exception as e:  # noqa: BLE001 -- reported in load.json, checked by soak.py
            errors.append(f"{fn.__name__}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=guarded, args=(run_fixed, args, prep, until, fixed)),
               threading.Thread(target=guarded, args=(run_churn, args, prep, until, churn, errors))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result.update({"ended": time.time(), "fixed": fixed, "churn": churn, "errors": errors})
    tmp = os.path.join(args.out, "load.json.tmp")
    with open(tmp, "w") as f:
        json.dump(result, f)
    os.replace(tmp, os.path.join(args.out, "load.json"))
    sent_fixed = sum(r["successful"] or 0 for r in fixed)
    sent_churn = sum(r["sent"] for r in churn)
    print(f"load: fixed {sent_fixed} frames in {len(fixed)} tcpreplay runs, churn {sent_churn} frames in "
          f"{len(churn)} loops, {len(errors)} errors", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--filter-file", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--analyses", required=True, help="directory of `castscope analyze --format json` of each churn template, NAME.pcap.json")
    p.add_argument("--fixed", nargs="+", required=True)
    p.add_argument("--churn", nargs="*", default=[])
    p.add_argument("--churn-ttl", type=int, default=0, help="cap record TTLs of the churn loops at S (0: keep)")
    r = sub.add_parser("run")
    r.add_argument("--iface", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--analyses", required=True)
    r.add_argument("--until", type=float, required=True, help="wall-clock end (Unix seconds)")
    r.add_argument("--pps", type=int, default=5000)
    r.add_argument("--invocation-seconds", type=float, default=2.0)
    r.add_argument("--churn-rate", type=float, default=1.0, help="new churn loops a second")
    args = ap.parse_args()
    if args.cmd == "prepare":
        prepare(args)
    else:
        run(args)


if __name__ == "__main__":
    sys.exit(main())
