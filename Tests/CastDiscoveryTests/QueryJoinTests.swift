import Testing
import WireFormat

@testable import CastDiscovery

// QueryOutcome.join searches short lists as arrays and long ones through a dictionary
// (DistinctStrings); both must give what the plain set-and-dictionary join gives, which the
// reference below spells out.
@Suite("Joining one host's query bursts")
struct QueryJoinTests {
    /// The join as sets and a dictionary: names the sorted union, each device's earliest answer
    /// (the second burst's timed from the first), then the suppressed and missed devices not
    /// answered and not listed before, in order.
    static func reference(_ a: QueryOutcome, _ b: QueryOutcome) -> QueryOutcome {
        var out = a
        out.names = Array(Set(a.names).union(b.names)).sorted()
        let shift = Double(b.time.nanoseconds(since: a.time)) / 1e6
        var byDevice: [String: QueryOutcome.Answer] = [:]
        for x in a.answered { byDevice[x.deviceID] = x }
        for x in b.answered {
            let moved = QueryOutcome.Answer(deviceID: x.deviceID, delayMs: x.delayMs + shift, frame: x.frame)
            if let known = byDevice[x.deviceID], known.delayMs <= moved.delayMs { continue }
            byDevice[x.deviceID] = moved
        }
        out.answered = byDevice.values.sorted { ($0.delayMs, $0.deviceID) < ($1.delayMs, $1.deviceID) }
        var seen = Set(byDevice.keys)
        out.suppressed = (a.suppressed + b.suppressed).filter { seen.insert($0).inserted }
        out.missed = (a.missed + b.missed).filter { seen.insert($0).inserted }
        return out
    }

    /// A query at `ms` with devices drawn from `pool` by a seeded generator: some answered
    /// (with repeats), some suppressed, some missed, overlapping the other burst's.
    static func outcome(ms: Int64, frame: Int, devices: Int, seed: UInt64) -> QueryOutcome {
        var rng = SplitMix(seed: seed)  // InPlaceDecodingTests'
        func device() -> String { "device-\(rng.next() % UInt64(devices + devices / 2 + 1))" }
        var names = [
            "_googlecast._tcp.local", "_CC1AD845._sub._googlecast._tcp.local", "_\(rng.next() % 4)._sub.local",
        ]
        names.swapAt(0, Int(rng.next() % 3))
        return QueryOutcome(
            client: IPAddress("192.0.2.1")!, time: Timestamp(seconds: 0, nanoseconds: ms * 1_000_000),
            frame: FrameRef(capture: 0, frame: frame), names: names,
            answered: (0..<devices).map { i in
                QueryOutcome.Answer(
                    deviceID: device(), delayMs: Double(rng.next() % 500) / 4,
                    frame: FrameRef(capture: 0, frame: frame + i + 1))
            },
            suppressed: (0..<devices / 2).map { _ in device() }, missed: (0..<devices / 2).map { _ in device() })
    }

    @Test(
        "the join equals the set-and-dictionary join, short lists and long",
        arguments: [(1, 1), (3, 2), (8, 3), (9, 4), (12, 5), (30, 6), (100, 7)])
    func matchesReference(devices: Int, seed: UInt64) {
        for round in 0..<20 {
            let a = Self.outcome(ms: 0, frame: 1, devices: devices, seed: seed &* 1000 &+ UInt64(round))
            let b = Self.outcome(ms: 3, frame: 500, devices: devices, seed: seed &* 1000 &+ 500 &+ UInt64(round))
            var joined = a
            joined.join(b)
            let expected = Self.reference(a, b)
            #expect(joined == expected, "devices \(devices), round \(round)")
        }
    }

    @Test("DistinctStrings keeps the first of each string, across the change to a set")
    func distinctStrings() {
        let input = (0..<60).map { "s\($0 % 23)" }
        var seen = DistinctStrings(["s3", "s5"])
        let kept = input.filter { seen.insert($0) }
        var reference: Set<String> = ["s3", "s5"]
        #expect(kept == input.filter { reference.insert($0).inserted })
        #expect(kept.count == 21)
    }
}
