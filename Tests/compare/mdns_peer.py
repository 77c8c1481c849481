#!/usr/bin/env python3
"""The two ends of Tests/compare/run.sh's traffic: a Cast querier and a Cast responder (stdlib only).

  mdns_peer.py querier   --ip ADDR [--count N] [--interval S] [--repeat-every K]
  mdns_peer.py responder --ip ADDR --a-record ADDR --id HEX32 --uuid UUID --name NAME
                         [--announce-interval S]
  mdns_peer.py relay     --a-if IF --a-ip ADDR --b-if IF --b-ip ADDR [--delay-ms MS]
  mdns_peer.py marker    --ip ADDR --to BROADCAST

Both bind 0.0.0.0:5353 (SO_REUSEADDR), join 224.0.0.251 on the interface holding --ip, and
send to 224.0.0.251:5353 from port 5353 with IP_MULTICAST_TTL 255 and IP_MULTICAST_LOOP 0.
The messages are built by hand (no name compression), so the run's UDP 5353 traffic is
exactly what castscope compare counts:

querier    sends --count (60) messages --interval (0.7 s) apart, all Cast queries: QR=0, one
           question `_googlecast._tcp.local PTR IN` (QM), nothing else.  Message i (1-based)
           has transaction ID i, except every --repeat-every-th (5th), which is a byte-for-byte
           copy of the one before it (same ID) -- repeated identical queries happen in real
           networks (Chrome sends ID 0 each time).  It never sends a response, and exits after
           the last one, printing `done N`.
responder  answers each Cast PTR query it receives with one multicast response, and every
           --announce-interval (1.5 s) sends the same response unsolicited.  Every message it
           sends is the SAME bytes: ID 0, QR=1 AA=1, answer PTR _googlecast._tcp.local ->
           Chromecast-<id>._googlecast._tcp.local (TTL 120), additionals SRV (8009,
           <uuid>.local), TXT (id, fn, md, ca, st, rs, ve, ic) and A.  It never sends a query
           and runs until SIGTERM/SIGINT, then prints `answered N, announced M`.

relay      an mDNS relay between two interfaces of one host, with a fixed delay (the
           kernel has no netem, so the delay is made here): one socket per side, bound to
           0.0.0.0:5353 and to that interface (SO_BINDTODEVICE, IP_MULTICAST_ALL 0), joined to
           224.0.0.251 there, IP_MULTICAST_LOOP 0 and IP_MULTICAST_TTL 255.  Each datagram
           received on one side is sent --delay-ms (300) later, the SAME payload bytes, on the
           OTHER side only, to 224.0.0.251:5353 from port 5353 and that side's address (--a-ip
           or --b-ip): a timer queue (heap by due time, FIFO for equal times), so receiving never
           waits for sending and the order is kept.  It never relays a datagram back onto the
           interface it came from, and drops (without relaying) any datagram whose source is
           one of its own addresses.  Runs until SIGTERM/SIGINT, sends what is still queued
           (each at its time, at most --delay-ms more), then prints
           `relayed a->b N, b->a M, own K, late max X ms` (late: how much after its due time
           the latest datagram went out).  It prints `ready` once both sockets are set up.
marker     sends one UDP datagram from --ip port 9 to --to (a subnet broadcast) port 9, not
           mDNS: run.sh sends one from each side before and after the traffic, so that each
           capture's first and last record brackets every Cast message (compare counts a
           message as lost only while the other capture was running: first to last record).

The querier and the responder print `ready` once the socket is set up (run.sh waits for it).
"""
import argparse
import heapq
import select
import signal
import socket
import struct
import sys
import time

GROUP = "224.0.0.251"
PORT = 5353
SERVICE = "_googlecast._tcp.local"
T_A, T_PTR, T_TXT, T_SRV = 1, 12, 16, 33
IN, FLUSH = 1, 0x8001


def name(n):
    """A DNS name, uncompressed."""
    out = b""
    for label in n.rstrip(".").split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\x00"


def rr(owner, rtype, rclass, ttl, rdata):
    return name(owner) + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def query(ident):
    """A Cast query: one question, QM, nothing else."""
    return struct.pack("!HHHHHH", ident, 0, 1, 0, 0, 0) + name(SERVICE) + struct.pack("!HH", T_PTR, IN)


def response(dev_id, uuid, fn, a_record):
    instance = f"Chromecast-{dev_id}.{SERVICE}"
    host = f"{uuid}.local"
    txt = b"".join(bytes([len(s)]) + s for s in (
        f"id={dev_id}".encode(), f"fn={fn}".encode(), b"md=Chromecast", b"ca=4101", b"st=0", b"rs=",
        b"ve=05", b"ic=/setup/icon.png"))
    answers = [rr(SERVICE, T_PTR, IN, 120, name(instance))]
    additionals = [
        rr(instance, T_SRV, FLUSH, 120, struct.pack("!HHH", 0, 0, 8009) + name(host)),
        rr(instance, T_TXT, FLUSH, 120, txt),
        rr(host, T_A, FLUSH, 120, socket.inet_aton(a_record)),
    ]
    header = struct.pack("!HHHHHH", 0, 0x8400, 0, len(answers), 0, len(additionals))
    return header + b"".join(answers) + b"".join(additionals)


def read_name(msg, off):
    """(name, offset after it); follows compression pointers."""
    labels, end, hops = [], None, 0
    while True:
        n = msg[off]
        if n & 0xC0 == 0xC0:
            if end is None:
                end = off + 2
            off = ((n & 0x3F) << 8) | msg[off + 1]
            hops += 1
            if hops > 20:
                raise ValueError("pointer loop")
            continue
        if n == 0:
            return ".".join(labels), (end if end is not None else off + 1)
        labels.append(msg[off + 1:off + 1 + n].decode("utf-8", "replace"))
        off += 1 + n


def asks_for_cast(msg):
    """True when msg is a query with a question `_googlecast._tcp.local PTR`."""
    if len(msg) < 12:
        return False
    _, flags, qd = struct.unpack("!HHH", msg[:6])
    if flags & 0x8000:
        return False
    off = 12
    try:
        for _ in range(qd):
            qname, off = read_name(msg, off)
            qtype, _ = struct.unpack("!HH", msg[off:off + 4])
            off += 4
            if qname.lower() == SERVICE.lower() and qtype in (T_PTR, 255):
                return True
    except (IndexError, ValueError, struct.error):
        return False
    return False


def open_socket(ip):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", PORT))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    return s


def run_querier(a):
    s = open_socket(a.ip)
    print("ready", flush=True)
    sent, ident, prev = 0, 0, None
    for i in range(1, a.count + 1):
        if a.repeat_every and i % a.repeat_every == 0 and prev is not None:
            msg, what = prev, f"copy of id {ident}"
        else:
            ident += 1
            msg, what = query(ident), f"id {ident}"
        s.sendto(msg, (GROUP, PORT))
        sent += 1
        prev = msg
        print(f"query {i}: {what}", flush=True)
        if i < a.count:
            time.sleep(a.interval)
    print(f"done {sent}", flush=True)


def run_responder(a):
    s = open_socket(a.ip)
    msg = response(a.id, a.uuid, a.name, a.a_record)
    counts = {"answered": 0, "announced": 0}

    def bye(*_):
        print(f"answered {counts['answered']}, announced {counts['announced']}", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
    print("ready", flush=True)
    next_announce = time.monotonic() + a.announce_interval
    while True:
        s.settimeout(max(0.0, next_announce - time.monotonic()))
        try:
            data, _ = s.recvfrom(9000)
        except socket.timeout:
            s.sendto(msg, (GROUP, PORT))
            counts["announced"] += 1
            next_announce += a.announce_interval
            continue
        if asks_for_cast(data):
            s.sendto(msg, (GROUP, PORT))
            counts["answered"] += 1


IP_MULTICAST_ALL = getattr(socket, "IP_MULTICAST_ALL", 49)  # linux/in.h


def relay_socket(ifname, ip):
    """A socket that hears 224.0.0.251:5353 on ifname only and sends there from ip:5353."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, ifname.encode())
    s.bind(("0.0.0.0", PORT))
    # only the groups joined on this socket (by default a socket hears a group joined by any)
    s.setsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    s.setblocking(False)
    return s


def run_relay(a):
    delay = a.delay_ms / 1000.0
    sides = {"a": relay_socket(a.a_if, a.a_ip), "b": relay_socket(a.b_if, a.b_ip)}
    other = {"a": "b", "b": "a"}
    own = {a.a_ip, a.b_ip}
    by_fd = {s.fileno(): name for name, s in sides.items()}
    queue = []  # (due, seq, out side, payload): heapq, FIFO for equal due times
    counts = {"a->b": 0, "b->a": 0, "own": 0}
    state = {"seq": 0, "late": 0.0, "stop": False}

    def stop(*_):
        state["stop"] = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"ready: {a.a_if} {a.a_ip} <-> {a.b_if} {a.b_ip}, delay {a.delay_ms:g} ms", flush=True)

    def send_due(now):
        while queue and queue[0][0] <= now:
            due, _, out, payload = heapq.heappop(queue)
            sides[out].sendto(payload, (GROUP, PORT))
            counts["a->b" if out == "b" else "b->a"] += 1
            state["late"] = max(state["late"], time.monotonic() - due)

    while not state["stop"] or queue:
        now = time.monotonic()
        send_due(now)
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else 0.5
        if state["stop"]:  # drain: no more receiving, only what is queued
            if queue:
                time.sleep(timeout)
            continue
        try:
            ready, _, _ = select.select(list(by_fd), [], [], timeout)
        except InterruptedError:
            continue
        for fd in ready:
            side = by_fd[fd]
            while True:
                try:
                    payload, (src, _) = sides[side].recvfrom(9000)
                except (BlockingIOError, InterruptedError):
                    break
                t = time.monotonic()
                if src in own:  # its own copy (IP_MULTICAST_LOOP 0 should make this never happen)
                    counts["own"] += 1
                    continue
                state["seq"] += 1
                heapq.heappush(queue, (t + delay, state["seq"], other[side], payload))
    print(f"relayed a->b {counts['a->b']}, b->a {counts['b->a']}, own {counts['own']}, "
          f"late max {state['late'] * 1000:.3f} ms", flush=True)


def run_marker(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s.bind((a.ip, 9))
    s.sendto(b"castscope Tests/compare: capture marker, not mDNS", (a.to, 9))
    print(f"marker {a.ip} -> {a.to}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="role", required=True)
    q = sub.add_parser("querier")
    q.add_argument("--ip", required=True)
    q.add_argument("--count", type=int, default=60)
    q.add_argument("--interval", type=float, default=0.7)
    q.add_argument("--repeat-every", type=int, default=5)
    r = sub.add_parser("responder")
    r.add_argument("--ip", required=True)
    r.add_argument("--a-record", required=True)
    r.add_argument("--id", required=True)
    r.add_argument("--uuid", required=True)
    r.add_argument("--name", default="Living Room TV")
    r.add_argument("--announce-interval", type=float, default=1.5)
    y = sub.add_parser("relay")
    y.add_argument("--a-if", required=True)
    y.add_argument("--a-ip", required=True)
    y.add_argument("--b-if", required=True)
    y.add_argument("--b-ip", required=True)
    y.add_argument("--delay-ms", type=float, default=300.0)
    m = sub.add_parser("marker")
    m.add_argument("--ip", required=True)
    m.add_argument("--to", required=True)
    a = p.parse_args()
    {"querier": run_querier, "responder": run_responder, "relay": run_relay, "marker": run_marker}[a.role](a)


if __name__ == "__main__":
    main()
