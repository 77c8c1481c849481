import CastDiscovery
import Testing
import WireFormat

// A response that reached a client's session and changed nothing is skipped for that client
// when it comes again, until the session changes (Tracker-repeats). Messages get the stamp that
// allows this only when checked with an index (the in-place path); these tests read the same
// packets both ways and want the same report, in the cases where skipping would be wrong.

@Suite("Repeated responses")
struct RepeatedResponseTests {
    typealias S = CacheScenario

    static let subtype = DNSName("_ABCD1234._sub._googlecast._tcp.local")

    /// The report of `packets`, their messages read with stamps (`stamped`) or without.
    static func report(_ packets: [DiscoveryPacket], stamped: Bool) -> AnalysisReport {
        let options = AnalysisOptions()
        var tracker = DiscoveryTracker(options: options)
        let index = DNSMessageIndex()
        for p in packets {
            p.withMessageView(index: stamped ? index : nil) { view in tracker.ingest(p, message: view, capture: 0) }
        }
        var r = AnalysisReport(
            captures: [CaptureInfo(file: "repeats", linkType: "EN10MB")], timelines: [tracker.finish()],
            options: options, merged: false)
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    /// Both reports of `packets`, which must agree.
    static func expectSame(_ packets: [DiscoveryPacket], _ comment: Comment) -> AnalysisReport {
        let plain = report(packets, stamped: false)
        let stamped = report(packets, stamped: true)
        #expect(stamped.devices == plain.devices, comment)
        #expect(stamped.clients == plain.clients, comment)
        #expect(stamped.latency == plain.latency, comment)
        #expect(stamped.responses == plain.responses, comment)
        #expect(stamped.queries == plain.queries, comment)
        #expect(stamped.findings == plain.findings, comment)
        return stamped
    }

    static func query(_ names: [DNSName]) -> DNSMessage {
        var m = DNSMessage()
        m.questions = names.map { DNSQuestion(name: $0, type: .ptr) }
        return m
    }

    @Test("an answer repeated after the client asks its name counts for that name")
    func askedNameForgetsRepeats() {
        // The device answers under the app subtype before the client asks it: its SRV, TXT and
        // A reach the session, the PTR does not count (not asked). Once the client asks the
        // subtype, the same bytes must count as the subtype's answer.
        let answer = S.response(
            [DNSResourceRecord(name: Self.subtype, type: .ptr, ttl: 120, data: .name(S.instance))],
            [S.srv, S.txt, S.a()])
        var packets = [S.packet(1, at: 0, from: S.client, Self.query([S.castType]))]
        for (i, ms) in [100, 200, 300].enumerated() {
            packets.append(S.packet(2 + i, at: Int64(ms), from: S.device, answer))
        }
        packets.append(S.packet(5, at: 2_000, from: S.client, Self.query([Self.subtype, S.castType])))
        packets.append(S.packet(6, at: 2_100, from: S.device, answer))
        let r = Self.expectSame(packets, "asked name")
        #expect(!r.findings.contains { $0.code == .appIDUnanswered }, "the subtype's answer was not counted")
    }

    @Test("a repeat waits while the client still lacks a record its cache may hold")
    func unsettledInstanceIsNotSkipped() {
        // A trunk capture: the client on VLAN 10, the device's address record on VLAN 20 (so it
        // reaches the client's cache, per address family, not its session). The answer lacks
        // the A record; while it does, a repeat must look at the cache again.
        var q = S.packet(1, at: 0, from: S.client, S.query)
        q.vlanIDs = [10]
        let answer = S.response([S.ptr], [S.srv, S.txt])
        var packets = [q]
        for (i, ms) in [100, 200].enumerated() {
            var p = S.packet(2 + i, at: Int64(ms), from: S.device, answer)
            p.vlanIDs = [10]
            packets.append(p)
        }
        var a = S.packet(4, at: 300, from: S.device, S.response([S.a()]))
        a.vlanIDs = [20]
        packets.append(a)
        var again = S.packet(5, at: 400, from: S.device, answer)
        again.vlanIDs = [10]
        packets.append(again)
        let r = Self.expectSame(packets, "unsettled")
        #expect(r.latency.contains { $0.resolvedMs != nil }, "the cached address did not resolve the device")
    }

    @Test("a repeat after another response changed the session is read again")
    func changedSessionForgetsRepeats() {
        // SRV and A multicast before the session (cached). In the session, a PTR under a name
        // the client did not ask changes nothing (nothing of the instance has reached it yet);
        // then its TXT does. The same PTR again must now recall the cached SRV and A for it.
        let unasked = S.response([DNSResourceRecord(name: Self.subtype, type: .ptr, ttl: 120, data: .name(S.instance))])
        let packets = [
            S.packet(1, at: 1_000, from: S.device, S.response([S.srv, S.a()])),
            S.packet(2, at: 5_000, from: S.client, S.query),
            S.packet(3, at: 5_100, from: S.device, unasked),
            S.packet(4, at: 5_200, from: S.device, S.response([S.txt])),
            S.packet(5, at: 5_300, from: S.device, unasked),
        ]
        let r = Self.expectSame(packets, "changed session")
        #expect(r.latency.contains { $0.resolvedMs != nil }, "the cached SRV and A were not recalled")
    }

    @Test("repeats skipped in a long exchange leave the report as it is without skipping")
    func longExchange() {
        // Queries every 1.5 s for 30 s, each answered twice, with announcements between.
        var packets: [DiscoveryPacket] = []
        var frame = 1
        let answer = S.response([S.ptr], [S.srv, S.txt, S.a()])
        let announcement = S.response([S.ptr, S.srv, S.txt, S.a()])
        for i in 0..<20 {
            let t = Int64(i) * 1_500
            packets.append(S.packet(frame, at: t, from: S.client, S.query))
            packets.append(S.packet(frame + 1, at: t + 40, from: S.device, answer))
            packets.append(S.packet(frame + 2, at: t + 90, from: S.device, answer))
            packets.append(S.packet(frame + 3, at: t + 700, from: S.device, announcement))
            frame += 4
        }
        let r = Self.expectSame(packets, "long exchange")
        #expect(r.queries.count == 20)
    }
}
