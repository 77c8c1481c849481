import Testing

@testable import CastDiscovery

/// A message with content `c` at time `t` (frame numbers count up per side).
private func m(_ frame: Int, _ t: Double, _ c: UInt8, ttl: UInt8 = 255, source: String = "192.0.2.10")
    -> ObservedMessage
{
    ObservedMessage(frame: frame, time: t, content: [0, 0, 0x84, 0, c], source: source, ttl: ttl)
}

@Suite("compare: pairing the messages of two captures by content and time")
struct MessageMatcherTests {
    @Test("a clock offset is found and removed; each pair's delay is what remains")
    func offset() throws {
        let a = [m(1, 100.0, 1), m(2, 101.0, 2), m(3, 103.0, 3), m(4, 107.0, 4)]
        // B's clock is 42.5 s ahead; delays 2, 3, 1 and 2 ms.
        let b = [m(1, 142.502, 1), m(2, 143.503, 2), m(3, 145.501, 3), m(4, 149.502, 4)]
        let r = MessageMatcher.match(a, b)
        let offset = try #require(r.offset)
        #expect(abs(offset.median - 42.502) < 1e-9)
        #expect(offset.pairs == 4)
        #expect(offset.spread < 0.001)
        #expect(r.pairs.map(\.a) == [0, 1, 2, 3])
        #expect(r.unmatchedA.isEmpty && r.unmatchedB.isEmpty)
        #expect(abs(r.pairs[2].delay - -0.001) < 1e-9)
    }

    @Test("repeated identical messages: the lost one is the one with no copy near it")
    func repeats() {
        // The same announcement at 0, 1 and 3 s; the second never reached B.
        let a = [m(1, 10.0, 7), m(2, 11.0, 7), m(3, 13.0, 7), m(4, 13.5, 8)]
        let b = [m(10, 10.004, 7), m(11, 13.004, 7), m(12, 13.504, 8)]
        let r = MessageMatcher.match(a, b)
        #expect(r.unmatchedA == [1])
        #expect(r.pairs.map { [$0.a, $0.b] } == [[0, 0], [2, 1], [3, 2]])
        #expect(r.unmatchedB.isEmpty)
    }

    @Test("a copy arriving later than the window is not a pair; B's own messages stay B's")
    func window() {
        // Four messages 10 ms apart set the offset; the fifth's copy comes 900 ms late.
        let a = (0..<5).map { m($0 + 1, Double($0), UInt8($0)) }
        var b = (0..<4).map { m($0 + 1, Double($0) + 0.01, UInt8($0)) }
        b += [m(5, 4.9, 4), m(6, 4.95, 9)]
        let r = MessageMatcher.match(a, b, window: 0.5)
        #expect(r.pairs.map(\.a) == [0, 1, 2, 3])
        #expect(r.unmatchedA == [4])
        #expect(r.unmatchedB == [4, 5])
    }

    @Test("copies changed on the way (other TTL or source) are pairs marked changed")
    func changed() {
        let a = [m(1, 0.0, 1), m(2, 1.0, 2)]
        let b = [m(1, 0.002, 1, ttl: 254), m(2, 1.002, 2, source: "198.51.100.1")]
        let r = MessageMatcher.match(a, b)
        #expect(r.pairs.count == 2)
        #expect(r.pairs.map(\.changed) == [true, true])
    }

    @Test("nothing in common: no pairs and no offset")
    func disjoint() {
        let r = MessageMatcher.match([m(1, 0, 1), m(2, 1, 2)], [m(1, 0, 3)])
        #expect(r.pairs.isEmpty)
        #expect(r.offset == nil)
        #expect(r.unmatchedA == [0, 1])
        #expect(r.unmatchedB == [0])
    }

    @Test("a few wrong nearest guesses do not move the median offset")
    func robust() throws {
        // Ten messages, B 3 s ahead; one content repeats in A 2.9 s apart, the first copy lost.
        var a = (0..<10).map { m($0 + 1, Double($0) * 10, UInt8($0)) }
        a.append(m(11, 42.9, 3))
        var b = (0..<10).map { m($0 + 1, Double($0) * 10 + 3.001, UInt8($0)) }
        b.removeAll { $0.content.last == 3 }
        b.append(m(20, 45.901, 3))
        let r = MessageMatcher.match(a, b)
        let offset = try #require(r.offset)
        #expect(abs(offset.median - 3.001) < 1e-9)
        #expect(r.unmatchedA == [3])
        #expect(r.pairs.count == 10)
    }

    @Test("a relay delaying 300 ms, with one answer repeated 0.2 to 0.7 s apart: each copy pairs with its own")
    func delayedRepeats() {
        // The device's identical answer (in B, sent) at irregular times, the sender's distinct
        // queries (in A, sent); each arrives 300 ms later on the other side, clocks agreeing.
        let answers: [Double] = [0.0, 0.7, 1.5, 1.7, 2.4, 3.0, 3.1, 3.8, 4.5, 4.7, 5.4, 6.0, 6.2]
        let queries: [Double] = (0..<8).map { Double($0) * 0.7 + 0.05 }
        func q(_ f: Int, _ t: Double, _ id: UInt8) -> ObservedMessage {
            ObservedMessage(frame: f, time: t, content: [0, id, 0x00, 0], source: "192.0.2.10", ttl: 255)
        }
        func r(_ f: Int, _ t: Double) -> ObservedMessage {
            ObservedMessage(frame: f, time: t, content: [0, 0, 0x84, 0], source: "198.51.100.20", ttl: 255)
        }
        var a = queries.enumerated().map { q($0.offset + 1, 100 + $0.element, UInt8($0.offset + 1)) }
        var b = queries.enumerated().map { q($0.offset + 1, 100 + $0.element + 0.3, UInt8($0.offset + 1)) }
        a += answers.enumerated().map { r(100 + $0.offset, 100 + $0.element + 0.3) }
        b += answers.enumerated().map { r(100 + $0.offset, 100 + $0.element) }
        let match = MessageMatcher.match(a, b)
        #expect(match.pairs.count == queries.count + answers.count)
        // Same frame numbers on both sides mean each message found its own copy.
        #expect(match.pairs.allSatisfy { a[$0.a].frame == b[$0.b].frame })
    }
}
