#!/usr/bin/env python3
"""Hand-built RFC 6762 continuous querier for `_googlecast._tcp.local` (stdlib).

Used where python-zeroconf's browser cannot show the behaviour: zeroconf
raises every PTR TTL below 1125 s to 1125 s in its cache (const
_DNS_PTR_MIN_TTL), so with a device whose records have 10 s TTLs it neither
refreshes at 80 % of the TTL nor lets the record expire.  This querier keeps
the TTLs it receives:

  * continuous PTR query: the first after 50 ms (--first-query), then 1 s, 2 s, 4 s, ...
    apart (RFC 6762 §5.2), "QM", from port 5353, message id 0;
  * known-answer list: cached PTRs with more than half of their TTL left
    (§7.1);
  * cache refresh: every cached record (PTR, SRV, TXT, A) is queried again at
    80, 85, 90 and 95 % of its TTL (§5.2; jitter fixed at +1 %), all the
    questions that fall due at the same time in one packet;
  * after a new PTR, SRV/TXT (and then A) questions for whatever the
    response did not carry;
  * records expire at 100 % of their TTL; TTL 0 (goodbye) removes after 1 s;
  * --qm-every S: the browse query every S seconds instead of doubling (a
    sender that keeps polling);
  * --qu-every S: also a PTR query with the QU bit (unicast response, RFC
    6762 §5.4) and no known answers every S seconds, the first at +1.5 s
    (as a sender's first query after a start or a network change).

Logs `add`, `resolved ... -> host:port addrs=[..]`, `expired`/`remove`.

stdlib only.
"""
import argparse
import select
import struct
import sys
import time

import dnswire
from dnswire import (CLASS_IN, MDNS_GROUP as GROUP, MDNS_PORT as PORT, T_A, T_PTR, T_SRV, T_TXT, TYPES,
                     UNICAST_RESPONSE)

REFRESH = (0.81, 0.86, 0.91, 0.96)

T0 = time.time()


def log(msg):
    print(f"{time.time():.6f} (+{time.time() - T0:6.3f}s) rfc-browser: {msg}", flush=True)


def parse_response(buf):
    """-> [(name, type, ttl, value)] for A/PTR/SRV/TXT in all sections."""
    _qid, _flags, qd, an, ns, ar = dnswire.unpack_header(buf)
    off = dnswire.skip_questions(buf, 12, qd)
    out = []
    for r in dnswire.iter_records(buf, off, an, ns, ar):
        value = dnswire.decode_rdata(buf, r)
        if value is not None:
            out.append((r.name, r.rtype, r.ttl, value))
    return out


def build_query(questions, known, qu=False):
    """A query (id 0) for [(name, type)] with known answers [(ptr_name, target, ttl)]; QM unless qu."""
    qclass = CLASS_IN | (UNICAST_RESPONSE if qu else 0)
    return dnswire.message(
        questions=[dnswire.question(name, rtype, qclass) for name, rtype in questions],
        answers=[dnswire.rr(name, T_PTR, CLASS_IN, ttl, dnswire.encode_name(target)) for name, target, ttl in known],
    )


class Record:
    def __init__(self, name, rtype, ttl, value, now):
        self.name, self.rtype, self.value = name, rtype, value
        self.set_ttl(ttl, now)

    def set_ttl(self, ttl, now):
        self.ttl, self.created = ttl, now
        self.refreshes = [] if ttl == 0 else [now + ttl * p for p in REFRESH]
        self.expires = now + (1 if ttl == 0 else ttl)

    def remaining(self, now):
        return self.expires - now


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="local IPv4 address")
    ap.add_argument("--type", default="_googlecast._tcp.local")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--qm-every", type=float, default=0, help="fixed browse interval (0 = doubling)")
    ap.add_argument("--qu-every", type=float, default=0, help="period of QU PTR queries (0 = none)")
    ap.add_argument("--first-query", type=float, default=0.05,
                    help="seconds before the first query (responses heard before it are cached)")
    args = ap.parse_args()
    stype = args.type.rstrip(".")

    s = dnswire.open_mdns_socket(args.ip, multicast_ttl=255, loop=False)

    cache = {}  # (name.lower(), type, value) -> Record
    resolved = set()
    pending = {}  # (name, type) -> due time (resolution questions)
    t_end = T0 + args.duration
    next_browse, interval = T0 + args.first_query, args.qm_every or 1.0
    next_qu = T0 + 1.55 if args.qu_every > 0 else None
    log(f"browsing {stype} on {args.ip} for {args.duration}s")

    def find(name, rtype):
        return [r for (n, t, _), r in cache.items() if n == name.lower() and t == rtype]

    def send(questions, known, qu=False):
        msg = build_query(questions, [(r.name, r.value, max(0, int(r.remaining(time.time())))) for r in known], qu)
        s.sendto(msg, (GROUP, PORT))
        qs = ", ".join(f"{n} {TYPES[t]}" for n, t in questions)
        log(f"query{' QU' if qu else ''} [{qs}]" + (f" known={len(known)}" if known else ""))

    def check_resolved(now):
        for ptr in find(stype, T_PTR):
            inst = ptr.value
            if inst.lower() in resolved:
                continue
            srv, txt = find(inst, T_SRV), find(inst, T_TXT)
            if not srv or not txt:
                for rtype, have in ((T_SRV, srv), (T_TXT, txt)):
                    if not have:
                        pending.setdefault((inst, rtype), now + 0.02)
                continue
            host, port = srv[0].value
            addrs = [r.value for r in find(host, T_A)]
            if not addrs:
                pending.setdefault((host, T_A), now + 0.02)
                continue
            resolved.add(inst.lower())
            log(f"resolved {inst} -> {host}:{port} addrs={addrs}")

    while True:
        now = time.time()
        if now >= t_end:
            break
        # expiry
        for key, r in list(cache.items()):
            if now >= r.expires:
                del cache[key]
                log(f"{'remove' if r.ttl == 0 else 'expired'} {r.name} {TYPES[r.rtype]} (ttl {r.ttl})")
                if r.rtype == T_PTR:
                    resolved.discard(r.value.lower())
                    log(f"remove {stype} {r.value}")
        # questions due now
        questions = []
        browse_due = now >= next_browse
        for r in cache.values():
            if r.refreshes and now >= r.refreshes[0]:
                while r.refreshes and now >= r.refreshes[0]:
                    r.refreshes.pop(0)
                q = (r.name, r.rtype)
                if q not in questions:
                    questions.append(q)
        for q, due in list(pending.items()):
            if now >= due:
                del pending[q]
                if q not in questions:
                    questions.append(q)
        if browse_due and (stype, T_PTR) not in questions:
            questions.insert(0, (stype, T_PTR))
        if browse_due:
            next_browse = next_browse + interval if args.qm_every else now + interval
            if not args.qm_every:
                interval = min(interval * 2, 3600)
        if next_qu is not None and now >= next_qu:
            next_qu += args.qu_every
            send([(stype, T_PTR)], [], qu=True)
        if questions:
            known = []
            if (stype, T_PTR) in questions:
                known = [r for r in find(stype, T_PTR) if r.remaining(now) > r.ttl / 2]
            send(questions, known)
        # wait for the next event
        events = [next_browse, t_end] + [r.expires for r in cache.values()] + ([next_qu] if next_qu else [])
        events += [r.refreshes[0] for r in cache.values() if r.refreshes] + list(pending.values())
        timeout = max(0.0, min(events) - time.time())
        rd, _, _ = select.select([s], [], [], timeout)
        if not rd:
            continue
        data, src = s.recvfrom(9000)
        if not dnswire.is_response(data):
            continue
        now = time.time()
        try:
            records = parse_response(data)
        except (IndexError, struct.error):
            log(f"undecodable response from {src[0]}")
            continue
        for name, rtype, ttl, value in records:
            key = (name.lower(), rtype, value)
            if rtype == T_PTR and name.lower() != stype.lower():
                continue
            if key in cache:
                cache[key].set_ttl(ttl, now)
            elif ttl > 0:
                cache[key] = Record(name, rtype, ttl, value, now)
                if rtype == T_PTR:
                    log(f"add {stype} {value} (from {src[0]}, ttl {ttl})")
            pending.pop((name, rtype), None)
        check_resolved(now)
    dnswire.leave_group(s, args.ip)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
