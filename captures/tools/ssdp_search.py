#!/usr/bin/env python3
"""Chrome-like DIAL discovery over SSDP (CastScope test captures).

Like Chrome's DialServiceImpl: one UDP socket on a random (ephemeral) port,
4 M-SEARCH for urn:dial-multiscreen-org:service:dial:1 sent 1 s apart to
239.255.255.250:1900 with MX: 1, then collect responses for 2 s after the
last one.  For each distinct LOCATION it then does the DIAL follow-up
(HTTP GET of the device description, read the Application-URL header),
unless --no-fetch is given.

stdlib only.
"""
import argparse
import http.client
import select
import socket
import sys
import time
import urllib.parse

ST = "urn:dial-multiscreen-org:service:dial:1"


def log(msg):
    print(f"{time.time():.6f} ssdp-search: {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ip", required=True, help="local IPv4 address")
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--wait", type=float, default=2.0, help="seconds to wait after the last M-SEARCH")
    ap.add_argument("--no-fetch", action="store_true")
    args = ap.parse_args()

    msg = (
        "M-SEARCH * HTTP/1.1\r\n"
        "HOST: 239.255.255.250:1900\r\n"
        'MAN: "ssdp:discover"\r\n'
        "MX: 1\r\n"
        f"ST: {ST}\r\n"
        "USER-AGENT: Google Chrome/120.0.0.0 Linux\r\n"
        "\r\n"
    ).encode()

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.ip, 0))  # random port, as Chrome does
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    port = s.getsockname()[1]

    locations = {}
    next_send = time.time()
    sent = 0
    end = None
    while True:
        now = time.time()
        if sent < args.count and now >= next_send:
            s.sendto(msg, ("239.255.255.250", 1900))
            sent += 1
            log(f"M-SEARCH #{sent} from {args.ip}:{port}")
            next_send = now + args.interval
            if sent == args.count:
                end = now + args.wait
        deadline = next_send if sent < args.count else end
        r, _, _ = select.select([s], [], [], max(0.0, deadline - time.time()))
        if r:
            data, src = s.recvfrom(4096)
            hdrs = {}
            lines = data.decode(errors="replace").split("\r\n")
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    hdrs[k.strip().upper()] = v.strip()
            log(f"{lines[0]!r} from {src[0]}:{src[1]} LOCATION={hdrs.get('LOCATION')} USN={hdrs.get('USN')}")
            if "LOCATION" in hdrs:
                locations[hdrs["LOCATION"]] = hdrs.get("USN")
        elif sent >= args.count and time.time() >= end:
            break

    if not args.no_fetch:
        for loc in locations:
            u = urllib.parse.urlsplit(loc)
            try:
                c = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=3, source_address=(args.ip, 0))
                c.request("GET", u.path, headers={"Accept": "*/*"})
                resp = c.getresponse()
                body = resp.read()
                log(f"GET {loc} -> {resp.status} Application-URL={resp.getheader('Application-URL')} ({len(body)} bytes)")
                c.close()
            except OSError as e:
                log(f"GET {loc} failed: {e}")
    log(f"done, {len(locations)} device(s)")
    return 0 if locations else 1


if __name__ == "__main__":
    sys.exit(main())
