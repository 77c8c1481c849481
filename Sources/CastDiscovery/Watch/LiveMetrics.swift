import WireFormat

/// What `live --metrics` shows at a scrape: the watch's state and the capture's counters.
public struct LiveMetrics: Sendable {
    public var watch: DiscoveryWatch
    /// Frames captured (after the kernel filter), discovery packets decoded, malformed ones.
    public var packetsRead: Int
    public var packetsDecoded: Int
    public var packetsMalformed: Int
    /// Dropped by the kernel and by the interface (pcap_stats).
    public var droppedKernel: UInt64
    public var droppedInterface: UInt64
    /// When the watch started, and now (wall clock).
    public var started: Timestamp
    public var now: Timestamp
    /// The analysis window (`--metrics-window`).
    public var windowSeconds: Double

    public init(
        watch: DiscoveryWatch, packetsRead: Int, packetsDecoded: Int, packetsMalformed: Int, droppedKernel: UInt64,
        droppedInterface: UInt64, started: Timestamp, now: Timestamp, windowSeconds: Double
    ) {
        self.watch = watch
        self.packetsRead = packetsRead
        self.packetsDecoded = packetsDecoded
        self.packetsMalformed = packetsMalformed
        self.droppedKernel = droppedKernel
        self.droppedInterface = droppedInterface
        self.started = started
        self.now = now
        self.windowSeconds = windowSeconds
    }
}
