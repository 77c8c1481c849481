import Foundation
import PcapCapture
import Pipeline
import Testing
import WireFormat

@testable import CastDiscovery

// The Cast analysis (issue 3) on the project's real captures: the device table, discovery
// latency against timestamps read independently with tshark, sessions, known-answer
// suppression, goodbyes, clients, several files and bounded memory.
//
// Every expected number here was read with tshark 4.0 from the capture (the command is in a
// comment next to it), never from castscope's own output.

// MARK: - Support

/// Reading captures and running the analysis the way `castscope analyze` does.
private enum Analysis {
    /// The repository root, from this file's path (Tests/CastDiscoveryTests/AnalysisTests.swift).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String { repoRoot.appendingPathComponent("captures/\(name)").path }

    struct Loaded {
        var info: CaptureInfo
        var packets: [DiscoveryPacket]
    }

    /// Reads `captures/<name>` with CaptureFile + DiscoveryDecoder (with the lossless BPF
    /// prefilter, as AnalyzeCommand does) and returns its discovery packets.
    static func load(_ name: String) throws -> Loaded {
        let file = try CaptureFile(path: path(name))
        if let expression = DiscoveryFilter.expression(for: file.linkType) { try file.setFilter(expression) }
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var packets: [DiscoveryPacket] = []
        let (records, end) = file.forEachRecord { frame, header, bytes in
            if let p = decoder.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                packets.append(p)
            }
        }
        var truncated = false
        if case .truncated = end { truncated = true }
        let stats = decoder.statistics
        let info = CaptureInfo(
            file: name, linkType: file.linkTypeName, packets: records, discoveryPackets: stats.discoveryPackets,
            malformedPackets: stats.malformedPackets, truncated: truncated, start: file.firstTimestamp,
            end: file.lastTimestamp)
        return Loaded(info: info, packets: packets)
    }

    /// One timeline per file (the default of `castscope analyze`), then the report: the
    /// Pipeline's AnalysisRun, as the command line runs it.
    static func analyze(_ names: [String], options: AnalysisOptions = AnalysisOptions()) throws -> AnalysisReport {
        try #require(
            AnalysisRun.run(AnalysisRun.Options(files: names.map(path), analysis: options), notices: { _ in }).report)
    }

    /// Feeds several packet runs (each with its capture index) into one tracker: one timeline.
    static func report(
        _ runs: [(packets: [DiscoveryPacket], capture: Int)], options: AnalysisOptions = AnalysisOptions()
    ) -> AnalysisReport {
        var tracker = DiscoveryTracker(options: options)
        for run in runs { for p in run.packets { tracker.ingest(p, capture: run.capture) } }
        let captures = (0...(runs.map(\.capture).max() ?? 0)).map { CaptureInfo(file: "run\($0)", linkType: "EN10MB") }
        return AnalysisReport(captures: captures, timelines: [tracker.finish()], options: options, merged: true)
    }

    /// The same packets, `nanoseconds` later.
    static func shifted(_ packets: [DiscoveryPacket], by nanoseconds: Int64) -> [DiscoveryPacket] {
        packets.map { p in
            var q = p
            q.timestamp = Timestamp(
                seconds: p.timestamp.seconds, nanoseconds: Int64(p.timestamp.nanoseconds) + nanoseconds)
            return q
        }
    }

    /// The packet with Wireshark frame number `frame`.
    static func frame(_ packets: [DiscoveryPacket], _ frame: Int) throws -> DiscoveryPacket {
        try #require(packets.first { $0.frame == frame }, "no discovery packet for frame \(frame)")
    }

    /// Sets the TTL of every answer-section PTR record (a query's known answers) of an mDNS packet.
    static func withKnownAnswerTTL(_ p: DiscoveryPacket, _ ttl: UInt32) throws -> DiscoveryPacket {
        var q = p
        var m = try #require(p.mdns)
        #expect(!m.isResponse && m.answers.contains { $0.type == .ptr }, "frame \(p.frame) lists no known answer")
        for i in m.answers.indices where m.answers[i].type == .ptr { m.answers[i].ttl = ttl }
        q.payload = .mdns(m)
        return q
    }
}

/// `seconds.nanoseconds` as tshark prints `frame.time_epoch`.
private func t(_ epoch: String) -> Timestamp {
    let parts = epoch.split(separator: ".")
    let fraction = parts.count > 1 ? String(parts[1]) : ""
    let nanos = Int64((fraction + String(repeating: "0", count: 9)).prefix(9))!
    return Timestamp(seconds: Int64(parts[0])!, nanoseconds: nanos)
}

private func ip(_ text: String) -> IPAddress { IPAddress(text)! }

/// expected, answered, suppressed, missed.
private func counts(_ r: ResponseStats) -> [Int] { [r.expected, r.answered, r.suppressed, r.missed] }

private func ref(_ frame: Int, capture: Int = 0) -> FrameRef { FrameRef(capture: capture, frame: frame) }

/// Device IDs (TXT `id`) of the captures' receivers (captures/README.md, confirmed with tshark).
private enum ID {
    static let livingRoomTV = "3f5d6b2a8c914e07b2d46a1f0c9e7d35"
    static let bedroomTV = "7a0e4c192d6b4f8395c1e8b3a2d7f604"
    static let homeMini = "c8e2f7a04b154d9e8a3617f05b2c9d4e"
    static let group = "9d4b2e7f-1a3c-4e5d-8b6f-0a2c4e6d8f1b"
    static let shield = "e15a9c036f244b7da8e25d91c7f03b6a"
    static let dialUUID = "3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35"
}

private let sender = ip("192.0.2.10")

// MARK: - Device table

@Suite("Analysis: device table of multi-device.pcap (TV, speaker, group)")
struct AnalysisDeviceTableTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var id: String
        var instance: String
        var friendlyName: String
        var model: String
        var kind: DeviceKind
        var capabilities: [String]
        var capabilityBits: Int
        var status: String
        var runningApp: String
        var version: String
        var icon: String
        var host: String
        var port: Int
        var addresses: [String]
        var appIDs: [String]
        var txt: [String]
        var ttls: [String]
        var sources: [String]
        var firstSeen: String
        var firstFrame: Int
        var lastSeen: String
        var testDescription: String { friendlyName }
    }

    // tshark -r captures/multi-device.pcap -V -Y mdns
    //   frame 6 (192.0.2.23 -> 192.0.2.10, unicast): PTR _googlecast -> Google-Cast-Group-9D4B…8F1B (4500),
    //     PTR _googlecast -> Google-Home-Mini-c8e2…9d4e (4500); additional: group TXT (4500), A 192.0.2.23 (120),
    //     NSEC, group SRV 0 0 42238 c8e2f7a0-4b15-4d9e-8a36-17f05b2c9d4e.local (120), Mini SRV … 8009 (120),
    //     Mini TXT (4500)
    //   frame 7 (192.0.2.23 -> 224.0.0.251): PTR _CC1AD845._sub -> Google-Home-Mini (4500); SRV, TXT, A, NSEC
    //   frame 8 (192.0.2.22 -> 224.0.0.251): PTR _googlecast -> Chromecast-Ultra-7a0e…f604 (4500), TXT (4500),
    //     SRV 0 0 8009 7a0e4c19-2d6b-4f83-95c1-e8b3a2d7f604.local (120), A 192.0.2.22 (120),
    //     PTR _CC1AD845._sub -> Chromecast-Ultra (4500)
    // tshark -r captures/multi-device.pcap -Y mdns -T fields -e frame.number -e frame.time_epoch
    //   6 1795995769.690313329   7 1795995769.690605744   8 1795995769.793243846
    static let expected: [Expected] = [
        Expected(
            id: ID.bedroomTV, instance: "Chromecast-Ultra-7a0e4c192d6b4f8395c1e8b3a2d7f604", friendlyName: "Bedroom TV",
            model: "Chromecast Ultra", kind: .video,
            capabilities: ["videoOut", "audioOut", "attenuationOrFixedVolume"], capabilityBits: 4101, status: "busy",
            runningApp: "YouTube", version: "05", icon: "/setup/icon.png",
            host: "7a0e4c19-2d6b-4f83-95c1-e8b3a2d7f604.local", port: 8009, addresses: ["192.0.2.22"],
            appIDs: ["CC1AD845"],
            txt: [
                "id=7a0e4c192d6b4f8395c1e8b3a2d7f604", "cd=D3A96F0E2B7C4815E9F0A6C3B1D75E42", "rm=", "ve=05",
                "md=Chromecast Ultra", "ic=/setup/icon.png", "fn=Bedroom TV", "ca=4101", "st=1", "bs=FA8F4D21C09E",
                "nf=1", "rs=YouTube",
            ],
            ttls: ["PTR 4500", "SRV 120", "TXT 4500", "A 120"], sources: ["192.0.2.22"],
            firstSeen: "1795995769.793243846", firstFrame: 8, lastSeen: "1795995769.793243846"),
        Expected(
            id: ID.homeMini, instance: "Google-Home-Mini-c8e2f7a04b154d9e8a3617f05b2c9d4e",
            friendlyName: "Kitchen Speaker", model: "Google Home Mini", kind: .audio,
            capabilities: ["audioOut", "masterOrFixedVolume", "bit16", "bit17"], capabilityBits: 198660,
            status: "idle", runningApp: "", version: "05", icon: "/setup/icon.png",
            host: "c8e2f7a0-4b15-4d9e-8a36-17f05b2c9d4e.local", port: 8009, addresses: ["192.0.2.23"],
            appIDs: ["CC1AD845"],
            txt: [
                "id=c8e2f7a04b154d9e8a3617f05b2c9d4e", "cd=5B07E9C1A4D2F8360B1E7A95C3D4F2A8", "rm=B41D6E09A7C35F28",
                "ve=05", "md=Google Home Mini", "ic=/setup/icon.png", "fn=Kitchen Speaker", "ca=198660", "st=0",
                "bs=FA8F6E3D1B90", "nf=2", "rs=",
            ],
            ttls: ["PTR 4500", "SRV 120", "TXT 4500", "A 120"], sources: ["192.0.2.23"],
            firstSeen: "1795995769.690313329", firstFrame: 6, lastSeen: "1795995769.690605744"),
        Expected(
            id: ID.group, instance: "Google-Cast-Group-9D4B2E7F1A3C4E5D8B6F0A2C4E6D8F1B", friendlyName: "Downstairs",
            model: "Google Cast Group", kind: .group,
            capabilities: ["audioOut", "multizoneGroup", "masterOrFixedVolume"], capabilityBits: 2084,
            status: "idle", runningApp: "", version: "05", icon: "/setup/icon.png",
            host: "c8e2f7a0-4b15-4d9e-8a36-17f05b2c9d4e.local", port: 42238, addresses: ["192.0.2.23"], appIDs: [],
            txt: [
                "id=9d4b2e7f-1a3c-4e5d-8b6f-0a2c4e6d8f1b", "cd=9d4b2e7f-1a3c-4e5d-8b6f-0a2c4e6d8f1b",
                "rm=3A61C0F94E7D2B58", "ve=05", "md=Google Cast Group", "ic=/setup/icon.png", "fn=Downstairs",
                "ca=2084", "st=0", "bs=FA8F6E3D1B90", "nf=1", "rs=",
            ],
            ttls: ["PTR 4500", "SRV 120", "TXT 4500", "A 120"], sources: ["192.0.2.23"],
            firstSeen: "1795995769.690313329", firstFrame: 6, lastSeen: "1795995769.690313329"),
    ]

    @Test("exactly the TV, the speaker and the group")
    func deviceSet() throws {
        let report = try Analysis.analyze(["multi-device.pcap"])
        #expect(Set(report.devices.map(\.id)) == [ID.bedroomTV, ID.homeMini, ID.group])
        #expect(report.devices.count == 3)
    }

    @Test("every field", arguments: expected)
    func fields(_ e: Expected) throws {
        let report = try Analysis.analyze(["multi-device.pcap"])
        let d = try #require(report.devices.first { $0.id == e.id })
        #expect(d.instance == e.instance)
        #expect(d.instances == [e.instance])
        #expect(d.friendlyName == e.friendlyName)
        #expect(d.model == e.model)
        #expect(d.kind == e.kind)
        #expect(d.capabilities == e.capabilities)
        #expect(d.capabilityBits == e.capabilityBits)
        #expect(d.status == e.status)
        #expect(d.runningApp == e.runningApp)
        #expect(d.version == e.version)
        #expect(d.icon == e.icon)
        #expect(d.host == e.host)
        #expect(d.port == e.port)
        #expect(d.addresses == e.addresses.map(ip))
        #expect(d.appIDs == e.appIDs)
        #expect(d.txt.map { "\($0.key)=\($0.value)" } == e.txt)
        #expect(d.via == ["mdns"])
        #expect(d.ttls.flatMap { ttl in ttl.values.map { "\(ttl.type) \($0)" } } == e.ttls)
        #expect(d.sources == e.sources.map(ip))
        #expect(d.firstSeen == t(e.firstSeen))
        #expect(d.firstFrame == ref(e.firstFrame))
        #expect(d.lastSeen == t(e.lastSeen))
        #expect(d.leftAt == nil)
        #expect(d.leftFrame == nil)
        #expect(d.dial == nil)
    }
}

// MARK: - Latency against tshark

@Suite("Analysis: discovery latency against tshark timestamps")
struct AnalysisLatencyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var client: String
        var deviceID: String
        var sessionStartFrame: Int
        var sessionStart: String
        var firstAnswerFrame: Int
        var firstAnswerMs: Double
        var resolvedFrame: Int
        var resolvedMs: Double
        /// Only this address is followed (`--client`): one host's other addresses would join it.
        var alone = false
        var testDescription: String { "\(file) \(client) \(deviceID.prefix(8))" }
    }

    // For each file: tshark -r captures/FILE -Y mdns -T fields -e frame.number -e frame.time_epoch -e ip.src
    //   -e ipv6.src -e ip.dst -e ipv6.dst -e dns.flags.response -e dns.qry.name -e dns.resp.type
    // session start = the client's first Cast query; first answer = first PTR for the instance (TTL>0) under
    // an asked name in a packet multicast or unicast to the client; resolved = the last of the first SRV,
    // first TXT and first A/AAAA of the SRV target seen by the client since session start.
    // ms = (time_epoch(answer) - time_epoch(start)) * 1000, computed with decimal arithmetic.
    static let cases: [Case] = [
        // healthy-ipv4: 2 1795995753.292133685 query QU; 3 1795995753.410164323 multicast PTR/TXT/SRV/A
        Case(
            file: "healthy-ipv4.pcap", client: "192.0.2.10", deviceID: ID.livingRoomTV, sessionStartFrame: 2,
            sessionStart: "1795995753.292133685", firstAnswerFrame: 3, firstAnswerMs: 118.030638, resolvedFrame: 3,
            resolvedMs: 118.030638),
        // multi-device: 3 1795995769.689450664 query (subtype + base, QU);
        // 6 1795995769.690313329 unicast to 192.0.2.10: group + Mini PTR/SRV/TXT/A;
        // 8 1795995769.793243846 multicast: Chromecast Ultra PTR/TXT/SRV/A
        Case(
            file: "multi-device.pcap", client: "192.0.2.10", deviceID: ID.group, sessionStartFrame: 3,
            sessionStart: "1795995769.689450664", firstAnswerFrame: 6, firstAnswerMs: 0.862665, resolvedFrame: 6,
            resolvedMs: 0.862665),
        Case(
            file: "multi-device.pcap", client: "192.0.2.10", deviceID: ID.homeMini, sessionStartFrame: 3,
            sessionStart: "1795995769.689450664", firstAnswerFrame: 6, firstAnswerMs: 0.862665, resolvedFrame: 6,
            resolvedMs: 0.862665),
        Case(
            file: "multi-device.pcap", client: "192.0.2.10", deviceID: ID.bedroomTV, sessionStartFrame: 3,
            sessionStart: "1795995769.689450664", firstAnswerFrame: 8, firstAnswerMs: 103.793182, resolvedFrame: 8,
            resolvedMs: 103.793182),
        // any-sll2: 2 1795995802.472579660 query; 3 1795995802.563251927 multicast PTR/TXT/SRV/A
        Case(
            file: "any-sll2.pcap", client: "192.0.2.10", deviceID: ID.livingRoomTV, sessionStartFrame: 2,
            sessionStart: "1795995802.472579660", firstAnswerFrame: 3, firstAnswerMs: 90.672267, resolvedFrame: 3,
            resolvedMs: 90.672267),
        // ipv6: 2 1795995817.057155449 query 2001:db8::10 -> ff02::fb; 3 1795995817.078859370 PTR/TXT/SRV/AAAA
        Case(
            file: "ipv6.pcap", client: "2001:db8::10", deviceID: ID.livingRoomTV, sessionStartFrame: 2,
            sessionStart: "1795995817.057155449", firstAnswerFrame: 3, firstAnswerMs: 21.703921, resolvedFrame: 3,
            resolvedMs: 21.703921),
        // fragmented, IPv4: 66 1795995829.745202441 query; 70 1795995829.746117083 unicast PTR + SRV + A;
        // 73 1795995829.746407345 unicast TXT (reassembled, last fragment); 74 AAAA. The TXT (TTL 4500)
        // was multicast in frames 18-41, 3.7 s before the query: in the client's cache, so frame 70
        // resolves.
        Case(
            file: "fragmented.pcap", client: "192.0.2.10", deviceID: ID.shield, sessionStartFrame: 66,
            sessionStart: "1795995829.745202441", firstAnswerFrame: 70, firstAnswerMs: 0.914642, resolvedFrame: 70,
            resolvedMs: 0.914642),
        // fragmented, IPv6: 67 1795995829.745297733 query; 77 1795995829.747340104 unicast PTR + SRV + A;
        // 80 1795995829.747376098 unicast TXT (reassembled); 81 AAAA. The TXT was multicast on ff02::fb
        // before (frames 21-41): cached, so frame 77 resolves. (The sender's two addresses are one host,
        // whose row is the IPv4 one above: this one follows the IPv6 address alone.)
        Case(
            file: "fragmented.pcap", client: "2001:db8::10", deviceID: ID.shield, sessionStartFrame: 67,
            sessionStart: "1795995829.745297733", firstAnswerFrame: 77, firstAnswerMs: 2.042371, resolvedFrame: 77,
            resolvedMs: 2.042371, alone: true),
        // legacy-unicast: 1 1795995843.292238972 query from port 43989; 4 1795995843.292452981 unicast answer
        Case(
            file: "legacy-unicast.pcap", client: "192.0.2.10", deviceID: ID.livingRoomTV, sessionStartFrame: 1,
            sessionStart: "1795995843.292238972", firstAnswerFrame: 4, firstAnswerMs: 0.214009, resolvedFrame: 4,
            resolvedMs: 0.214009),
        // own-queries-dropped: 22 1795995877.494596867 sender query; 27 1795995883.447140040 phone query;
        // 28 1795995883.497576378 multicast PTR/TXT/SRV/A (earlier announcements precede both sessions)
        Case(
            file: "own-queries-dropped.pcap", client: "192.0.2.10", deviceID: ID.livingRoomTV, sessionStartFrame: 22,
            sessionStart: "1795995877.494596867", firstAnswerFrame: 28, firstAnswerMs: 6002.979511,
            resolvedFrame: 28, resolvedMs: 6002.979511),
        Case(
            file: "own-queries-dropped.pcap", client: "192.0.2.11", deviceID: ID.livingRoomTV, sessionStartFrame: 27,
            sessionStart: "1795995883.447140040", firstAnswerFrame: 28, firstAnswerMs: 50.436338,
            resolvedFrame: 28, resolvedMs: 50.436338),
        // goodbye: 18 1795995782.011034862 query; 21 1795995782.011494286 unicast PTR/TXT/SRV/A
        Case(
            file: "goodbye.pcap", client: "192.0.2.10", deviceID: ID.livingRoomTV, sessionStartFrame: 18,
            sessionStart: "1795995782.011034862", firstAnswerFrame: 21, firstAnswerMs: 0.459424, resolvedFrame: 21,
            resolvedMs: 0.459424),
    ]

    @Test("firstAnswerMs and resolvedMs with their evidence frames", arguments: cases)
    func latency(_ c: Case) throws {
        var options = AnalysisOptions()
        if c.alone { options.clients = [ip(c.client)] }
        let report = try Analysis.analyze([c.file], options: options)
        let rows = report.latency.filter { $0.client == ip(c.client) && $0.deviceID == c.deviceID }
        #expect(rows.count == 1, "one session of this client in the capture")
        let row = try #require(rows.first)
        #expect(row.sessionStart == t(c.sessionStart))
        #expect(row.sessionStartFrame == ref(c.sessionStartFrame))
        let first = try #require(row.firstAnswerMs, "firstAnswerMissing: \(row.firstAnswerMissing ?? "-")")
        #expect(abs(first - c.firstAnswerMs) < 0.001, "firstAnswerMs \(first) vs tshark \(c.firstAnswerMs)")
        #expect(row.firstAnswerFrame == ref(c.firstAnswerFrame))
        #expect(row.firstAnswerMissing == nil)
        let resolved = try #require(row.resolvedMs, "resolvedMissing: \(row.resolvedMissing ?? "-")")
        #expect(abs(resolved - c.resolvedMs) < 0.001, "resolvedMs \(resolved) vs tshark \(c.resolvedMs)")
        #expect(row.resolvedFrame == ref(c.resolvedFrame))
        #expect(row.resolvedMissing == nil)
    }

    @Test("multi-device: the per-device summaries hold the single session's values")
    func summaries() throws {
        let report = try Analysis.analyze(["multi-device.pcap"])
        let tv = try #require(report.summaries.first { $0.deviceID == ID.bedroomTV })
        #expect(tv.firstAnswer?.count == 1)
        #expect(abs((tv.firstAnswer?.p50 ?? -1) - 103.793182) < 0.001)
        #expect(abs((tv.resolved?.max ?? -1) - 103.793182) < 0.001)
        // Overall: 0.862665 (group), 0.862665 (Mini), 103.793182 (TV).
        #expect(report.overall.firstAnswer?.count == 3)
        #expect(abs((report.overall.firstAnswer?.min ?? -1) - 0.862665) < 0.001)
        #expect(abs((report.overall.firstAnswer?.p50 ?? -1) - 0.862665) < 0.001)
        #expect(abs((report.overall.firstAnswer?.max ?? -1) - 103.793182) < 0.001)
    }

    @Test("client-isolation: no answer reaches the sender, so both values are null with a reason")
    func noAnswers() throws {
        // tshark -r captures/client-isolation.pcap -Y mdns -T fields -e frame.number -e ip.src -e dns.flags.response
        //   6, 8, 12: queries from 192.0.2.10; 10, 13: queries from 192.0.2.5; no response at all.
        let report = try Analysis.analyze(["client-isolation.pcap"])
        #expect(report.devices.isEmpty)
        #expect(report.latency.isEmpty, "no device, so no (client, device) row")
        #expect(Set(report.clients.map(\.address)) == [sender, ip("192.0.2.5")])
        #expect(report.clients.first { $0.address == sender }?.queries == 3)
    }
}

// MARK: - Sessions

@Suite("Analysis: discovery sessions from real packets")
struct AnalysisSessionTests {
    // tshark -r captures/healthy-ipv4.pcap -Y mdns -T fields -e frame.number -e frame.time_epoch
    //   2 1795995753.292133685 (query)   3 1795995753.410164323 (answer)
    //   5 1795995754.293809686 (query)   6 1795995758.296688627 (query)
    // The last query (6) is 5.004554942 s after the first (2).
    static let span: Int64 = 5_004_554_942

    @Test(
        "the capture fed twice: a second session iff the copy starts at least the gap after the last query",
        arguments: [
            (shiftSeconds: 120.0, sessions: 2), (shiftSeconds: 64.0, sessions: 1), (shiftSeconds: 30.0, sessions: 1),
            (shiftSeconds: 66.0, sessions: 2),
        ])
    func twice(shiftSeconds: Double, sessions: Int) throws {
        let packets = try Analysis.load("healthy-ipv4.pcap").packets
        let shift = Int64(shiftSeconds * 1e9)
        let report = Analysis.report([(packets, 0), (Analysis.shifted(packets, by: shift), 1)])
        let client = try #require(report.clients.first { $0.address == sender })
        #expect(report.clients.count == 1)
        #expect(client.sessions == sessions)
        #expect(client.queries == 6)
        let rows = report.latency.filter { $0.client == sender && $0.deviceID == ID.livingRoomTV }
        #expect(rows.count == sessions)
        #expect(report.devices.count == 1)
        let firstQuery = try Analysis.frame(packets, 2)
        for (i, row) in rows.enumerated() {
            // Session i starts at frame 2 of copy i; both copies answer 118.030638 ms later (frame 3).
            #expect(row.sessionStartFrame == ref(2, capture: i))
            #expect(row.sessionStart == Analysis.shifted([firstQuery], by: Int64(i) * shift)[0].timestamp)
            #expect(abs((row.firstAnswerMs ?? -1) - 118.030638) < 0.001)
            #expect(row.firstAnswerFrame == ref(3, capture: i))
            #expect(abs((row.resolvedMs ?? -1) - 118.030638) < 0.001)
            #expect(row.resolvedFrame == ref(3, capture: i))
        }
        if sessions == 2 {
            #expect(rows[0].firstAnswerMs == rows[1].firstAnswerMs)
            #expect(rows[0].resolvedMs == rows[1].resolvedMs)
        }
    }

    @Test("--session-gap: a gap exactly equal to the option starts a session, one nanosecond less does not")
    func gapBoundary() throws {
        let packets = try Analysis.load("healthy-ipv4.pcap").packets
        let shift: Int64 = 70_000_000_000
        // Gap between frame 6 of copy 1 and frame 2 of copy 2.
        let gap = shift - Self.span
        #expect(gap == 64_995_445_058)
        for (option, sessions) in [(gap, 2), (gap + 1, 1), (gap - 1, 2), (AnalysisOptions().sessionGapNanoseconds, 2)] {
            var options = AnalysisOptions()
            options.sessionGapNanoseconds = option
            let report = Analysis.report([(packets, 0), (Analysis.shifted(packets, by: shift), 1)], options: options)
            #expect(report.clients.first?.sessions == sessions, "session gap \(option) ns")
            #expect(report.latency.count == sessions)
            #expect(report.sessionGapSeconds == Double(option) / 1e9)
        }
        #expect(AnalysisOptions().sessionGapNanoseconds == 60_000_000_000)
    }

    @Test("a short --session-gap splits one capture: each re-query starts its own session")
    func shortGap() throws {
        var options = AnalysisOptions()
        options.sessionGapNanoseconds = 500_000_000  // 0.5 s: queries 2, 5, 6 are 1.0 s and 4.0 s apart
        let report = try Analysis.analyze(["healthy-ipv4.pcap"], options: options)
        #expect(report.clients.first?.sessions == 3)
        let rows = report.latency
        #expect(rows.map(\.sessionStartFrame) == [ref(2), ref(5), ref(6)])
        // Session 1 is answered by frame 3; sessions 2 and 3 list the PTR as a known answer (TTL 4499,
        // 4495 of 4500) and get no answer.
        #expect(abs((rows[0].firstAnswerMs ?? -1) - 118.030638) < 0.001)
        for row in rows.dropFirst() {
            #expect(row.firstAnswerMs == nil)
            #expect(row.firstAnswerMissing?.contains("known-answer suppression") == true)
            #expect(row.resolvedMs == nil)
        }
    }
}

// MARK: - Known-answer suppression

@Suite("Analysis: known-answer suppression from real packets")
struct AnalysisSuppressionTests {
    // tshark -r captures/healthy-ipv4.pcap -Y mdns -T fields -e frame.number -e dns.qry.name -e dns.resp.type
    //   -e dns.resp.ttl
    //   2: QU query, no known answer; 3: PTR TTL 4500 (+ TXT 4500, SRV 120, A 120)
    //   5: QM query, known answer PTR TTL 4499; 6: QM query, known answer PTR TTL 4495
    @Test("healthy-ipv4: 3 queries, 1 answered (118.030638 ms), 2 rightly suppressed")
    func realCapture() throws {
        let report = try Analysis.analyze(["healthy-ipv4.pcap"])
        let r = try #require(report.responses.first { $0.client == sender && $0.deviceID == ID.livingRoomTV })
        #expect(report.responses.count == 1)
        #expect(r.expected == 3)
        #expect(r.answered == 1)
        #expect(r.suppressed == 2)
        #expect(r.missed == 0)
        #expect(r.missedFrames.isEmpty)
        #expect(r.delay?.count == 1)
        #expect(abs((r.delay?.min ?? -1) - 118.030638) < 0.001)
    }

    // tshark -r captures/multi-device.pcap -V -Y 'frame.number==9 || frame.number==10'
    //   9 and 10 list all three devices' PTRs (TTL 4494-4499) under both asked names.
    @Test(
        "multi-device: each device answered once and was suppressed twice",
        arguments: [ID.bedroomTV, ID.homeMini, ID.group])
    func multiDevice(_ id: String) throws {
        let report = try Analysis.analyze(["multi-device.pcap"])
        let r = try #require(report.responses.first { $0.client == sender && $0.deviceID == id })
        #expect(counts(r) == [3, 1, 2, 0] as [Int])
    }

    @Test(
        "known answers with their TTL changed: at least half of 4500 suppresses, less is a miss",
        arguments: [
            (ttl: UInt32(4499), suppressed: 2, missed: 0), (ttl: 2250, suppressed: 2, missed: 0),
            (ttl: 2249, suppressed: 0, missed: 2), (ttl: 1, suppressed: 0, missed: 2),
        ])
    func lowKnownAnswerTTL(ttl: UInt32, suppressed: Int, missed: Int) throws {
        var packets = try Analysis.load("healthy-ipv4.pcap").packets
        for i in packets.indices where packets[i].frame == 5 || packets[i].frame == 6 {
            packets[i] = try Analysis.withKnownAnswerTTL(packets[i], ttl)
        }
        let report = Analysis.report([(packets, 0)])
        let r = try #require(report.responses.first { $0.client == sender && $0.deviceID == ID.livingRoomTV })
        #expect(r.expected == 3)
        #expect(r.answered == 1)
        #expect(r.suppressed == suppressed)
        #expect(r.missed == missed)
        #expect(r.missedFrames == (missed == 0 ? [] : [ref(5), ref(6)]))
    }

    @Test("a session that opens with a known answer: null firstAnswer, said to be suppression")
    func sessionOpensWithKnownAnswer() throws {
        let packets = try Analysis.load("healthy-ipv4.pcap").packets
        let later = Analysis.shifted([try Analysis.frame(packets, 5)], by: 120_000_000_000)
        let report = Analysis.report([(packets, 0), (later, 1)])
        let rows = report.latency.filter { $0.deviceID == ID.livingRoomTV }
        #expect(rows.count == 2)
        let second = try #require(rows.last)
        #expect(second.sessionStartFrame == ref(5, capture: 1))
        #expect(second.firstAnswerMs == nil)
        #expect(second.firstAnswerMissing?.contains("known-answer suppression") == true)
        let r = try #require(report.responses.first)
        #expect(counts(r) == [4, 1, 3, 0] as [Int])
    }

    @Test("a session opening with a known answer below half the TTL is a miss, not suppression")
    func sessionOpensWithStaleKnownAnswer() throws {
        let packets = try Analysis.load("healthy-ipv4.pcap").packets
        let stale = try Analysis.withKnownAnswerTTL(try Analysis.frame(packets, 5), 2249)
        let later = Analysis.shifted([stale], by: 120_000_000_000)
        let report = Analysis.report([(packets, 0), (later, 1)])
        let r = try #require(report.responses.first)
        // Query 2 answered, 5 and 6 suppressed (4499/4495), the stale copy of 5 missed.
        #expect(counts(r) == [4, 1, 2, 1] as [Int])
        let second = try #require(report.latency.last)
        #expect(second.firstAnswerMs == nil)
        // A known answer below half the TTL does not suppress: the reason must not blame suppression.
        #expect(second.firstAnswerMissing?.contains("known-answer suppression") == false)
    }
    @Test("a legacy-unicast answer (TTL 10) does not lower the PTR's true TTL for suppression")
    func legacyAnswerTTL() throws {
        // healthy-ipv4 (2 query, 3 answer PTR 4500, 5 and 6 queries with a known answer) with
        // legacy-unicast.pcap's query (1) and its unicast answer (4, every TTL 10, RFC 6762 §6.7) moved to
        // 1795995753.800000000, between 3 and 5; the known answers of 5 and 6 set to TTL 100 (< 4500 / 2).
        // tshark -r captures/legacy-unicast.pcap -Y mdns -T fields -e frame.number -e frame.time_epoch
        //   -e dns.resp.ttl   ->   1 1795995843.292238972 ; 4 1795995843.292452981 10,10,10,10
        var healthy = try Analysis.load("healthy-ipv4.pcap").packets
        for i in healthy.indices where healthy[i].frame == 5 || healthy[i].frame == 6 {
            healthy[i] = try Analysis.withKnownAnswerTTL(healthy[i], 100)
        }
        let legacy = Analysis.shifted(
            try Analysis.load("legacy-unicast.pcap").packets,
            by: t("1795995753.800000000").nanoseconds(since: t("1795995843.292238972")))
        let ordered = (healthy.map { ($0, 0) } + legacy.map { ($0, 1) }).sorted { $0.0.timestamp < $1.0.timestamp }
        #expect(ordered.map { "\($0.1):\($0.0.frame)" } == ["0:2", "0:3", "1:1", "1:4", "0:5", "0:6"])
        var tracker = DiscoveryTracker()
        for (p, capture) in ordered { tracker.ingest(p, capture: capture) }
        let report = AnalysisReport(
            captures: [
                CaptureInfo(file: "healthy", linkType: "EN10MB"), CaptureInfo(file: "legacy", linkType: "EN10MB"),
            ],
            timelines: [tracker.finish()], options: AnalysisOptions(), merged: true)
        let r = try #require(report.responses.first { $0.client == sender && $0.deviceID == ID.livingRoomTV })
        #expect(r.expected == 4)
        #expect(r.answered == 2)
        #expect(r.suppressed == 0)
        #expect(r.missed == 2)
    }
}

@Suite("Analysis: who counts as a client")
struct AnalysisProbeTests {
    @Test("fragmented: the Shield's own probes do not make it a discovery client")
    func probesAreNotClients() throws {
        // tshark -r captures/fragmented.pcap -Y 'mdns && dns.flags.response==0' -T fields -e frame.number
        //   -e ip.src -e ipv6.src -e dns.count.auth_rr
        //   6, 9, 12 (192.0.2.24) and 7, 10, 13 (2001:db8::24): probes, PTR _googlecast._tcp.local QU with the
        //   proposed PTR in the authority section (RFC 6762 §8.1); 66, 84 (192.0.2.10), 67, 85 (2001:db8::10):
        //   the sender's browsing queries.
        let report = try Analysis.analyze(["fragmented.pcap"])
        // The sender's two addresses (one MAC, 02:ca:57:00:00:10) are one host.
        #expect(report.clients.map(\.addresses) == [[sender, ip("2001:db8::10")]])
        #expect(report.latency.count == 1)
        // Without the self-probe rows (1001.739295 / 1001.676071 ms) the first answer is the IPv4 one, 0.914642 ms
        // (the IPv6 query's, 2.042371 ms, came later).
        #expect(abs((report.overall.firstAnswer?.max ?? -1) - 0.914642) < 0.001)
    }
}

// MARK: - Goodbyes

@Suite("Analysis: goodbyes (goodbye.pcap)")
struct AnalysisGoodbyeTests {
    // tshark -r captures/goodbye.pcap -Y 'dns.resp.ttl==0' -T fields -e frame.number -e frame.time_epoch
    //   -e dns.resp.type -e dns.resp.ttl
    //   26 1795995786.093194384 1,12,12,33,16,12 0,0,0,0,0,0   (A, reverse PTR, _googlecast PTR, SRV, TXT, _services)
    static let goodbyeTime = "1795995786.093194384"
    // tshark -r captures/goodbye.pcap -Y mdns -T fields -e frame.number -e frame.time_epoch -e ip.src -e dns.qry.name
    //   14 1795995780.759825172 first response with the instance (announcement)
    //   18 1795995782.011034862 sender QU query; 23 1795995783.012697834 QM query (known answer 4498);
    //   29 1795995787.014794784 QM query after the goodbye, no known answer, no answer

    @Test("leftAt and leftFrame are the goodbye packet")
    func leftAt() throws {
        let report = try Analysis.analyze(["goodbye.pcap"])
        #expect(report.devices.count == 1)
        let d = try #require(report.devices.first { $0.id == ID.livingRoomTV })
        #expect(d.leftAt == t(Self.goodbyeTime))
        #expect(d.leftFrame == ref(26))
        #expect(d.lastSeen == t(Self.goodbyeTime))
        #expect(d.firstSeen == t("1795995780.759825172"))
        #expect(d.firstFrame == ref(14))
        #expect(d.addresses == [ip("192.0.2.21")])
        #expect(
            d.ttls.flatMap { ttl in ttl.values.map { "\(ttl.type) \($0)" } } == [
                "PTR 0", "PTR 4500", "SRV 0", "SRV 120", "TXT 0", "TXT 4500", "A 0", "A 120",
            ])
    }

    @Test("responses: the query after the goodbye is not expected; 18 answered, 23 suppressed")
    func responses() throws {
        // 18 is answered by 21 (0.459424 ms). 23 lists the PTR with TTL 4498 >= 4500 / 2, so the device rightly
        // stays silent; 25 (1795995783.813818470) is avahi's third unsolicited announcement (after 14 and 16),
        // not an answer. 29 comes after the goodbye (26), so nothing is expected of the device.
        let report = try Analysis.analyze(["goodbye.pcap"])
        let r = try #require(report.responses.first { $0.client == sender && $0.deviceID == ID.livingRoomTV })
        #expect(r.expected == 2)
        #expect(r.missed == 0)
        #expect(abs((r.delay?.min ?? -1) - 0.459424) < 0.001)
        #expect(counts(r) == [2, 1, 1, 0] as [Int])
        #expect(abs((r.delay?.max ?? -1) - 0.459424) < 0.001)
    }

    @Test("a session started after the goodbye has no first answer, because of the goodbye")
    func sessionAfterGoodbye() throws {
        let packets = try Analysis.load("goodbye.pcap").packets
        // Frame 29 moved 70 s later: 74.002 s after query 23, so it opens a second session.
        let moved = Analysis.shifted([try Analysis.frame(packets, 29)], by: 70_000_000_000)
        let report = Analysis.report([(packets.filter { $0.frame != 29 }, 0), (moved, 1)])
        let rows = report.latency.filter { $0.client == sender && $0.deviceID == ID.livingRoomTV }
        #expect(rows.count == 2)
        #expect(abs((rows.first?.firstAnswerMs ?? -1) - 0.459424) < 0.001)
        let after = try #require(rows.last)
        #expect(after.sessionStartFrame == ref(29, capture: 1))
        #expect(after.sessionStart == t("1795995857.014794784"))
        #expect(after.firstAnswerMs == nil)
        #expect(after.firstAnswerMissing?.contains("goodbye") == true)
        #expect(after.resolvedMs == nil)
        #expect(after.resolvedMissing != nil)
        let d = try #require(report.devices.first)
        #expect(d.leftAt == t(Self.goodbyeTime))
    }
}

// MARK: - Clients

@Suite("Analysis: clients")
struct AnalysisClientTests {
    @Test("legacy-unicast: the client uses legacy unicast, and the answer's TTLs are 10")
    func legacyUnicast() throws {
        // tshark -r captures/legacy-unicast.pcap -Y mdns -T fields -e frame.number -e ip.src -e udp.srcport
        //   -e dns.qry.qu -e dns.resp.ttl
        //   1 192.0.2.10 43989 0 ; 4 192.0.2.21 5353 (to 192.0.2.10:43989) 10,10,10,10
        let report = try Analysis.analyze(["legacy-unicast.pcap"])
        #expect(report.clients.count == 1)
        let c = try #require(report.clients.first)
        #expect(c.address == sender)
        #expect(c.legacyUnicast)
        #expect(c.queries == 1)
        #expect(c.qmQuestions == 1)
        #expect(c.quQuestions == 0)
        #expect(c.firstQuery == t("1795995843.292238972"))
        #expect(c.firstQueryFrame == ref(1))
        let d = try #require(report.devices.first)
        #expect(
            d.ttls.flatMap { ttl in ttl.values.map { "\(ttl.type) \($0)" } } == [
                "PTR 10", "SRV 10", "TXT 10", "A 10",
            ])
    }

    @Test("healthy-ipv4: the sender is not a legacy-unicast client; 1 QU and 2 QM questions")
    func notLegacy() throws {
        let report = try Analysis.analyze(["healthy-ipv4.pcap"])
        let c = try #require(report.clients.first)
        #expect(!c.legacyUnicast)
        #expect(c.queries == 3)
        #expect(c.quQuestions == 1)
        #expect(c.qmQuestions == 2)
        #expect(c.mac?.description == "02:ca:57:00:00:10")
        #expect(c.lastQuery == t("1795995758.296688627"))
    }

    @Test("dial-ssdp: 4 DIAL searches and a DIAL-only device with LOCATION, USN, SERVER")
    func dial() throws {
        // P=50769 (the M-SEARCH source port)
        // tshark -r captures/dial-ssdp.pcap -d udp.port==$P,ssdp -Y udp -T fields -e frame.number
        //   -e frame.time_epoch -e ip.src -e ip.dst -e _ws.col.Info
        //   5-8 NOTIFY ssdp:alive (7 is the first with a DIAL NT) 7 1795995848.197059677
        //   11 1795995849.369433772, 15, 17, 19: M-SEARCH from 192.0.2.10; 14, 16, 18, 20: 200 OK from 192.0.2.21
        //   33-36 NOTIFY ssdp:byebye, 36 1795995854.978035448
        // tshark -r captures/dial-ssdp.pcap -Y 'frame.number==36' -T fields -e udp.payload | xxd -r -p
        let report = try Analysis.analyze(["dial-ssdp.pcap"])
        let c = try #require(report.clients.first { $0.address == sender })
        #expect(report.clients.count == 1)
        #expect(c.dialSearches == 4)
        #expect(c.firstDialSearch == t("1795995849.369433772"))
        #expect(c.queries == 0)
        #expect(report.devices.count == 1)
        let d = try #require(report.devices.first)
        #expect(d.id == ID.dialUUID)
        #expect(d.via == ["dial"])
        #expect(d.addresses == [ip("192.0.2.21")])
        let info = try #require(d.dial)
        #expect(info.location == "http://192.0.2.21:8008/ssdp/device-desc.xml")
        #expect(info.usn == "uuid:3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35::urn:dial-multiscreen-org:service:dial:1")
        #expect(info.server == "Linux/3.8.13+, UPnP/1.0, Portable SDK for UPnP devices/1.6.18")
        #expect(info.address == ip("192.0.2.21"))
        #expect(d.firstSeen == t("1795995848.197059677"))
        #expect(info.firstFrame == ref(7))
        #expect(d.lastSeen == t("1795995854.978035448"))
        #expect(d.leftAt == t("1795995854.978035448"))
        // No mDNS session; one DIAL row per M-SEARCH, each answered (11→14, 15→16, 17→18, 19→20).
        #expect(report.latency.filter { $0.via == .mdns }.isEmpty)
        let dial = report.latency.filter { $0.via == .dial }
        #expect(dial.map(\.sessionStartFrame) == [ref(11), ref(15), ref(17), ref(19)])
        #expect(dial.map(\.firstAnswerFrame) == [ref(14), ref(16), ref(18), ref(20)])
        #expect(c.dialUserAgent == "Google Chrome/120.0.0.0 Linux" && c.dialSearchesAnswered == 4)
    }

    @Test("--client keeps only the named clients", arguments: ["192.0.2.10", "192.0.2.11"])
    func clientFilter(_ only: String) throws {
        // tshark -r captures/own-queries-dropped.pcap -Y 'mdns && dns.flags.response==0' -T fields
        //   -e frame.number -e ip.src -e dns.qry.name
        //   22, 24, 25: 192.0.2.10; 27, 30: 192.0.2.11 (probes from 192.0.2.21 ask for no Cast browse name)
        let all = try Analysis.analyze(["own-queries-dropped.pcap"])
        #expect(Set(all.clients.map(\.address)) == [sender, ip("192.0.2.11")])
        var options = AnalysisOptions()
        options.clients = [ip(only)]
        let report = try Analysis.analyze(["own-queries-dropped.pcap"], options: options)
        #expect(report.clients.map(\.address) == [ip(only)])
        #expect(report.clients.first?.queries == (only == "192.0.2.10" ? 3 : 2))
        #expect(!report.latency.isEmpty)
        #expect(report.latency.allSatisfy { $0.client == ip(only) })
        #expect(report.responses.allSatisfy { $0.client == ip(only) })
        #expect(report.devices.map(\.id) == [ID.livingRoomTV], "devices do not depend on the client filter")
    }

    @Test("own-queries-dropped: the sender's first two queries are missed")
    func ownQueriesMissed() throws {
        let report = try Analysis.analyze(["own-queries-dropped.pcap"])
        let r = try #require(report.responses.first { $0.client == sender && $0.deviceID == ID.livingRoomTV })
        // 22 and 24 get no answer before the next query (README: "None is answered").
        #expect(r.missed >= 2)
        #expect(Array(r.missedFrames.prefix(2)) == [ref(22), ref(24)])
    }

    @Test("intervals between query bursts and RFC 6762 doubling")
    func intervals() throws {
        // tshark -r captures/healthy-ipv4.pcap -Y 'mdns && dns.flags.response==0' -T fields -e frame.number
        //   -e frame.time_epoch
        //   2 1795995753.292133685   5 1795995754.293809686   6 1795995758.296688627
        //   intervals 1001.676001 ms, 4002.878941 ms (1.0 s, then x4: doubling holds)
        let report = try Analysis.analyze(["healthy-ipv4.pcap"])
        let c = try #require(report.clients.first)
        #expect(c.intervalsMs.count == 2)
        #expect(abs(c.intervalsMs[0] - 1001.676001) < 0.001)
        #expect(abs(c.intervalsMs[1] - 4002.878941) < 0.001)
        #expect(c.followsDoubling == true)

        // multi-device: 3 1795995769.689450664, 9 1795995770.691429847, 10 1795995774.692744578
        let multi = try #require(try Analysis.analyze(["multi-device.pcap"]).clients.first)
        #expect(multi.intervalsMs.count == 2)
        #expect(abs(multi.intervalsMs[0] - 1001.979183) < 0.001)
        #expect(abs(multi.intervalsMs[1] - 4001.314731) < 0.001)
        #expect(multi.followsDoubling == true)

        // legacy-unicast: one query, no interval.
        let single = try #require(try Analysis.analyze(["legacy-unicast.pcap"]).clients.first)
        #expect(single.intervalsMs.isEmpty)
        #expect(single.followsDoubling == nil)
    }

    @Test("a re-query 1.2 s after a 1.0 s interval breaks doubling")
    func notDoubling() throws {
        var packets = try Analysis.load("healthy-ipv4.pcap").packets
        // Move query 6 to 1.2 s after query 5 (it was 4.002878941 s after).
        let i = try #require(packets.firstIndex { $0.frame == 6 })
        packets[i] = Analysis.shifted([packets[i]], by: -(4_002_878_941 - 1_200_000_000))[0]
        let c = try #require(Analysis.report([(packets, 0)]).clients.first)
        #expect(c.intervalsMs.count == 2)
        #expect(abs(c.intervalsMs[1] - 1200.0) < 0.001)
        #expect(c.followsDoubling == false)
    }
}

// MARK: - Several files

@Suite("Analysis: several files")
struct AnalysisMultiFileTests {
    @Test("healthy-ipv4 + dial-ssdp: one device found by mDNS and DIAL")
    func mdnsAndDial() throws {
        let report = try Analysis.analyze(["healthy-ipv4.pcap", "dial-ssdp.pcap"])
        #expect(report.captures.map(\.file) == ["healthy-ipv4.pcap", "dial-ssdp.pcap"].map(Analysis.path))
        #expect(report.devices.count == 1)
        let d = try #require(report.devices.first)
        #expect(d.id == ID.livingRoomTV)
        #expect(d.via == ["mdns", "dial"])
        #expect(d.addresses == [ip("192.0.2.21")])
        #expect(d.dial?.usn == "uuid:3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35::urn:dial-multiscreen-org:service:dial:1")
        // First seen in healthy-ipv4 frame 3 (1795995753.410164323), last heard in dial-ssdp frame 36.
        #expect(d.firstSeen == t("1795995753.410164323"))
        #expect(d.lastSeen == t("1795995854.978035448"))
        #expect(report.clients.count == 1)
        let c = try #require(report.clients.first)
        #expect(c.queries == 3)
        #expect(c.dialSearches == 4)
    }

    @Test("the same file twice: devices merge by id, clients merge by address")
    func sameFileTwice() throws {
        let report = try Analysis.analyze(["healthy-ipv4.pcap", "healthy-ipv4.pcap"])
        #expect(report.captures.count == 2)
        #expect(report.devices.count == 1)
        #expect(report.devices.first?.id == ID.livingRoomTV)
        #expect(report.devices.first?.via == ["mdns"])
        #expect(report.clients.count == 1)
        let c = try #require(report.clients.first)
        #expect(c.queries == 6)
        #expect(c.quQuestions == 2)
        #expect(c.qmQuestions == 4)
        #expect(c.sessions == 2)
        #expect(c.intervalsMs.count == 4)
        #expect(report.latency.map(\.sessionStartFrame) == [ref(2, capture: 0), ref(2, capture: 1)])
        #expect(report.latency.allSatisfy { abs(($0.firstAnswerMs ?? -1) - 118.030638) < 0.001 })
        let r = try #require(report.responses.first)
        #expect(report.responses.count == 1)
        #expect(counts(r) == [6, 2, 4, 0] as [Int])
    }

    @Test("multi-device + healthy-ipv4: four devices, none merged by mistake")
    func distinctDevices() throws {
        let report = try Analysis.analyze(["multi-device.pcap", "healthy-ipv4.pcap"])
        #expect(Set(report.devices.map(\.id)) == [ID.bedroomTV, ID.homeMini, ID.group, ID.livingRoomTV])
        #expect(report.devices.count == 4)
    }
}

// MARK: - Memory

@Suite("Analysis: bounded memory")
struct AnalysisMemoryTests {
    @Test("the capture fed 2000 times keeps the TrackerLimits bounds")
    func bounded() throws {
        let packets = try Analysis.load("healthy-ipv4.pcap").packets
        #expect(packets.count == 4)
        var tracker = DiscoveryTracker()
        let copies = 2000
        for k in 0..<copies {
            // 100 s apart: each copy is its own session (gap 94.995 s >= 60 s).
            for p in Analysis.shifted(packets, by: Int64(k) * 100_000_000_000) { tracker.ingest(p, capture: 0) }
        }
        let state = try #require(tracker.client(at: sender))
        #expect(state.finished.count == TrackerLimits.maximumSessionsKept)
        #expect(state.intervals.count == TrackerLimits.maximumIntervalsKept)
        #expect(state.intervalCount == 2 * copies)
        #expect(tracker.instances.count == 1)
        #expect(tracker.hosts.count == 1)
        let report = AnalysisReport(
            captures: [CaptureInfo(file: "x", linkType: "EN10MB")], timelines: [tracker.finish()],
            options: AnalysisOptions(), merged: false)
        let c = try #require(report.clients.first)
        #expect(c.sessions == copies)
        #expect(c.queries == 3 * copies)
        #expect(c.intervalsMs.count == TrackerLimits.maximumIntervalsKept)
        #expect(c.followsDoubling == true)
        #expect(report.latency.count == TrackerLimits.maximumSessionsKept)
        #expect(report.devices.count == 1)
        let r = try #require(report.responses.first)
        #expect(counts(r) == [3 * copies, copies, 2 * copies, 0] as [Int])
        #expect((r.delay?.count ?? 0) <= TrackerLimits.maximumDelaysKept)
        #expect(r.missedFrames.count <= TrackerLimits.maximumMissedFramesKept)
    }
}

@Suite("Analysis: per-query outcomes")
struct AnalysisQueryOutcomeTests {
    @Test("healthy-ipv4: query 2 answered by frame 3, queries 5 and 6 suppressed")
    func healthy() throws {
        // tshark -r captures/healthy-ipv4.pcap -Y mdns -T fields -e frame.number -e frame.time_epoch
        //   2 1795995753.292133685 (query), 3 1795995753.410164323 (answer, PTR 4500),
        //   5 and 6: queries listing the PTR as a known answer with TTL 4499 / 4495 (>= 4500 / 2)
        let report = try Analysis.analyze(["healthy-ipv4.pcap"])
        let queries = report.queries.filter { $0.client == sender }
        #expect(queries.map(\.frame) == [ref(2), ref(5), ref(6)])
        #expect(queries.allSatisfy { $0.names == ["_googlecast._tcp.local"] })
        let first = try #require(queries.first)
        #expect(first.answered.map(\.deviceID) == [ID.livingRoomTV])
        #expect(first.answered.first?.frame == ref(3))
        #expect(abs((first.answered.first?.delayMs ?? -1) - 118.030638) < 0.001)
        #expect(queries.dropFirst().allSatisfy { $0.answered.isEmpty && $0.suppressed == [ID.livingRoomTV] })
        #expect(queries.allSatisfy { $0.missed.isEmpty })
    }

    @Test("own-queries-dropped: the sender's queries are all missed, the phone's first is answered")
    func dropped() throws {
        let report = try Analysis.analyze(["own-queries-dropped.pcap"])
        let mine = report.queries.filter { $0.client == sender }
        #expect(mine.count == 3)
        #expect(mine.allSatisfy { $0.answered.isEmpty && $0.missed == [ID.livingRoomTV] })
        let phone = report.queries.filter { $0.client == ip("192.0.2.11") }
        #expect(phone.first?.answered.map(\.deviceID) == [ID.livingRoomTV])
        #expect(abs((phone.first?.answered.first?.delayMs ?? -1) - 50.436338) < 0.001)
    }
}
