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

    public init() {}
}

/// Bounds that keep memory proportional to devices and clients, not packets.
public enum TrackerLimits {
    /// Query intervals kept per client (the count goes on).
    public static let maximumIntervalsKept = 200
    /// Discovery sessions kept per client for the latency table.
    public static let maximumSessionsKept = 1000
    /// Response delays kept per client and device for the summaries.
    public static let maximumDelaysKept = 10_000
    /// Closed queries kept per client for the per-query table.
    public static let maximumQueriesKept = 500
    /// Unanswered query frames kept per client and device as evidence.
    public static let maximumMissedFramesKept = 20
}

/// A DNS name as a case-insensitive dictionary key.
struct NameKey: Hashable {
    /// The name's bytes as they came (sharing the name's storage: no copy).
    let wire: [UInt8]
    /// The hash of the lower-cased bytes, computed once: a key is looked up in several sets
    /// and dictionaries per record, and re-hashing a 40-byte name each time dominated the
    /// tracker's profile.
    let digest: Int

    init(_ name: DNSName) {
        wire = name.wire
        var hasher = Hasher()
        wire.withUnsafeBufferPointer { w in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(w.count, 1)) { lower in
                for i in 0..<w.count {
                    let b = w[i]
                    lower[i] = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                }
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(lower)[0..<w.count]))
            }
        }
        digest = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    /// ASCII case-insensitive equality (RFC 4343).
    static func == (a: NameKey, b: NameKey) -> Bool {
        guard a.digest == b.digest, a.wire.count == b.wire.count else { return false }
        if a.wire == b.wire { return true }
        for (x, y) in zip(a.wire, b.wire)
        where (x >= 0x41 && x <= 0x5A ? x | 0x20 : x) != (y >= 0x41 && y <= 0x5A ? y | 0x20 : y) {
            return false
        }
        return true
    }
}

/// Follows Cast discovery through a stream of packets: devices, clients, sessions, latency.
///
/// Pure and streaming: feed packets in capture order with ``ingest(_:capture:)``, then call
/// ``finish()``. State grows with the number of devices, hosts and clients (plus bounded
/// per-client histories), never with the number of packets.
public struct DiscoveryTracker {
    public let options: AnalysisOptions

    struct InstanceState {
        var name: DNSName
        var label: String
        var txt: CastTXT?
        var srvTarget: DNSName?
        var srvPort: UInt16?
        var appIDs: Set<String> = []
        var browseNames: Set<NameKey> = []
        var firstSeen: Timestamp
        var lastSeen: Timestamp
        var firstFrame: FrameRef
        var lastFrame: FrameRef
        var leftAt: Timestamp?
        var leftFrame: FrameRef?
        var ttls: [String: Set<UInt32>] = [:]
        var sources: Set<IPAddress> = []
        var sourceFrames: [(address: IPAddress, frame: FrameRef)] = []
        /// The TTL it gives its PTR records (the "true TTL" for known-answer suppression).
        var ptrTTL: UInt32?
        /// Event state (live capture): reported as appeared, as expired, its goodbye reported.
        var announced = false
        var expired = false
        var leftReported = false
        var lastSnapshot: DeviceSnapshot?
        /// The TXT record as last parsed, to skip parsing it again.
        var rawTXT: TXTRecord?
    }

    struct HostState {
        var addresses: [IPAddress] = []
        var addressFrames: [FrameRef] = []
    }

    struct SessionProgress {
        var firstAnswer: (time: Timestamp, frame: FrameRef)?
        var srv: (time: Timestamp, frame: FrameRef, target: NameKey)?
        var txt: (time: Timestamp, frame: FrameRef)?
    }

    struct SessionState {
        var start: Timestamp
        var startFrame: FrameRef
        var askedNames: Set<NameKey> = []
        /// Instances the client listed as known answers during the session.
        var knownAnswers: Set<NameKey> = []
        var progress: [NameKey: SessionProgress] = [:]
        var addressSeen: [NameKey: (time: Timestamp, frame: FrameRef)] = [:]
    }

    struct QueryState {
        var time: Timestamp
        var frame: FrameRef
        var names: Set<NameKey>
        var knownAnswers: [NameKey: UInt32] = [:]
        var answered: [NameKey: (delay: Double, frame: FrameRef)] = [:]
    }

    /// A closed query, kept (up to ``TrackerLimits/maximumQueriesKept`` per client) for the
    /// per-query table; instance keys become device ids in ``finish()``.
    struct QueryLogEntry {
        var time: Timestamp
        var frame: FrameRef
        /// The names asked, as keys (turned into text only in ``finish()``).
        var names: Set<NameKey>
        var answered: [(instance: NameKey, delay: Double, frame: FrameRef)]
        var suppressed: [NameKey]
        var missed: [NameKey]
    }

    struct ResponseCounter {
        var expected = 0
        var answered = 0
        var suppressed = 0
        var missed = 0
        var delays: [Double] = []
        var missedFrames: [FrameRef] = []
    }

    struct ClientState {
        var address: IPAddress
        var mac: MACAddress?
        var process: String?
        var queries = 0
        var qu = 0
        var qm = 0
        var appIDs: Set<String> = []
        var subtypeNamesAsked: Set<NameKey> = []
        var firstQuery: Timestamp?
        var lastQuery: Timestamp?
        var firstQueryFrame: FrameRef?
        var legacyUnicast = false
        var firstLegacyFrame: FrameRef?
        var dialSearches = 0
        var firstDialSearch: Timestamp?
        var firstDialSearchFrame: FrameRef?
        var fastIntervals = 0
        var namesAnswered: Set<NameKey> = []
        var lastBurst: Timestamp?
        var intervals: [Double] = []
        var intervalCount = 0
        var lastIntervalInSession: Double?
        var doublingViolated = false
        var sessionCount = 0
        var current: SessionState?
        var finished: [SessionState] = []
        var pending: QueryState?
        var responses: [NameKey: ResponseCounter] = [:]
        var queryLog: [QueryLogEntry] = []
    }

    struct DIALState {
        var info: DIALInfo
    }

    var instances: [NameKey: InstanceState] = [:]
    var instanceOrder: [NameKey] = []
    var hosts: [NameKey: HostState] = [:]
    var clients: [IPAddress: ClientState] = [:]
    var clientOrder: [IPAddress] = []
    var dial: [String: DIALState] = [:]
    var dialOrder: [String] = []
    var events: [TrackerEvent] = []
    /// Clients with a discovery session, in order (the ones a response can matter to), and
    /// when each client's open query started: small side tables so that the per-packet checks
    /// do not copy a whole `ClientState` out of `clients`.
    var sessionClients: [IPAddress] = []
    var pendingSince: [IPAddress: Timestamp] = [:]
    var malformed: [(frame: FrameRef, reason: String)] = []
    var malformedCount = 0
    var reflected: [FrameRef] = []
    var reflectedCount = 0
    var reflectedTTLs: Set<UInt8> = []

    /// Evidence frames kept per kind (malformed, reflected).
    static let maximumEvidenceFrames = 30

    public init(options: AnalysisOptions = AnalysisOptions()) { self.options = options }

    /// Adds one discovery packet (in capture order).
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - capture: the index of its capture file, for evidence references.
    public mutating func ingest(_ packet: DiscoveryPacket, capture: Int) {
        let frame = FrameRef(capture: capture, frame: packet.frame)
        if let error = packet.error {
            malformedCount += 1
            if malformed.count < Self.maximumEvidenceFrames { malformed.append((frame, error.description)) }
        }
        if packet.isMDNS, packet.destination.isMulticast, packet.ttl != 255 {
            reflectedCount += 1
            reflectedTTLs.insert(packet.ttl)
            if reflected.count < Self.maximumEvidenceFrames { reflected.append(frame) }
        }
        if let message = packet.mdns {
            if message.isResponse {
                ingestResponse(message, packet: packet, frame: frame)
            } else {
                ingestQuery(message, packet: packet, frame: frame)
            }
        } else if let ssdp = packet.ssdp {
            ingestSSDP(ssdp, packet: packet, frame: frame)
        }
    }

    // MARK: Responses: what devices said

    /// One record of a response with its names already keyed (computed once per packet, then
    /// shared by the device update and every client).
    struct KeyedRecord {
        var type: DNSRecordType
        var ttl: UInt32
        /// Owner name key (for PTR under a browse name, SRV/TXT of an instance, A/AAAA).
        var owner: NameKey
        /// PTR target or SRV target key.
        var target: NameKey?
    }

    mutating func ingestResponse(_ message: DNSMessage, packet: DiscoveryPacket, frame: FrameRef) {
        let now = packet.timestamp
        // Answers and additionals carry records; the authority section is for probes.
        var keyed: [KeyedRecord] = []
        keyed.reserveCapacity(message.answers.count + message.additionals.count)
        // Only live capture needs to know which instances and hosts a packet touched.
        let events = options.collectEvents
        var touched: Set<NameKey> = []
        var hostsTouched: Set<NameKey> = []
        for section in 0..<2 {
            for record in section == 0 ? message.answers : message.additionals {
                switch (record.type, record.data) {
                case (.ptr, .name(let target)):
                    guard let owner = CastName.shape(record.name.wire), owner.kind != .instance,
                        let t = CastName.shape(target.wire), t.kind == .instance
                    else { continue }
                    let key = NameKey(target)
                    let ownerKey = NameKey(record.name)
                    keyed.append(KeyedRecord(type: record.type, ttl: record.ttl, owner: ownerKey, target: key))
                    if events { touched.insert(key) }
                    let legacy = packet.legacyUnicast
                    withInstance(key, name: target, labelOffset: t.first, packet: packet, frame: frame) { i in
                        i.ttls["PTR", default: []].insert(record.ttl)
                        if record.ttl == 0 {
                            i.leftAt = now
                            i.leftFrame = frame
                        } else {
                            i.leftAt = nil
                            i.leftFrame = nil
                            // Legacy unicast answers cap TTLs at 10 s (RFC 6762 §6.7): not the true TTL.
                            if !legacy { i.ptrTTL = record.ttl }
                            if i.browseNames.insert(ownerKey).inserted, owner.kind == .subtype,
                                case .subtype(let app)? = CastName(record.name)
                            {
                                i.appIDs.insert(app)
                            }
                        }
                    }
                case (.srv, .srv(_, _, let port, let target)):
                    guard let shape = CastName.shape(record.name.wire), shape.kind == .instance else { continue }
                    let key = NameKey(record.name)
                    let targetKey = NameKey(target)
                    keyed.append(KeyedRecord(type: record.type, ttl: record.ttl, owner: key, target: targetKey))
                    if events { touched.insert(key) }
                    withInstance(key, name: record.name, labelOffset: shape.first, packet: packet, frame: frame) { i in
                        i.ttls["SRV", default: []].insert(record.ttl)
                        if record.ttl > 0 {
                            i.srvTarget = target
                            i.srvPort = port
                        }
                    }
                case (.txt, .txt(let txt)):
                    guard let shape = CastName.shape(record.name.wire), shape.kind == .instance else { continue }
                    let key = NameKey(record.name)
                    keyed.append(KeyedRecord(type: record.type, ttl: record.ttl, owner: key, target: nil))
                    if events { touched.insert(key) }
                    withInstance(key, name: record.name, labelOffset: shape.first, packet: packet, frame: frame) { i in
                        i.ttls["TXT", default: []].insert(record.ttl)
                        // Parse the Cast keys only when the record changed.
                        if record.ttl > 0, i.rawTXT != txt {
                            i.rawTXT = txt
                            i.txt = CastTXT(txt)
                        }
                    }
                case (.a, .a(let a)):
                    let host = NameKey(record.name)
                    keyed.append(KeyedRecord(type: record.type, ttl: record.ttl, owner: host, target: nil))
                    if events { hostsTouched.insert(host) }
                    addAddress(.v4(a), host: host, ttl: record.ttl, frame: frame)
                case (.aaaa, .aaaa(let a)):
                    let host = NameKey(record.name)
                    keyed.append(KeyedRecord(type: record.type, ttl: record.ttl, owner: host, target: nil))
                    if events { hostsTouched.insert(host) }
                    addAddress(.v6(a), host: host, ttl: record.ttl, frame: frame)
                default:
                    continue
                }
            }
        }
        guard !keyed.isEmpty else { return }
        // What each client could receive of it.
        for address in sessionClients where canReceive(packet, client: address) {
            updateClient(address, records: keyed, time: now, frame: frame)
        }
        if events { emitDeviceEvents(touched: touched, hostsTouched: hostsTouched, time: now, frame: frame) }
    }

    /// Updates one instance in place (one dictionary lookup), creating it on first sight.
    mutating func withInstance(
        _ key: NameKey, name: DNSName, labelOffset: Int, packet: DiscoveryPacket, frame: FrameRef,
        _ body: (inout InstanceState) -> Void
    ) {
        if instances[key] == nil {
            let w = name.wire
            let label = CastName.text(w[(labelOffset + 1)..<(labelOffset + 1 + Int(w[labelOffset]))])
            instances[key] = InstanceState(
                name: name, label: label, firstSeen: packet.timestamp, lastSeen: packet.timestamp, firstFrame: frame,
                lastFrame: frame)
            instanceOrder.append(key)
        }
        let source = packet.source
        let time = packet.timestamp
        modify(&instances[key]!) { i in
            i.lastSeen = time
            i.lastFrame = frame
            if i.sources.insert(source).inserted { i.sourceFrames.append((source, frame)) }
            body(&i)
        }
    }

    @inline(__always)
    func modify<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }

    var addressTTLs: [NameKey: [String: Set<UInt32>]] = [:]

    mutating func addAddress(_ address: IPAddress, host key: NameKey, ttl: UInt32, frame: FrameRef) {
        var h = hosts[key] ?? HostState()
        if ttl > 0, !h.addresses.contains(address) {
            h.addresses.append(address)
            h.addressFrames.append(frame)
        }
        hosts[key] = h
        let type: String
        switch address {
        case .v4: type = "A"
        case .v6: type = "AAAA"
        }
        addressTTLs[key, default: [:]][type, default: []].insert(ttl)
    }

    /// Whether `client` could receive `packet`: unicast to it, or multicast in its address
    /// family (an IPv6 client address is a socket on ff02::fb, which IPv4 answers do not reach).
    func canReceive(_ packet: DiscoveryPacket, client: IPAddress) -> Bool {
        if packet.destination == client { return true }
        guard packet.destination.isMulticast else { return false }
        switch (packet.destination, client) {
        case (.v4, .v4), (.v6, .v6): return true
        default: return false
        }
    }

    mutating func updateClient(_ address: IPAddress, records: [KeyedRecord], time: Timestamp, frame: FrameRef) {
        // Taken out of the dictionary so that its collections are uniquely referenced and
        // edited in place (a copy would duplicate them on every packet).
        var c = clients.removeValue(forKey: address)!
        defer { clients[address] = c }
        guard var session = c.current else { return }
        c.current = nil
        for k in records where k.ttl > 0 {
            switch k.type {
            case .ptr:
                guard let instance = k.target else { continue }
                let owner = k.owner
                if session.askedNames.contains(owner) {
                    c.namesAnswered.insert(owner)
                    if session.progress[instance]?.firstAnswer == nil {
                        session.progress[instance, default: SessionProgress()].firstAnswer = (time, frame)
                    }
                }
                if c.pending != nil, c.pending!.names.contains(owner), c.pending!.answered[instance] == nil,
                    time.nanoseconds(since: c.pending!.time) <= options.responseWindowNanoseconds
                {
                    c.pending!.answered[instance] = (Double(time.nanoseconds(since: c.pending!.time)) / 1e6, frame)
                }
            case .srv:
                guard let target = k.target else { continue }
                if session.progress[k.owner]?.srv == nil {
                    session.progress[k.owner, default: SessionProgress()].srv = (time, frame, target)
                }
            case .txt:
                if session.progress[k.owner]?.txt == nil {
                    session.progress[k.owner, default: SessionProgress()].txt = (time, frame)
                }
            case .a, .aaaa:
                if session.addressSeen[k.owner] == nil { session.addressSeen[k.owner] = (time, frame) }
            default:
                break
            }
        }
        c.current = session
    }

    // MARK: Queries: what clients asked

    mutating func ingestQuery(_ message: DNSMessage, packet: DiscoveryPacket, frame: FrameRef) {
        // A query with records in its authority section is a probe (RFC 6762 §8.2): a
        // responder checking its own names, not a sender browsing.
        guard message.authorities.isEmpty else { return }
        var castQuestions: [(DNSQuestion, CastName.Kind)] = []
        for q in message.questions {
            if let shape = CastName.shape(q.name.wire), shape.kind != .instance {
                castQuestions.append((q, shape.kind))
            }
        }
        guard !castQuestions.isEmpty else { return }
        let address = packet.source
        guard options.clients.isEmpty || options.clients.contains(address) else { return }
        let now = packet.timestamp
        closeExpiredQuery(address, now: now)
        var c = client(address, packet: packet)
        c.queries += 1
        if packet.legacyUnicast {
            c.legacyUnicast = true
            if c.firstLegacyFrame == nil { c.firstLegacyFrame = frame }
        }
        for (q, kind) in castQuestions {
            if q.unicastResponse { c.qu += 1 } else { c.qm += 1 }
            // The app ID's text only when this name is new for the client.
            if kind == .subtype, c.subtypeNamesAsked.insert(NameKey(q.name)).inserted,
                case .subtype(let app)? = CastName(q.name)
            {
                c.appIDs.insert(app)
            }
        }
        if c.firstQuery == nil {
            c.firstQuery = now
            c.firstQueryFrame = frame
        }
        // A new session after a long enough silence.
        let newSession = c.lastQuery.map { now.nanoseconds(since: $0) >= options.sessionGapNanoseconds } ?? true
        c.lastQuery = now
        if newSession {
            if let old = c.current, c.finished.count < TrackerLimits.maximumSessionsKept { c.finished.append(old) }
            c.current = SessionState(start: now, startFrame: frame)
            c.sessionCount += 1
            if c.sessionCount == 1 { sessionClients.append(address) }
            if options.collectEvents {
                events.append(
                    .sessionStarted(
                        client: address, time: now, frame: frame, names: castQuestions.map { $0.0.name.description }))
            }
            c.lastIntervalInSession = nil
        }
        // Bursts and intervals.
        let names = Set(castQuestions.map { NameKey($0.0.name) })
        if let last = c.lastBurst, now.nanoseconds(since: last) < options.burstNanoseconds, c.pending != nil {
            c.pending!.names.formUnion(names)
            mergeKnownAnswers(message, into: &c.pending!)
        } else {
            if let last = c.lastBurst, !newSession {
                let interval = Double(now.nanoseconds(since: last)) / 1e6
                c.intervalCount += 1
                if interval < 900 { c.fastIntervals += 1 }
                if c.intervals.count < TrackerLimits.maximumIntervalsKept { c.intervals.append(interval) }
                if let previous = c.lastIntervalInSession {
                    if interval < previous * 1.8, interval < 3_600_000 { c.doublingViolated = true }
                } else if interval < 900 {
                    c.doublingViolated = true
                }
                c.lastIntervalInSession = interval
            }
            c.lastBurst = now
            if let old = c.pending { close(old, client: &c) }
            var q = QueryState(time: now, frame: frame, names: names)
            mergeKnownAnswers(message, into: &q)
            c.pending = q
            pendingSince[address] = now
        }
        c.current!.askedNames.formUnion(names)
        for record in message.answers where record.type == .ptr && names.contains(NameKey(record.name)) {
            guard case .name(let target) = record.data else { continue }
            c.namesAnswered.insert(NameKey(record.name))
            let key = NameKey(target)
            if let ttl = instances[key]?.ptrTTL, UInt64(record.ttl) * 2 >= UInt64(ttl) {
                c.current!.knownAnswers.insert(key)
            }
        }
        clients[address] = c
    }

    func mergeKnownAnswers(_ message: DNSMessage, into q: inout QueryState) {
        for record in message.answers where record.type == .ptr {
            if case .name(let target) = record.data, q.names.contains(NameKey(record.name)) {
                q.knownAnswers[NameKey(target)] = Swift.max(q.knownAnswers[NameKey(target)] ?? 0, record.ttl)
            }
        }
    }

    mutating func client(_ address: IPAddress, packet: DiscoveryPacket) -> ClientState {
        // Taken out of the dictionary (see updateClient); the caller puts it back.
        var c: ClientState
        if let existing = clients.removeValue(forKey: address) {
            c = existing
        } else {
            c = ClientState(address: address)
            clientOrder.append(address)
        }
        if c.mac == nil { c.mac = packet.sourceMAC }
        if c.process == nil, let p = packet.pktap, !p.process.isEmpty {
            c.process = p.pid > 0 ? "\(p.process)[\(p.pid)]" : p.process
        }
        return c
    }

    /// Closes the pending query of `address` if its response window has passed.
    mutating func closeExpiredQuery(_ address: IPAddress, now: Timestamp) {
        guard let since = pendingSince[address], now.nanoseconds(since: since) > options.responseWindowNanoseconds,
            var c = clients.removeValue(forKey: address), let q = c.pending
        else { return }
        close(q, client: &c)
        c.pending = nil
        pendingSince[address] = nil
        clients[address] = c
    }

    /// Classifies a finished query for every device expected to answer it.
    mutating func close(_ q: QueryState, client c: inout ClientState) {
        var entry = QueryLogEntry(
            time: q.time, frame: q.frame, names: q.names,
            answered: [], suppressed: [], missed: [])
        let keepEntry = c.queryLog.count < TrackerLimits.maximumQueriesKept || options.collectEvents
        defer {
            if c.queryLog.count < TrackerLimits.maximumQueriesKept { c.queryLog.append(entry) }
            if options.collectEvents, !entry.missed.isEmpty {
                var devices: [DeviceSnapshot] = []
                for key in entry.missed {
                    let d = snapshot(key)
                    if !devices.contains(where: { $0.id == d.id }) { devices.append(d) }
                }
                events.append(.queryUnanswered(client: c.address, time: q.time, frame: q.frame, devices: devices))
            }
        }
        for key in instanceOrder {
            let instance = instances[key]!
            guard !instance.browseNames.isDisjoint(with: q.names),
                instance.firstSeen <= q.time || q.answered[key] != nil
            else { continue }
            if let left = instance.leftAt, left <= q.time { continue }
            var counter = c.responses[key] ?? ResponseCounter()
            counter.expected += 1
            // A device the client listed with at least half its TTL must stay silent; a PTR from
            // it in the window is an announcement or an answer to someone else, not this answer.
            if let known = q.knownAnswers[key], let ttl = instance.ptrTTL, UInt64(known) * 2 >= UInt64(ttl) {
                counter.suppressed += 1
                if keepEntry { entry.suppressed.append(key) }
            } else if let (delay, frame) = q.answered[key] {
                counter.answered += 1
                if counter.delays.count < TrackerLimits.maximumDelaysKept { counter.delays.append(delay) }
                if keepEntry { entry.answered.append((key, delay, frame)) }
            } else {
                if keepEntry { entry.missed.append(key) }
                counter.missed += 1
                if counter.missedFrames.count < TrackerLimits.maximumMissedFramesKept {
                    counter.missedFrames.append(q.frame)
                }
            }
            c.responses[key] = counter
        }
    }

    // MARK: SSDP / DIAL

    mutating func ingestSSDP(_ ssdp: SSDPMessage, packet: DiscoveryPacket, frame: FrameRef) {
        switch ssdp.kind {
        case .mSearch:
            guard ssdp.isDIAL else { return }
            let address = packet.source
            guard options.clients.isEmpty || options.clients.contains(address) else { return }
            var c = client(address, packet: packet)
            c.dialSearches += 1
            if c.firstDialSearch == nil {
                c.firstDialSearch = packet.timestamp
                c.firstDialSearchFrame = frame
            }
            clients[address] = c
        case .response, .notify:
            guard ssdp.isDIAL else { return }
            let key = Self.dialKey(ssdp, source: packet.source)
            let now = packet.timestamp
            if dial[key] == nil {
                dial[key] = DIALState(
                    info: DIALInfo(
                        location: nil, usn: nil, server: nil, address: packet.source, firstSeen: now, lastSeen: now,
                        leftAt: nil, firstFrame: frame, leftFrame: nil))
                dialOrder.append(key)
            }
            var d = dial[key]!
            d.info.lastSeen = now
            if let l = ssdp.location { d.info.location = l }
            if let u = ssdp.usn { d.info.usn = u }
            if let s = ssdp.server { d.info.server = s }
            if ssdp.notificationSubtype?.lowercased() == "ssdp:byebye" {
                d.info.leftAt = now
                d.info.leftFrame = frame
            } else {
                d.info.leftAt = nil
                d.info.leftFrame = nil
            }
            dial[key] = d
        case .other:
            return
        }
    }

    /// A DIAL device is keyed by the UUID in its USN, else by its address.
    static func dialKey(_ ssdp: SSDPMessage, source: IPAddress) -> String {
        if let usn = ssdp.usn?.lowercased(), usn.hasPrefix("uuid:") {
            let rest = usn.dropFirst(5)
            return String(rest.prefix { $0 != ":" })
        }
        return source.description
    }
}
