#!/usr/bin/env python3
"""The HTTP side of `castscope live --metrics` (Tests/metrics/run.sh runs this in another
namespace of the LAN; stdlib only, plain sockets: no proxy can get in the way).

  http_checks.py basic     HOST PORT   requests one by one: status, headers, bodies
  http_checks.py flood     HOST PORT [--n 20]   more idle connections than the server keeps
  http_checks.py slowloris HOST PORT   an idle and a trickling connection: closed after ~10 s
  http_checks.py healthz   HOST PORT [--expect-refused]   one /healthz (IPv6: HOST without brackets)

Each check prints one `ok ...` or `FAIL ...` line (Tests/lib/checks.py say) with what was sent
and what came back.  What the server must do is docs/metrics.md's (the interface in brief):
GET /metrics -> 200 `text/plain; version=0.0.4; charset=utf-8`; GET /healthz -> 200 "ok\\n";
another path 404; a method other than GET/HEAD 405 with Allow; a head over 8192 bytes 431; a
malformed request line 400; at most 16 connections (more are closed at once, after a 503 if
possible); a connection idle or incomplete for 10 s is closed; every response has
`Connection: close` and the server closes the connection after it.
"""
import argparse
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import say  # noqa: E402

import expo  # noqa: E402

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MAX_CONNECTIONS = 16
IDLE_TIMEOUT = 10.0
HEAD_END = b"\r\n\r\n"


def connect(host, port, timeout=5.0):
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((host, port))
    return s


def read_all(s, limit=10.0):
    """Everything until the server closes: (bytes, how: "closed" | "reset" | "timeout")."""
    data, end = b"", time.monotonic() + limit
    while True:
        s.settimeout(max(0.05, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            return data, "timeout"
        except ConnectionResetError:
            return data, "reset"
        if not chunk:
            return data, "closed"
        data += chunk


RESPONSES = []  # (what was sent, status, headers, body) of every response exchange() read


def exchange(host, port, raw, pause=None):
    """Sends raw (a list of chunks with `pause` seconds between them), reads to the close.
    (status or None, headers, body, how, raw response)"""
    with connect(host, port) as s:
        chunks = raw if isinstance(raw, list) else [raw]
        for i, c in enumerate(chunks):
            try:
                s.sendall(c)
            except (BrokenPipeError, ConnectionResetError):
                break
            if pause and i + 1 < len(chunks):
                time.sleep(pause)
        data, how = read_all(s)
    try:
        status, headers, body = expo.split_response(data)
    except expo.ExpoError:
        return None, {}, b"", how, data
    RESPONSES.append((b"".join(chunks), status, headers, body))
    return status, headers, body, how, data


def short(data, n=160):
    return repr(data[:n]) + ("..." if len(data) > n else "")


def request(method, path, version="1.1", extra=""):
    host = "" if version == "1.0" else "Host: castscope\r\n"
    return f"{method} {path} HTTP/{version}\r\n{host}{extra}\r\n".encode()


def closes(how, headers):
    """The response said Connection: close and the server closed (not just stopped sending)."""
    return how in ("closed", "reset") and headers.get("connection", "").lower() == "close"


def basic(a):
    h, p = a.host, a.port
    sent = request("GET", "/healthz")
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 200 and body == b"ok\n" and closes(how, hd),
        "GET /healthz: 200, body 'ok\\n', Connection: close and closed",
        f"sent {sent!r}, got {short(raw)} ({how})")

    sent = request("GET", "/metrics")
    st, hd, body, how, raw = exchange(h, p, sent)
    good = st == 200 and hd.get("content-type") == CONTENT_TYPE and closes(how, hd)
    say(good, f"GET /metrics HTTP/1.1: 200, Content-Type '{CONTENT_TYPE}', Connection: close and closed",
        f"status {st}, Content-Type {hd.get('content-type')!r}, Connection {hd.get('connection')!r}, {how}; "
        f"head {short(raw.partition(HEAD_END)[0], 300)}")
    if "content-length" in hd:
        say(hd["content-length"] == str(len(body)), "GET /metrics: Content-Length is the body's length",
            f"Content-Length {hd['content-length']}, body {len(body)} bytes")
    try:
        fams = expo.parse(body)
        say(len(fams) > 0, f"GET /metrics: the body is a strictly valid exposition ({len(fams)} families)")
    except expo.ExpoError as e:
        say(False, "GET /metrics: the body is a strictly valid exposition", str(e))

    sent = request("GET", "/metrics", version="1.0")
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 200 and raw.startswith(b"HTTP/1.") and hd.get("content-type") == CONTENT_TYPE
        and how in ("closed", "reset") and body.startswith(b"#"),
        "GET /metrics HTTP/1.0 (no Host): 200 with the exposition, closed",
        f"sent {sent!r}, got {short(raw)} ({how})")

    sent = request("HEAD", "/metrics")
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 200 and body == b"" and hd.get("content-type") == CONTENT_TYPE and closes(how, hd),
        "HEAD /metrics: 200, the GET's Content-Type, no body",
        f"sent {sent!r}, got {short(raw)} ({how})")

    sent = request("GET", "/")
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 200 and b"/metrics" in body and b"/healthz" in body and closes(how, hd),
        "GET /: 200, a line naming /metrics and /healthz (docs/metrics.md)", f"got {short(raw)} ({how})")

    for path in ("/metricsx", "/metrics/x", "/healthz/", "/favicon.ico"):
        sent = request("GET", path)
        st, hd, body, how, raw = exchange(h, p, sent)
        say(st == 404 and closes(how, hd), f"GET {path}: 404", f"sent {sent!r}, got {short(raw)} ({how})")

    for method in ("POST", "PUT", "DELETE"):
        sent = request(method, "/metrics", extra="Content-Length: 0\r\n")
        st, hd, body, how, raw = exchange(h, p, sent)
        allow = {m.strip() for m in hd.get("allow", "").split(",")}
        say(st == 405 and {"GET", "HEAD"} <= allow and closes(how, hd),
            f"{method} /metrics: 405 with Allow: GET, HEAD", f"sent {sent!r}, got {short(raw)} ({how})")

    # The head limit: 8192 bytes.  Just under it is a request like any other.
    pad = "X-Pad: " + "a" * (8100 - len(request("GET", "/metrics"))) + "\r\n"
    sent = request("GET", "/metrics", extra=pad)
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 200 and len(sent) <= 8192, f"a {len(sent)}-byte request head (<= 8192): 200",
        f"got {short(raw)} ({how})")
    pad = "X-Pad: " + "a" * 9000 + "\r\n"
    sent = request("GET", "/metrics", extra=pad)
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 431 and how in ("closed", "reset"), f"a {len(sent)}-byte request head: 431 and closed",
        f"got {short(raw)} ({how})")
    # ... and one that never ends its head: 8200 bytes of header lines, no blank line.
    sent = b"GET /metrics HTTP/1.1\r\n" + b"X-Pad: " + b"b" * 8200
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 431 and how in ("closed", "reset"), "8.2 KB of head without its end: 431 and closed (not the idle timeout)",
        f"got {short(raw)} ({how})")

    for sent, what in ((b"HELLO\r\n\r\n", "a one-word request line"),
                       (b"GET /metrics\r\n\r\n", "a request line without the HTTP version"),
                       (b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n", "HTTP/9.9"),
                       (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(32) + b"\r\n\r\n",
                        "a TLS ClientHello (an https scrape)"),
                       (b"GET /metrics HTTP/1.1\x00\r\n\r\n", "a NUL in the request line")):
        st, hd, body, how, raw = exchange(h, p, sent)
        ok = st == 400 and how in ("closed", "reset")
        if what == "HTTP/9.9":  # 505 is as right as 400 for an unknown major version
            ok = st in (400, 505) and how in ("closed", "reset")
        say(ok, f"{what}: {'400 or 505' if what == 'HTTP/9.9' else '400'} and closed",
            f"sent {short(sent, 60)}, got {short(raw)} ({how})")

    # A request that arrives in pieces (complete well within the idle timeout) is answered.
    parts = [b"GET /met", b"rics HTTP/1.1\r\nHo", b"st: castscope\r\n", b"\r\n"]
    st, hd, body, how, raw = exchange(h, p, parts, pause=0.3)
    say(st == 200 and body.startswith(b"#"), "a request sent in 4 pieces 0.3 s apart: 200 with the exposition",
        f"got {short(raw)} ({how})")

    # Two requests on one connection: the first is answered, then the connection is closed.
    sent = request("GET", "/healthz") + request("GET", "/healthz")
    st, hd, body, how, raw = exchange(h, p, sent)
    say(st == 200 and raw.count(b"HTTP/1.") == 1 and how in ("closed", "reset"),
        "two pipelined requests: one response (ok), then closed", f"got {short(raw)} ({how})")

    bad = []
    for sent, st, hd, body in RESPONSES:
        head = sent.startswith(b"HEAD ")
        if hd.get("connection", "").lower() != "close" or "content-length" not in hd or \
                (not head and hd["content-length"] != str(len(body))):
            bad.append(f"{short(sent, 30)} -> {st} Connection {hd.get('connection')!r} "
                       f"Content-Length {hd.get('content-length')!r}, body {len(body)} bytes")
    say(not bad, f"every one of those {len(RESPONSES)} responses has Connection: close and a right Content-Length",
        "; ".join(bad[:4]))


def flood(a):
    """a.n idle connections at once: MAX_CONNECTIONS stay, the rest are closed at once (503 or
    nothing); a new scrape while they are held is refused the same way; once they are gone the
    server answers again."""
    conns, refused = [], 0
    for _ in range(a.n):
        try:
            conns.append(connect(a.host, a.port))
        except OSError:
            refused += 1
    time.sleep(1.0)
    closed, bad503, empty = [], [], 0
    for s in conns:
        s.setblocking(False)
        try:
            data = s.recv(65536)
        except BlockingIOError:
            continue  # still open, nothing sent
        except ConnectionResetError:
            data = b""
        closed.append(s)
        if not data:
            empty += 1
        else:
            try:
                st, hd, _ = expo.split_response(data)
                if st != 503:
                    bad503.append(f"status {st}")
            except expo.ExpoError as e:
                bad503.append(str(e))
    held = len(conns) - len(closed)
    extra = a.n - MAX_CONNECTIONS
    say(held <= MAX_CONNECTIONS and len(closed) + refused >= extra and not bad503 and not empty,
        f"{a.n} idle connections at once: at most {MAX_CONNECTIONS} kept, the others answered 503 and closed within 1 s",
        f"{held} still open, {len(closed)} closed ({empty} without a response), {refused} refused at connect; "
        f"other than 503: {bad503}")
    # One more while they are held: refused the same way, and the server must not hang.
    t0 = time.monotonic()
    try:
        st, hd, body, how, raw = exchange(a.host, a.port, request("GET", "/metrics"))
        what = f"status {st} ({how}) after {time.monotonic() - t0:.2f} s"
        good = (st == 503 or (st is None and how in ("closed", "reset"))) and time.monotonic() - t0 < 2
        if held < MAX_CONNECTIONS:  # someone else's connection went meanwhile: a 200 is right then
            good = good or st == 200
    except OSError as e:
        what, good = f"connect error {e}", False
    say(good, f"a scrape while {held} idle connections are held: 503 (or closed) at once", what)
    for s in conns:
        s.close()
    time.sleep(0.3)
    try:
        st, hd, body, how, raw = exchange(a.host, a.port, request("GET", "/metrics"))
        expo.parse(body)
        say(st == 200, "after the idle connections went: a scrape is answered (200, valid exposition)",
            f"status {st}")
    except (OSError, expo.ExpoError) as e:
        say(False, "after the idle connections went: a scrape is answered", str(e))


def slowloris(a):
    """An idle connection and one that trickles an endless head (a byte a second): both must be
    closed by the server 8-15 s after they opened (the 10 s timeout)."""
    results = {}

    def idle():
        t0 = time.monotonic()
        with connect(a.host, a.port) as s:
            data, how = read_all(s, limit=25)
        results["idle"] = (time.monotonic() - t0, how, data)

    def trickle():
        t0 = time.monotonic()
        with connect(a.host, a.port) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: castscope\r\nX-Slow: ")
            how, data = "timeout", b""
            while time.monotonic() - t0 < 25:
                try:
                    s.sendall(b"a")
                except (BrokenPipeError, ConnectionResetError):
                    how = "reset"
                    break
                s.settimeout(1.0)
                try:
                    chunk = s.recv(65536)
                    if not chunk:
                        how = "closed"
                        break
                    data += chunk
                except socket.timeout:
                    continue
                except ConnectionResetError:
                    how = "reset"
                    break
        results["trickle"] = (time.monotonic() - t0, how, data)

    threads = [threading.Thread(target=f) for f in (idle, trickle)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, what in (("idle", "a connection that sends nothing"),
                       ("trickle", "a connection that sends its head a byte a second, never ending it")):
        took, how, data = results[name]
        good = how in ("closed", "reset") and IDLE_TIMEOUT - 2 <= took <= IDLE_TIMEOUT + 5
        try:
            status = expo.split_response(data)[0] if data else None
        except expo.ExpoError:
            status = "garbage"
        # docs/metrics.md: 408 when it had not finished its request (the trickling one must get it)
        good = good and status in ((None, 408) if name == "idle" else (408,))
        say(good, f"{what}: closed by the server after {took:.1f} s (want 8-15 s, the 10 s timeout), "
            f"{'with a 408' if status == 408 else 'without a response'}",
            f"{how}, received {short(data)}")


def healthz(a):
    try:
        st, hd, body, how, raw = exchange(a.host, a.port, request("GET", "/healthz"))
        outcome = f"status {st}, body {body!r}"
    except ConnectionRefusedError:
        st, outcome = None, "connection refused"
    except OSError as e:
        st, outcome = None, f"error {e}"
    where = f"[{a.host}]:{a.port}" if ":" in a.host else f"{a.host}:{a.port}"
    if a.expect_refused:
        say(outcome == "connection refused", f"{a.label}: nothing listens on {where}", outcome)
    else:
        say(st == 200 and body == b"ok\n", f"{a.label}: GET /healthz on {where}: 200 ok", outcome)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["basic", "flood", "slowloris", "healthz"])
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--label", default="metrics")
    p.add_argument("--expect-refused", action="store_true")
    a = p.parse_args()
    {"basic": basic, "flood": flood, "slowloris": slowloris, "healthz": healthz}[a.what](a)


if __name__ == "__main__":
    main()
