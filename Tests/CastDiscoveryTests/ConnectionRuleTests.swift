import Foundation
import PcapCapture
import Testing
import WireFormat

@testable import CastDiscovery

// The connection phase (issue 15) on real captures made in namespaces (captures/connect-*.pcap:
// avahi as the device, a python-zeroconf browser that then connects as a Cast sender does, and a
// TLS listener, no listener, an nft drop rule or an nft reject rule on the device's port 8009).
// Expected frames were read with tshark: `tshark -r F -Y 'tcp or icmp' -d tcp.port==8009,tls`.

private typealias S = DiagnosisSupport

@Suite("Connection phase")
struct ConnectionRuleTests {
    static let tv = "3f5d6b2a8c914e07b2d46a1f0c9e7d35"

    @Test("connect-established.pcap: established, TLS timed, no finding")
    func established() throws {
        let r = try S.report("connect-established.pcap")
        #expect(S.codes(r, [.error, .warning]) == [])
        #expect(r.connectionPhaseSeen)
        let c = try #require(r.connections.first)
        #expect(r.connections.count == 1)
        #expect(c.client.description == "192.0.2.10" && c.deviceID == Self.tv)
        #expect(c.address.description == "192.0.2.21" && c.port == 8009)
        #expect(c.outcome == .established && c.attempts == 1 && c.syns == 1)
        #expect(c.firstAttempt?.frame.frame == 6 && c.answer?.frame.frame == 7)
        #expect(c.clientHello?.frame.frame == 9 && c.serverHello?.frame.frame == 11)
        #expect(c.closed?.frame.frame == 17)
        let connect = try #require(c.connectMs)
        let tls = try #require(c.tlsMs)
        #expect(connect > 0 && connect < 100 && tls > 0 && tls < 1000)
        // The client resolved the device before it connected.
        let fromDiscovery = try #require(c.fromDiscoveryMs)
        #expect(fromDiscovery >= 0 && fromDiscovery < 1000)
        #expect(!c.tlsStalled)
    }

    @Test(
        "each failure gives its code, with the SYNs and the answer as evidence",
        arguments: [
            ("connect-refused.pcap", "CONNECT_REFUSED", ConnectionOutcome.refused, [6, 7]),
            ("connect-timeout.pcap", "CONNECT_TIMEOUT", .timeout, [6, 9, 10, 11, 12]),
            ("connect-unreachable.pcap", "CONNECT_UNREACHABLE", .unreachable, [6, 7]),
        ])
    func failures(name: String, code: String, outcome: ConnectionOutcome, frames: [Int]) throws {
        let r = try S.report(name)
        #expect(S.codes(r, [.error, .warning]) == [code])
        let f = try #require(r.findings.first { $0.code.rawValue == code })
        #expect(f.severity == .error)
        #expect(f.frames.map(\.frame) == frames)
        #expect(f.subjects.devices == [Self.tv] && f.subjects.clients == ["192.0.2.10"])
        #expect(r.connections.map(\.outcome) == [outcome])
        // Found, but not usable: not a discovery failure.
        #expect(Verdict(r.findings).headline.hasPrefix("Found, but could not connect: 1 error"))
        if outcome == .unreachable { #expect(r.connections[0].unreachableReason == "port unreachable") }
    }

    @Test("connect-wrong-address.pcap: the advertised address is behind a router that cannot reach it")
    func wrongAddress() throws {
        let r = try S.report("connect-wrong-address.pcap")
        // The A record says 198.51.100.7, answered from 192.0.2.21: CROSS_SUBNET reads that as
        // another subnet; the router's ICMP host unreachable says nothing is there.
        #expect(S.codes(r, [.error]) == ["CONNECT_UNREACHABLE"])
        #expect(S.codes(r, [.warning]) == ["CROSS_SUBNET"])
        let f = try #require(r.findings.first { $0.code == .connectUnreachable })
        // tshark: the SYN in frame 6 (retransmitted in 9, 10, 11), ICMP type 3 code 1 from
        // 192.0.2.1 in frame 12 quoting it.
        #expect(f.frames.map(\.frame) == [6, 12])
        #expect(r.connections.first?.unreachableReason == "host unreachable")
        #expect(r.connections.first?.address.description == "198.51.100.7")
        #expect(f.advice.hasPrefix("Nothing answers at the advertised address"))
    }

    @Test("separate captures keep their own rows: one capture's success does not hide another's timeout")
    func separateCaptures() throws {
        let r = try S.report("connect-established.pcap", "connect-timeout.pcap")
        #expect(r.connections.map(\.outcome) == [.established, .timeout])
        #expect(r.connections.map(\.timeline) == [0, 1])
        #expect(r.connections.map { $0.firstAttempt?.frame.capture } == [0, 1])
        let f = try #require(r.findings.first { $0.code == .connectTimeout })
        #expect(f.severity == .error)
        #expect(f.frames.allSatisfy { $0.capture == 1 })
    }

    @Test("a capture without TCP says nothing about connections")
    func discoveryOnly() throws {
        for name in ["healthy-ipv4.pcap", "multi-device.pcap", "ipv6.pcap"] {
            let r = try S.report(name)
            #expect(!r.connectionPhaseSeen, "\(name)")
            #expect(r.connections.isEmpty, "\(name)")
        }
    }

    @Test("TLS_STALLED: the ServerHello removed from connect-established.pcap")
    func tlsStalled() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: S.path("connect-established.pcap")))
        let records = S.records(data)
        var cut = data.prefix(24)
        for (i, (offset, length)) in records.enumerated() where i + 1 != 11 {
            cut += data[(data.startIndex + offset - 16)..<(data.startIndex + offset + length)]
        }
        let r = try S.report(paths: [try S.temporary(cut, name: "no-server-hello.pcap")])
        #expect(S.codes(r, [.error, .warning]) == ["TLS_STALLED"])
        let f = try #require(r.findings.first { $0.code == .tlsStalled })
        // The ClientHello, then the FIN that closed the connection (frame 17 is 16 without 11).
        #expect(f.frames.map(\.frame) == [9, 16])
    }

    @Test("an unanswered SYN is a timeout after a retransmission or 3 s, too early to tell before")
    func outcomeTiming() {
        let start = Timestamp(seconds: 100, nanoseconds: 0)
        var a = ConnectionAttempt(
            client: IPAddress("192.0.2.10")!, clientPort: 40_000, server: IPAddress("192.0.2.21")!, serverPort: 8009,
            synFrames: [FrameRef(capture: 0, frame: 1)], firstSYN: start, lastSYN: start)
        #expect(a.outcome(captureEnd: Timestamp(seconds: 101, nanoseconds: 0)) == .captureEnded)
        #expect(a.outcome(captureEnd: Timestamp(seconds: 103, nanoseconds: 0)) == .timeout)
        a.syns = 2
        #expect(a.outcome(captureEnd: Timestamp(seconds: 101, nanoseconds: 0)) == .timeout)
        a.reset = TimedFrame(time: start, frame: FrameRef(capture: 0, frame: 2))
        #expect(a.outcome(captureEnd: start) == .refused)
        a.synAck = TimedFrame(time: start, frame: FrameRef(capture: 0, frame: 2))
        #expect(a.outcome(captureEnd: start) == .established)
    }

    @Test("mdns-port-unreachable.pcap: the sender's firewall rejects the TV's unicast answers")
    func firewalledSender() throws {
        let r = try S.report("mdns-port-unreachable.pcap")
        #expect(S.codes(r, [.error, .warning]) == ["MDNS_PORT_UNREACHABLE"])
        let f = try #require(r.findings.first { $0.code == .mdnsPortUnreachable })
        // tshark: unicast answers in frames 10 and 15, each followed by an ICMP type 3 code 3
        // from 192.0.2.10 quoting it (frames 11 and 16).
        #expect(f.frames.map(\.frame) == [11, 16])
        #expect(f.subjects.clients == ["192.0.2.10"])
        // ICMP alone is not the connection phase: nothing about connections not made.
        #expect(!r.connectionPhaseSeen && r.connections.isEmpty)
        #expect(r.discoveryPortUnreachableCount == 2)
    }

    @Test("MDNS_PORT_UNREACHABLE: a host answers mDNS with ICMP port unreachable")
    func discoveryPortUnreachable() {
        let icmp = ICMPUnreachable(
            version: 4, code: 3, quotedSource: IPAddress("192.0.2.21")!, quotedDestination: IPAddress("192.0.2.10")!,
            quotedProtocol: .udp, quotedSourcePort: 5353, quotedDestinationPort: 5353)
        let packet = DiscoveryPacket(
            frame: 4, timestamp: Timestamp(seconds: 100, nanoseconds: 0), ipVersion: 4,
            source: IPAddress("192.0.2.10")!, destination: IPAddress("192.0.2.21")!, ttl: 64, sourcePort: 0,
            destinationPort: 0, payload: .icmp(icmp))
        var tracker = DiscoveryTracker()
        tracker.ingest(packet, capture: 0)
        let options = AnalysisOptions()
        var r = AnalysisReport(
            captures: [CaptureInfo(file: "icmp", linkType: "EN10MB")], timelines: [tracker.finish()], options: options,
            merged: false)
        r.findings = Diagnosis.diagnose(r)
        let f = r.findings.first { $0.code == .mdnsPortUnreachable }
        #expect(f?.severity == .warning)
        #expect(f?.frames.map(\.frame) == [4])
        #expect(f?.title == "192.0.2.10 turns mDNS away with ICMP port unreachable")
        // firewalld rejects with "administratively prohibited" (code 13): a refusal too.
        var prohibited = icmp
        prohibited.code = 13
        var t3 = DiscoveryTracker()
        var p3 = packet
        p3.payload = .icmp(prohibited)
        t3.ingest(p3, capture: 0)
        #expect(t3.finish().discoveryPortUnreachable.map(\.reason) == ["administratively prohibited"])
        // An unreachable for another UDP port is not about discovery.
        var other = icmp
        other.quotedDestinationPort = 4242
        var t2 = DiscoveryTracker()
        var p2 = packet
        p2.payload = .icmp(other)
        t2.ingest(p2, capture: 0)
        #expect(t2.finish().discoveryPortUnreachableCount == 0)
    }
}

@Suite("Connection phase: devices found and never tried")
struct NotConnectedTests {
    /// connect-established.pcap with its connection moved to another host (192.0.2.21 →
    /// 192.0.2.99 in the IP headers of frames 6–20): the capture still holds TCP, and the
    /// client resolved the TV and never connected to it.
    @Test("NOT_CONNECTED: a note, with the resolution as evidence")
    func notConnected() throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: S.path("connect-established.pcap")))
        for (i, (offset, _)) in S.records(data).enumerated() where (6...20).contains(i + 1) {
            // Ethernet (14) + IPv4 source (12) and destination (16).
            for field in [offset + 14 + 12, offset + 14 + 16]
            where data[data.startIndex + field + 3] == 21 && data[data.startIndex + field] == 192 {
                data[data.startIndex + field + 3] = 99
            }
        }
        let r = try S.report(paths: [try S.temporary(data, name: "moved-connection.pcap")])
        #expect(S.codes(r, [.error, .warning]) == [])
        let f = try #require(r.findings.first { $0.code == .notConnected })
        #expect(f.severity == .info)
        #expect(f.frames.map(\.frame) == [3])
        #expect(r.connections.map(\.outcome) == [.notAttempted])
        #expect(r.connections.first?.address.description == "192.0.2.21")
        #expect(r.connections.first?.attempts == 0)
        // A capture without the connection phase says nothing.
        let plain = try S.report("healthy-ipv4.pcap")
        #expect(!plain.findings.contains { $0.code == .notConnected })
    }
}

@Suite("Connection phase: live events")
struct ConnectionEventTests {
    /// The packets of `captures/<name>` as the decoder gives them.
    static func packets(_ name: String) throws -> [DiscoveryPacket] {
        let file = try CaptureFile(path: S.path(name))
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var packets: [DiscoveryPacket] = []
        _ = file.forEachRecord { frame, header, bytes in
            if let p = decoder.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                packets.append(p)
            }
        }
        return packets
    }

    @Test(
        "live reports each connection's outcome once, with the device",
        arguments: [
            ("connect-established.pcap", ConnectionOutcome.established, 7),
            ("connect-refused.pcap", .refused, 7),
            ("connect-unreachable.pcap", .unreachable, 7),
            ("connect-timeout.pcap", .timeout, 6),
        ])
    func events(name: String, outcome: ConnectionOutcome, frame: Int) throws {
        var options = AnalysisOptions()
        options.collectEvents = true
        var tracker = DiscoveryTracker(options: options)
        var events: [TrackerEvent] = []
        var last = Timestamp(seconds: 0, nanoseconds: 0)
        for p in try Self.packets(name) {
            tracker.advance(to: p.timestamp)
            tracker.ingest(p, capture: 0)
            events += tracker.drainEvents()
            last = p.timestamp
        }
        tracker.advance(to: Timestamp(seconds: last.seconds + 10, nanoseconds: 0))
        events += tracker.drainEvents()
        let connections = events.compactMap { e -> (ConnectionOutcome, FrameRef, DeviceSnapshot?, Double?)? in
            if case .connection(_, _, 8009, let o, _, let f, let after, let d) = e { return (o, f, d, after) }
            return nil
        }
        #expect(connections.count == 1)
        #expect(connections.first?.0 == outcome)
        #expect(connections.first?.1.frame == frame)
        #expect(connections.first?.2?.friendlyName == "Living Room TV")
        #expect((connections.first?.3 != nil) == (outcome == .established))
    }
}

@Suite("Connection phase: DIAL device descriptions")
struct DIALDescriptionTests {
    @Test("dial-ssdp.pcap: the description GET, its response reassembled from two segments, the names")
    func reassembled() throws {
        let r = try S.report("dial-ssdp.pcap")
        let d = try #require(r.devices.first { $0.dial != nil })
        let fetched = try #require(d.dial?.deviceDescription)
        // tshark -r captures/dial-ssdp.pcap -Y http: GET in frame 24, 200 OK in 26, the body in 28.
        #expect(fetched.url == "http://192.0.2.21:8008/ssdp/device-desc.xml")
        #expect(fetched.request.frame.frame == 24 && fetched.response?.frame.frame == 26)
        #expect(fetched.status == 200 && fetched.complete)
        #expect(fetched.applicationURL == "http://192.0.2.21:8008/apps")
        #expect(fetched.friendlyName == "Living Room TV" && fetched.modelName == "Eureka Dongle")
        #expect(fetched.client.description == "192.0.2.10")
    }

    @Test("a DIAL-only Cast device is named by its description (ndpi anyconnect-vpn.pcap, a real Chromecast)")
    func realChromecast() throws {
        let path = S.external.appendingPathComponent("ndpi/anyconnect-vpn.pcap").path
        guard FileManager.default.fileExists(atPath: path) else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "external captures missing in CI: \(path)")
            return
        }
        let r = try S.report(paths: [path])
        // tshark: frame 513, Application-URL http://10.0.0.149:8008/apps/, friendlyName
        // Chromecast1699, modelName Eureka Dongle, manufacturer Google Inc.
        let d = try #require(r.devices.first { $0.addresses.map(\.description) == ["10.0.0.149"] })
        #expect(d.friendlyName == "Chromecast1699" && d.model == "Eureka Dongle")
        #expect(d.dial?.deviceDescription?.applicationURL == "http://10.0.0.149:8008/apps/")
        #expect(d.dial?.deviceDescription?.manufacturer == "Google Inc.")
        #expect(d.dial?.deviceDescription?.response?.frame.frame == 513)
        #expect(r.connections.map(\.outcome) == [.established])
    }

    /// captures/probe-group.pcap: `castscope probe` connects to a speaker (8009) and the group it
    /// leads (42238) at one address, and to an IPv6-only TV from the sender's global IPv6
    /// address, which never sent a query (its queries came from 192.0.2.10 and its link-local
    /// address).
    @Test("probe-group.pcap: each connection goes to the device whose SRV names its port, under the host")
    func sharedAddressAndGlobalIPv6() throws {
        let r = try S.report("probe-group.pcap")
        let name = Dictionary(r.devices.map { ($0.id, $0.friendlyName ?? "") }, uniquingKeysWith: { a, _ in a })
        let rows = r.connections.map { "\(name[$0.deviceID] ?? "?") \($0.endpoint) \($0.client) \($0.outcome)" }
        #expect(
            Set(rows) == [
                "Kitchen Speaker 192.0.2.23:8009 192.0.2.10 established",
                "Downstairs 192.0.2.23:42238 192.0.2.10 established",
                "Living Room TV [2001:db8::21]:8009 192.0.2.10 established",
            ])
        // Nobody is said to have found a device and not connected to it.
        #expect(!r.findings.contains { $0.code == .notConnected })
        #expect(S.codes(r, [.error]) == [])
        // The TV's row knows when the host resolved it (joined by MAC, it has the host's latency row).
        let tv = try #require(r.connections.first { $0.address.description == "2001:db8::21" })
        #expect(tv.fromDiscoveryMs != nil)
    }
}
