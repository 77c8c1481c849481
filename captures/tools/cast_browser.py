#!/usr/bin/env python3
"""Cast sender stand-in: browse `_googlecast._tcp` with python-zeroconf.

Starts one ServiceBrowser for all given types (so python-zeroconf puts the
questions in the same query packet), resolves every instance it sees
(SRV/TXT/A/AAAA) and prints a log line for every add/update/remove.  Runs for
--duration seconds, then closes cleanly.

stdlib + zeroconf only.
"""
import argparse
import socket
import sys
import threading
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf

T0 = time.time()


def log(msg):
    print(f"{time.time():.6f} (+{time.time() - T0:6.3f}s) browser: {msg}", flush=True)


class Listener(ServiceListener):
    def __init__(self):
        self.lock = threading.Lock()

    def _resolve(self, zc, type_, name, what):
        info = zc.get_service_info(type_, name, timeout=3000)
        if info is None:
            log(f"{what} {type_} {name}: NOT RESOLVED")
            return
        txt = " ".join(
            f"{k.decode()}={'' if v is None else v.decode(errors='replace')}"
            for k, v in info.properties.items()
        )
        if len(txt) > 300:
            txt = txt[:300] + f"... ({len(info.text)} bytes)"
        log(
            f"{what} {type_} {name} -> {info.server}:{info.port} "
            f"addrs={info.parsed_scoped_addresses()} txt=[{txt}]"
        )

    def add_service(self, zc, type_, name):
        log(f"add {type_} {name}")
        self._resolve(zc, type_, name, "resolved")

    def update_service(self, zc, type_, name):
        log(f"update {type_} {name}")

    def remove_service(self, zc, type_, name):
        log(f"remove {type_} {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--type", action="append", default=[], help="service type (repeatable)")
    ap.add_argument("--ip", action="append", default=[], help="IPv4 interface address")
    ap.add_argument("--ifname", default="eth0", help="interface for IPv6")
    ap.add_argument("--ip-version", choices=["v4", "v6", "all"], default="v4")
    ap.add_argument("--duration", type=float, default=8.0)
    args = ap.parse_args()
    types = args.type or ["_googlecast._tcp.local."]

    ipv = {"v4": IPVersion.V4Only, "v6": IPVersion.V6Only, "all": IPVersion.All}[args.ip_version]
    interfaces = []
    if ipv != IPVersion.V6Only:
        interfaces += args.ip
    if ipv != IPVersion.V4Only:
        interfaces.append(socket.if_nametoindex(args.ifname))

    zc = Zeroconf(interfaces=interfaces, ip_version=ipv)
    log(f"browsing {types} on {interfaces} ({args.ip_version})")
    browser = ServiceBrowser(zc, types, listener=Listener())
    time.sleep(args.duration)
    browser.cancel()
    zc.close()
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
