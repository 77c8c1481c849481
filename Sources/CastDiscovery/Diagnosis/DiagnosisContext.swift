import WireFormat

/// What the rules read: the report, the other inputs, and the indexes several rules share,
/// each built once.
///
/// The indexes are keyed, so that no rule costs clients × queries or clients × devices ×
/// latency rows: a flood of fake clients and devices must not hang the diagnosis.
struct DiagnosisContext {
    let report: AnalysisReport
    let inputs: DiagnosisInputs

    /// Devices heard over mDNS (not only through DIAL), in report order.
    let mdnsDevices: [Device]
    /// Every device by id (the first one, should an id repeat).
    let devicesByID: [String: Device]
    /// mDNS and SSDP packets in all captures.
    let mdnsPackets: Int
    let ssdpPackets: Int
    /// Whether some client searched with SSDP M-SEARCH for DIAL.
    let dialSearched: Bool
    /// The end of the latest capture.
    let captureEnd: Timestamp?
    /// Clients whose DIAL M-SEARCH a Cast device answered, and each one's fastest answer per
    /// device (id, ms), fastest first.
    let dialAnswers: [IPAddress: [(device: String, ms: Double)]]
    /// The DIAL servers that are not Cast devices, by each client they answered.
    let otherDIALAnswers: [IPAddress: [DIALInfo]]
    /// Whether there are captures and every one has no frame at all.
    let allCapturesEmpty: Bool
    /// Whether `--client` named addresses and none of them searched.
    let noSuchClient: Bool
    /// Whether some capture is unreadable from a frame on (CAPTURE_UNREADABLE): what was not
    /// read may hold the traffic whose absence a rule would otherwise report.
    let someCaptureUnreadable: Bool

    /// Each client's queries, in report order.
    let queriesByClient: [IPAddress: [QueryOutcome]]
    /// Clients with at least one query that some device answered.
    let clientsAnswered: Set<IPAddress>
    /// Latency rows by client, then by device id.
    let latencyRows: [IPAddress: [String: [LatencyRow]]]
    /// The queries each device (by id) missed.
    let queriesMissedBy: [String: [QueryOutcome]]
    /// TTLs (seconds, non-zero, sorted) that mDNS devices' records use: cache refreshes at
    /// 80/85/90/95 % of one of them are legitimately close together (RFC 6762 §5.2).
    let refreshTTLs: [UInt32]
    /// How each mDNS device's records reached the capture (own packets, relayed copies,
    /// misplaced addresses), in `mdnsDevices` order.
    let paths: [DevicePath]

    init(_ report: AnalysisReport, inputs: DiagnosisInputs) {
        self.report = report
        self.inputs = inputs
        mdnsDevices = report.devices.filter { $0.via.contains("mdns") }
        devicesByID = Dictionary(report.devices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        mdnsPackets = report.captures.reduce(0) { $0 + $1.mdnsPackets }
        ssdpPackets = report.captures.reduce(0) { $0 + $1.ssdpPackets }
        dialSearched = report.clients.contains { $0.dialSearches > 0 }
        captureEnd = report.captures.compactMap(\.end).max()
        var fastest: [IPAddress: [String: Double]] = [:]
        for row in report.latency where row.via == .dial {
            guard let ms = row.firstAnswerMs else { continue }
            fastest[row.client, default: [:]][row.deviceID] = Swift.min(ms, fastest[row.client]?[row.deviceID] ?? ms)
        }
        dialAnswers = fastest.mapValues { byDevice in
            byDevice.map { (device: $0.key, ms: $0.value) }.sorted { ($0.ms, $0.device) < ($1.ms, $1.device) }
        }
        var others: [IPAddress: [DIALInfo]] = [:]
        for o in report.otherDevices { for c in o.answeredClients { others[c, default: []].append(o) } }
        otherDIALAnswers = others
        allCapturesEmpty =
            !report.captures.isEmpty
            && report.captures.allSatisfy { $0.packets == 0 && !$0.truncated && $0.unreadableFrom == nil }
        someCaptureUnreadable = report.captures.contains { $0.unreadableFrom != nil }
        let filter = Set(report.clientFilter)
        noSuchClient = !filter.isEmpty && !report.clients.contains { !filter.isDisjoint(with: $0.allAddresses) }

        queriesByClient = Dictionary(grouping: report.queries, by: \.client)
        clientsAnswered = Set(report.queries.filter { !$0.answered.isEmpty }.map(\.client))
        var rows: [IPAddress: [String: [LatencyRow]]] = [:]
        for row in report.latency { rows[row.client, default: [:]][row.deviceID, default: []].append(row) }
        latencyRows = rows
        var missed: [String: [QueryOutcome]] = [:]
        for q in report.queries { for id in q.missed { missed[id, default: []].append(q) } }
        queriesMissedBy = missed
        refreshTTLs = Set(mdnsDevices.flatMap { $0.ttls.flatMap(\.values) }.filter { $0 > 0 }).sorted()

        paths = mdnsDevices.map(DevicePath.init)
    }

    /// A device's friendly name, else its id.
    func name(of id: String) -> String { devicesByID[id]?.friendlyName ?? id }
}

/// One client as the client rules see it: the client, its queries, and what they share.
struct ClientContext {
    let client: Client
    /// Its address as text.
    let address: String
    /// Its queries, in report order, and their frames.
    let queries: [QueryOutcome]
    let queryFrames: [FrameRef]
    /// Whether any of its queries was answered (or rightly not, by known-answer suppression).
    let answered: Bool
    /// The finding subject naming only this client.
    let subject: FindingSubjects
    /// How many times it asked: its query bursts (one burst sent over IPv4 and IPv6 is one
    /// query), or its query packets when the per-query table dropped some.
    let queryCount: Int

    init(_ client: Client, in context: DiagnosisContext) {
        self.client = client
        address = client.address.description
        queries = context.queriesByClient[client.address] ?? []
        queryFrames = queries.map(\.frame)
        answered = queries.contains { !$0.answered.isEmpty || !$0.suppressed.isEmpty }
        subject = FindingSubjects(clients: [address])
        queryCount = context.report.limitDrops.queries == 0 && !queries.isEmpty ? queries.count : client.queries
    }

    /// Whether it searched with mDNS at all (the rules about queries need that).
    var queried: Bool { client.queries > 0 }
}
