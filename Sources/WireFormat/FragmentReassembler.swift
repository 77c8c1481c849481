/// Limits that keep IP reassembly bounded whatever the capture holds.
public struct ReassemblyLimits: Hashable, Sendable {
    /// A datagram whose first fragment is older than this (capture time) is dropped.
    public var timeoutNanoseconds: Int64 = 30_000_000_000
    /// The most datagrams being reassembled at once; the oldest is dropped to make room.
    public var maximumDatagrams = 64
    /// The most payload bytes held for all datagrams together.
    public var maximumBytes = 1 << 20
    /// The most fragments one datagram may have.
    public var maximumFragmentsPerDatagram = 64

    public init() {}
}

/// What the reassembler counted.
public struct ReassemblyStatistics: Hashable, Sendable {
    /// Fragments handed to the reassembler.
    public var fragments = 0
    /// Datagrams completed.
    public var reassembled = 0
    /// Datagrams abandoned because they timed out.
    public var timedOut = 0
    /// Datagrams abandoned to stay within the datagram or byte limits.
    public var evicted = 0
    /// Datagrams abandoned because fragments overlapped with different data, or were impossible.
    public var invalid = 0
    /// Datagrams still waiting for fragments, not abandoned (read from
    /// ``FragmentReassembler/incompleteDatagrams`` when the statistics are taken): at the end
    /// of a capture, the ones that never completed.
    public var incomplete = 0
    public init() {}
}

/// A datagram put back together from IP fragments (RFC 791 / RFC 8200 §4.5).
public struct ReassembledDatagram: Sendable {
    /// The upper-layer bytes (UDP header first).
    public var payload: [UInt8]
    /// The frames that carried the fragments, in arrival order.
    public var frames: [Int]
    /// The TTL / hop limit of the first fragment (offset 0).
    public var ttl: UInt8
}

/// Reassembles fragmented UDP datagrams with hard limits, so a fragment flood cannot grow memory.
///
/// Overlapping fragments whose bytes differ invalidate the datagram (RFC 5722); exact
/// duplicates are ignored. Datagrams the caller does not care about can be marked ignored after
/// their first fragment, and later fragments are then dropped without being copied.
public struct FragmentReassembler {
    /// Identifies one datagram.
    public struct Key: Hashable, Sendable {
        public var source: IPAddress
        public var destination: IPAddress
        public var identification: UInt32
        public var proto: UInt8
        public init(source: IPAddress, destination: IPAddress, identification: UInt32, proto: UInt8) {
            self.source = source
            self.destination = destination
            self.identification = identification
            self.proto = proto
        }
    }

    struct Entry {
        var firstSeen: Timestamp
        var data: [UInt8] = []
        var ranges: [Range<Int>] = []
        var totalLength: Int?
        var frames: [Int] = []
        var ttl: UInt8 = 0
        var ignored = false
    }

    /// The limits in force.
    public let limits: ReassemblyLimits
    /// What happened so far.
    public private(set) var statistics = ReassemblyStatistics()
    var entries: [Key: Entry] = [:]
    var bytesHeld = 0

    public init(limits: ReassemblyLimits = ReassemblyLimits()) { self.limits = limits }

    /// The number of datagrams in flight.
    public var datagramsInFlight: Int { entries.count }

    /// Datagrams still waiting for fragments that were not abandoned (ignored or invalid).
    public var incompleteDatagrams: Int { entries.values.reduce(0) { $0 + ($1.ignored ? 0 : 1) } }
    /// The payload bytes currently held.
    public var bytesInFlight: Int { bytesHeld }

    /// What adding a fragment led to.
    public enum Outcome {
        /// More fragments are needed.
        case incomplete
        /// The datagram is ignored, or was abandoned.
        case dropped
        /// The datagram is whole.
        case complete(ReassembledDatagram)
    }

    /// Adds one fragment.
    /// - Parameters:
    ///   - key: the datagram it belongs to.
    ///   - fragment: its offset and More Fragments flag.
    ///   - payload: the fragment's data (borrowed; copied only if the datagram is kept).
    ///   - ttl: the fragment's TTL / hop limit.
    ///   - frame: the frame number that carried it.
    ///   - time: the frame's timestamp.
    ///   - wanted: asked once, with the first fragment's bytes, whether to keep the datagram.
    public mutating func add(
        key: Key, fragment: FragmentInfo, payload: ByteCursor, ttl: UInt8, frame: Int, time: Timestamp,
        wanted: (ByteCursor) -> Bool
    ) -> Outcome {
        statistics.fragments += 1
        expire(now: time)
        var entry = entries[key] ?? Entry(firstSeen: time)
        if entries[key] == nil {
            makeRoom(now: time)
        }
        if entry.ignored {
            entries[key] = entry
            return .dropped
        }
        if fragment.offset == 0 {
            entry.ttl = ttl
            if !wanted(payload) {
                release(&entry)
                entry.ignored = true
                entries[key] = entry
                return .dropped
            }
        }
        let range = fragment.offset..<(fragment.offset + payload.remaining)
        let invalid =
            range.upperBound > 65535 || (fragment.moreFragments && payload.remaining % 8 != 0)
            || entry.frames.count >= limits.maximumFragmentsPerDatagram
            || (entry.totalLength.map { range.upperBound > $0 || (!fragment.moreFragments && range.upperBound != $0) }
                ?? false)
        if invalid {
            abandon(key, &entry)
            return .dropped
        }
        // Overlaps: identical bytes are a duplicate, different bytes invalidate the datagram.
        for existing in entry.ranges where existing.overlaps(range) {
            let lo = Swift.max(existing.lowerBound, range.lowerBound)
            let hi = Swift.min(existing.upperBound, range.upperBound)
            for i in lo..<hi where entry.data[i] != payload.bytes[payload.offset + i - range.lowerBound] {
                abandon(key, &entry)
                return .dropped
            }
        }
        if !entry.ranges.contains(where: { $0.lowerBound <= range.lowerBound && $0.upperBound >= range.upperBound }) {
            if entry.data.count < range.upperBound {
                let growth = range.upperBound - entry.data.count
                guard bytesHeld + growth <= limits.maximumBytes || evictOldest(except: key) else {
                    abandon(key, &entry)
                    return .dropped
                }
                while bytesHeld + growth > limits.maximumBytes, evictOldest(except: key) {}
                if bytesHeld + growth > limits.maximumBytes {
                    abandon(key, &entry)
                    return .dropped
                }
                entry.data.append(contentsOf: repeatElement(0, count: growth))
                bytesHeld += growth
            }
            for i in 0..<payload.remaining { entry.data[range.lowerBound + i] = payload.bytes[payload.offset + i] }
            entry.ranges.append(range)
            entry.ranges.sort { $0.lowerBound < $1.lowerBound }
        }
        entry.frames.append(frame)
        if !fragment.moreFragments { entry.totalLength = range.upperBound }
        if let total = entry.totalLength, covers(entry.ranges, total) {
            let datagram = ReassembledDatagram(
                payload: Array(entry.data.prefix(total)), frames: entry.frames, ttl: entry.ttl)
            bytesHeld -= entry.data.count
            entries[key] = nil
            statistics.reassembled += 1
            return .complete(datagram)
        }
        entries[key] = entry
        return .incomplete
    }

    func covers(_ ranges: [Range<Int>], _ total: Int) -> Bool {
        var reached = 0
        for r in ranges {
            if r.lowerBound > reached { return false }
            reached = Swift.max(reached, r.upperBound)
        }
        return reached >= total
    }

    mutating func release(_ entry: inout Entry) {
        bytesHeld -= entry.data.count
        entry.data = []
        entry.ranges = []
    }

    mutating func abandon(_ key: Key, _ entry: inout Entry) {
        release(&entry)
        entry.ignored = true
        entries[key] = entry
        statistics.invalid += 1
    }

    mutating func expire(now: Timestamp) {
        for (key, entry) in entries where now.nanoseconds(since: entry.firstSeen) > limits.timeoutNanoseconds {
            bytesHeld -= entry.data.count
            entries[key] = nil
            if !entry.ignored { statistics.timedOut += 1 }
        }
    }

    mutating func makeRoom(now: Timestamp) {
        while entries.count >= limits.maximumDatagrams, evictOldest(except: nil) {}
    }

    /// Drops the oldest datagram other than `except`; `false` if there is none.
    @discardableResult
    mutating func evictOldest(except: Key?) -> Bool {
        guard let oldest = entries.filter({ $0.key != except }).min(by: { $0.value.firstSeen < $1.value.firstSeen })
        else { return false }
        bytesHeld -= oldest.value.data.count
        entries[oldest.key] = nil
        if !oldest.value.ignored { statistics.evicted += 1 }
        return true
    }
}
