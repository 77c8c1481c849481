import CastDiscovery
import Foundation
import Testing
import WireFormat

// Bounded state (issue 7): a flood of fake devices, names, clients or fragments costs bounded
// memory, the real device is still reported, and LIMIT_REACHED says what was dropped.

enum Flood {
    static let castType = DNSName("_googlecast._tcp.local")
    /// Fake devices per flood: beyond the default limit of 10,000 (the 100,000-device flood
    /// runs against the release binary in Tests/cli, where it takes a second, not minutes).
    static let devices = Int(ProcessInfo.processInfo.environment["FLOOD_DEVICES"] ?? "") ?? 12_000
    static let group = IPAddress.v4(IPv4Address(224, 0, 0, 251))

    static func packet(_ frame: Int, at seconds: Double, from source: IPAddress, _ m: DNSMessage) -> DiscoveryPacket {
        DiscoveryPacket(
            frame: frame, timestamp: Timestamp(seconds: 1_800_000_000 + Int64(seconds), nanoseconds: 0),
            ipVersion: 4, source: source, destination: group, ttl: 255, sourcePort: 5353, destinationPort: 5353,
            payload: .mdns(m))
    }

    /// A fake device: only a PTR answer, never SRV or TXT (what a cheap flood sends).
    static func fakePTR(_ i: Int) -> DNSMessage {
        var m = DNSMessage(flags: 0x8400)
        m.answers = [
            DNSResourceRecord(
                name: castType, type: .ptr, ttl: 120, data: .name(DNSName("Fake-\(i)._googlecast._tcp.local")))
        ]
        return m
    }

    /// A complete announcement of the real receiver.
    static func realDevice() -> DNSMessage {
        let name = DNSName("Living-Room-TV-0a1b2c._googlecast._tcp.local")
        var m = DNSMessage(flags: 0x8400)
        m.answers = [DNSResourceRecord(name: castType, type: .ptr, ttl: 120, data: .name(name))]
        m.additionals = [
            DNSResourceRecord(
                name: name, type: .txt, cacheFlush: true, ttl: 4500,
                data: .txt(TXTRecord(["id=0a1b2c3d4e5f", "fn=Living Room TV", "md=Chromecast", "ca=201221"]))),
            DNSResourceRecord(
                name: name, type: .srv, cacheFlush: true, ttl: 120,
                data: .srv(priority: 0, weight: 0, port: 8009, target: DNSName("0a1b2c.local"))),
            DNSResourceRecord(
                name: DNSName("0a1b2c.local"), type: .a, cacheFlush: true, ttl: 120,
                data: .a(IPv4Address(192, 0, 2, 50))),
        ]
        return m
    }

    static func report(_ tracker: inout DiscoveryTracker, _ options: AnalysisOptions, captures: [CaptureInfo]? = nil)
        -> AnalysisReport
    {
        var r = AnalysisReport(
            captures: captures ?? [CaptureInfo(file: "flood", linkType: "EN10MB")], timelines: [tracker.finish()],
            options: options, merged: false)
        r.findings = Diagnosis.diagnose(r)
        return r
    }
}

@Suite("Bounded state under a flood")
struct LimitTests {
    @Test(
        "a flood of fake devices: the table stays at its limit and the real device is reported",
        arguments: [false, true])
    func deviceFlood(realFirst: Bool) throws {
        let options = AnalysisOptions()
        var tracker = DiscoveryTracker(options: options)
        let device = IPAddress.v4(IPv4Address(192, 0, 2, 50))
        let attacker = IPAddress.v4(IPv4Address(192, 0, 2, 66))
        var frame = 0
        func real() {
            frame += 1
            tracker.ingest(Flood.packet(frame, at: Double(frame) / 1000, from: device, Flood.realDevice()), capture: 0)
        }
        if realFirst { real() }
        for i in 0..<Flood.devices {
            frame += 1
            tracker.ingest(Flood.packet(frame, at: Double(frame) / 1000, from: attacker, Flood.fakePTR(i)), capture: 0)
        }
        if !realFirst { real() }
        let report = Flood.report(&tracker, options)
        #expect(report.devices.count <= options.capacity.devices)
        let tv = try #require(report.devices.first { $0.id == "0a1b2c3d4e5f" })
        #expect(tv.friendlyName == "Living Room TV")
        #expect(tv.addresses == [IPAddress.v4(IPv4Address(192, 0, 2, 50))])
        let limit = try #require(report.findings.first { $0.code == .limitReached })
        #expect(limit.severity == .warning)
        #expect(limit.detail.contains("incomplete device"))
        #expect(
            report.limitDrops.devicesEvicted + report.limitDrops.devices >= Flood.devices - options.capacity.devices)
    }

    @Test("a full name table drops new names, counts them, and keeps what it holds")
    func nameLimit() throws {
        var options = AnalysisOptions()
        options.capacity.names = 500
        var tracker = DiscoveryTracker(options: options)
        let device = IPAddress.v4(IPv4Address(192, 0, 2, 50))
        tracker.ingest(Flood.packet(1, at: 0, from: device, Flood.realDevice()), capture: 0)
        for i in 0..<2000 {
            tracker.ingest(
                Flood.packet(i + 2, at: 1, from: IPAddress.v4(IPv4Address(192, 0, 2, 66)), Flood.fakePTR(i)),
                capture: 0)
        }
        let report = Flood.report(&tracker, options)
        #expect(report.devices.contains { $0.id == "0a1b2c3d4e5f" })
        #expect(report.devices.count < 500)
        #expect(report.limitDrops.names > 1000)
        let limit = try #require(report.findings.first { $0.code == .limitReached })
        #expect(limit.detail.contains("--max-names"))
    }

    @Test("more clients than the limit: the first ones are kept, the rest counted")
    func clientLimit() throws {
        var options = AnalysisOptions()
        options.capacity.clients = 100
        var tracker = DiscoveryTracker(options: options)
        var q = DNSMessage()
        q.questions = [DNSQuestion(name: Flood.castType, type: .ptr)]
        for i in 0..<1000 {
            let source = IPAddress.v4(IPv4Address(rawValue: 0xC000_0200 | UInt32(i % 250 + 1) | UInt32(i / 250) << 16))
            tracker.ingest(Flood.packet(i + 1, at: Double(i), from: source, q), capture: 0)
        }
        let report = Flood.report(&tracker, options)
        #expect(report.clients.count == 100)
        #expect(report.limitDrops.clients == 900)
        #expect(report.findings.contains { $0.code == .limitReached && $0.detail.contains("--max-clients") })
    }

    @Test("no flood, no LIMIT_REACHED")
    func quiet() {
        var tracker = DiscoveryTracker()
        tracker.ingest(
            Flood.packet(1, at: 0, from: .v4(IPv4Address(192, 0, 2, 50)), Flood.realDevice()), capture: 0)
        let report = Flood.report(&tracker, AnalysisOptions())
        #expect(report.limitDrops.isEmpty)
        #expect(!report.findings.contains { $0.code == .limitReached })
    }

    @Test("100,000 first fragments: reassembly stays bounded and the real announcement still decodes")
    func fragmentFlood() throws {
        var decoder = DiscoveryDecoder(linkType: .ethernet)
        var tracker = DiscoveryTracker()
        var frame = 0
        for i in 0..<100_000 {
            frame += 1
            // A first fragment (MF set, offset 0) of a UDP datagram to 5353 that never completes.
            let udp =
                Frames.udpHeader(source: 5353, destination: 5353, length: 1208) + [UInt8](repeating: 0, count: 192)
            let bytes = Frames.ethernetIPv4(
                source: IPv4Address(192, 0, 2, 66), destination: IPv4Address(224, 0, 0, 251),
                identification: UInt16(truncatingIfNeeded: i), moreFragments: true, payload: udp)
            bytes.withUnsafeBytes { raw in
                if let p = decoder.decode(
                    frame: frame, timestamp: Timestamp(seconds: 1_800_000_000, nanoseconds: Int64(i)), bytes: raw,
                    originalLength: raw.count)
                {
                    tracker.ingest(p, capture: 0)
                }
            }
        }
        // Then the real device, unfragmented.
        frame += 1
        let real = Frames.mdns(Flood.realDevice())
        let bytes = Frames.ethernetIPv4(
            source: IPv4Address(192, 0, 2, 50), destination: IPv4Address(224, 0, 0, 251), identification: 1,
            moreFragments: false,
            payload: Frames.udpHeader(source: 5353, destination: 5353, length: 8 + real.count) + real)
        bytes.withUnsafeBytes { raw in
            if let p = decoder.decode(
                frame: frame, timestamp: Timestamp(seconds: 1_800_000_001, nanoseconds: 0), bytes: raw,
                originalLength: raw.count)
            {
                tracker.ingest(p, capture: 0)
            }
        }
        let stats = decoder.statistics
        #expect(stats.reassembly.evicted >= 100_000 - ReassemblyLimits().maximumDatagrams)
        let capture = CaptureInfo(
            file: "flood", linkType: "EN10MB", packets: frame, statistics: stats, start: nil, end: nil)
        let report = Flood.report(&tracker, AnalysisOptions(), captures: [capture])
        #expect(report.devices.contains { $0.id == "0a1b2c3d4e5f" })
        let limit = try #require(report.findings.first { $0.code == .limitReached })
        #expect(limit.detail.contains("--max-fragments"))
    }
}

/// Frames built byte by byte for the flood tests.
enum Frames {
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func udpHeader(source: Int, destination: Int, length: Int) -> [UInt8] {
        be16(source) + be16(destination) + be16(length) + [0, 0]
    }

    static func ethernetIPv4(
        source: IPv4Address, destination: IPv4Address, identification: UInt16, moreFragments: Bool, payload: [UInt8]
    ) -> [UInt8] {
        let eth: [UInt8] = [0x01, 0x00, 0x5E, 0x00, 0x00, 0xFB, 0x02, 0x00, 0x00, 0x00, 0x00, 0x66, 0x08, 0x00]
        var ip: [UInt8] = [0x45, 0] + be16(20 + payload.count) + be16(Int(identification))
        ip += moreFragments ? [0x20, 0x00] : [0x00, 0x00]
        ip += [255, 17, 0, 0]
        for a in [source, destination] {
            let v = a.rawValue
            ip += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        var sum = 0
        for k in stride(from: 0, to: 20, by: 2) { sum += Int(ip[k]) << 8 | Int(ip[k + 1]) }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~sum & 0xFFFF
        ip[10] = UInt8(checksum >> 8)
        ip[11] = UInt8(checksum & 0xFF)
        return eth + ip + payload
    }

    /// A DNS message in wire form (no compression).
    static func mdns(_ m: DNSMessage) -> [UInt8] {
        var out =
            be16(Int(m.id)) + be16(Int(m.flags)) + be16(m.questions.count) + be16(m.answers.count)
            + be16(m.authorities.count) + be16(m.additionals.count)
        func name(_ n: DNSName) -> [UInt8] { n.wire + [0] }
        for q in m.questions { out += name(q.name) + be16(Int(q.type.rawValue)) + be16(1) }
        for r in m.answers + m.authorities + m.additionals {
            var rdata: [UInt8]
            switch r.data {
            case .name(let n): rdata = name(n)
            case .srv(let p, let w, let port, let t): rdata = be16(Int(p)) + be16(Int(w)) + be16(Int(port)) + name(t)
            case .txt(let t): rdata = t.wire
            case .a(let a):
                let v = a.rawValue
                rdata = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            default: rdata = []
            }
            out += name(r.name) + be16(Int(r.type.rawValue)) + be16(r.cacheFlush ? 0x8001 : 1)
            out += be16(Int(r.ttl >> 16)) + be16(Int(r.ttl & 0xFFFF)) + be16(rdata.count) + rdata
        }
        return out
    }
}
