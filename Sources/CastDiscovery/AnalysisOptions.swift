import WireFormat

/// Settings of the analysis.
public struct AnalysisOptions: Hashable, Sendable {
    /// A Cast query after at least this long without one from the same client starts a new
    /// discovery session (`--session-gap`, default 60 s).
    public var sessionGapNanoseconds: Int64 = 60_000_000_000
    /// Only these clients (`--client`); empty for all.
    public var clients: Set<IPAddress> = []
    /// Queries from one client closer together than this form one burst (TC continuations,
    /// one query per name); intervals are measured between bursts.
    public var burstNanoseconds: Int64 = 250_000_000
    /// How long after a query an answer still counts as its answer (unless the client queries
    /// again first). RFC 6762 §6 has responders answer within 500 ms even with a TC delay; 1 s
    /// leaves room for a slow device without crediting a query with a later, unrelated answer.
    public var responseWindowNanoseconds: Int64 = 1_000_000_000
    /// Collect ``TrackerEvent``s for ``DiscoveryTracker/drainEvents()`` (live capture).
    public var collectEvents = false
    /// How much state one timeline may hold (`--max-devices`, `--max-clients`, `--max-names`).
    public var capacity = TrackerCapacity()

    public init() {}
}
