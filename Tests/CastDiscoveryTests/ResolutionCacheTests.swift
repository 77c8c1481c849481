import CastDiscovery
import Testing
import WireFormat

// A client's cache counts towards resolution (issue 13): records it heard before or during the
// session, still within their TTL, resolve a device whose answer leaves them out (RFC 6762 §6,
// §7.4: responders do not multicast a record again within a second).

enum CacheScenario {
    static let castType = DNSName("_googlecast._tcp.local")
    static let instance = DNSName("Living-Room-TV-0a1b2c._googlecast._tcp.local")
    static let host = DNSName("0a1b2c.local")
    static let device = IPAddress.v4(IPv4Address(192, 0, 2, 50))
    static let client = IPAddress.v4(IPv4Address(192, 0, 2, 10))
    static let group = IPAddress.v4(IPv4Address(224, 0, 0, 251))

    static func packet(
        _ frame: Int, at ms: Int64, from source: IPAddress, to destination: IPAddress = group,
        destinationPort: UInt16 = 5353, _ m: DNSMessage
    ) -> DiscoveryPacket {
        var p = DiscoveryPacket(
            frame: frame, timestamp: Timestamp(seconds: 1_800_000_000, nanoseconds: ms * 1_000_000), ipVersion: 4,
            source: source, destination: destination, ttl: 255, sourcePort: 5353, destinationPort: destinationPort,
            payload: .mdns(m))
        p.legacyUnicast = destinationPort != 5353
        return p
    }

    static var ptr: DNSResourceRecord { DNSResourceRecord(name: castType, type: .ptr, ttl: 120, data: .name(instance)) }
    static var srv: DNSResourceRecord {
        DNSResourceRecord(
            name: instance, type: .srv, cacheFlush: true, ttl: 120,
            data: .srv(priority: 0, weight: 0, port: 8009, target: host))
    }
    static var txt: DNSResourceRecord {
        DNSResourceRecord(
            name: instance, type: .txt, cacheFlush: true, ttl: 4500,
            data: .txt(TXTRecord(["id=0a1b2c3d4e5f", "fn=Living Room TV", "md=Chromecast", "ca=201221"])))
    }
    static func a(ttl: UInt32 = 120) -> DNSResourceRecord {
        DNSResourceRecord(name: host, type: .a, cacheFlush: true, ttl: ttl, data: .a(IPv4Address(192, 0, 2, 50)))
    }

    static func response(_ answers: [DNSResourceRecord], _ additionals: [DNSResourceRecord] = []) -> DNSMessage {
        var m = DNSMessage(flags: 0x8400)
        m.answers = answers
        m.additionals = additionals
        return m
    }

    static var query: DNSMessage {
        var m = DNSMessage()
        m.questions = [DNSQuestion(name: castType, type: .ptr)]
        return m
    }

    static func report(_ packets: [DiscoveryPacket]) -> AnalysisReport {
        let options = AnalysisOptions()
        var tracker = DiscoveryTracker(options: options)
        for p in packets { tracker.ingest(p, capture: 0) }
        var r = AnalysisReport(
            captures: [CaptureInfo(file: "cache", linkType: "EN10MB")], timelines: [tracker.finish()], options: options,
            merged: false)
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    /// An announcement of only the A record at `announced` ms (preceded by `before`), a query at
    /// 10 s and the answer PTR+SRV+TXT, without the A, 300 ms later.
    static func announceThenAnswer(announced: Int64, before: [DiscoveryPacket] = []) -> AnalysisReport {
        report(
            before + [
                packet(10, at: announced, from: device, response([a()])),
                packet(11, at: 10_000, from: client, query),
                packet(12, at: 10_300, from: device, response([ptr], [srv, txt])),
            ])
    }
}

@Suite("Resolution counts the client's cache")
struct ResolutionCacheTests {
    typealias S = CacheScenario

    @Test("the A announced 0.3 s before the answer resolves the device; latency is the answer's")
    func announcedJustBefore() throws {
        let r = S.announceThenAnswer(announced: 9_700)
        let row = try #require(r.latency.first)
        #expect(row.firstAnswerMs == 300)
        #expect(row.resolvedMs == 300)
        #expect(!r.findings.contains { $0.code == .incompleteResolution })
    }

    @Test("an A announced long before, still within its TTL, counts from the session start")
    func announcedEarlier() throws {
        let r = S.announceThenAnswer(announced: 0)
        #expect(r.latency.first?.resolvedMs == 300)
        #expect(!r.findings.contains { $0.code == .incompleteResolution })
    }

    @Test("an A whose TTL ran out before the session does not count")
    func expired() throws {
        let r = S.report([
            S.packet(1, at: 0, from: S.device, S.response([S.a(ttl: 5)])),
            S.packet(2, at: 10_000, from: S.client, S.query),
            S.packet(3, at: 10_300, from: S.device, S.response([S.ptr], [S.srv, S.txt])),
        ])
        #expect(r.latency.first?.resolvedMs == nil)
        #expect(r.findings.contains { $0.code == .incompleteResolution })
    }

    @Test("a goodbye removes the cached A")
    func goodbye() throws {
        let gone = S.report([
            S.packet(1, at: 0, from: S.device, S.response([S.a()])),
            S.packet(2, at: 5_000, from: S.device, S.response([S.a(ttl: 0)])),
            S.packet(3, at: 10_000, from: S.client, S.query),
            S.packet(4, at: 10_300, from: S.device, S.response([S.ptr], [S.srv, S.txt])),
        ])
        #expect(gone.latency.first?.resolvedMs == nil)
        #expect(gone.findings.contains { $0.code == .incompleteResolution })
    }

    @Test("a legacy unicast answer (TTL 10) neither caches nor shortens the multicast copy")
    func legacyUnicastDoesNotExpire() throws {
        let other = IPAddress.v4(IPv4Address(192, 0, 2, 11))
        let r = S.report([
            S.packet(1, at: 0, from: S.device, S.response([S.a()])),
            S.packet(2, at: 1_000, from: S.device, to: other, destinationPort: 40000, S.response([S.a(ttl: 10)])),
            S.packet(3, at: 30_000, from: S.client, S.query),
            S.packet(4, at: 30_300, from: S.device, S.response([S.ptr], [S.srv, S.txt])),
        ])
        #expect(r.latency.first?.resolvedMs == 300)
        let onlyLegacy = S.report([
            S.packet(1, at: 0, from: S.device, to: S.client, destinationPort: 40000, S.response([S.a(ttl: 10)])),
            S.packet(2, at: 3_000, from: S.client, S.query),
            S.packet(3, at: 3_300, from: S.device, S.response([S.ptr], [S.srv, S.txt])),
        ])
        #expect(onlyLegacy.latency.first?.resolvedMs == nil)
    }

    @Test("unicast to another host does not reach the client's cache; unicast to it does")
    func unicastAudience() throws {
        let other = IPAddress.v4(IPv4Address(192, 0, 2, 11))
        func run(to: IPAddress) -> Double? {
            S.report([
                S.packet(1, at: 0, from: S.device, to: to, S.response([S.a()])),
                S.packet(2, at: 10_000, from: S.client, S.query),
                S.packet(3, at: 10_300, from: S.device, S.response([S.ptr], [S.srv, S.txt])),
            ]).latency.first?.resolvedMs
        }
        #expect(run(to: other) == nil)
        #expect(run(to: S.client) == 300)
    }

    @Test("SRV and TXT cached with the A: the PTR answer alone resolves, at its own time")
    func onlyPTR() throws {
        let r = S.report([
            S.packet(1, at: 0, from: S.device, S.response([S.srv, S.txt, S.a()])),
            S.packet(2, at: 10_000, from: S.client, S.query),
            S.packet(3, at: 10_120, from: S.device, S.response([S.ptr])),
        ])
        #expect(r.latency.first?.firstAnswerMs == 120)
        #expect(r.latency.first?.resolvedMs == 120)
    }

    @Test("the complete answer resolves at the last record, never before the PTR answer")
    func completeAnswer() throws {
        let r = S.report([
            S.packet(1, at: 10_000, from: S.client, S.query),
            S.packet(2, at: 10_050, from: S.device, S.response([S.srv, S.txt, S.a()])),
            S.packet(3, at: 10_200, from: S.device, S.response([S.ptr])),
        ])
        #expect(r.latency.first?.firstAnswerMs == 200)
        #expect(r.latency.first?.resolvedMs == 200)
    }

    @Test("cached-address.pcap: the A announced 0.58 s before a PTR+SRV+TXT answer; resolved at the answer")
    func capture() throws {
        let r = try DiagnosisSupport.report("cached-address.pcap")
        let row = try #require(r.latency.first)
        let first = try #require(row.firstAnswerMs)
        #expect(row.resolvedMs == first && first > 50 && first < 500)
        #expect(row.resolvedFrame?.frame == 7)
        #expect(DiagnosisSupport.codes(r).isEmpty)
    }

    @Test("incomplete-resolution.pcap still fires: nothing but the PTR ever arrives")
    func ptrOnlyStillFires() throws {
        let r = try DiagnosisSupport.report("incomplete-resolution.pcap")
        #expect(DiagnosisSupport.codes(r, [.error, .warning]) == ["INCOMPLETE_RESOLUTION"])
    }
}
