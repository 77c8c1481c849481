import WireFormat

/// What `castscope probe` did and what its sockets saw, beside the analysis of the capture.
public struct ProbeSummary: Sendable {
    /// One query the probe sent.
    public struct Query: Sendable {
        public var time: Timestamp
        /// `ipv4` or `ipv6`.
        public var family: String
        /// Whether its questions asked for unicast answers (QU).
        public var unicastResponse: Bool
        /// `name TYPE`, in order.
        public var questions: [String]
        public var knownAnswers: Int
        /// Whether TC was set (more known answers in the next packet).
        public var truncated: Bool

        public init(
            time: Timestamp, family: String, unicastResponse: Bool, questions: [String], knownAnswers: Int,
            truncated: Bool
        ) {
            self.time = time
            self.family = family
            self.unicastResponse = unicastResponse
            self.questions = questions
            self.knownAnswers = knownAnswers
            self.truncated = truncated
        }
    }

    /// One device the probe found.
    public struct Device: Sendable {
        /// The instance name, `<instance>._googlecast._tcp.local`.
        public var instance: String
        /// TXT `fn`, `id`, `md`.
        public var name: String?
        public var id: String?
        public var model: String?
        public var addresses: [IPAddress]
        public var port: UInt16?
        /// SRV, TXT and an address all arrived.
        public var resolved: Bool
        /// From the first query to its first PTR, as the socket saw it (`nil` when it came
        /// before the first query: an announcement).
        public var firstAnswerMs: Double?
        /// Whether its first PTR came before the probe's first query (the device was announcing).
        public var announcedBeforeQuery = false
        /// The app IDs (and `media` for the media criterion) it was found under.
        public var foundUnder: [String]
        /// The connection (`nil` with `--no-connect`).
        public var connect: ProbeConnectResult?

        public init(
            instance: String, name: String?, id: String?, model: String?, addresses: [IPAddress], port: UInt16?,
            resolved: Bool, firstAnswerMs: Double?, foundUnder: [String], connect: ProbeConnectResult?
        ) {
            self.instance = instance
            self.name = name
            self.id = id
            self.model = model
            self.addresses = addresses
            self.port = port
            self.resolved = resolved
            self.firstAnswerMs = firstAnswerMs
            self.foundUnder = foundUnder
            self.connect = connect
        }
    }

    public var interface: String
    public var addresses: [IPAddress]
    /// `ipv4`, `ipv6`: the families queried.
    public var families: [String]
    public var appIDs: [String]
    public var durationSeconds: Double
    public var started: Timestamp
    /// Whether the analysis comes from a capture (libpcap) rather than the sockets.
    public var captured: Bool
    /// Why frames are missing, when not captured.
    public var captureNote: String?
    /// The pcap kept with `--write`.
    public var written: String?
    public var queries: [Query] = []
    /// DIAL M-SEARCH requests sent, and the answers the socket received.
    public var mSearches = 0
    public var ssdpAnswers = 0
    public var devices: [Device] = []
    /// Whether any Cast device answered (mDNS or DIAL).
    public var answered: Bool { !devices.isEmpty || ssdpAnswers > 0 }
    /// Whether it stopped on SIGINT or SIGTERM before its time.
    public var interrupted = false

    public init(
        interface: String, addresses: [IPAddress], families: [String], appIDs: [String], durationSeconds: Double,
        started: Timestamp, captured: Bool, captureNote: String?, written: String?
    ) {
        self.interface = interface
        self.addresses = addresses
        self.families = families
        self.appIDs = appIDs
        self.durationSeconds = durationSeconds
        self.started = started
        self.captured = captured
        self.captureNote = captureNote
        self.written = written
    }

    /// Whether every device found was reached (trivially true with `--no-connect`).
    public var allReachable: Bool {
        devices.allSatisfy { $0.connect.map { $0.outcome == .established } ?? true }
    }
}

/// What became of the probe's connection to one device.
public enum ProbeConnectOutcome: String, Sendable {
    /// TCP connected and the TLS handshake completed.
    case established
    /// The device answered the SYN with a reset: nothing listens on the port.
    case refused
    /// No answer to the SYNs within the connect timeout.
    case timeout
    /// The network said the address cannot be reached (ICMP unreachable, no route).
    case unreachable
    /// TCP connected, but the TLS handshake failed or did not finish in time.
    case tlsFailed = "tls-failed"
    /// The device was found but never resolved to an address and port before the probe ended.
    case notResolved = "not-resolved"
}

/// The result of one connection, as the probe's socket saw it.
public struct ProbeConnectResult: Sendable {
    /// Where it connected to (`nil` when the device never resolved to an address and port).
    public var address: IPAddress?
    public var port: UInt16?
    public var outcome: ProbeConnectOutcome
    public var started: Timestamp
    /// From the first SYN to the connection being established, as the socket saw it.
    public var connectMs: Double?
    /// From the established connection to the TLS handshake's end, as the socket saw it (this
    /// host's TLS computation included, as a sender's user waits for it).
    public var tlsMs: Double?
    /// `TLSv1.3`, `TLSv1.2`.
    public var tlsVersion: String?
    public var cipher: String?
    /// The system's or OpenSSL's words, when it failed.
    public var error: String?

    public init(
        address: IPAddress?, port: UInt16?, outcome: ProbeConnectOutcome, started: Timestamp, connectMs: Double? = nil,
        tlsMs: Double? = nil, tlsVersion: String? = nil, cipher: String? = nil, error: String? = nil
    ) {
        self.address = address
        self.port = port
        self.outcome = outcome
        self.started = started
        self.connectMs = connectMs
        self.tlsMs = tlsMs
        self.tlsVersion = tlsVersion
        self.cipher = cipher
        self.error = error
    }
}
