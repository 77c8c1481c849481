#!/usr/bin/env python3
"""Deterministic flood captures for the bounded-state tests (issue 7).

  scripts/gen-flood-capture.py --devices N -o FILE
      N mDNS responses, each a PTR from _googlecast._tcp.local to a new fake instance (no SRV,
      no TXT: the cheap flood), then one complete announcement of a real receiver
      ("Living Room TV", id 0a1b2c3d4e5f, 192.0.2.50).
  scripts/gen-flood-capture.py --clients N -o FILE
      N queries for _googlecast._tcp.local, each from a new address, then the real receiver.
  scripts/gen-flood-capture.py --clients C --devices D --clients-first -o FILE
      C clients query first, then D fake devices announce: every device reaches every
      client's session (clients × devices pairs), then the real receiver.
  scripts/gen-flood-capture.py --subtypes N -o FILE
      N queries from one sender (192.0.2.70), each asking 8 app-ID subtypes never asked before
      (_<APPID>._sub._googlecast._tcp.local), 1 ms apart, then the real receiver.

Addresses are from 192.0.2.0/24 and 198.18.0.0/15 (benchmarking range) only. Standard library only.
"""

import argparse
import struct


def name(s):
    out = b""
    for label in s.split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def rr(owner, rtype, ttl, rdata, cache_flush=False):
    return name(owner) + struct.pack("!HHIH", rtype, 0x8001 if cache_flush else 1, ttl, len(rdata)) + rdata


def frame(src, payload, ident):
    udp = struct.pack("!HHHH", 5353, 5353, 8 + len(payload), 0) + payload
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), ident & 0xFFFF, 0, 255, 17, 0, bytes(src), bytes([224, 0, 0, 251])
    )
    s = sum(struct.unpack("!10H", ip))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    ip = ip[:10] + struct.pack("!H", ~s & 0xFFFF) + ip[12:]
    return bytes([1, 0, 0x5E, 0, 0, 0xFB, 2, 0, 0, 0, 0, 0x66]) + b"\x08\x00" + ip + udp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=0)
    ap.add_argument("--clients", type=int, default=0)
    ap.add_argument("--subtypes", type=int, default=0)
    ap.add_argument("--clients-first", action="store_true")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    t = 1_800_000_000
    records = []
    def devices():
        for i in range(a.devices):
            msg = struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 0) + rr(
                "_googlecast._tcp.local", 12, 120, name("Fake-%d._googlecast._tcp.local" % i)
            )
            records.append(frame([192, 0, 2, 66], msg, i))

    def clients():
        for i in range(a.clients):
            msg = struct.pack("!HHHHHH", 0, 0, 1, 0, 0, 0) + name("_googlecast._tcp.local") + struct.pack("!HH", 12, 1)
            records.append(frame([198, 18 + (i >> 16 & 1), (i >> 8) & 0xFF, i & 0xFF], msg, i))

    if a.clients_first:
        clients()
        devices()
    else:
        devices()
        clients()
    for i in range(a.subtypes):
        questions = b"".join(
            name("_%08X._sub._googlecast._tcp.local" % (8 * i + k)) + struct.pack("!HH", 12, 1) for k in range(8)
        )
        msg = struct.pack("!HHHHHH", 0, 0, 8, 0, 0, 0) + questions
        records.append(frame([192, 0, 2, 70], msg, i))
    inst = "Living-Room-TV-0a1b2c._googlecast._tcp.local"
    txt = b"".join(bytes([len(s)]) + s for s in [b"id=0a1b2c3d4e5f", b"fn=Living Room TV", b"md=Chromecast"])
    msg = (
        struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 3)
        + rr("_googlecast._tcp.local", 12, 120, name(inst))
        + rr(inst, 16, 4500, txt, True)
        + rr(inst, 33, 120, struct.pack("!HHH", 0, 0, 8009) + name("0a1b2c.local"), True)
        + rr("0a1b2c.local", 1, 120, bytes([192, 0, 2, 50]), True)
    )
    records.append(frame([192, 0, 2, 50], msg, 1))
    with open(a.output, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for i, fr in enumerate(records):
            f.write(struct.pack("<IIII", t + i // 1000, (i % 1000) * 1000, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main()
