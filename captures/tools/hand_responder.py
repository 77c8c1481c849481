#!/usr/bin/env python3
"""Minimal hand-built mDNS responder for one Cast service (CastScope captures).

Unlike avahi and python-zeroconf this is NOT a conforming mDNS stack: it only
answers PTR (or ANY) questions for `_googlecast._tcp.local`, never probes,
never announces (unless --announce-every), never answers SRV/TXT/A/AAAA
questions, and sends every answer by multicast to 224.0.0.251:5353 from port
5353 (IP TTL 255), unless --qu-unicast.  It
exists to make faulty devices on purpose:

  --mode ptr-only   the response carries ONLY the PTR (no SRV/TXT/A
                    additionals); follow-up SRV/TXT/A queries are ignored,
                    so the instance can never be resolved
                    (INCOMPLETE_RESOLUTION).
  --mode full       the response looks like a real Chromecast's
                    (DOMAIN.md §1.1): flags 0x8400, AN = PTR (TTL 120, shared),
                    AR = TXT (cache-flush, 4500), SRV (cache-flush, 120),
                    A (cache-flush, 120).
  --delay S         wait S seconds after the query before answering
                    (0.7 -> SLOW_RESPONSE).
  --advertise ADDR  put ADDR in the A record instead of --ip (repeatable;
                    --ip may be among them).  The address is record DATA
                    only: it is never configured on an interface and
                    nothing is sent to it (ADVERTISED_ADDRESS_UNREACHABLE:
                    a receiver in a Docker container publishing 172.17.0.x,
                    or a second interface with a 169.254 address).
  --on-link-only PREFIX
                    ignore queries whose IP source is outside PREFIX
                    (e.g. 192.0.2.128/25), as Chromecasts do (RFC 6762 §11
                    source check; DOMAIN.md §7.2 #4); logged as "off-link".
  --qu-unicast      answer a query whose PTR question has the QU bit by
                    unicast to the querier's address, port 5353 (RFC 6762
                    §5.4), instead of by multicast.
  --announce-every S  also multicast the response unsolicited every S
                    seconds (a device re-announcing itself).
  --announce-address
                    on SIGUSR1, multicast the A record alone (an announcement),
                    and leave the A out of any answer sent less than 1 s after
                    the A was last multicast (RFC 6762 §6 rate limit, §7.4
                    duplicate-answer suppression, as avahi does): the answer is
                    PTR+SRV+TXT and the sender already has the A.

Known-answer suppression (RFC 6762 §7.1) is honoured: a query that lists our
PTR with at least half its TTL left is not answered.  Queries from a port
other than 5353 (legacy unicast) are logged and ignored.

The service identity comes from a tools/zc/*.json spec (first service).

stdlib only.
"""
import argparse
import ipaddress
import json
import signal
import socket
import struct
import sys
import threading
import time

import dnswire
from dnswire import (CACHE_FLUSH, CLASS_IN, FLAG_QR, MDNS_GROUP as GROUP, MDNS_PORT as PORT, T_A, T_ANY, T_PTR,
                     T_SRV, T_TXT, UNICAST_RESPONSE)

BASE = "_googlecast._tcp.local"


def log(msg):
    print(f"{time.time():.6f} hand-responder: {msg}", flush=True)


def parse_query(buf):
    """-> (flags, [(qname, qtype, qclass)], [(name, type, ttl, ptr_target|None)]) (answer section only)"""
    _qid, flags, qd, an, _ns, _ar = dnswire.unpack_header(buf)
    questions, off = dnswire.read_questions(buf, 12, qd)
    answers = [(r.name, r.rtype, r.ttl, dnswire.decode_rdata(buf, r) if r.rtype == T_PTR else None)
               for r in dnswire.iter_records(buf, off, an)]
    return flags, questions, answers


def address_record(host, ip):
    return dnswire.rr(host, T_A, CACHE_FLUSH | CLASS_IN, 120, socket.inet_aton(ip))


def build_response(svc, instance, host, ips, mode, ptr_ttl, with_address=True):
    """The one response this device sends: AN = PTR; in full mode AR = TXT, SRV, A per address (cache-flush)."""
    answer = dnswire.rr(BASE, T_PTR, CLASS_IN, ptr_ttl, dnswire.encode_name(instance))
    additionals = []
    if mode == "full":
        additionals = [
            dnswire.rr(instance, T_TXT, CACHE_FLUSH | CLASS_IN, 4500, dnswire.txt_rdata(svc.get("txt", []))),
            dnswire.rr(instance, T_SRV, CACHE_FLUSH | CLASS_IN, 120, dnswire.srv_rdata(svc["port"], host)),
        ]
        if with_address:
            additionals += [address_record(host, ip) for ip in ips]
    return dnswire.message(flags=dnswire.FLAGS_RESPONSE, answers=[answer], additionals=additionals)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", required=True, help="tools/zc/*.json (first service is used)")
    ap.add_argument("--ip", required=True, help="IPv4 address of this device (A record, interface)")
    ap.add_argument("--mode", choices=["ptr-only", "full"], default="full")
    ap.add_argument("--delay", type=float, default=0.06, help="seconds between query and answer")
    ap.add_argument("--ptr-ttl", type=int, default=120)
    ap.add_argument("--qu-unicast", action="store_true", help="answer QU questions by unicast")
    ap.add_argument("--announce-every", type=float, default=0, help="unsolicited announcement period (0 = none)")
    ap.add_argument("--announce-address", action="store_true",
                    help="multicast the A record on SIGUSR1; leave it out of answers within 1 s of that")
    ap.add_argument("--duration", type=float, default=0, help="seconds to run (0 = until SIGINT/SIGTERM)")
    ap.add_argument("--advertise", action="append", default=[], help="A record address (default: --ip)")
    ap.add_argument("--on-link-only", metavar="PREFIX", help="ignore queries from sources outside PREFIX")
    args = ap.parse_args()
    on_link = ipaddress.ip_network(args.on_link_only) if args.on_link_only else None

    with open(args.spec) as f:
        spec = json.load(f)
    svc = spec["services"][0]
    host = spec["host"].rstrip(".")
    instance = f"{svc['instance']}.{BASE}"
    addresses = args.advertise or [args.ip]
    response = build_response(svc, instance, host, addresses, args.mode, args.ptr_ttl)
    without_address = build_response(svc, instance, host, addresses, args.mode, args.ptr_ttl, with_address=False)
    last_address = [float("-inf")]  # when the A record was last multicast

    s = dnswire.open_mdns_socket(args.ip, multicast_ttl=255, unicast_ttl=255, loop=False)

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    s.settimeout(0.2)
    lock = threading.Lock()

    def send(qdesc, to=GROUP):
        with lock:
            now = time.time()
            # RFC 6762 §6: a record is multicast at most once a second; the sender has it.
            recent = args.announce_address and to == GROUP and now - last_address[0] < 1.0
            message = without_address if recent else response
            s.sendto(message, (to, PORT))
            if args.mode == "full" and to == GROUP and not recent:
                last_address[0] = now
        n_additionals = dnswire.unpack_header(message)[5]
        how = "unicast" if to != GROUP else "multicast"
        note = f", A left out: multicast {now - last_address[0]:.3f} s ago" if recent else ""
        log(f"answered {qdesc} ({args.mode}, {how}, {len(message)} bytes, AN=1 AR={n_additionals}{note})")

    def announce_address():
        with lock:
            s.sendto(dnswire.message(flags=dnswire.FLAGS_RESPONSE, answers=[address_record(host, args.ip)]),
                     (GROUP, PORT))
            last_address[0] = time.time()
        log(f"announced A {host} -> {args.ip}")

    if args.announce_address:
        # Sent from the main loop's thread: a signal handler only asks for it.
        announce = threading.Event()
        signal.signal(signal.SIGUSR1, lambda *_: announce.set())

    log(f"ready: {instance} host={host} ip={args.ip} A={','.join(args.advertise or [args.ip])} mode={args.mode} "
        f"delay={args.delay}s")
    t_end = time.time() + args.duration if args.duration > 0 else None
    next_announce = time.time() + args.announce_every if args.announce_every > 0 else None
    while not stop.is_set() and (t_end is None or time.time() < t_end):
        if next_announce is not None and time.time() >= next_announce:
            next_announce += args.announce_every
            send("(announcement)")
        if args.announce_address and announce.is_set():
            announce.clear()
            announce_address()
        try:
            data, src = s.recvfrom(9000)
        except socket.timeout:
            continue
        if src[0] == args.ip or len(data) < 12:
            continue
        try:
            flags, questions, answers = parse_query(data)
        except (IndexError, struct.error):
            log(f"undecodable packet from {src[0]}")
            continue
        if flags & FLAG_QR:
            continue  # a response from someone else
        qdesc = " ".join(f"{n} {dnswire.type_name(t)}{' QU' if c & UNICAST_RESPONSE else ''}" for n, t, c in questions)
        if on_link is not None and ipaddress.ip_address(src[0]) not in on_link:
            log(f"ignored off-link query from {src[0]}: {qdesc}")
            continue
        if src[1] != PORT:
            log(f"ignored legacy query from {src[0]}:{src[1]}: {qdesc}")
            continue
        wanted = any(n.lower() == BASE.lower() and t in (T_PTR, T_ANY) for n, t, _ in questions)
        if not wanted:
            log(f"ignored query from {src[0]}: {qdesc}")
            continue
        known = [a for a in answers if a[0].lower() == BASE.lower() and a[1] == T_PTR
                 and (a[3] or "").lower() == instance.lower() and a[2] >= args.ptr_ttl // 2]
        if known:
            log(f"known answer (ttl {known[0][2]}) from {src[0]}: suppressed")
            continue
        qu = any(n.lower() == BASE.lower() and t in (T_PTR, T_ANY) and c & UNICAST_RESPONSE for n, t, c in questions)
        to = src[0] if qu and args.qu_unicast else GROUP
        log(f"query from {src[0]}: {qdesc}; answering in {args.delay}s")
        threading.Timer(args.delay, send, args=(f"{src[0]}: {qdesc}", to)).start()
    log("exit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
