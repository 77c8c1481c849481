#!/usr/bin/env python3
"""The traffic of Tests/metrics/run.sh: Cast responders with short TTLs, a counting querier and
a TCP connection attempt (stdlib only; DNS messages from captures/tools/dnswire.py).

  cast_peers.py responder --spec devices.json --device KEY [--ttl S] [--announce-every S] [--listen]
  cast_peers.py querier   --ip ADDR --count N --interval S
  cast_peers.py connect   --ip ADDR --to ADDR --port N [--timeout S]

responder  the device KEY of --spec (address, TXT id/fn/md/ca, instance, SRV host and port): one
           message, flags 0x8400, AN = PTR _googlecast._tcp.local -> instance, AR = SRV, TXT
           (id fn md ca st rs ve ic) and A (cache-flush), every record with TTL --ttl (6 s).  It
           announces it at start and every --announce-every (2 s) seconds, and answers each Cast
           PTR question (QM, from port 5353) at once with it, by multicast.  SIGTERM or SIGINT:
           it multicasts the same records with TTL 0 (goodbye) and exits; SIGKILL leaves no
           goodbye.  --listen also accepts (and closes) TCP connections on its SRV port.
querier    sends --count Cast queries (QM, one question `_googlecast._tcp.local PTR`, ID 1..N,
           no known answers) --interval seconds apart from port 5353, then prints `done N`.
connect    one TCP connection from --ip to --to:--port; prints `outcome established|refused|
           timeout|error ...` (only 192.0.2.0/24 addresses are allowed).

Every multicast message sent is one line `sent <what> <n> <unix time>` (flushed), so run.sh can count what
castscope should have captured; `ready` once the socket is set up.  All traffic goes to
224.0.0.251:5353 from port 5353 with IP TTL 255 (no loopback), or to --to.
"""
import argparse
import ipaddress
import os
import json
import signal
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures", "tools"))
import dnswire  # noqa: E402
from dnswire import CACHE_FLUSH, CLASS_IN, FLAG_QR, MDNS_GROUP, MDNS_PORT, T_A, T_ANY, T_PTR, T_SRV, T_TXT  # noqa: E402

SERVICE = "_googlecast._tcp.local"
ALLOWED = ipaddress.ip_network("192.0.2.0/24")


def say(text):
    print(text, flush=True)


def load_device(spec, key):
    with open(spec, encoding="utf-8") as f:
        return json.load(f)[key]


def device_message(d, ttl):
    """The device's one response: PTR, then SRV, TXT and A with TTL ttl (0: a goodbye)."""
    instance = f"{d['instance']}.{SERVICE}"
    host = f"{d['host']}.local"
    txt = [("id", d["id"]), ("fn", d["fn"]), ("md", d["md"]), ("ca", d["ca"]), ("st", "0"), ("rs", ""),
           ("ve", "05"), ("ic", "/setup/icon.png")]
    flush = CACHE_FLUSH | CLASS_IN
    return dnswire.message(
        flags=dnswire.FLAGS_RESPONSE,
        answers=[dnswire.rr(SERVICE, T_PTR, CLASS_IN, ttl, dnswire.encode_name(instance))],
        additionals=[
            dnswire.rr(instance, T_SRV, flush, ttl, dnswire.srv_rdata(d["port"], host)),
            dnswire.rr(instance, T_TXT, flush, ttl, dnswire.txt_rdata(txt)),
            dnswire.rr(host, T_A, flush, ttl, socket.inet_aton(d["ip"])),
        ])


def asks_for_cast(data, src):
    """A query (not a response) from port 5353 with a PTR/ANY question for the Cast service."""
    if src[1] != MDNS_PORT or len(data) < 12 or dnswire.is_response(data):
        return False
    try:
        _qid, flags, qd, _an, _ns, _ar = dnswire.unpack_header(data)
        questions, _ = dnswire.read_questions(data, 12, qd)
    except (IndexError, ValueError, struct.error):
        return False
    return not flags & FLAG_QR and any(n.lower() == SERVICE.lower() and t in (T_PTR, T_ANY) for n, t, _ in questions)


def run_responder(a):
    d = load_device(a.spec, a.device)
    msg, goodbye = device_message(d, a.ttl), device_message(d, 0)
    s = dnswire.open_mdns_socket(d["ip"], multicast_ttl=255, unicast_ttl=255, loop=False)
    s.settimeout(0.1)
    counts = {"answer": 0, "announce": 0}
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if a.listen:
        lsock = socket.create_server((d["ip"], d["port"]))

        def accept():
            while True:
                c, _ = lsock.accept()
                c.close()
        threading.Thread(target=accept, daemon=True).start()

    def send(what):
        s.sendto(msg, (MDNS_GROUP, MDNS_PORT))
        counts[what] += 1
        say(f"sent {what} {counts[what]} {time.time():.6f}")

    say(f"ready {a.device} {d['ip']} ttl {a.ttl}")
    send("announce")
    next_announce = time.monotonic() + a.announce_every
    while not stop.is_set():
        if time.monotonic() >= next_announce:
            send("announce")
            next_announce += a.announce_every
        try:
            data, src = s.recvfrom(9000)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        if src[0] != d["ip"] and asks_for_cast(data, src):
            send("answer")
    s.sendto(goodbye, (MDNS_GROUP, MDNS_PORT))
    say(f"sent goodbye 1 {time.time():.6f}")
    say(f"answered {counts['answer']}, announced {counts['announce']}, goodbye 1")


def run_querier(a):
    s = dnswire.open_mdns_socket(a.ip, multicast_ttl=255, loop=False)
    say("ready")
    for i in range(1, a.count + 1):
        s.sendto(dnswire.query(SERVICE, T_PTR, qid=i), (MDNS_GROUP, MDNS_PORT))
        say(f"sent query {i} {time.time():.6f}")
        if i < a.count:
            time.sleep(a.interval)
    say(f"done {a.count}")


def run_connect(a):
    if ipaddress.ip_address(a.to) not in ALLOWED or ipaddress.ip_address(a.ip) not in ALLOWED:
        sys.exit(f"connect: {a.ip} -> {a.to} is outside {ALLOWED}")
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.bind((a.ip, 0))
    c.settimeout(a.timeout)
    try:
        c.connect((a.to, a.port))
        say("outcome established")
        time.sleep(0.2)
    except ConnectionRefusedError:
        say("outcome refused")
    except socket.timeout:
        say("outcome timeout")
    except OSError as e:
        say(f"outcome error {e}")
    finally:
        c.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="role", required=True)
    r = sub.add_parser("responder")
    r.add_argument("--spec", required=True)
    r.add_argument("--device", required=True)
    r.add_argument("--ttl", type=int, default=6)
    r.add_argument("--announce-every", type=float, default=2.0)
    r.add_argument("--listen", action="store_true")
    q = sub.add_parser("querier")
    q.add_argument("--ip", required=True)
    q.add_argument("--count", type=int, required=True)
    q.add_argument("--interval", type=float, default=3.0)
    c = sub.add_parser("connect")
    c.add_argument("--ip", required=True)
    c.add_argument("--to", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--timeout", type=float, default=3.0)
    a = p.parse_args()
    {"responder": run_responder, "querier": run_querier, "connect": run_connect}[a.role](a)


if __name__ == "__main__":
    main()
