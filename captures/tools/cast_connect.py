#!/usr/bin/env python3
"""Cast sender stand-in for the phase after discovery: browse, resolve, connect.

  cast_connect.py --ip 192.0.2.10 [--timeout 4.5] [--linger 1] [--expect OUTCOME]

Browses `_googlecast._tcp.local.` with a python-zeroconf ServiceBrowser (as
cast_browser.py does), waits for the first instance to resolve (SRV port and
an IPv4 address from its A record), then does what a Cast sender does next:
opens a TCP connection to that address and port and, once connected, a TLS
handshake (`ssl.create_default_context()` with check_hostname off and
CERT_NONE, as Cast devices have self-signed certificates; no SNI).  It then
closes the connection cleanly (TLS close_notify, then FIN), keeps browsing
for --linger seconds and exits.

It prints exactly one line of JSON to stdout (log lines go to stderr):
  {"outcome": "established" | "refused" | "timeout" | "unreachable" | ...,
   "connect_ms": ..., "tls_ms": ..., ...}
- established: connect() succeeded (and tls_ms is the handshake time);
- refused: connect() failed with ECONNREFUSED and no ICMP error was queued
  (the peer answered the SYN with RST);
- timeout: no answer to the SYN and its retransmissions within --timeout;
- unreachable: an ICMP destination unreachable quoting the SYN ended the
  attempt.  Linux reports ICMP port unreachable as ECONNREFUSED, like a
  RST, so the socket has IP_RECVERR set and the ICMP type/code (and the
  address that sent it) is read from the socket's error queue.

Safety: it only ever connects to the resolved address, and only if that is
inside --allow (default 192.0.2.0/24); otherwise it does not connect at all.

stdlib + zeroconf only.
"""
import argparse
import errno
import ipaddress
import json
import queue
import socket
import ssl
import struct
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf

T0 = time.monotonic()
IP_RECVERR = getattr(socket, "IP_RECVERR", 11)  # Linux value; Python 3.11 lacks the name
SO_EE_ORIGIN_ICMP = 2


def log(msg):
    print(f"{time.time():.6f} (+{time.monotonic() - T0:6.3f}s) connect: {msg}", file=sys.stderr, flush=True)


def ms(t):
    return round(1000 * (time.monotonic() - t), 3)


class Listener(ServiceListener):
    def __init__(self):
        self.found = queue.Queue()

    def add_service(self, zc, type_, name):
        log(f"add {type_} {name}")
        self.found.put((type_, name))

    def update_service(self, zc, type_, name):
        log(f"update {type_} {name}")

    def remove_service(self, zc, type_, name):
        log(f"remove {type_} {name}")


def resolve(zc, listener, deadline, allow):
    """The first instance that resolves to an allowed IPv4 address: (name, server, addr, port)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            type_, name = listener.found.get(timeout=left)
        except queue.Empty:
            return None
        info = zc.get_service_info(type_, name, timeout=3000)
        if info is None or not info.port:
            log(f"{name}: not resolved")
            continue
        addrs = info.parsed_addresses(IPVersion.V4Only)
        log(f"resolved {name} -> {info.server}:{info.port} addrs={addrs}")
        for a in addrs:
            if ipaddress.ip_address(a) in allow:
                return name, info.server, a, info.port
            log(f"{name}: not connecting to {a} (outside {allow})")


def icmp_error(sock):
    """The ICMP error queued on the socket (IP_RECVERR), or None."""
    sock.setblocking(False)
    try:
        _data, anc, _flags, _addr = sock.recvmsg(512, 512, socket.MSG_ERRQUEUE)
    except OSError:
        return None
    for level, typ, data in anc:
        if level == socket.IPPROTO_IP and typ == IP_RECVERR and len(data) >= 24:
            ee_errno, origin, itype, icode, _pad, _info, _data2 = struct.unpack_from("=IBBBBII", data)
            if origin == SO_EE_ORIGIN_ICMP:
                return {"type": itype, "code": icode, "from": socket.inet_ntoa(data[20:24]),
                        "errno": errno.errorcode.get(ee_errno, str(ee_errno))}
    return None


def tls_context():
    """A sender's client context: Cast devices present self-signed certificates."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def connect(res, args, ctx):
    """Connect, classify, handshake and close; returns the result dict."""
    name, server, addr, port = res
    out = {"outcome": None, "service": name, "target": server, "address": addr, "port": port,
           "source": None, "connect_ms": None, "tls_ms": None}
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
    s.bind((args.ip, 0))
    out["source"] = "%s:%d" % s.getsockname()
    s.settimeout(args.timeout)
    log(f"connecting {out['source']} -> {addr}:{port} (timeout {args.timeout} s)")
    t = time.monotonic()
    try:
        s.connect((addr, port))
    except TimeoutError:
        out.update(outcome="timeout", connect_ms=ms(t))
    except OSError as e:
        out["connect_ms"] = ms(t)
        out["errno"] = errno.errorcode.get(e.errno, str(e.errno))
        icmp = icmp_error(s)
        if icmp is not None:
            out.update(outcome="unreachable", icmp=icmp)
        elif e.errno == errno.ECONNREFUSED:
            out["outcome"] = "refused"
        elif e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
            out["outcome"] = "unreachable"
        else:
            out["outcome"] = "error"
    else:
        out.update(outcome="established", connect_ms=ms(t))
    log(f"connect: {out['outcome']} after {out['connect_ms']} ms")
    if out["outcome"] != "established":
        s.close()
        return out

    s.settimeout(args.tls_timeout)
    t = time.monotonic()
    try:
        tls = ctx.wrap_socket(s, server_hostname=None)  # handshake happens here
    except (ssl.SSLError, OSError) as e:
        out.update(tls_ms=ms(t), tls_error=str(e))
        log(f"TLS handshake failed: {e}")
        s.close()
        return out
    out.update(tls_ms=ms(t), tls_version=tls.version(), tls_cipher=tls.cipher()[0])
    log(f"TLS handshake done in {out['tls_ms']} ms: {out['tls_version']} {out['tls_cipher']}")
    try:
        s = tls.unwrap()  # close_notify both ways
    except (ssl.SSLError, OSError) as e:
        log(f"close_notify: {e}")
        s = tls
    s.close()  # FIN
    log("closed")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="the sender's IPv4 address (mDNS interface, TCP source)")
    ap.add_argument("--type", default="_googlecast._tcp.local.")
    ap.add_argument("--timeout", type=float, default=4.5, help="TCP connect timeout, s")
    ap.add_argument("--tls-timeout", type=float, default=5.0, help="TLS handshake timeout, s")
    ap.add_argument("--resolve-timeout", type=float, default=10.0, help="how long to wait for a device, s")
    ap.add_argument("--linger", type=float, default=1.0, help="keep browsing this long after closing, s")
    ap.add_argument("--allow", default="192.0.2.0/24", help="connect only to addresses in this network")
    ap.add_argument("--expect", help="exit 1 unless the outcome is this")
    args = ap.parse_args()
    allow = ipaddress.ip_network(args.allow)
    ctx = tls_context()  # ready before connecting (loading the CA store takes ~60 ms)

    zc = Zeroconf(interfaces=[args.ip], ip_version=IPVersion.V4Only)
    listener = Listener()
    log(f"browsing {args.type} on {args.ip}")
    t = time.monotonic()
    browser = ServiceBrowser(zc, args.type, listener=listener)
    res = resolve(zc, listener, t + args.resolve_timeout, allow)
    if res is None:
        result = {"outcome": "unresolved", "resolve_ms": ms(t)}
    else:
        resolve_ms = ms(t)
        result = connect(res, args, ctx)
        result["resolve_ms"] = resolve_ms
    print(json.dumps(result), flush=True)
    time.sleep(args.linger)
    browser.cancel()
    zc.close()
    log("done")
    if args.expect and result["outcome"] != args.expect:
        log(f"outcome {result['outcome']}, expected {args.expect}")
        return 1
    return 0 if result["outcome"] in ("established", "refused", "timeout", "unreachable") else 1


if __name__ == "__main__":
    sys.exit(main())
