#!/usr/bin/env python3
"""Cast-like mDNS responder built on python-zeroconf (CastScope test captures).

Publishes the `_googlecast._tcp.local.` services described in a JSON spec
file (see tools/zc/*.json) on the given addresses, then runs until SIGINT /
SIGTERM or --duration seconds.  On exit the services are unregistered, so
python-zeroconf multicasts goodbye records (TTL 0).

Spec format:
  {
    "host": "<uuid-with-dashes>.local.",          # SRV target / A / AAAA owner
    "services": [
      {"instance": "Google-Home-Mini-<32hex>",
       "type": "_googlecast._tcp.local.",
       "port": 8009,
       "subtypes": ["_CC1AD845._sub._googlecast._tcp.local."],   # optional
       "txt": [["id", "..."], ["cd", "..."], ...],                # ordered
       "txt_filler": {"count": 40, "value_len": 80}              # optional
      }
    ]
  }

Subtypes: python-zeroconf cannot register one instance under two types, so a
subtype is served by adding a second ServiceInfo (type_=subtype) to the
registry's type index only.  It answers subtype PTR queries correctly
(`<sub>._sub._googlecast._tcp.local PTR <instance>`), but it is not part of
the unsolicited announcements.

stdlib + zeroconf only.
"""
import argparse
import json
import signal
import socket
import sys
import threading
import time

from zeroconf import IPVersion, ServiceInfo, Zeroconf


def log(msg):
    print(f"{time.time():.6f} responder: {msg}", flush=True)


def build_txt(svc):
    props = {}
    for key, value in svc.get("txt", []):
        props[key] = value
    filler = svc.get("txt_filler")
    if filler:
        # Deterministic filler keys to make the TXT record large
        # (each string < 255 bytes as RFC 6763 requires).
        alphabet = "0123456789ABCDEF"
        for i in range(filler["count"]):
            val = "".join(alphabet[(i * 7 + j) % 16] for j in range(filler["value_len"]))
            props[f"x{i:02d}"] = val
    return props


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", required=True, help="JSON service spec")
    ap.add_argument("--ip", action="append", default=[], help="IPv4 address to publish and listen on (repeatable)")
    ap.add_argument("--ip6", action="append", default=[], help="IPv6 address to publish (repeatable)")
    ap.add_argument("--ifname", default="eth0", help="interface for IPv6 multicast")
    ap.add_argument("--ip-version", choices=["v4", "v6", "all"], default="v4")
    ap.add_argument("--duration", type=float, default=0, help="seconds to run (0 = until SIGINT/SIGTERM)")
    ap.add_argument("--host-ttl", type=int, default=None,
                    help="TTL of SRV/A/AAAA/NSEC (python-zeroconf default 120)")
    ap.add_argument("--other-ttl", type=int, default=None,
                    help="TTL of PTR/TXT (python-zeroconf default 4500)")
    args = ap.parse_args()

    with open(args.spec) as f:
        spec = json.load(f)

    ipv = {"v4": IPVersion.V4Only, "v6": IPVersion.V6Only, "all": IPVersion.All}[args.ip_version]
    interfaces = []
    if ipv != IPVersion.V6Only:
        interfaces += args.ip
    if ipv != IPVersion.V4Only:
        interfaces.append(socket.if_nametoindex(args.ifname))
    addrs = []
    if ipv != IPVersion.V6Only:
        addrs += args.ip
    if ipv != IPVersion.V4Only:
        addrs += args.ip6

    ttls = {}
    if args.host_ttl is not None:
        ttls["host_ttl"] = args.host_ttl
    if args.other_ttl is not None:
        ttls["other_ttl"] = args.other_ttl

    zc = Zeroconf(interfaces=interfaces, ip_version=ipv)
    infos = []
    for svc in spec["services"]:
        name = f"{svc['instance']}.{svc['type']}"
        props = build_txt(svc)
        info = ServiceInfo(
            svc["type"],
            name,
            port=svc["port"],
            properties=props,
            server=spec["host"],
            parsed_addresses=addrs,
            **ttls,
        )
        zc.register_service(info)
        infos.append(info)
        txt_len = len(info.text)
        log(f"registered {name} port={svc['port']} server={spec['host']} addrs={addrs} txt_bytes={txt_len}"
            + (f" ttls={ttls}" if ttls else ""))
        for sub in svc.get("subtypes", []):
            sub_info = ServiceInfo(
                sub,
                name,
                port=svc["port"],
                properties=props,
                server=spec["host"],
                parsed_addresses=addrs,
                **ttls,
            )
            # See module docstring: index by subtype only.
            zc.registry.types.setdefault(sub.lower(), {})[sub_info.key] = sub_info
            log(f"subtype {sub} -> {name}")

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    log("ready")
    stop.wait(args.duration if args.duration > 0 else None)

    log("unregistering (goodbye)")
    for sub_types in list(zc.registry.types):
        if "._sub." in sub_types:
            del zc.registry.types[sub_types]
    zc.unregister_all_services()
    zc.close()
    log("closed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
