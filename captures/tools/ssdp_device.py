#!/usr/bin/env python3
"""Chromecast-like SSDP/DIAL responder (CastScope test captures).

* Sends NOTIFY ssdp:alive (upnp:rootdevice, uuid:<udn>, DIAL device and
  service types) to 239.255.255.250:1900 at start-up, from an ephemeral port.
* Listens on UDP 1900 (joined to 239.255.255.250 on --ip) and answers an
  M-SEARCH whose ST is the DIAL service/device type, upnp:rootdevice or
  ssdp:all with a UNICAST "HTTP/1.1 200 OK" sent from a fresh socket bound
  to an EPHEMERAL port (not 1900) to the searcher's address and port, after
  a delay drawn (seeded RNG, so deterministic) from [0, MX) seconds.
  The header set and order imitate a real Chromecast (libupnp 1.6.18).
* Serves http://<ip>:8008/ssdp/device-desc.xml with an Application-URL
  header, as a Chromecast does.
* On SIGINT/SIGTERM sends NOTIFY ssdp:byebye and exits.

--style roku imitates a Roku's DIAL server instead (ndpi/anyconnect-vpn.pcap
frame 411): answers only the DIAL service type, from port 1900 (not an
ephemeral port), with Roku's header set and order, LOCATION
http://<ip>:8060/dial/dd.xml, and sends no NOTIFY and serves no HTTP.

stdlib only.
"""
import argparse
import email.utils
import http.server
import random
import signal
import socket
import struct
import sys
import threading
import time

GROUP = "239.255.255.250"
DIAL_SERVICE = "urn:dial-multiscreen-org:service:dial:1"
DIAL_DEVICE = "urn:dial-multiscreen-org:device:dial:1"
SERVER = "Linux/3.8.13+, UPnP/1.0, Portable SDK for UPnP devices/1.6.18"
ROKU_SERVER = "Roku UPnP/1.0 Roku/9.1.0"

DESC = """<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
  <specVersion>
    <major>1</major>
    <minor>0</minor>
  </specVersion>
  <URLBase>http://{ip}:8008</URLBase>
  <device>
    <deviceType>urn:dial-multiscreen-org:device:dial:1</deviceType>
    <friendlyName>{name}</friendlyName>
    <manufacturer>Google Inc.</manufacturer>
    <modelName>Eureka Dongle</modelName>
    <UDN>uuid:{uuid}</UDN>
    <iconList>
      <icon>
        <mimetype>image/png</mimetype>
        <width>98</width>
        <height>55</height>
        <depth>32</depth>
        <url>/setup/icon.png</url>
      </icon>
    </iconList>
    <serviceList>
      <service>
        <serviceType>urn:dial-multiscreen-org:service:dial:1</serviceType>
        <serviceId>urn:dial-multiscreen-org:serviceId:dial</serviceId>
        <controlURL>/ssdp/notfound</controlURL>
        <eventSubURL>/ssdp/notfound</eventSubURL>
        <SCPDURL>/ssdp/notfound</SCPDURL>
      </service>
    </serviceList>
  </device>
</root>
"""


def log(msg):
    print(f"{time.time():.6f} ssdp-device: {msg}", flush=True)


class Device:
    def __init__(self, args):
        self.ip = args.ip
        self.uuid = args.uuid
        self.name = args.name
        self.bootid = args.bootid
        self.nls = args.nls
        self.configid = args.configid
        self.rng = random.Random(args.seed)
        self.roku = args.style == "roku"
        self.mac = args.mac
        if self.roku:
            self.location = f"http://{self.ip}:8060/dial/dd.xml"
        else:
            self.location = f"http://{self.ip}:8008/ssdp/device-desc.xml"
        self.socket1900 = None

    def usn(self, st):
        if st == f"uuid:{self.uuid}":
            return st
        return f"uuid:{self.uuid}::{st}"

    def roku_response(self, st):
        return (
            "HTTP/1.1 200 OK\r\n"
            "Cache-Control: max-age=3600\r\n"
            f"ST: {st}\r\n"
            f"USN: {self.usn(st)}\r\n"
            "Ext: \r\n"
            f"Server: {ROKU_SERVER}\r\n"
            f"LOCATION: {self.location}\r\n"
            f"WAKEUP: MAC={self.mac};Timeout=10\r\n"
            "\r\n"
        ).encode()

    def response(self, st):
        if self.roku:
            return self.roku_response(st)
        date = email.utils.formatdate(usegmt=True)
        return (
            "HTTP/1.1 200 OK\r\n"
            "CACHE-CONTROL: max-age=1800\r\n"
            f"DATE: {date}\r\n"
            "EXT:\r\n"
            f"LOCATION: {self.location}\r\n"
            'OPT: "http://schemas.upnp.org/upnp/1/0/"; ns=01\r\n'
            f"01-NLS: {self.nls}\r\n"
            f"SERVER: {SERVER}\r\n"
            "X-User-Agent: redsonic\r\n"
            f"ST: {st}\r\n"
            f"USN: {self.usn(st)}\r\n"
            f"BOOTID.UPNP.ORG: {self.bootid}\r\n"
            f"CONFIGID.UPNP.ORG: {self.configid}\r\n"
            "\r\n"
        ).encode()

    def notify(self, nt, nts):
        lines = [
            "NOTIFY * HTTP/1.1",
            f"HOST: {GROUP}:1900",
        ]
        if nts == "ssdp:alive":
            lines += ["CACHE-CONTROL: max-age=1800", f"LOCATION: {self.location}"]
        lines += [
            f"NT: {nt}",
            f"NTS: {nts}",
            'OPT: "http://schemas.upnp.org/upnp/1/0/"; ns=01',
            f"01-NLS: {self.nls}",
            f"SERVER: {SERVER}",
            "X-User-Agent: redsonic",
            f"USN: {self.usn(nt)}",
            f"BOOTID.UPNP.ORG: {self.bootid}",
            f"CONFIGID.UPNP.ORG: {self.configid}",
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    def send_notifies(self, nts):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((self.ip, 0))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(self.ip))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
        for nt in ("upnp:rootdevice", f"uuid:{self.uuid}", DIAL_DEVICE, DIAL_SERVICE):
            s.sendto(self.notify(nt, nts), (GROUP, 1900))
        log(f"NOTIFY {nts} x4 from port {s.getsockname()[1]}")
        s.close()

    def answer(self, data, src):
        text = data.decode(errors="replace")
        if not text.startswith("M-SEARCH"):
            return
        hdrs = {}
        for line in text.split("\r\n")[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                hdrs[k.strip().upper()] = v.strip()
        st = hdrs.get("ST", "")
        try:
            mx = max(1, min(5, int(hdrs.get("MX", "1"))))
        except ValueError:
            mx = 1
        if self.roku:
            if st != DIAL_SERVICE:
                log(f"ignoring M-SEARCH ST={st!r} from {src}")
                return
            sts = [st]
        elif st == "ssdp:all":
            sts = ["upnp:rootdevice", f"uuid:{self.uuid}", DIAL_DEVICE, DIAL_SERVICE]
        elif st in ("upnp:rootdevice", DIAL_DEVICE, DIAL_SERVICE, f"uuid:{self.uuid}"):
            sts = [st]
        else:
            log(f"ignoring M-SEARCH ST={st!r} from {src}")
            return
        delay = self.rng.uniform(0.05, mx * 0.5)

        def send():
            time.sleep(delay)
            if self.roku:
                # A Roku answers from its SSDP socket, port 1900.
                for one in sts:
                    self.socket1900.sendto(self.response(one), src)
                log(f"200 OK ST={sts} to {src[0]}:{src[1]} from port 1900 after {delay:.3f}s")
                return
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((self.ip, 0))  # ephemeral source port, like libupnp
            for one in sts:
                s.sendto(self.response(one), src)
            log(f"200 OK ST={sts} to {src[0]}:{src[1]} from port {s.getsockname()[1]} after {delay:.3f}s")
            s.close()

        threading.Thread(target=send, daemon=True).start()


class Http(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "Chromecast"
    sys_version = ""
    device = None

    def do_GET(self):
        if self.path != "/ssdp/device-desc.xml":
            self.send_error(404)
            return
        body = DESC.format(ip=self.device.ip, name=self.device.name, uuid=self.device.uuid).encode()
        self.send_response(200)
        self.send_header("Access-Control-Allow-Headers", "Content-Type")
        self.send_header("Access-Control-Expose-Headers", "Location")
        self.send_header("Application-URL", f"http://{self.device.ip}:8008/apps")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", "application/xml")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *a):
        log("http " + fmt % a)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip", required=True)
    ap.add_argument("--uuid", required=True, help="UDN without 'uuid:' (dashed UUID)")
    ap.add_argument("--name", default="Living Room TV")
    ap.add_argument("--bootid", type=int, default=1)
    ap.add_argument("--nls", default="6b8bf7a2-1dd2-11b2-a5c4-d2b3f1c0e9a7", help="01-NLS value (libupnp style time UUID)")
    ap.add_argument("--configid", type=int, default=1)
    ap.add_argument("--seed", type=int, default=8008)
    ap.add_argument("--no-http", action="store_true")
    ap.add_argument("--style", choices=["chromecast", "roku"], default="chromecast")
    ap.add_argument("--mac", default="02:ca:57:00:00:00", help="MAC for Roku's WAKEUP header")
    args = ap.parse_args()
    dev = Device(args)

    if not args.no_http and not dev.roku:
        Http.device = dev
        httpd = http.server.ThreadingHTTPServer((args.ip, 8008), Http)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 1900))
    mreq = struct.pack("4s4s", socket.inet_aton(GROUP), socket.inet_aton(args.ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    s.settimeout(0.2)
    dev.socket1900 = s

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    log(f"listening on {GROUP}:1900 via {args.ip}")
    if not dev.roku:
        dev.send_notifies("ssdp:alive")
    while not stop.is_set():
        try:
            data, src = s.recvfrom(4096)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        if src[0] == args.ip:
            continue
        dev.answer(data, src)
    if not dev.roku:
        dev.send_notifies("ssdp:byebye")
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
