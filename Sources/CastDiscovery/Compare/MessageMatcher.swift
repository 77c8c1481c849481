/// One discovery message as seen at one capture point, for lining up two captures
/// (`castscope compare`, issue 18): the same mDNS message seen at two points has the same
/// bytes, while what a relay may change (the IP TTL, the source address a reflector
/// rewrites) is kept apart from the content.
public struct ObservedMessage: Sendable, Hashable {
    /// The frame number in its capture (1-based, as Wireshark counts).
    public var frame: Int
    /// When it was captured, in seconds since the epoch, by that capture's clock.
    public var time: Double
    /// The message's bytes: the UDP payload (the whole DNS message, or SSDP text).
    public var content: [UInt8]
    /// The IP source address as text.
    public var source: String
    /// The IP TTL or hop limit.
    public var ttl: UInt8

    public init(frame: Int, time: Double, content: [UInt8], source: String, ttl: UInt8) {
        self.frame = frame
        self.time = time
        self.content = content
        self.source = source
        self.ttl = ttl
    }
}

/// How far capture B's clock is ahead of capture A's, from the matched pairs.
public struct ClockOffset: Sendable, Hashable {
    /// The median of `tB − tA` over the pairs, in seconds.
    public var median: Double
    /// Half the distance between the 10th and 90th percentiles of `tB − tA`: how much the
    /// pairs disagree (one-way delays and their jitter, and clock drift over the capture).
    public var spread: Double
    /// How many pairs it comes from.
    public var pairs: Int
}

/// A message of A matched with the same message in B.
public struct MessagePair: Sendable, Hashable {
    /// Indices into the two arrays given to ``MessageMatcher/match(_:_:window:maximumSkew:)``.
    public var a: Int
    public var b: Int
    /// `tB − tA − offset`: the one-way delay from A to B (negative for B to A), in seconds.
    public var delay: Double
    /// The copy in B has another IP TTL or source address (a relay or reflector between the points).
    public var changed: Bool
}

/// The pairs found, what stayed unmatched on each side, and the clock offset.
public struct MessageMatch: Sendable {
    public var pairs: [MessagePair]
    /// Indices of A's messages with no copy in B, in time order.
    public var unmatchedA: [Int]
    /// Indices of B's messages with no copy in A, in time order.
    public var unmatchedB: [Int]
    /// `nil` when no message matched.
    public var offset: ClockOffset?
}

/// Pairs the messages of two captures taken at the same time at two points of a network.
///
/// Payloads repeat byte for byte (a device sends the same answer several times), so content
/// alone does not make a pair: content and time together do. First the clock offset is
/// estimated from the nearest same-content message in B of each message of A (within
/// `maximumSkew`); the median of those differences is robust to the repeats paired wrongly.
/// Then, content by content, the messages are paired in time order, each with the nearest
/// unpaired copy in B whose offset-corrected time is within `window` of it (copies before it
/// are left for no one), so each message is used once and no pair crosses another. The offset is finally the median of the pairs.
public enum MessageMatcher {
    /// - Parameters:
    ///   - window: the largest one-way delay (after the offset) a pair may have, in seconds.
    ///   - maximumSkew: the largest clock difference between the captures considered.
    public static func match(
        _ a: [ObservedMessage], _ b: [ObservedMessage], window: Double = 0.5, maximumSkew: Double = 600
    ) -> MessageMatch {
        var byContent: [[UInt8]: [Int]] = [:]
        for (i, m) in b.enumerated() { byContent[m.content, default: []].append(i) }
        for key in byContent.keys { byContent[key]!.sort { b[$0].time < b[$1].time } }

        // 1. The offset from each A message's nearest same-content copy in B.
        var differences: [Double] = []
        for m in a {
            guard let candidates = byContent[m.content] else { continue }
            var best: Double?
            for j in candidates {
                let d = b[j].time - m.time
                if abs(d) <= maximumSkew, best.map({ abs(d) < abs($0) }) ?? true { best = d }
            }
            if let best { differences.append(best) }
        }
        guard !differences.isEmpty else {
            return MessageMatch(
                pairs: [], unmatchedA: Array(a.indices).sorted { a[$0].time < a[$1].time },
                unmatchedB: Array(b.indices).sorted { b[$0].time < b[$1].time }, offset: nil)
        }
        let estimate = median(differences)

        // 2. Content by content, in time order.
        var byContentA: [[UInt8]: [Int]] = [:]
        for (i, m) in a.enumerated() { byContentA[m.content, default: []].append(i) }
        var pairs: [MessagePair] = []
        var usedB = Set<Int>()
        for (content, indices) in byContentA {
            let inA = indices.sorted { a[$0].time < a[$1].time }
            guard let inB = byContent[content] else { continue }
            var next = 0
            for i in inA {
                let t = a[i].time + estimate
                // Copies too early for this message can match no later one either.
                while next < inB.count, b[inB[next]].time < t - window { next += 1 }
                // The nearest copy within the window: a repeat a second later is not this message's.
                var nearest: Int?
                var k = next
                while k < inB.count, b[inB[k]].time <= t + window {
                    if nearest.map({ abs(b[inB[k]].time - t) < abs(b[inB[$0]].time - t) }) ?? true { nearest = k }
                    k += 1
                }
                guard let chosen = nearest else { continue }
                let j = inB[chosen]
                next = chosen + 1
                usedB.insert(j)
                pairs.append(
                    MessagePair(
                        a: i, b: j, delay: 0, changed: a[i].ttl != b[j].ttl || a[i].source != b[j].source))
            }
        }
        pairs.sort { a[$0.a].time < a[$1.a].time }

        // 3. The offset from the pairs, and each pair's delay against it.
        let final = pairs.map { b[$0.b].time - a[$0.a].time }
        let offset = ClockOffset(
            median: median(final), spread: (percentile(final, 0.9) - percentile(final, 0.1)) / 2, pairs: pairs.count)
        for k in pairs.indices { pairs[k].delay = final[k] - offset.median }
        let usedA = Set(pairs.map(\.a))
        return MessageMatch(
            pairs: pairs,
            unmatchedA: a.indices.filter { !usedA.contains($0) }.sorted { a[$0].time < a[$1].time },
            unmatchedB: b.indices.filter { !usedB.contains($0) }.sorted { b[$0].time < b[$1].time },
            offset: offset)
    }

    /// The median (the mean of the two middle values for an even count).
    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The `p` quantile by linear interpolation between closest ranks.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let s = values.sorted()
        guard let first = s.first else { return 0 }
        guard s.count > 1 else { return first }
        let rank = p * Double(s.count - 1)
        let low = Int(rank)
        let high = min(low + 1, s.count - 1)
        return s[low] + (s[high] - s[low]) * (rank - Double(low))
    }
}
