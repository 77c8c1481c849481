import WireFormat

/// A frame in one of the analysed captures: evidence a user can open in Wireshark.
public struct FrameRef: Hashable, Sendable, Comparable {
    /// Index into ``AnalysisReport/captures``.
    public var capture: Int
    /// Wireshark frame number within that capture.
    public var frame: Int
    /// The capture interface (``CaptureInfo/interfaces``) the frame was captured on: 0 for a
    /// capture with one interface. Not part of equality: a frame has one interface.
    public var interface: Int

    public init(capture: Int, frame: Int, interface: Int = 0) {
        self.capture = capture
        self.frame = frame
        self.interface = interface
    }

    public static func < (a: FrameRef, b: FrameRef) -> Bool { (a.capture, a.frame) < (b.capture, b.frame) }
    public static func == (a: FrameRef, b: FrameRef) -> Bool { a.capture == b.capture && a.frame == b.frame }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(capture)
        hasher.combine(frame)
    }
}

/// What a DIAL (SSDP) answer or advertisement said about a device.
public struct DIALInfo: Hashable, Sendable {
    /// `LOCATION`: the device description URL.
    public var location: String?
    /// `USN`.
    public var usn: String?
    /// `SERVER`.
    public var server: String?
    /// The address the SSDP messages came from.
    public var address: IPAddress
    /// When it was first and last heard.
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp
    /// When it sent `ssdp:byebye`, if it did (and did not come back).
    public var leftAt: Timestamp?
    /// The first SSDP message from it.
    public var firstFrame: FrameRef
    /// The `ssdp:byebye` message, when `leftAt` is set.
    public var leftFrame: FrameRef?
    /// Answers (`HTTP/1.1 200 OK`) it sent to DIAL M-SEARCHes.
    public var answers = 0
    /// The clients its answers went to, in order of first answer (at most
    /// ``FindingSubjects/maximumEach``).
    public var answeredClients: [IPAddress] = []
    /// The first answer it sent to an M-SEARCH.
    public var firstAnswerFrame: FrameRef?
    /// The device description a sender fetched from `LOCATION`, when the capture shows it.
    public var deviceDescription: DIALDescription?

    /// Whether `LOCATION` is a Cast receiver's device description,
    /// `http://<ip>:8008/ssdp/device-desc.xml` (Chromecasts and Cast built-in TVs, DOMAIN.md §2
    /// "DIAL follow-up"); other DIAL servers (Roku `:8060/dial/dd.xml`, TVs) are not Cast devices.
    public var hasCastLocation: Bool {
        guard let location, let scheme = location.firstRange(of: "://") else { return false }
        let rest = location[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return false }
        let authority = rest[..<slash]
        let path = rest[slash...].prefix { $0 != "?" && $0 != "#" }
        return authority.hasSuffix(":8008") && path.lowercased() == "/ssdp/device-desc.xml"
    }
}

/// A Cast receiver as the capture shows it.
public struct Device: Hashable, Sendable {
    /// TXT `id`, or the instance name when there is no `id`; for DIAL-only devices the USN's
    /// UUID (or the address).
    public var id: String
    /// The instance label (`Chromecast-3f5d…`); the first one seen when there are several.
    public var instance: String?
    /// Every instance label seen for this id (conflict-renamed `-1` instances, group leaders).
    public var instances: [String]
    public var friendlyName: String?
    public var model: String?
    public var kind: DeviceKind
    /// Named capabilities, then `bitN` for undocumented set bits.
    public var capabilities: [String]
    /// The raw `ca` value.
    public var capabilityBits: Int?
    /// `idle`, `busy`, or the raw `st` value.
    public var status: String?
    public var runningApp: String?
    public var version: String?
    public var icon: String?
    /// SRV target host and port.
    public var host: String?
    public var port: Int?
    /// Every IPv4/IPv6 address of the SRV host (then of DIAL), sorted, IPv4 first.
    public var addresses: [IPAddress]
    /// App IDs it answered for (subtype PTRs), sorted; never the media criterion.
    public var appIDs: [String]
    /// Whether it answered under the media criterion subtype (``CastName/mediaCriterion``).
    public var mediaCriterion = false
    /// Every TXT key=value, in wire order (keys without `=` have an empty value).
    public var txt: [(key: String, value: String)]
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp
    /// The time of its goodbye (PTR with TTL 0), unless it announced again afterwards.
    public var leftAt: Timestamp?
    /// How it was found: `mdns`, `dial`.
    public var via: [String]
    /// The TTLs it used, per record type (`PTR`, `SRV`, `TXT`, `A`, `AAAA`), sorted.
    public var ttls: [(type: String, values: [UInt32])]
    /// The IP addresses that sent its records (a reflector shows up here).
    public var sources: [IPAddress]
    /// The first packet that carried its records.
    public var firstFrame: FrameRef
    /// The last packet that carried its records.
    public var lastFrame: FrameRef
    /// Each address of its host with the packet that first announced it.
    public var addressFrames: [(address: IPAddress, frame: FrameRef)]
    /// Each source address of its records with the first packet from it.
    public var sourceFrames: [(address: IPAddress, frame: FrameRef)]
    /// Each distinct (IP source, link source, IP TTL) its records and its host's address
    /// records arrived with: what tells its own packets from relayed copies.
    public var senders: [RecordSender] = []
    /// The goodbye packet.
    public var leftFrame: FrameRef?
    /// DIAL details, when found or merged through SSDP.
    public var dial: DIALInfo?
    /// The outer 802.1Q VLAN IDs its records arrived on, in order of sight: empty unless the
    /// capture is of a trunk (tagged frames).
    public var vlans: [Int] = []
    /// The last multicast packet that carried its records (an answer or an announcement).
    public var lastMulticast: Timestamp?
    public var lastMulticastFrame: FrameRef?
    /// When each of its instance names was alive (mDNS only), in the order seen: two alive at
    /// once are a name conflict, one after the other are not.
    public var instanceSpans: [InstanceSpan] = []

    public static func == (a: Device, b: Device) -> Bool {
        a.id == b.id && a.instances == b.instances && a.addresses == b.addresses && a.firstSeen == b.firstSeen
            && a.lastSeen == b.lastSeen && a.txt.map(\.key) == b.txt.map(\.key)
            && a.txt.map(\.value) == b.txt.map(\.value) && a.via == b.via && a.leftAt == b.leftAt
            && a.host == b.host && a.port == b.port && a.appIDs == b.appIDs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(instances)
    }
}

/// When one instance name of a device was alive: from its first record until its goodbye, or
/// until its last PTR record's TTL ran out.
public struct InstanceSpan: Hashable, Sendable {
    /// The instance label.
    public var instance: String
    public var firstSeen: Timestamp
    /// Its goodbye, or its last record plus the PTR TTL.
    public var aliveUntil: Timestamp
    public var firstFrame: FrameRef

    public init(instance: String, firstSeen: Timestamp, aliveUntil: Timestamp, firstFrame: FrameRef) {
        self.instance = instance
        self.firstSeen = firstSeen
        self.aliveUntil = aliveUntil
        self.firstFrame = firstFrame
    }

    /// Whether the two were alive at the same moment.
    public func overlaps(_ other: InstanceSpan) -> Bool {
        firstSeen < other.aliveUntil && other.firstSeen < aliveUntil
    }
}

/// A query a client sent to a unicast DNS server (UDP port 53) for a `.local` name, which only
/// mDNS can answer (RFC 6762 §3), and what came back.
public struct LocalDNSQuery: Hashable, Sendable {
    /// The name asked (`<uuid>.local`).
    public var name: String
    /// The question type (`A`, `AAAA`, …).
    public var type: String
    /// The DNS server it went to.
    public var server: IPAddress
    public var time: Timestamp
    public var frame: FrameRef
    /// What the server said: `NXDOMAIN`, `SERVFAIL`, `REFUSED`, `no address`, or the addresses;
    /// `nil` when no answer was captured.
    public var answer: String?
    public var answerFrame: FrameRef?
    /// The DNS message ID (to match the answer).
    var messageID: UInt16

    init(name: String, type: String, server: IPAddress, time: Timestamp, frame: FrameRef, messageID: UInt16) {
        self.name = name
        self.type = type
        self.server = server
        self.time = time
        self.frame = frame
        self.messageID = messageID
    }
}

/// A host that searched for Cast devices.
public struct Client: Hashable, Sendable {
    /// The primary address: IPv4 when the host has one, else the first seen. Latency rows,
    /// response stats, query outcomes and findings name the host by it.
    public var address: IPAddress
    /// Every address the host queried from, the primary first (its IPv4 and IPv6 addresses,
    /// joined by MAC: ``HostGrouping``); empty in a hand-built client, which means `[address]`.
    public var addresses: [IPAddress] = []
    public var mac: MACAddress?
    /// PKTAP process name (and pid) when the capture has it.
    public var process: String?
    /// mDNS query packets asking for the Cast type or a subtype.
    public var queries: Int
    /// Cast questions with the QU (unicast response) bit, and without it.
    public var quQuestions: Int
    public var qmQuestions: Int
    /// App IDs it asked for (subtype queries), sorted.
    public var appIDsQueried: [String]
    public var firstQuery: Timestamp?
    public var lastQuery: Timestamp?
    public var firstQueryFrame: FrameRef?
    /// Whether it sent legacy unicast queries (source port ≠ 5353).
    public var legacyUnicast: Bool
    /// The first legacy unicast query.
    public var firstLegacyFrame: FrameRef?
    /// SSDP M-SEARCHes for DIAL.
    public var dialSearches: Int
    public var firstDialSearch: Timestamp?
    public var firstDialSearchFrame: FrameRef?
    /// The `USER-AGENT` of its first DIAL M-SEARCH that had one (Chrome sends
    /// `Google Chrome/99.0.4844.74 Mac OS X`).
    public var dialUserAgent: String? = nil
    /// Its DIAL M-SEARCHes that some DIAL server (Cast or not) answered.
    public var dialSearchesAnswered = 0
    /// Its first DIAL M-SEARCHes (at most ``Finding/maximumFrames``): evidence.
    public var dialSearchFrames: [FrameRef] = []
    /// Intervals between query bursts shorter than 900 ms (RFC 6762 §5.2 wants ≥ 1 s).
    public var fastIntervals: Int
    /// App IDs for which a subtype PTR reached it (as an answer it could receive, or in its own
    /// known-answer list), sorted.
    public var appIDsAnswered: [String]
    /// Whether a PTR under `_googlecast._tcp.local` reached it (or it listed one as known).
    public var serviceTypeAnswered: Bool
    /// Intervals between its query bursts, in ms (the first ones, at most
    /// ``TrackerLimits/maximumIntervalsKept``).
    public var intervalsMs: [Double]
    /// Whether, within each discovery session, intervals started at ≥ 1 s and at least
    /// doubled (RFC 6762 §5.2, allowing 10 % jitter); `nil` with fewer than two intervals.
    public var followsDoubling: Bool?
    /// Discovery sessions started.
    public var sessions: Int
    /// The outer 802.1Q VLAN IDs its packets carried, in order of sight: empty unless the
    /// capture is of a trunk (tagged frames).
    public var vlans: [Int] = []
    /// Whether it asked the media criterion subtype (``CastName/mediaCriterion``), which is not
    /// among `appIDsQueried`.
    public var mediaCriterionQueried = false
    /// Whether an answer under the media criterion reached it (or it listed one as known).
    public var mediaCriterionAnswered = false
    /// Its unicast DNS queries (port 53) for `.local` names, in capture order (at most 16 per
    /// address).
    public var localNamesOverDNS: [LocalDNSQuery] = []

    /// ``addresses``, or `[address]` when they were not filled in.
    public var allAddresses: [IPAddress] { addresses.isEmpty ? [address] : addresses }
}

/// The latency of one device for one discovery session of one client (mDNS), or for one DIAL
/// M-SEARCH of one client (DIAL: ``via`` is ``Via/dial``, the session start is the M-SEARCH and
/// the first answer its `200 OK`).
public struct LatencyRow: Hashable, Sendable {
    /// The discovery protocol a row measures.
    public enum Via: String, Hashable, Sendable {
        case mdns
        case dial
    }
    public var client: IPAddress
    public var deviceID: String
    public var sessionStart: Timestamp
    public var sessionStartFrame: FrameRef
    /// Session start → first PTR answer for the device that the client could receive.
    public var firstAnswerMs: Double?
    public var firstAnswerFrame: FrameRef?
    /// Why `firstAnswerMs` is missing.
    public var firstAnswerMissing: String?
    /// Session start → SRV, TXT and an address all seen by the client.
    public var resolvedMs: Double?
    public var resolvedFrame: FrameRef?
    /// Why `resolvedMs` is missing.
    public var resolvedMissing: String?
    /// mDNS (a session) or DIAL (one M-SEARCH).
    public var via = Via.mdns
}

/// How one device answered one client's queries.
public struct ResponseStats: Hashable, Sendable {
    public var client: IPAddress
    public var deviceID: String
    /// Queries the device was expected to answer (it was known under a name asked).
    public var expected: Int
    /// Queries it answered (a PTR for it reached the client before the next query).
    public var answered: Int
    /// Queries it rightly did not answer: the client listed its PTR as a known answer with at
    /// least half the TTL (RFC 6762 §7.1).
    public var suppressed: Int
    /// Queries with no answer and no reason to withhold one.
    public var missed: Int
    /// Delay from query to answer, ms.
    public var delay: Summary?
    /// A few query frames that went unanswered (evidence).
    public var missedFrames: [FrameRef]
}

/// One Cast query (burst) of a client and what became of it.
public struct QueryOutcome: Hashable, Sendable {
    /// The most device ids one query's answered, suppressed or missed list holds (the rest
    /// are counted in ``LimitDrops/queryListEntries``); the response table keeps the full counts.
    public static let maximumDevicesListed = 100

    /// One device's answer to the query.
    public struct Answer: Hashable, Sendable {
        public var deviceID: String
        /// Query → first PTR for the device that reached the client, ms.
        public var delayMs: Double
        /// The packet with that PTR.
        public var frame: FrameRef
        /// Whether that packet was unicast to the client (else multicast).
        public var unicast = false
    }
    public var client: IPAddress
    public var time: Timestamp
    /// The query (the first packet of the burst).
    public var frame: FrameRef
    /// The Cast names asked for.
    public var names: [String]
    /// Devices that answered, by delay.
    public var answered: [Answer]
    /// Devices that rightly stayed silent (known-answer suppression).
    public var suppressed: [String]
    /// Devices expected to answer that did not.
    public var missed: [String]
    /// Whether the query asked for unicast answers: its first packet had the QU bit on a Cast
    /// question (RFC 6762 §5.4).
    public var unicastResponse = false
}

/// count, min, p50, p90, max of a set of values (nearest-rank percentiles).
public struct Summary: Hashable, Sendable {
    public var count: Int
    public var min: Double
    public var p50: Double
    public var p90: Double
    public var max: Double

    /// Summarises `values`, or returns `nil` for none.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        min = sorted[0]
        p50 = rank(0.5)
        p90 = rank(0.9)
        max = sorted[sorted.count - 1]
    }
}

/// Latency summaries for one device (or overall, with `deviceID == nil`).
public struct LatencySummary: Hashable, Sendable {
    public var deviceID: String?
    public var firstAnswer: Summary?
    public var resolved: Summary?
    public var responseDelay: Summary?
    /// DIAL M-SEARCH → `200 OK`, from the DIAL latency rows.
    public var dialAnswer: Summary? = nil
}

/// How bad a finding is.
public enum Severity: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Discovery fails, or the capture cannot show it.
    case error
    /// Discovery works badly or will fail in some conditions.
    case warning
    /// Worth knowing; not a fault.
    case info

    /// Errors first.
    public var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// What a finding is about.
public struct FindingSubjects: Hashable, Sendable {
    /// Client addresses.
    public var clients: [String] = []
    /// Device ids.
    public var devices: [String] = []
    /// App IDs.
    public var appIDs: [String] = []
    /// At most ``maximumEach`` of each kind are kept (the first ones given).
    public init(clients: [String] = [], devices: [String] = [], appIDs: [String] = []) {
        self.clients = Array(clients.prefix(Self.maximumEach))
        self.devices = Array(devices.prefix(Self.maximumEach))
        self.appIDs = Array(appIDs.prefix(Self.maximumEach))
    }

    /// The most clients, devices or app IDs one finding names (a flood of fake devices must
    /// not make every finding list all of them).
    public static let maximumEach = 100
}

/// One subject's part of a finding: who or what, its own one-line detail, its frames.
///
/// Rules emit one finding per subject; ``Diagnosis/diagnose(_:inputs:)`` merges the findings
/// of one code into one, with an evidence entry per subject (the one-subject finding keeps its
/// single entry, rendered as before).
public struct FindingEvidence: Hashable, Sendable {
    /// What kind of subject the entry is about: the subject kind that differs between the
    /// merged findings.
    public enum Kind: String, Hashable, Sendable {
        case client, device, app, other
    }
    public var kind: Kind
    /// The subject as a reader knows it: a client's address, a device's friendly name, an app
    /// ID (several, joined by ` / `, when more than one kind differs); empty for `other`.
    public var subject: String
    /// One line: the title the rule gave for this subject.
    public var detail: String
    /// This subject's frames (at most ``Finding/maximumFrames``).
    public var frames: [FrameRef]

    public init(kind: Kind, subject: String, detail: String, frames: [FrameRef]) {
        self.kind = kind
        self.subject = subject
        self.detail = detail
        self.frames = Array(frames.prefix(Finding.maximumFrames))
    }
}

/// A diagnosis: what is wrong (or notable), why we think so, and what to do.
public struct Finding: Hashable, Sendable {
    /// Stable identifier, documented in docs/diagnostics.md (`QUERIES_UNANSWERED`).
    public var code: FindingCode
    public var severity: Severity
    /// One line.
    public var title: String
    /// Plain words, with the numbers that matter.
    public var detail: String
    /// What to do next.
    public var advice: String
    /// Frames that prove it, the most telling first (at most ``Finding/maximumFrames``).
    public var frames: [FrameRef]
    public var subjects: FindingSubjects
    /// Per subject: its one-line detail and frames (filled in by the diagnosis; empty in a
    /// finding a rule has just made, which is its own single subject).
    public var evidence: [FindingEvidence] = []

    /// The most evidence frames a finding lists.
    public static let maximumFrames = 30

    public init(
        code: FindingCode, severity: Severity, title: String, detail: String, advice: String, frames: [FrameRef] = [],
        subjects: FindingSubjects = FindingSubjects()
    ) {
        self.code = code
        self.severity = severity
        self.title = title
        self.detail = detail
        self.advice = advice
        self.frames = Array(frames.prefix(Self.maximumFrames))
        self.subjects = subjects
    }
}

/// Everything `castscope analyze` reports.
public struct AnalysisReport: Sendable {
    public static let schemaVersion = 1
    public var captures: [CaptureInfo]
    public var devices: [Device]
    /// DIAL servers that are not Cast devices (a Roku, a TV's own DIAL server): listed apart,
    /// never counted as Cast devices.
    public var otherDevices: [DIALInfo] = []
    public var clients: [Client]
    public var latency: [LatencyRow]
    public var responses: [ResponseStats]
    /// Every query (burst) with its answers, the first ``TrackerLimits/maximumQueriesKept`` per
    /// client per timeline.
    public var queries: [QueryOutcome]
    public var summaries: [LatencySummary]
    public var overall: LatencySummary
    public var findings: [Finding]
    /// Malformed discovery packets: the first few with their reasons, and how many in all.
    public var malformedFrames: [(frame: FrameRef, reason: String)]
    public var malformedCount: Int
    /// Multicast Cast queries and responses whose IP TTL / hop limit a router decremented
    /// (``IPTTL/isDecremented(_:)``): the first few, the count, and the values seen.
    public var reflectedFrames: [FrameRef]
    public var reflectedCount: Int
    public var reflectedTTLs: [UInt8]
    /// The IPv4 sources each link-layer address sent mDNS from (several: a router or relay).
    public var linkSources: [MACAddress: [IPAddress]] = [:]
    /// What was dropped because a capacity or reassembly limit was reached (all timelines and
    /// captures).
    public var limitDrops = LimitDrops()
    /// The capacity the tracker ran with.
    public var capacity = TrackerCapacity()
    /// The session gap used, in seconds.
    public var sessionGapSeconds: Double
    /// Whether several files were analysed as one timeline.
    public var merged: Bool
    /// Files given that could not be read at all, in command-line order: the analysis covers
    /// only the others, and the verdict says so.
    public var unreadable: [UnreadableCapture] = []
    /// The addresses `--client` asked for (empty: every client).
    public var clientFilter: [IPAddress] = []
    /// Hosts that searched but were left out by `--client` (the first 30), sorted.
    public var clientsLeftOut: [IPAddress] = []
    /// The connection phase: one row per client × device × address:port (Connections.swift).
    public var connections: [Connection] = []
    /// Whether the captures hold any TCP packet of the connection phase (SYN/RST/FIN, a TLS
    /// hello, HTTP): a capture filtered to discovery traffic holds none, and then nothing can be
    /// said about connections not made.
    public var connectionPhaseSeen = false
    /// Connection attempts not kept (beyond ``DiscoveryTracker/maximumConnections`` a timeline).
    public var connectionsDropped = 0
    /// ICMP port unreachables answering UDP 5353 or 1900: the first few, and how many.
    public var discoveryPortUnreachable: [DiscoveryPortUnreachable] = []
    public var discoveryPortUnreachableCount = 0
}

/// A capture file that could not be opened or is not a capture castscope reads.
public struct UnreadableCapture: Hashable, Sendable {
    /// The file as given on the command line.
    public var file: String
    /// Why, in one sentence (what the command line also prints on standard error).
    public var error: String

    public init(file: String, error: String) {
        self.file = file
        self.error = error
    }
}
