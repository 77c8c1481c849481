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
    /// 4 or 6: Android and Apple send one query to 224.0.0.251 and ff02::fb with the same
    /// bytes, and those are two messages.
    public var family: UInt8 = 4
    /// Sent to a multicast group (not unicast to one host).
    public var multicast = true
    /// The sending host: its link-layer address when the capture has one (one host sends from
    /// an IPv4 and an IPv6 address), else the IP source.
    public var host: String
    /// The message's questions or records in a canonical order, without what a re-encoding
    /// relay changes (ID, compression, section, record TTL, cache-flush bit): how a copy that
    /// avahi's reflector rebuilt is still recognised: a digest of them (equal forms, equal
    /// digests, within one run). `nil` when not known.
    public var canonical: Int?
    /// A digest of `content`, computed once (the matcher's tables hash it many times).
    public let contentHash: Int

    /// The DNS QR bit (a response), from the bytes.
    public var isResponse: Bool { content.count > 2 && content[2] & 0x80 != 0 }

    public init(
        frame: Int, time: Double, content: [UInt8], source: String, ttl: UInt8, family: UInt8 = 4,
        multicast: Bool = true, host: String? = nil, canonical: Int? = nil
    ) {
        self.frame = frame
        self.time = time
        self.content = content
        self.source = source
        self.ttl = ttl
        self.family = family
        self.multicast = multicast
        self.host = host ?? source
        self.canonical = canonical
        var h = Hasher()
        content.withUnsafeBytes { h.combine(bytes: $0) }
        contentHash = h.finalize()
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

    public init(median: Double, spread: Double, pairs: Int) {
        self.median = median
        self.spread = spread
        self.pairs = pairs
    }
}

/// A message of A matched with the same message in B.
public struct MessagePair: Sendable, Hashable {
    /// Indices into the two arrays given to ``MessageMatcher/match(_:_:window:maximumSkew:)``.
    public var a: Int
    public var b: Int
    /// `tB − tA − offset`: the one-way delay from A to B (negative for B to A), in seconds.
    public var delay: Double
    /// The copy in B has another IP TTL or source address, or was rebuilt (a relay or
    /// reflector between the points).
    public var changed: Bool
    /// The copy in B has other bytes: it was matched by its questions or records.
    public var reencoded = false
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
/// estimated, for queries and for responses apart (their delays go opposite ways), as the
/// densest cluster of differences between each message of A and its few nearest same-content
/// copies in B (within `maximumSkew`): the right copies agree, repeats do not. Then, content by content, the messages are paired in time order, each with the nearest
/// unpaired copy in B whose offset-corrected time is within `window` of it (copies before it
/// are left for no one), so each message is used once and no pair crosses another. What
/// stays unpaired is then paired the same way by canonical form (a reflector that rebuilds
/// messages). The offset is finally the median of the pairs.
public enum MessageMatcher {
    /// - Parameters:
    ///   - window: the largest one-way delay (after the offset) a pair may have, in seconds.
    ///   - maximumSkew: the largest clock difference between the captures considered.
    public static func match(
        _ a: [ObservedMessage], _ b: [ObservedMessage], window: Double = 0.5, maximumSkew: Double = 600
    ) -> MessageMatch {
        let bytes: (ObservedMessage) -> Key? = { Key(family: $0.family, digest: $0.contentHash, bytes: $0.content) }
        let canonical: (ObservedMessage) -> Key? = { m in
            m.canonical.map { Key(family: m.family, digest: $0, bytes: nil) }
        }
        // 1. The offset, for queries and for responses apart: they travel opposite ways, so
        // one direction's delay adds to the clock difference and the other's subtracts.
        func groupEstimate(_ group: Bool) -> Double? {
            estimateOffset(a, b, key: bytes, group: group, maximumSkew: maximumSkew)
                ?? estimateOffset(a, b, key: canonical, group: group, maximumSkew: maximumSkew)
        }
        let (queries, responses) = (groupEstimate(false), groupEstimate(true))
        guard let any = queries ?? responses else {
            return MessageMatch(
                pairs: [], unmatchedA: Array(a.indices).sorted { a[$0].time < a[$1].time },
                unmatchedB: Array(b.indices).sorted { b[$0].time < b[$1].time }, offset: nil)
        }
        let estimate: (ObservedMessage) -> Double = { m in (m.isResponse ? responses : queries) ?? any }

        // 2. Key by key, in time order: the same bytes first, then the same records.
        var usedA = Set<Int>()
        var usedB = Set<Int>()
        var pairs = pairUp(a, b, key: bytes, estimate: estimate, window: window, usedA: &usedA, usedB: &usedB)
        // A relay that rebuilds messages also schedules them (avahi holds records up to about a
        // second to merge them), so its copies get a wider window.
        var rebuilt = pairUp(
            a, b, key: canonical, estimate: estimate, window: max(window, rebuiltWindow), usedA: &usedA,
            usedB: &usedB)
        for k in rebuilt.indices {
            rebuilt[k].reencoded = true
            rebuilt[k].changed = true
        }
        pairs += rebuilt
        pairs.sort { a[$0.a].time < a[$1.a].time }

        // 3. The offset from the pairs, and each pair's delay against it.
        let final = pairs.map { b[$0.b].time - a[$0.a].time }
        let offset = ClockOffset(
            median: median(final), spread: (percentile(final, 0.9) - percentile(final, 0.1)) / 2, pairs: pairs.count)
        for k in pairs.indices { pairs[k].delay = final[k] - offset.median }
        return MessageMatch(
            pairs: pairs,
            unmatchedA: a.indices.filter { !usedA.contains($0) }.sorted { a[$0].time < a[$1].time },
            unmatchedB: b.indices.filter { !usedB.contains($0) }.sorted { b[$0].time < b[$1].time },
            offset: offset)
    }

    /// The smallest window for copies matched by canonical form, in seconds.
    public static let rebuiltWindow = 1.0

    /// What two messages must share to be copies of each other.
    ///
    /// Hashed by its digest alone (hashing the bytes again for every table lookup cost a tenth
    /// of a run); equal only with the same bytes too, so a digest collision pairs nothing.
    struct Key: Hashable {
        var family: UInt8
        var digest: Int
        /// The bytes, or `nil` for a canonical-form key (its digest is all there is).
        var bytes: [UInt8]?

        func hash(into hasher: inout Hasher) {
            hasher.combine(family)
            hasher.combine(digest)
        }

        static func == (x: Key, y: Key) -> Bool { x.family == y.family && x.digest == y.digest && x.bytes == y.bytes }
    }

    /// The clock offset `tB − tA` most of A's messages of one group (queries or responses)
    /// agree on, or `nil` when none has a copy in B.
    ///
    /// Each message's few nearest same-key copies in B give candidate differences; the right
    /// ones agree with each other, while a repeat of the same bytes gives a difference off by
    /// its own interval. So the estimate is the median of the densest ``resolution``-wide
    /// cluster of candidates, not of each message's nearest copy (which a relay's delay longer
    /// than half a repeat interval turns into the wrong one).
    static func estimateOffset(
        _ a: [ObservedMessage], _ b: [ObservedMessage], key: (ObservedMessage) -> Key?, group: Bool,
        maximumSkew: Double
    ) -> Double? {
        // Each key's copies in B as sorted times, found by binary search (a flood of identical
        // queries must not make this quadratic).
        var byKey: [Key: [Double]] = [:]
        for m in b where m.isResponse == group { if let k = key(m) { byKey[k, default: []].append(m.time) } }
        for k in byKey.keys { byKey[k]!.sort() }
        var differences: [Double] = []
        for m in a where m.isResponse == group {
            guard let k = key(m), let times = byKey[k] else { continue }
            var low = 0
            var high = times.count
            while low < high {
                let mid = (low + high) / 2
                if times[mid] < m.time { low = mid + 1 } else { high = mid }
            }
            for j in max(0, low - candidatesEachSide)..<min(times.count, low + candidatesEachSide) {
                let d = times[j] - m.time
                if abs(d) <= maximumSkew { differences.append(d) }
            }
        }
        guard !differences.isEmpty else { return nil }
        differences.sort()
        // The densest window: two pointers over the sorted differences.
        var best = (start: 0, count: 0)
        var start = 0
        for end in differences.indices {
            while differences[end] - differences[start] > resolution { start += 1 }
            if end - start + 1 > best.count { best = (start, end - start + 1) }
        }
        return median(Array(differences[best.start..<(best.start + best.count)]))
    }

    /// How many same-key copies before and after a message are candidates for the offset.
    static let candidatesEachSide = 3
    /// The width of the cluster of candidate offsets, in seconds.
    static let resolution = 0.05

    /// Pairs the messages not used yet, key by key, each with the nearest unused copy within
    /// `window` of its offset-corrected time.
    static func pairUp(
        _ a: [ObservedMessage], _ b: [ObservedMessage], key: (ObservedMessage) -> Key?,
        estimate: (ObservedMessage) -> Double, window: Double, usedA: inout Set<Int>, usedB: inout Set<Int>
    ) -> [MessagePair] {
        var inB: [Key: [Int]] = [:]
        for (j, m) in b.enumerated() where !usedB.contains(j) {
            if let k = key(m) { inB[k, default: []].append(j) }
        }
        var inA: [Key: [Int]] = [:]
        for (i, m) in a.enumerated() where !usedA.contains(i) {
            if let k = key(m) { inA[k, default: []].append(i) }
        }
        var pairs: [MessagePair] = []
        for (k, indices) in inA {
            guard let unsorted = inB[k] else { continue }
            let copies = unsorted.sorted { b[$0].time < b[$1].time }
            var next = 0
            for i in indices.sorted(by: { a[$0].time < a[$1].time }) {
                let t = a[i].time + estimate(a[i])
                // Copies too early for this message can match no later one either.
                while next < copies.count, b[copies[next]].time < t - window { next += 1 }
                // The nearest copy within the window: a repeat a second later is not this message's.
                var nearest: Int?
                var c = next
                while c < copies.count, b[copies[c]].time <= t + window {
                    if nearest.map({ abs(b[copies[c]].time - t) < abs(b[copies[$0]].time - t) }) ?? true {
                        nearest = c
                    } else if b[copies[c]].time > t {
                        break  // sorted: every later copy is farther
                    }
                    c += 1
                }
                guard let chosen = nearest else { continue }
                let j = copies[chosen]
                next = chosen + 1
                usedA.insert(i)
                usedB.insert(j)
                pairs.append(
                    MessagePair(
                        a: i, b: j, delay: 0, changed: a[i].ttl != b[j].ttl || a[i].source != b[j].source))
            }
        }
        return pairs
    }

    /// The median (the mean of the two middle values for an even count).
    public static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The `p` quantile by linear interpolation between closest ranks.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        let s = values.sorted()
        guard let first = s.first else { return 0 }
        guard s.count > 1 else { return first }
        let rank = p * Double(s.count - 1)
        let low = Int(rank)
        let high = min(low + 1, s.count - 1)
        return s[low] + (s[high] - s[low]) * (rank - Double(low))
    }
}
