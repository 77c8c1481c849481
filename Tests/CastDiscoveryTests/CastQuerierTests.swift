import Testing
import WireFormat

@testable import CastDiscovery

// `castscope probe`'s querier: what it asks and when (RFC 6762 §5.2, §7.1, §7.2; DOMAIN.md §2,
// §7.4), told the time and the answers.

@Suite struct CastQuerierTests {
    static let t0 = Timestamp(seconds: 1_800_000_000, nanoseconds: 0)
    static let instance = DNSName("Chromecast-3f5d6b2a8c914e07b2d46a1f0c9e7d35._googlecast._tcp.local")
    static let host = DNSName("3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35.local")

    static func at(_ ms: Int64) -> Timestamp { t0.adding(nanoseconds: ms * 1_000_000) }

    /// A device's answer: PTR for `browse`, and optionally SRV, TXT and A in the additionals.
    static func answer(
        browse: DNSName = CastName.serviceTypeName, ptrTTL: UInt32 = 120, srv: Bool = true, txt: Bool = true,
        a: Bool = true
    ) -> DNSMessage {
        var m = DNSMessage(flags: 0x8400)
        m.answers = [DNSResourceRecord(name: browse, type: .ptr, ttl: ptrTTL, data: .name(instance))]
        if srv {
            m.additionals.append(
                DNSResourceRecord(
                    name: instance, type: .srv, cacheFlush: true, ttl: 120,
                    data: .srv(priority: 0, weight: 0, port: 8009, target: host)))
        }
        if txt {
            m.additionals.append(
                DNSResourceRecord(
                    name: instance, type: .txt, cacheFlush: true, ttl: 4500,
                    data: .txt(TXTRecord(["fn=Living Room TV"]))))
        }
        if a {
            m.additionals.append(
                DNSResourceRecord(
                    name: host, type: .a, cacheFlush: true, ttl: 120, data: .a(IPv4Address(192, 0, 2, 21))))
        }
        return m
    }

    @Test func asksTheServiceTypeTheMediaCriterionAndEachAppIDInOneQuery() {
        var q = CastQuerier(appIDs: ["233637de", "CC1AD845"])
        q.start(at: Self.t0, firstDelayNanoseconds: 50_000_000)
        #expect(q.scheduledQuery(now: Self.at(49)).isEmpty)
        let first = q.scheduledQuery(now: Self.at(50))
        #expect(first.count == 1)
        let names = first[0].questions.map { $0.name.description }
        #expect(
            names == [
                "_googlecast._tcp.local", "_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp.local",
                "_233637DE._sub._googlecast._tcp.local", "_CC1AD845._sub._googlecast._tcp.local",
            ])
        #expect(first[0].questions.allSatisfy { $0.type == .ptr && $0.unicastResponse })
        #expect(first[0].id == 0 && first[0].flags == 0)
        // The names classify as the analysis classifies them.
        #expect(CastName(first[0].questions[1].name) == .mediaCriterion)
        #expect(CastName(first[0].questions[2].name) == .subtype(appID: "233637DE"))
    }

    @Test func firstQueryIsQUThenQMWithTheGapDoubling() {
        var q = CastQuerier(appIDs: [])
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        var sent: [(Int64, Bool)] = []
        for ms in stride(from: Int64(0), through: 16_000, by: 5) {
            for m in q.scheduledQuery(now: Self.at(ms)) { sent.append((ms, m.questions[0].unicastResponse)) }
        }
        #expect(sent.map(\.0) == [20, 1020, 3020, 7020, 15020])
        #expect(sent.map(\.1) == [true, false, false, false, false])
        #expect(q.queriesSent == 5)
    }

    @Test func knownAnswersAreListedWhileAboveHalfTheirTTLWithTheRemainingTTL() {
        var q = CastQuerier(appIDs: [])
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        _ = q.scheduledQuery(now: Self.at(20))
        q.ingest(Self.answer(ptrTTL: 4), at: Self.at(40))
        // 1 s later: 3 s of 4 remain (above half): listed, TTL 3, no cache-flush.
        let second = q.scheduledQuery(now: Self.at(1020))
        #expect(second.count == 1)
        #expect(second[0].answers.count == 1)
        #expect(second[0].answers.first?.ttl == 3)
        #expect(second[0].answers.first?.data == .name(Self.instance))
        #expect(second[0].questions.allSatisfy { !$0.unicastResponse })
        // 3 s after it arrived only 1 s of 4 remains: not listed (the device must answer again).
        let third = q.scheduledQuery(now: Self.at(3020))
        #expect(third[0].answers.isEmpty)
    }

    @Test func aGoodbyeWithdrawsTheKnownAnswer() {
        var q = CastQuerier(appIDs: [])
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        _ = q.scheduledQuery(now: Self.at(20))
        q.ingest(Self.answer(), at: Self.at(40))
        q.ingest(Self.answer(ptrTTL: 0, srv: false, txt: false, a: false), at: Self.at(500))
        #expect(q.scheduledQuery(now: Self.at(1020))[0].answers.isEmpty)
        #expect(q.instances.first?.withdrawn == true)
    }

    @Test func knownAnswersThatOverflowAPacketGoOnWithTC() {
        var q = CastQuerier(appIDs: [])
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        _ = q.scheduledQuery(now: Self.at(20))
        for n in 0..<40 {
            var m = DNSMessage(flags: 0x8400)
            let name = DNSName("Google-Cast-Group-\(n)-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa._googlecast._tcp.local")
            m.answers = [DNSResourceRecord(name: CastName.serviceTypeName, type: .ptr, ttl: 120, data: .name(name))]
            q.ingest(m, at: Self.at(40))
        }
        let messages = q.scheduledQuery(now: Self.at(1020))
        #expect(messages.count >= 2)
        #expect(messages.dropLast().allSatisfy { $0.flags & 0x0200 != 0 })
        #expect(messages.last!.flags & 0x0200 == 0)
        #expect(messages.allSatisfy { $0.wireFormat().count <= CastQuerier.maximumMessageBytes })
        #expect(messages.map(\.answers.count).reduce(0, +) == 40)
        #expect(messages[0].questions.count == 2 && messages.dropFirst().allSatisfy { $0.questions.isEmpty })
    }

    @Test func anInstanceWithoutSRVOrTXTIsAskedFor200msLaterThenEachSecondThreeTimes() {
        var q = CastQuerier(appIDs: [])
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        _ = q.scheduledQuery(now: Self.at(20))
        q.ingest(Self.answer(srv: false, txt: false, a: false), at: Self.at(40))
        #expect(q.followUp(now: Self.at(239)) == nil)
        #expect(q.nextFollowUpAt() == Self.at(240))
        let first = q.followUp(now: Self.at(240))
        #expect(first?.questions.map(\.type) == [.srv, .txt])
        #expect(first?.questions.allSatisfy { $0.name.equalsIgnoringCase(Self.instance) } == true)
        #expect(q.followUp(now: Self.at(1239)) == nil)
        #expect(q.followUp(now: Self.at(1240)) != nil)
        #expect(q.followUp(now: Self.at(2240)) != nil)
        #expect(q.followUp(now: Self.at(9240)) == nil)
        #expect(q.nextFollowUpAt() == nil)
        #expect(q.instances.first.map(q.isResolved) == false)
    }

    @Test func aTargetWithoutAnAddressIsAskedForAAndAAAAOfTheFamiliesInUse() {
        var q = CastQuerier(appIDs: [])
        q.wantsIPv6 = false
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        _ = q.scheduledQuery(now: Self.at(20))
        q.ingest(Self.answer(a: false), at: Self.at(40))
        let m = q.followUp(now: Self.at(240))
        #expect(m?.questions.map(\.type) == [.a])
        #expect(m?.questions.first?.name == Self.host)
        var reply = DNSMessage(flags: 0x8400)
        reply.answers = [
            DNSResourceRecord(name: Self.host, type: .a, ttl: 120, data: .a(IPv4Address(192, 0, 2, 21)))
        ]
        q.ingest(reply, at: Self.at(300))
        #expect(q.instances.first.map(q.isResolved) == true)
        #expect(q.instances.first.map(q.addresses) == [.v4(IPv4Address(192, 0, 2, 21))])
        #expect(q.followUp(now: Self.at(5000)) == nil)
    }

    @Test func aCompleteAnswerResolvesAtOnceAndRecordsWhereItWasFound() {
        var q = CastQuerier(appIDs: ["233637DE"])
        q.start(at: Self.t0, firstDelayNanoseconds: 20_000_000)
        _ = q.scheduledQuery(now: Self.at(20))
        q.ingest(Self.answer(browse: DNSName("_233637de._sub._googlecast._tcp.local")), at: Self.at(40))
        q.ingest(Self.answer(), at: Self.at(41))
        #expect(q.instances.count == 1)
        let i = q.instances[0]
        #expect(q.isResolved(i))
        #expect(i.port == 8009)
        #expect(i.browseNames == ["_233637de._sub._googlecast._tcp.local", "_googlecast._tcp.local"])
        #expect(q.followUp(now: Self.at(5000)) == nil)
        // Queries are ignored; so are PTRs for names the querier did not ask.
        var other = Self.answer(browse: DNSName("_airplay._tcp.local"))
        q.ingest(other, at: Self.at(50))
        other.flags = 0
        q.ingest(other, at: Self.at(51))
        #expect(q.instances.count == 1)
    }
}
