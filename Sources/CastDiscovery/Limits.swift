import WireFormat

/// The bounds a user can set, one row each. The command line's `--max-…` options, their
/// help, the `LIMIT_REACHED` finding and the documentation's table are all read from here,
/// so a new limit is added in one place.
public enum Limit: String, CaseIterable, Hashable, Sendable {
    case devices, clients, names, sessions, pairs, rows, fragments

    /// The setting's name, `max-devices` (the command line spells it `--max-devices`).
    public var name: String { "max-" + rawValue }

    /// Where the limit's value is kept.
    public var keyPath: WritableKeyPath<TrackerCapacity, Int> {
        switch self {
        case .devices: \.devices
        case .clients: \.clients
        case .names: \.names
        case .sessions: \.sessions
        case .pairs: \.pairs
        case .rows: \.rows
        case .fragments: \.fragments
        }
    }

    /// The value used when none is set.
    public var defaultValue: Int { TrackerCapacity()[keyPath: keyPath] }

    /// What the limit bounds and what happens at it, as one sentence for help and docs.
    public var summary: String {
        switch self {
        case .devices:
            "Cast instances kept; when full, the oldest never seen with SRV or TXT makes room"
        case .clients: "clients (hosts that searched) kept"
        case .names: "distinct DNS names kept"
        case .sessions:
            "clients' discovery sessions matched against each response at once; the client that queried least "
                + "recently makes room"
        case .pairs: "client × device pairs tracked"
        case .rows: "rows kept in each of the latency, response and per-query tables"
        case .fragments: "fragmented datagrams reassembled at once"
        }
    }

    /// The values a user may set.
    public static let allowedValues = 1...100_000_000

    /// The option that sets it, `--max-devices`.
    public var flag: String { Wording.option(name) }

    /// The ``LimitDrops`` counters of what was dropped at this limit: `LIMIT_REACHED` names
    /// the limit's option beside each of them.
    public var drops: [WritableKeyPath<LimitDrops, Int>] {
        switch self {
        case .devices: [\.devices]
        case .clients: [\.clients]
        case .names: [\.names]
        case .sessions: [\.sessions]
        case .pairs: [\.pairs]
        case .rows: [\.queries, \.latencyRows, \.responseRows]
        case .fragments: [\.fragments]
        }
    }
}

/// Upper bounds on what one timeline keeps, whatever the capture holds: a flood of fake
/// devices, clients or names costs bounded memory. What goes beyond is dropped and counted
/// (``LimitDrops``), and the report says so (the `LIMIT_REACHED` finding).
public struct TrackerCapacity: Hashable, Sendable {
    /// Cast service instances (`--max-devices`). When full, the oldest instance never seen
    /// with a SRV or TXT record makes room for a new one; when all are complete, the new one is
    /// dropped.
    public var devices = 10_000
    /// Host names with address records.
    public var hosts = 10_000
    /// Clients (`--max-clients`): addresses that asked for Cast services or searched for DIAL.
    public var clients = 10_000
    /// Distinct DNS names (`--max-names`).
    public var names = 200_000
    /// DIAL devices.
    public var dialDevices = 10_000
    /// Rows of the latency table (one per discovery session and device) and, separately, of
    /// the response table (one per client and device) (`--max-rows`). Both grow as clients ×
    /// devices, so a flood of fake clients and devices would otherwise make the report huge.
    public var rows = 20_000
    /// Client × device state kept while tracking (`--max-pairs`): one entry per device a
    /// client's query expected (its response counts), per device whose records reached a
    /// discovery session, and per host whose address did. Sparse, so an ordinary capture uses a
    /// few hundred; a flood of fake devices and clients stops here instead of growing as their
    /// product.
    public var pairs = 200_000
    /// Clients whose discovery session takes responses at once (`--max-sessions`): each
    /// response updates every one of them, so this bounds the work per packet. A client joins
    /// with each query; beyond the limit the one that queried least recently leaves.
    public var sessions = 256
    /// Fragmented datagrams reassembled at once (`--max-fragments`): the decoder's
    /// ``ReassemblyLimits/maximumDatagrams``.
    public var fragments = ReassemblyLimits().maximumDatagrams

    public init() {}
}

/// What was dropped because a ``TrackerCapacity`` or reassembly limit was reached.
public struct LimitDrops: Hashable, Sendable {
    /// New devices dropped, and incomplete ones (never seen with SRV or TXT) evicted for newer.
    public var devices = 0
    public var devicesEvicted = 0
    public var hosts = 0
    public var clients = 0
    /// Records dropped because their names could not be interned.
    public var names = 0
    public var dialDevices = 0
    /// Fragmented datagrams abandoned to stay within the reassembly limits.
    public var fragments = 0
    /// Client × device state not kept beyond ``TrackerCapacity/pairs``.
    public var pairs = 0
    /// Sessions that stopped taking responses to make room (``TrackerCapacity/sessions``).
    public var sessions = 0
    /// Finished sessions not kept beyond ``TrackerLimits/maximumFinishedSessions``.
    public var finishedSessions = 0
    /// Queries not kept in the per-query table beyond ``TrackerCapacity/rows`` in all.
    public var queries = 0
    /// Latency rows (session × device) and response rows (client × device) beyond
    /// ``TrackerCapacity/rows``.
    public var latencyRows = 0
    public var responseRows = 0
    /// Device ids beyond ``QueryOutcome/maximumDevicesListed`` in one query's answered,
    /// suppressed or missed list, not listed.
    public var queryListEntries = 0
    /// Subjects beyond ``Diagnosis/maximumFindingsPerCode`` in the finding of one code, not listed.
    public var findings = 0

    public init() {}

    /// Whether nothing was dropped.
    public var isEmpty: Bool { self == LimitDrops() }

    /// Adds another timeline's drops.
    public static func += (a: inout LimitDrops, b: LimitDrops) {
        a.devices += b.devices
        a.devicesEvicted += b.devicesEvicted
        a.hosts += b.hosts
        a.clients += b.clients
        a.names += b.names
        a.dialDevices += b.dialDevices
        a.fragments += b.fragments
        a.latencyRows += b.latencyRows
        a.responseRows += b.responseRows
        a.findings += b.findings
        a.queryListEntries += b.queryListEntries
        a.pairs += b.pairs
        a.sessions += b.sessions
        a.finishedSessions += b.finishedSessions
        a.queries += b.queries
    }
}

/// Bounds that keep memory proportional to devices and clients, not packets.
public enum TrackerLimits {
    /// Query intervals kept per client (the count goes on).
    public static let maximumIntervalsKept = 200
    /// Discovery sessions kept per client for the latency table.
    public static let maximumSessionsKept = 1000
    /// Finished discovery sessions kept for all clients together (a flood of clients each
    /// starting many sessions must not grow memory with the capture).
    public static let maximumFinishedSessions = 100_000
    /// Response delays kept per client and device for the summaries.
    public static let maximumDelaysKept = 10_000
    /// Closed queries kept per client for the per-query table.
    public static let maximumQueriesKept = 500
    /// DIAL M-SEARCHes kept per client to time their answers (the DIAL latency rows).
    public static let maximumDIALSearchesKept = 500
    /// Unanswered query frames kept per client and device as evidence.
    public static let maximumMissedFramesKept = 20
    /// Response delays kept for all clients and devices together (the summaries' percentiles
    /// are computed from these; the answered counts go on).
    public static let maximumDelaysInAll = 1_000_000
    /// Addresses kept per host, and source addresses per device (a flood of records for one
    /// name from ever new addresses must not grow them with the capture).
    public static let maximumAddressesKept = 64
    /// Outer VLAN IDs kept per client and per device (a trunk capture has a few).
    public static let maximumVLANsKept = 16
    /// Distinct TTL values kept per record type of a device or host.
    public static let maximumTTLsKept = 64
    /// Distinct TXT records remembered (parsed) per device.
    public static let recentTXTKept = 4
}
