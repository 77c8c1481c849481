#!/usr/bin/env python3
"""A TLS listener standing in for a Cast receiver's port 8009 (CastScope captures).

  tls_listener.py --ip 192.0.2.21 --cert CERT.pem --key KEY.pem [--port 8009]

Listens on --ip:--port (TCP; an IPv6 --ip such as 2001:db8::21 listens over
IPv6, IPv6 only).  For every connection it completes a TLS
handshake (server side, `ssl` defaults: TLS 1.2 or 1.3, whatever the client
offers), logs the version and cipher, then reads until the client closes
(TLS close_notify or TCP FIN), answers a close_notify with its own, and
closes its side (FIN).  It never sends application data.  It runs until
SIGINT/SIGTERM.

The certificate is self-signed and made at generation time by generate.sh
(`openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=<uuid> -days 2`) in
its temporary work directory; no key is ever stored in the repository.

stdlib only.
"""
import argparse
import signal
import socket
import ssl
import sys
import threading
import time


def log(msg):
    print(f"{time.time():.6f} tls-listener: {msg}", flush=True)


def serve(conn, peer, ctx):
    conn.settimeout(10)
    t = time.monotonic()
    try:
        tls = ctx.wrap_socket(conn, server_side=True)
    except (ssl.SSLError, OSError) as e:
        log(f"{peer[0]}:{peer[1]}: handshake failed: {e}")
        conn.close()
        return
    log(f"{peer[0]}:{peer[1]}: handshake done in {1000 * (time.monotonic() - t):.2f} ms, "
        f"{tls.version()} {tls.cipher()[0]}")
    total = 0
    try:
        while True:
            data = tls.recv(4096)
            if not data:
                break
            total += len(data)
        log(f"{peer[0]}:{peer[1]}: client closed after {total} bytes")
        try:
            tls = tls.unwrap()  # our close_notify
        except (ssl.SSLError, OSError) as e:
            log(f"{peer[0]}:{peer[1]}: close_notify: {e}")
    except (ssl.SSLError, OSError) as e:
        log(f"{peer[0]}:{peer[1]}: read: {e}")
    try:
        tls.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    tls.close()
    log(f"{peer[0]}:{peer[1]}: closed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True, help="address to listen on")
    ap.add_argument("--port", type=int, default=8009)
    ap.add_argument("--cert", required=True, help="PEM certificate")
    ap.add_argument("--key", required=True, help="PEM private key")
    args = ap.parse_args()

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    family = socket.AF_INET6 if ":" in args.ip else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((args.ip, args.port))
    s.listen(4)
    s.settimeout(0.2)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    log(f"ready on {args.ip}:{args.port} (TCP, TLS)")
    workers = []
    while not stop.is_set():
        try:
            conn, peer = s.accept()
        except socket.timeout:
            continue
        except OSError:
            break
        log(f"accepted {peer[0]}:{peer[1]}")
        w = threading.Thread(target=serve, args=(conn, peer, ctx), daemon=True)
        w.start()
        workers.append(w)
    s.close()
    for w in workers:
        w.join(2)
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
