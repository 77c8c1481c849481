import Testing

@testable import CastDiscovery

/// Builds a side from (time, kind, host, content) tuples, frames numbered in order.
private func side(
    _ name: String, _ items: [(Double, CastMessageKind, String, UInt8)], start: Double, end: Double,
    source: [String: String] = [:], ttl: UInt8 = 255, unicast: Set<UInt8> = [], names: [String: String] = [:]
) -> CompareSide {
    var s = CompareSide(shownName: name)
    for (i, (t, kind, host, c)) in items.enumerated() {
        let m = ObservedMessage(
            frame: i + 1, time: t, content: [0, 0, kind == .query ? 0 : 0x84, c], source: source[host] ?? host,
            ttl: ttl,
            multicast: !unicast.contains(c), host: host)
        s.append(m, kind: kind, friendlyName: names[host])
    }
    s.records = items.count
    s.start = start
    s.end = end
    return s
}

private let phone = "192.0.2.10"
private let tv = "192.0.2.20"

/// A sender querying every second (contents 1…n) and a device answering 3 ms later (101…);
/// B's clock `offset` ahead; the queries in `lostQ` and answers in `lostR` never arrive.
private func scenario(
    queries n: Int = 10, offset: Double = 5, delayQ: Double = 0.002, delayR: Double = 0.004,
    lostQ: Set<Int> = [], lostR: Set<Int> = [], bStart: Double? = nil
) -> (CompareSide, CompareSide) {
    var a: [(Double, CastMessageKind, String, UInt8)] = []
    var b: [(Double, CastMessageKind, String, UInt8)] = []
    for i in 0..<n {
        let t = 100 + Double(i)
        a.append((t, .query, phone, UInt8(1 + i)))
        if !lostQ.contains(i) { b.append((t + delayQ + offset, .query, phone, UInt8(1 + i))) }
        // The device answers every query that reached it, 20 ms after.
        if !lostQ.contains(i) {
            let sent = t + delayQ + 0.020
            b.append((sent + offset, .response, tv, UInt8(101 + i)))
            if !lostR.contains(i) { a.append((sent + delayR, .response, tv, UInt8(101 + i))) }
        }
    }
    a.sort { $0.0 < $1.0 }
    return (
        side("a.pcap", a, start: 99, end: 100 + Double(n) + 1, names: [tv: "Living Room TV"]),
        side(
            "b.pcap", b, start: (bStart ?? 99) + offset, end: 100 + Double(n) + 1 + offset,
            names: [tv: "Living Room TV"])
    )
}

private func codes(_ c: CaptureComparison) -> [String: Severity] {
    Dictionary(c.findings.map { ($0.finding.code.rawValue, $0.finding.severity) }, uniquingKeysWith: { x, _ in x })
}

@Suite("compare: two captures lined up, per direction")
struct CaptureComparisonTests {
    @Test("losses both ways are counted, with frames; the offset comes from both directions")
    func losses() throws {
        let (a, b) = scenario(lostQ: [2, 6], lostR: [0, 4, 9])
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.queries.seen == 10 && c.queries.arrived == 8 && c.queries.lost == 2)
        #expect(c.answers.seen == 8 && c.answers.arrived == 5 && c.answers.lost == 3)
        #expect(c.queries.lostFrames.map { a.messages[$0 - 1].content[3] } == [3, 7])
        #expect(c.answers.lostFrames.map { b.messages[$0 - 1].content[3] } == [101, 105, 110])
        #expect(c.offsetBasis == .bothDirections)
        let o = try #require(c.offset)
        // NTP: θ = 5 + (2 ms − 4 ms) / 2; each way then measures 3 ms.
        #expect(abs(o.median - 4.999) < 1e-6)
        #expect(abs(try #require(c.queries.delay).p50 - 0.003) < 1e-6)
        #expect(abs(try #require(c.answers.delay).p50 - 0.003) < 1e-6)
        #expect(c.senders.map(\.host) == [phone] && c.devices.map(\.host) == [tv])
        #expect(c.devices[0].name == "Living Room TV" && c.devices[0].lost == 3)
        let found = codes(c)
        #expect(found["COMPARE_QUERIES_LOST"] == .warning)  // 20 %
        #expect(found["COMPARE_ANSWERS_LOST"] == .warning)  // 37.5 %
        #expect(found["COMPARE_OK"] == nil)
    }

    @Test("nothing lost: COMPARE_OK and no loss finding")
    func clean() throws {
        let (a, b) = scenario()
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.queries.lost == 0 && c.answers.lost == 0)
        #expect(Set(codes(c).keys) == ["COMPARE_OK"])
    }

    @Test("every query lost is an error; answers then cannot be judged")
    func allQueriesLost() throws {
        // Without a single pair there is no offset: lose all but B's own clock reference.
        let (a, b) = scenario(lostQ: Set(0..<10))
        // Nothing matched at all: two-point comparison has no offset.
        let none = try CaptureComparison.compare(a, b).get()
        #expect(none.offset == nil)
        // With one device announcement heard on both sides, the offset is known and the loss an error.
        var a2 = a
        var b2 = b
        b2.append(
            ObservedMessage(frame: 99, time: 100.5 + 5, content: [0, 0, 0x84, 200], source: tv, ttl: 255, host: tv),
            kind: .response, friendlyName: nil)
        a2.append(
            ObservedMessage(frame: 99, time: 100.501, content: [0, 0, 0x84, 200], source: tv, ttl: 255, host: tv),
            kind: .response, friendlyName: nil)
        let c = try CaptureComparison.compare(a2, b2).get()
        #expect(c.queries.arrived == 0 && c.queries.lost == 10)
        #expect(codes(c)["COMPARE_QUERIES_LOST"] == .error)
    }

    @Test("messages that stop arriving: a warning even below a fifth, with the last arrival")
    func stopped() throws {
        let (a, b) = scenario(queries: 20, lostQ: [17, 18, 19])
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.queries.lost == 3 && c.queries.lostAfterLastArrival == 3)
        #expect(c.queries.lastArrival == 116)
        #expect(codes(c)["COMPARE_QUERIES_LOST"] == .warning)
        let scattered = try CaptureComparison.compare(
            scenario(queries: 20, lostQ: [3, 9, 15]).0, scenario(queries: 20, lostQ: [3, 9, 15]).1
        ).get()
        #expect(codes(scattered)["COMPARE_QUERIES_LOST"] == .info)
    }

    @Test("queries sent before B started are outside the overlap, not lost")
    func overlap() throws {
        // B starts at A's 103.5: the queries at 100…103 could not be seen there.
        let (a, full) = scenario()
        var b = full
        let keep = b.messages.indices.filter { b.messages[$0].time - 5 >= 103.5 }
        b.messages = keep.map { b.messages[$0] }
        b.kinds = keep.map { b.kinds[$0] }
        b.start = 103.5 + 5
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.queries.outsideOverlap == 4)
        #expect(c.queries.seen == 6 && c.queries.lost == 0)
        #expect(codes(c)["COMPARE_QUERIES_LOST"] == nil)
    }

    @Test("a device that also queries is not a sender; --sender and --device choose; an unknown one is refused")
    func roles() throws {
        var (a, b) = scenario()
        // The TV queries too (Cast devices look for their groups), seen in A.
        a.append(
            ObservedMessage(frame: 50, time: 105.5, content: [0, 0, 0, 250], source: tv, ttl: 255, host: tv),
            kind: .query,
            friendlyName: nil)
        // Another phone's queries in A.
        a.append(
            ObservedMessage(frame: 51, time: 106.5, content: [0, 0, 0, 251], source: "192.0.2.11", ttl: 255),
            kind: .query, friendlyName: nil)
        let all = try CaptureComparison.compare(a, b).get()
        #expect(Set(all.senders.map(\.host)) == [phone, "192.0.2.11"])
        var o = CaptureComparison.Options()
        o.sender = phone
        o.device = "living room tv"
        let one = try CaptureComparison.compare(a, b, options: o).get()
        #expect(one.senders.map(\.host) == [phone] && one.queries.seen == 10)
        #expect(one.otherSenders == ["192.0.2.11"])
        #expect(one.devices.map(\.host) == [tv])
        o.sender = "203.0.113.9"
        #expect(throws: CaptureComparison.Refusal.self) { try CaptureComparison.compare(a, b, options: o).get() }
        o.sender = nil
        o.device = "Kitchen"
        guard case .failure(.noSuchDevice(let name, let known)) = CaptureComparison.compare(a, b, options: o) else {
            Issue.record("an unknown device is refused")
            return
        }
        #expect(name == "Kitchen" && known == ["Living Room TV (192.0.2.20)"])
    }

    @Test("copies from another source address: a reflector, noted with both frames")
    func reflector() throws {
        let (a, b0) = scenario()
        var b = b0
        for i in b.messages.indices where b.kinds[i] == .query { b.messages[i].source = "198.51.100.1" }
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.queries.sourceChanged == 10 && c.answers.sourceChanged == 0)
        #expect(codes(c)["COMPARE_REFLECTOR"] == .info)
        #expect(c.changedCopies.count == 10 && c.changedCopies[0].sourceB == "198.51.100.1")
    }

    @Test("a relay that rebuilds queries and adds known answers from its cache is named in the finding")
    func knownAnswersAdded() throws {
        // A DNS header: ID, flags, QDCOUNT 1, ANCOUNT `answers`; the rest stands for the question.
        func query(_ id: UInt8, answers: UInt8) -> [UInt8] { [0, id, 0, 0, 0, 1, 0, answers, 0, 0, 0, 0, 7] }
        var a = CompareSide(shownName: "a")
        var b = CompareSide(shownName: "b")
        for i in 0..<4 {
            let t = 10 + Double(i)
            a.append(
                ObservedMessage(
                    frame: i + 1, time: t, content: query(UInt8(i + 1), answers: 0), source: phone, ttl: 255,
                    canonical: 1), kind: .query, friendlyName: nil)
            // The reflector's copy: ID 0, and from the second on, the device's PTR as a known answer.
            b.append(
                ObservedMessage(
                    frame: i + 1, time: t + 0.001, content: query(0, answers: i == 0 ? 0 : 1), source: "198.51.100.1",
                    ttl: 255, canonical: 1), kind: .query, friendlyName: nil)
        }
        for s in [0, 1] {
            var side = s == 0 ? a : b
            side.start = 9
            side.end = 20
            if s == 0 { a = side } else { b = side }
        }
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.queries.arrived == 4 && c.queries.reencoded == 4 && c.queries.knownAnswersAdded == 3)
        let f = try #require(c.findings.first { $0.finding.code == .compareReflector })
        #expect(f.finding.detail.contains("known answers from its own cache to 3 relayed queries"))
    }

    @Test("multicast answers lost while unicast ones arrive: the advice names isolation")
    func unicastOnly() throws {
        var (a, b) = scenario(lostR: [0, 1, 2, 3, 4, 5, 6, 7])
        // Answers 9 and 10 were unicast, and arrived.
        for i in b.messages.indices where [109, 110].contains(b.messages[i].content[3]) {
            b.messages[i].multicast = false
        }
        for i in a.messages.indices where [109, 110].contains(a.messages[i].content[3]) {
            a.messages[i].multicast = false
        }
        let c = try CaptureComparison.compare(a, b).get()
        #expect(c.answers.multicastSeen == 8 && c.answers.multicastArrived == 0 && c.answers.unicastArrived == 2)
        let f = try #require(c.findings.first { $0.finding.code == .compareAnswersLost })
        #expect(f.finding.advice.contains("Unicast answers got through"))
    }

    @Test("large one-way delays both ways: COMPARE_LARGE_DELAY")
    func delay() throws {
        let (a, b) = scenario(delayQ: 0.3, delayR: 0.3)
        let c = try CaptureComparison.compare(a, b).get()
        #expect(abs(try #require(c.queries.delay).p90 - 0.3) < 1e-6)
        #expect(codes(c)["COMPARE_LARGE_DELAY"] == .warning)
        let quick = try CaptureComparison.compare(scenario().0, scenario().1).get()
        #expect(codes(quick)["COMPARE_LARGE_DELAY"] == nil)
    }
}

@Suite("compare: matching rebuilt and dual-stack copies")
struct MessageMatcherKeyTests {
    @Test("the same bytes over IPv4 and IPv6 are two messages, each paired with its own family")
    func families() {
        let a = [
            ObservedMessage(frame: 1, time: 0, content: [1], source: "192.0.2.10", ttl: 255, family: 4),
            ObservedMessage(frame: 2, time: 0.0001, content: [1], source: "2001:db8::10", ttl: 255, family: 6),
        ]
        let b = [
            ObservedMessage(frame: 1, time: 0.0021, content: [1], source: "2001:db8::10", ttl: 255, family: 6),
            ObservedMessage(frame: 2, time: 0.002, content: [1], source: "192.0.2.10", ttl: 255, family: 4),
        ]
        let r = MessageMatcher.match(a, b)
        #expect(r.pairs.map { [$0.a, $0.b] } == [[0, 1], [1, 0]])
        #expect(r.pairs.allSatisfy { !$0.changed })
    }

    @Test("a copy with other bytes but the same records is paired by canonical form, marked rebuilt")
    func rebuilt() {
        let a = [
            ObservedMessage(frame: 1, time: 0, content: [1, 2], source: "192.0.2.20", ttl: 255, canonical: 2),
            ObservedMessage(frame: 2, time: 1, content: [3], source: "192.0.2.20", ttl: 255, canonical: 3),
        ]
        let b = [
            ObservedMessage(frame: 1, time: 0.7, content: [9, 9], source: "198.51.100.1", ttl: 255, canonical: 2),
            ObservedMessage(frame: 2, time: 1.001, content: [3], source: "192.0.2.20", ttl: 255, canonical: 3),
        ]
        let r = MessageMatcher.match(a, b)
        #expect(r.pairs.count == 2)
        #expect(r.pairs.map(\.reencoded) == [true, false])
        #expect(r.unmatchedA.isEmpty)
    }
}
