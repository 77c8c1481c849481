/// What `castscope compare` reports for two captures taken at the same time at two points:
/// per direction, which of the sender's queries and the devices' answers reached the other
/// point, with what delay, and what changed on the way (issue 18).
public struct CaptureComparison: Sendable {
    /// How the clock offset was found.
    public enum OffsetBasis: String, Sendable {
        /// From pairs in both directions, as NTP does: the one-way delays are then real
        /// (assuming the path is as fast both ways).
        case bothDirections = "both-directions"
        /// From pairs in one direction only: the offset includes that direction's delay, so
        /// the delays are relative to their median.
        case oneDirection = "one-direction"
        /// No message matched: the clocks are taken to agree (the captures overlap in time).
        case assumed
    }

    /// What `compare` is told.
    public struct Options: Sendable {
        /// The largest one-way delay a pair may have, in seconds.
        public var window = 0.5
        /// `--sender` / `--device`: an address, a link-layer address or (devices) a friendly name.
        public var sender: String?
        public var device: String?
        public init() {}
    }

    /// Why two captures cannot be compared as asked.
    public enum Refusal: Error, Sendable, Equatable {
        /// `--sender`/`--device` names no host of that role; the hosts that have it.
        case noSuchSender(String, known: [String])
        case noSuchDevice(String, known: [String])
    }

    public var a: CompareSide
    public var b: CompareSide
    public var match: MessageMatch
    /// `tB − tA` (B's clock ahead of A's), in seconds, with its spread; `nil` when nothing matched.
    public var offset: ClockOffset?
    public var offsetBasis: OffsetBasis
    /// The sender hosts (A-side queriers) and the devices (B-side responders) counted.
    public var senders: [HostTraffic]
    public var devices: [HostTraffic]
    /// Hosts left out by `--sender` / `--device`.
    public var otherSenders: [String] = []
    public var otherDevices: [String] = []
    /// The sender's queries, A → B.
    public var queries: DirectionTraffic
    /// The devices' responses, B → A.
    public var answers: DirectionTraffic
    /// Copies changed on the way, in A's time order (the first ``maximumChangedListed``).
    public var changedCopies: [ChangedCopy]
    /// The one-way delay of each pair (index for index with `match.pairs`), in seconds, and
    /// whether it counts for queries, answers or neither.
    public var pairDelays: [Double]
    public var pairDirections: [CastMessageKind?]
    public var findings: [CompareFinding] = []

    public static let maximumChangedListed = 100
    public static let maximumLostFramesListed = 1000
}

/// One sender's or device's messages in one direction.
public struct HostTraffic: Sendable, Hashable {
    /// The host key: a link-layer address, or the IP address when the capture has none.
    public var host: String
    public var addresses: [String]
    /// The friendly name the device announced.
    public var name: String?
    public var seen = 0
    public var arrived = 0
    public var lost: Int { seen - arrived }

    /// The addresses and the name, for a line of text.
    public var label: String {
        let a = addresses.joined(separator: ", ")
        return name.map { "\($0) (\(a))" } ?? a
    }
}

/// A lost message: where it was, and where in the other capture it should have been.
public struct LostMessage: Sendable, Hashable {
    /// Its frame in the capture it was sent in, and when.
    public var frame: Int
    public var time: Double
    /// The other capture's last Cast message at or before the time it should have arrived
    /// (`nil` when there is none).
    public var nearFrame: Int?
}

/// One direction's messages: how many there were, reached the other point, were lost.
public struct DirectionTraffic: Sendable, Hashable {
    /// Messages of the direction's hosts seen where they were sent, inside the other capture's span.
    public var seen = 0
    public var arrived = 0
    public var lost: Int { seen - arrived }
    /// Messages sent before the other capture started or after it ended: not counted.
    public var outsideOverlap = 0
    /// The lost ones' frames in the capture they were sent in (the first
    /// ``CaptureComparison/maximumLostFramesListed``).
    public var lostFrames: [Int] = []
    public var firstLost: LostMessage?
    /// One-way delays of the arrived copies, in seconds.
    public var delay: Summary?
    /// Copies with another source address, another IP TTL, or rebuilt (other bytes).
    public var changed = 0
    public var sourceChanged = 0
    public var ttlChanged = 0
    public var reencoded = 0
    /// Queries whose copy carries more known answers than the original: a relay added them
    /// from its own cache (avahi's reflector does), and a device that finds its records
    /// listed stays silent (RFC 6762 §7.1).
    public var knownAnswersAdded = 0
    /// Multicast and unicast messages apart (seen, arrived).
    public var multicastSeen = 0
    public var multicastArrived = 0
    public var unicastSeen: Int { seen - multicastSeen }
    public var unicastArrived: Int { arrived - multicastArrived }
    /// Lost messages sent after the last one that arrived (all of them when none arrived):
    /// "it worked, then stopped".
    public var lostAfterLastArrival = 0
    /// When the last arrived message was sent, by its own capture's clock.
    public var lastArrival: Double?

    /// The share lost, in percent (0 when nothing was seen).
    public var lossPercent: Double { seen == 0 ? 0 : Double(lost) * 100 / Double(seen) }
}

/// A copy that arrived changed.
public struct ChangedCopy: Sendable, Hashable {
    public var kind: CastMessageKind
    public var frameA: Int
    public var frameB: Int
    public var sourceA: String
    public var sourceB: String
    public var ttlA: UInt8
    public var ttlB: UInt8
    /// Other bytes (matched by questions or records).
    public var reencoded: Bool
}

/// A comparison finding: a ``Finding`` with its frames in each capture.
public struct CompareFinding: Sendable, Hashable {
    public var finding: Finding
    public var framesA: [Int]
    public var framesB: [Int]

    public init(_ finding: Finding, framesA: [Int] = [], framesB: [Int] = []) {
        self.finding = finding
        self.framesA = Array(framesA.prefix(Finding.maximumFrames))
        self.framesB = Array(framesB.prefix(Finding.maximumFrames))
    }
}
