// What a watch that runs for days keeps (`castscope live --metrics`): devices with their
// histograms, clients with their counters, the findings that are active now. It is fed from
// the reports of a short analysis window and the live events, and it forgets what has been
// gone long enough, so its size follows the network, not the time it has run.

import WireFormat

/// The state behind `castscope live --metrics`: what the exposition shows.
///
/// Fed by ``absorb(_:windowStart:now:)`` with the report of the live analysis window (two
/// overlapping trackers, restarted in turn; see the Pipeline's `LiveWatch`) and by
/// ``note(_:)`` with that window's events. Counters only go up: each query, answer latency
/// and connection is counted once, however many reports show it.
public struct DiscoveryWatch: Sendable {
    /// How long and how much it keeps.
    public struct Settings: Hashable, Sendable {
        /// A device gone (expired or said goodbye), a client silent, a finding cleared for
        /// longer than this leaves the exposition.
        public var forgetSeconds = 3600.0
        /// Device series kept (`--max-devices`).
        public var maximumDevices = TrackerCapacity().devices
        /// Client series kept (`--max-clients`).
        public var maximumClients = TrackerCapacity().clients
        /// A client whose last query is older than this has no open discovery session.
        public var sessionGapSeconds = 60.0
        public init() {}
    }

    /// A Cast device as the watch shows it.
    public struct DeviceEntry: Hashable, Sendable {
        public var id: String
        public var name: String
        public var model: String
        public var kind: DeviceKind
        /// When any of its records was last heard.
        public var lastHeard: Timestamp
        /// Its shortest record TTL (PTR, SRV, TXT, A, AAAA), seconds: it is gone when nothing
        /// refreshes its records for this long.
        public var ttl: UInt32
        /// Its goodbye, unless it announced again afterwards.
        public var leftAt: Timestamp?
        /// Discovery session start → its first answer, and → fully resolved.
        public var firstAnswer = LatencyHistogram()
        public var resolution = LatencyHistogram()
        /// TCP connections to its addresses, by outcome.
        public var connections: [ConnectionOutcome: Int] = [:]

        /// Whether its records are alive at `now`: heard within its TTL, and no goodbye since.
        public func isUp(at now: Timestamp) -> Bool {
            if let left = leftAt, left >= lastHeard { return false }
            return now.seconds(since: lastHeard) < Double(ttl)
        }

        /// When it went: its goodbye, or when its records ran out.
        public var goneAt: Timestamp {
            if let left = leftAt, left >= lastHeard { return left }
            return Timestamp(epochSeconds: lastHeard.epochSeconds + Double(ttl))
        }
    }

    /// A client address (one a host searched from) as the watch shows it.
    public struct ClientEntry: Hashable, Sendable {
        /// The address its queries came from: the series' label.
        public var address: IPAddress
        /// The MAC address it had when the watch first saw it (none in a capture without
        /// link-layer headers).
        public var mac: MACAddress?
        /// Cast queries it sent, and those the devices that should have answered did not.
        public var queries = 0
        public var unanswered = 0
        public var lastQuery: Timestamp
    }

    /// A finding code at a severity, active now or cleared.
    public struct FindingEntry: Hashable, Sendable {
        public var code: FindingCode
        public var severity: Severity
        public var isActive: Bool
        /// The last time a window's analysis gave it.
        public var lastActive: Timestamp
    }

    /// The series families whose growth the limits bound.
    public enum Family: String, CaseIterable, Sendable {
        case device, client
    }

    public let settings: Settings
    /// By device id.
    public private(set) var devices: [String: DeviceEntry] = [:]
    /// By address (``key(_:)``): the tracker counts each address's queries, whichever host a
    /// report joins it to, so per address the counts stay exact across windows.
    public private(set) var clients: [String: ClientEntry] = [:]
    /// By code and severity.
    public private(set) var findings: [String: FindingEntry] = [:]
    /// Connections to addresses no device advertises, by outcome.
    public private(set) var connectionsWithoutDevice: [ConnectionOutcome: Int] = [:]
    /// Every client's queries and unanswered queries together, forgotten clients included.
    public private(set) var queries = 0
    public private(set) var unanswered = 0
    /// Clients whose discovery session was open at the last report.
    public private(set) var clientsActive = 0
    /// Devices or clients not given a series (or evicted) because of the limits.
    public private(set) var seriesDropped: [Family: Int] = [:]
    /// What the window trackers dropped at each `--max-…` limit (what `LIMIT_REACHED` counts),
    /// each drop counted once.
    public private(set) var limitDrops: [Limit: Int] = [:]

    /// Each address's query count in the current window's tracker at the last look, so that a
    /// report adds only what is new.
    var queryBaseline: [String: Int] = [:]
    /// Unanswered queries from addresses no report has listed yet.
    var pendingUnanswered: [IPAddress: Int] = [:]
    /// Latency rows already counted (a session's row shows in every report until its
    /// tracker ends): bit 0 first answer, bit 1 resolved.
    var observedRows: [RowKey: UInt8] = [:]
    /// Each limit's drops in the current window's tracker at the last look.
    var limitBaseline: [Limit: Int] = [:]
    /// Series refused in the current window, counted once each.
    var refused: Set<String> = []

    struct RowKey: Hashable, Sendable {
        var client: String
        var device: String
        var sessionStart: Timestamp
    }

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The devices whose records are alive at `now`.
    public func devicesVisible(at now: Timestamp) -> Int { devices.values.count { $0.isUp(at: now) } }

    /// Counts what the window's events say happened once: unanswered queries and connection
    /// outcomes.
    public mutating func note(_ events: [TrackerEvent]) {
        for event in events {
            switch event {
            case .queryUnanswered(let client, _, _, _):
                unanswered += 1
                if clients[Self.key(client)] != nil {
                    clients[Self.key(client)]!.unanswered += 1
                } else {
                    pendingUnanswered[client, default: 0] += 1
                }
            case .connection(_, _, _, let outcome, _, _, _, let device):
                if let id = device?.id, devices[id] != nil {
                    devices[id]!.connections[outcome, default: 0] += 1
                } else {
                    connectionsWithoutDevice[outcome, default: 0] += 1
                }
            default: break
            }
        }
    }

    /// Takes in the report of the current window (its tracker started at `windowStart`):
    /// devices heard, queries sent since the last look, latency rows not counted yet, and
    /// the findings active now.
    public mutating func absorb(
        _ report: AnalysisReport, timeline: TimelineResult, windowStart: Timestamp, now: Timestamp,
        findings withFindings: Bool = true
    ) {
        for d in report.devices where d.via.contains("mdns") { absorb(d) }
        for part in timeline.clients {
            let c = part.client
            let key = Self.key(c.address)
            let new = c.queries - queryBaseline[key, default: 0]
            queryBaseline[key] = c.queries
            let last = c.lastQuery ?? now
            guard new > 0 || clients[key] != nil else { continue }
            queries += Swift.max(new, 0)
            guard var entry = clientEntry(key, address: c.address, mac: c.mac, lastQuery: last) else { continue }
            entry.queries += Swift.max(new, 0)
            if last > entry.lastQuery { entry.lastQuery = last }
            clients[key] = entry
        }
        // Hosts, as analyze joins them, for the sessions open now.
        var keyOfPrimary: [IPAddress: String] = [:]
        var active = 0
        for c in report.clients {
            keyOfPrimary[c.address] = c.mac.map { "mac " + $0.description } ?? Self.key(c.address)
            if let last = c.lastQuery, now.seconds(since: last) < settings.sessionGapSeconds { active += 1 }
        }
        clientsActive = active
        for (address, n) in pendingUnanswered where clients[Self.key(address)] != nil {
            clients[Self.key(address)]!.unanswered += n
        }
        // What is still unplaced belongs to a client that got no series (the total has it).
        pendingUnanswered.removeAll(keepingCapacity: true)
        // A row whose session began before this tracker had watched for a session gap may
        // have started earlier, unseen: the previous window counted it.
        let gap = Int64(settings.sessionGapSeconds * 1e9)
        for row in report.latency where row.via == .mdns && devices[row.deviceID] != nil {
            guard row.sessionStart.totalNanoseconds - windowStart.totalNanoseconds >= gap else { continue }
            let key = RowKey(
                client: keyOfPrimary[row.client] ?? "ip " + row.client.description, device: row.deviceID,
                sessionStart: row.sessionStart)
            var seen = observedRows[key, default: 0]
            if seen & 1 == 0, let ms = row.firstAnswerMs {
                devices[row.deviceID]!.firstAnswer.observe(ms / 1000)
                seen |= 1
            }
            if seen & 2 == 0, let ms = row.resolvedMs {
                devices[row.deviceID]!.resolution.observe(ms / 1000)
                seen |= 2
            }
            if seen != 0 { observedRows[key] = seen }
        }
        for limit in Limit.allCases {
            let total = Self.drops(report, at: limit)
            let new = total - limitBaseline[limit, default: 0]
            limitBaseline[limit] = total
            if new > 0 { limitDrops[limit, default: 0] += new }
        }
        guard withFindings else { return }
        var current: Set<String> = []
        for f in report.findings {
            let key = f.code.rawValue + "/" + f.severity.rawValue
            current.insert(key)
            findings[key] = FindingEntry(code: f.code, severity: f.severity, isActive: true, lastActive: now)
        }
        for key in findings.keys where !current.contains(key) { findings[key]!.isActive = false }
    }

    /// A new window's tracker takes over: its counts so far were counted through the old one
    /// (`report` is the new tracker's report at the switch), and rows of sessions that began
    /// before `windowStart` cannot show again.
    public mutating func startWindow(_ report: AnalysisReport, timeline: TimelineResult, windowStart: Timestamp) {
        queryBaseline = Dictionary(
            timeline.clients.map { (Self.key($0.client.address), $0.client.queries) }, uniquingKeysWith: +)
        limitBaseline = Dictionary(uniqueKeysWithValues: Limit.allCases.map { ($0, Self.drops(report, at: $0)) })
        observedRows = observedRows.filter { $0.key.sessionStart >= windowStart }
        refused.removeAll(keepingCapacity: true)
    }

    /// Forgets devices gone, clients silent and findings cleared for longer than
    /// ``Settings/forgetSeconds``.
    public mutating func age(now: Timestamp) {
        let forget = settings.forgetSeconds
        devices = devices.filter { $0.value.isUp(at: now) || now.seconds(since: $0.value.goneAt) <= forget }
        clients = clients.filter { now.seconds(since: $0.value.lastQuery) <= forget }
        findings = findings.filter { $0.value.isActive || now.seconds(since: $0.value.lastActive) <= forget }
    }

    mutating func absorb(_ d: Device) {
        let ttl = Self.instanceTTL(d)
        if var entry = devices[d.id] {
            // An older window's view of it (the tracker that just ended) changes nothing.
            guard d.lastSeen >= entry.lastHeard else { return }
            entry.name = d.friendlyName ?? d.instance ?? d.id
            entry.model = d.model ?? ""
            entry.kind = d.kind
            entry.lastHeard = d.lastSeen
            entry.ttl = ttl
            entry.leftAt = d.leftAt
            devices[d.id] = entry
            return
        }
        guard makeRoom(.device, key: d.id) else { return }
        devices[d.id] = DeviceEntry(
            id: d.id, name: d.friendlyName ?? d.instance ?? d.id, model: d.model ?? "", kind: d.kind,
            lastHeard: d.lastSeen, ttl: ttl, leftAt: d.leftAt)
    }

    /// The host's entry, made when there is room.
    mutating func clientEntry(_ key: String, address: IPAddress, mac: MACAddress?, lastQuery: Timestamp)
        -> ClientEntry?
    {
        if let c = clients[key] { return c }
        guard makeRoom(.client, key: key) else { return nil }
        return ClientEntry(address: address, mac: mac, lastQuery: lastQuery)
    }

    /// What a client's series is kept by: its address.
    static func key(_ address: IPAddress) -> String { "ip " + address.description }

    /// Whether a new series of `family` fits: at the limit, the one gone longest (a device
    /// not up, a client without an open session) makes room; else the new one is refused.
    /// Either way the drop is counted (a refused one once per window).
    mutating func makeRoom(_ family: Family, key: String) -> Bool {
        switch family {
        case .device:
            guard devices.count >= settings.maximumDevices else { return true }
            let newest = devices.values.map(\.lastHeard).max() ?? Timestamp(seconds: 0, nanoseconds: 0)
            if let oldest = devices.values.filter({ !$0.isUp(at: newest) }).min(by: { $0.goneAt < $1.goneAt }) {
                devices[oldest.id] = nil
                seriesDropped[.device, default: 0] += 1
                return true
            }
        case .client:
            guard clients.count >= settings.maximumClients else { return true }
            let newest = clients.values.map(\.lastQuery).max() ?? Timestamp(seconds: 0, nanoseconds: 0)
            if let oldest = clients.min(by: { $0.value.lastQuery < $1.value.lastQuery }),
                newest.seconds(since: oldest.value.lastQuery) >= settings.sessionGapSeconds
            {
                clients[oldest.key] = nil
                seriesDropped[.client, default: 0] += 1
                return true
            }
        }
        if refused.insert(family.rawValue + " " + key).inserted { seriesDropped[family, default: 0] += 1 }
        return false
    }

    /// What a report says was dropped at `limit`.
    static func drops(_ report: AnalysisReport, at limit: Limit) -> Int {
        limit.drops.map { report.limitDrops[keyPath: $0] }.reduce(0, +)
    }

    /// The shortest TTL among a device's records (PTR, SRV, TXT, and its host's A and AAAA),
    /// as the live `deviceExpired` event takes it; 120 s (what Cast devices use) when none was
    /// seen above 0.
    static func instanceTTL(_ d: Device) -> UInt32 {
        d.ttls.flatMap(\.values).filter { $0 > 0 }.min() ?? 120
    }
}
