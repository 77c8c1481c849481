import WireFormat

/// Follows Cast discovery through a stream of packets: devices, clients, sessions, latency.
///
/// Pure and streaming: feed packets in capture order with ``ingest(_:capture:)``, then call
/// ``finish()``. State grows with the number of devices, hosts and clients (plus bounded
/// per-client histories), never with the number of packets.
///
/// Names are interned once per record (``NameTable``); everything after that is keyed by
/// ``NameID``: dense arrays indexed by it for what every packet touches (instances, hosts,
/// the current session's progress), short arrays for what stays small (the names one client
/// asks, one device's browse names).
public struct DiscoveryTracker {
    public let options: AnalysisOptions

    struct InstanceState {
        var key: NameID
        var name: DNSName
        var label: String
        var txt: CastTXT?
        var srvTarget: DNSName?
        var srvHost: NameID?
        var srvPort: UInt16?
        var appIDs: Set<String> = []
        var browseNames: [NameID] = []
        var firstSeen: Timestamp
        var lastSeen: Timestamp
        var firstFrame: FrameRef
        var lastFrame: FrameRef
        var leftAt: Timestamp?
        var leftFrame: FrameRef?
        /// The distinct TTLs seen per record type (at most ``TrackerLimits/maximumTTLsKept``).
        var ptrTTLs: [UInt32] = []
        var srvTTLs: [UInt32] = []
        var txtTTLs: [UInt32] = []
        var sources: Set<IPAddress> = []
        var sourceFrames: [(address: IPAddress, frame: FrameRef)] = []
        /// The TTL it gives its PTR records (the "true TTL" for known-answer suppression).
        var ptrTTL: UInt32?
        /// Event state (live capture): reported as appeared, as expired, its goodbye reported.
        var announced = false
        var expired = false
        var leftReported = false
        var lastSnapshot: DeviceSnapshot?
        /// The TXT rdata as last parsed, to skip parsing it again.
        var rawTXT: [UInt8]?
        /// The last few distinct TXT records with their meaning: a receiver that goes back and
        /// forth between idle and casting repeats the same few records.
        var recentTXT: [(raw: [UInt8], txt: CastTXT)] = []

        /// The TTLs by record type, as reports show them.
        var ttls: [String: Set<UInt32>] {
            var out: [String: Set<UInt32>] = [:]
            if !ptrTTLs.isEmpty { out["PTR"] = Set(ptrTTLs) }
            if !srvTTLs.isEmpty { out["SRV"] = Set(srvTTLs) }
            if !txtTTLs.isEmpty { out["TXT"] = Set(txtTTLs) }
            return out
        }
    }

    struct HostState {
        var addresses: [IPAddress] = []
        var addressFrames: [FrameRef] = []
        var aTTLs: [UInt32] = []
        var aaaaTTLs: [UInt32] = []

        var ttls: [String: Set<UInt32>] {
            var out: [String: Set<UInt32>] = [:]
            if !aTTLs.isEmpty { out["A"] = Set(aTTLs) }
            if !aaaaTTLs.isEmpty { out["AAAA"] = Set(aaaaTTLs) }
            return out
        }
    }

    struct SessionProgress {
        var firstAnswer: (time: Timestamp, frame: FrameRef)?
        var srv: (time: Timestamp, frame: FrameRef, target: NameID)?
        var txt: (time: Timestamp, frame: FrameRef)?
        var isEmpty: Bool { firstAnswer == nil && srv == nil && txt == nil }
    }

    struct SessionState {
        var start: Timestamp
        var startFrame: FrameRef
        var askedNames = NameSet()
        /// Instances the client listed as known answers during the session.
        var knownAnswers = NameSet()
        /// Per instance name that reached the client during the session: when its PTR, SRV and
        /// TXT first did. Sparse, and each entry costs one of the tracker's pair budget
        /// (``TrackerCapacity/pairs``): a flood of fake devices and clients cannot make it
        /// clients × devices.
        var progress = NameMap<SessionProgress>()
        /// When an address record of each host name first reached the client, likewise.
        var addressSeen = NameMap<(time: Timestamp, frame: FrameRef)>()

        init(start: Timestamp, startFrame: FrameRef) {
            self.start = start
            self.startFrame = startFrame
        }

        func progress(_ id: NameID) -> SessionProgress? {
            guard let p = progress[id], !p.isEmpty else { return nil }
            return p
        }

        func addressSeen(_ id: NameID) -> (time: Timestamp, frame: FrameRef)? { addressSeen[id] }

        /// Edits the progress of one instance name in place (a new entry costs one of `budget`;
        /// with none left, nothing is recorded).
        @inline(__always)
        @discardableResult
        mutating func withProgress(_ id: NameID, budget: inout Int, _ body: (inout SessionProgress) -> Void) -> Bool {
            progress.modify(id, budget: &budget, default: { SessionProgress() }, body)
        }

        @discardableResult
        mutating func sawAddress(_ id: NameID, time: Timestamp, frame: FrameRef, budget: inout Int) -> Bool {
            addressSeen.modify(id, budget: &budget, default: { (time, frame) }) { _ in }
        }
    }

    struct QueryState {
        var time: Timestamp
        var frame: FrameRef
        /// The names asked (no repeats), in order.
        var names: NameSet
        /// The instances listed as known answers, with the highest TTL listed for each.
        var knownAnswers = NameMap<UInt32>()
        /// The instances that answered within the window, with the delay and the frame.
        var answered = NameMap<(delay: Double, frame: FrameRef)>()

        /// A query state for `names` (no repeats).
        init(time: Timestamp, frame: FrameRef, names: [NameID]) {
            self.time = time
            self.frame = frame
            self.names = NameSet(unique: names)
        }

        /// Adds names asked in the same burst.
        mutating func add(_ more: [NameID]) { for n in more { names.insert(n) } }

        func knownAnswerTTL(_ id: NameID) -> UInt32? { knownAnswers[id] }
        func answer(_ id: NameID) -> (delay: Double, frame: FrameRef)? { answered[id] }
    }

    /// A closed query, kept (up to ``TrackerLimits/maximumQueriesKept`` per client) for the
    /// per-query table; instance names become device ids in ``finish()``.
    struct QueryLogEntry {
        var time: Timestamp
        var frame: FrameRef
        /// The names asked (turned into text only in ``finish()``).
        var names: [NameID]
        var answered: [(instance: NameID, delay: Double, frame: FrameRef)]
        var suppressed: [NameID]
        var missed: [NameID]
    }

    struct ResponseCounter {
        var expected = 0
        var answered = 0
        var suppressed = 0
        var missed = 0
        var delays: [Double] = []
        var missedFrames: [FrameRef] = []

        /// Adds another counter's (several instances of one device, several timelines).
        static func += (a: inout ResponseCounter, b: ResponseCounter) {
            a.expected += b.expected
            a.answered += b.answered
            a.suppressed += b.suppressed
            a.missed += b.missed
            a.delays += b.delays
            a.missedFrames += b.missedFrames
        }
    }

    struct ClientState {
        var address: IPAddress
        var mac: MACAddress?
        var process: String?
        var queries = 0
        var qu = 0
        var qm = 0
        var appIDs: Set<String> = []
        var subtypeNamesAsked: Set<NameID> = []
        var firstQuery: Timestamp?
        var lastQuery: Timestamp?
        var firstQueryFrame: FrameRef?
        var legacyUnicast = false
        var firstLegacyFrame: FrameRef?
        var dialSearches = 0
        var firstDialSearch: Timestamp?
        var firstDialSearchFrame: FrameRef?
        var fastIntervals = 0
        var namesAnswered = NameSet()
        var lastBurst: Timestamp?
        var intervals: [Double] = []
        var intervalCount = 0
        var lastIntervalInSession: Double?
        var doublingViolated = false
        var sessionCount = 0
        var current: SessionState?
        var finished: [SessionState] = []
        var pending: QueryState?
        /// Per instance name expected to answer one of its queries (sparse; each entry costs one
        /// of the pair budget).
        var responses = NameMap<ResponseCounter>()
        var queryLog: [QueryLogEntry] = []

        func response(_ id: NameID) -> ResponseCounter? {
            guard let r = responses[id], r.expected > 0 else { return nil }
            return r
        }
    }

    struct DIALState {
        var info: DIALInfo
    }

    var names: NameTable
    /// What was dropped to stay within ``AnalysisOptions/capacity``.
    var drops = LimitDrops()
    /// What is left of ``TrackerCapacity/pairs``.
    var pairBudget: Int
    /// Finished sessions and per-query entries kept so far, all clients together.
    var finishedSessionCount = 0
    var queryLogCount = 0
    /// Response delays kept so far, all clients and devices together.
    var delaysKept = 0
    /// Instances in order of creation that were incomplete when created (candidates to make
    /// room when the table is full; checked again when taken).
    var evictionCandidates: [Int] = []
    var evictionCursor = 0
    /// Per-packet lists kept from one packet to the next, so that they allocate nothing.
    var reusedRecords: [KeyedRecord] = []
    var reusedQuery = KeyedQuery()
    var reusedNames: [NameID] = []
    var reusedKnownAnswers: [KnownAnswer] = []
    /// The client of the last query, found again without hashing its address.
    var lastClient: (address: IPAddress, index: Int)?
    /// Instances in order of first sight, and the index of each by ``NameID`` (-1: none).
    var instances: [InstanceState] = []
    var instanceSlot: [Int32] = []
    /// Hosts (owners of A/AAAA records) by ``NameID`` (-1: none).
    var hosts: [HostState] = []
    var hostSlot: [Int32] = []
    /// Clients in order of first sight, and the index of each by address.
    var clients: [ClientState] = []
    /// Each client's address, by index (read per response without touching its state).
    var clientAddresses: [IPAddress] = []
    var clientSlot: [IPAddress: Int] = [:]
    var dial: [String: DIALState] = [:]
    var dialOrder: [String] = []
    var events: [TrackerEvent] = []
    /// Clients with a discovery session, in order (the ones a response can matter to), and
    /// when each client's open query started (by client index).
    var sessionClients: [Int] = []
    /// Whether each client (by index) is in `sessionClients`.
    var isActive: [Bool] = []
    var pendingSince: [Timestamp?] = []
    var malformed: [(frame: FrameRef, reason: String)] = []
    var malformedCount = 0
    var reflected: [FrameRef] = []
    var reflectedCount = 0
    var reflectedTTLs: Set<UInt8> = []

    /// Evidence frames kept per kind (malformed, reflected).
    static let maximumEvidenceFrames = 30

    public init(options: AnalysisOptions = AnalysisOptions()) {
        self.options = options
        names = NameTable(limit: options.capacity.names)
        pairBudget = options.capacity.pairs
    }

    /// The instance state of `id`, if it is a known instance.
    func instance(_ id: NameID) -> InstanceState? {
        id.index < instanceSlot.count && instanceSlot[id.index] >= 0 ? instances[Int(instanceSlot[id.index])] : nil
    }

    /// The PTR TTL of instance `id` (without copying its state).
    func ptrTTL(of id: NameID) -> UInt32? {
        id.index < instanceSlot.count && instanceSlot[id.index] >= 0
            ? instances[Int(instanceSlot[id.index])].ptrTTL : nil
    }

    /// The host state of `id`, if address records were seen for it.
    func host(_ id: NameID) -> HostState? {
        id.index < hostSlot.count && hostSlot[id.index] >= 0 ? hosts[Int(hostSlot[id.index])] : nil
    }

    /// The state of the client at `address`, if it sent anything.
    func client(at address: IPAddress) -> ClientState? { clientSlot[address].map { clients[$0] } }

    /// Adds one discovery packet (in capture order).
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - capture: the index of its capture file, for evidence references.
    public mutating func ingest(_ packet: DiscoveryPacket, capture: Int) {
        ingest(packet, message: nil, capture: capture)
    }

    /// Adds one discovery packet whose mDNS message is read in place (the analysis hot path,
    /// from ``DiscoveryDecoder/decodeInPlace(frame:timestamp:bytes:originalLength:_:)``).
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - message: its mDNS message as a view over borrowed bytes; `nil` to use the packet's
    ///     decoded message (or for SSDP).
    ///   - capture: the index of its capture file, for evidence references.
    public mutating func ingest(_ packet: DiscoveryPacket, message view: DNSMessageView?, capture: Int) {
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
        if let view {
            // One scratch buffer per packet for the names expanded from the wire.
            withUnsafeTemporaryAllocation(byteCount: MessageNames.scratchBytes, alignment: 8) { scratch in
                var names = MessageNames(view: view, scratch: scratch)
                if view.isResponse {
                    // The list is reused from packet to packet (taken out while in use).
                    var keyed: [KeyedRecord] = []
                    swap(&keyed, &reusedRecords)
                    keyedRecords(view, &names, into: &keyed)
                    ingestResponse(keyed, packet: packet, frame: frame)
                    swap(&keyed, &reusedRecords)
                } else {
                    var query = KeyedQuery()
                    swap(&query, &reusedQuery)
                    keyedQuery(view, &names, into: &query)
                    ingestQuery(query, packet: packet, frame: frame)
                    swap(&query, &reusedQuery)
                }
            }
        } else if let message = packet.mdns {
            if message.isResponse {
                let (keyed, txt) = keyedRecords(message)
                ingestResponse(keyed, txt: txt, packet: packet, frame: frame)
            } else {
                ingestQuery(keyedQuery(message), packet: packet, frame: frame)
            }
        } else if let ssdp = packet.ssdp {
            ingestSSDP(ssdp, packet: packet, frame: frame)
        }
    }

    // MARK: Responses: what devices said

    /// One Cast-relevant record of a response with its names interned (once per packet, then
    /// shared by the device update and every client).
    struct KeyedRecord {
        var type: DNSRecordType
        var ttl: UInt32
        /// Owner name (the browse name of a PTR, the instance of SRV/TXT, the host of A/AAAA).
        var owner: NameID
        /// PTR target (an instance) or SRV target (a host).
        var target: NameID?
        /// SRV: the port.
        var port: UInt16 = 0
        /// A/AAAA: the address.
        var address: IPAddress?
        /// TXT: the rdata.
        var txt: TXTData = .none
    }

    /// TXT rdata as a record carries it: borrowed wire bytes (in-place path), or the index of
    /// decoded strings in the list that comes with the records (so a record copies no reference).
    enum TXTData {
        case none
        case wire(UnsafeRawBufferPointer)
        case decoded(Int)
    }

    /// What a name must be for its record to matter.
    enum NameRequirement {
        /// A Cast browse name (service type or app subtype).
        case browse
        /// A Cast instance name.
        case instance
        /// Any name (A/AAAA owners, SRV targets).
        case any

        func accepts(_ kind: CastName.Kind?) -> Bool {
            switch self {
            case .browse: return kind != nil && kind != .instance
            case .instance: return kind == .instance
            case .any: return true
            }
        }
    }

    /// What a response record's owner must be for it to matter to Cast discovery: PTR from a
    /// Cast browse name, SRV/TXT of a Cast instance, any A/AAAA; `nil`: the type never matters.
    static func ownerRequirement(_ type: DNSRecordType) -> NameRequirement? {
        switch type {
        case .ptr: return .browse
        case .srv, .txt: return .instance
        case .a, .aaaa: return .any
        default: return nil
        }
    }

    /// Whether a response record with this type and owner matters to Cast discovery.
    static func matters(_ type: DNSRecordType, owner: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let requirement = ownerRequirement(type) else { return false }
        return requirement == .any || requirement.accepts(CastName.shape(owner)?.kind)
    }

    /// Interns `name`, counting it as dropped when the name table is full.
    mutating func internOrCount(_ name: DNSName) -> NameID? {
        if let id = names.intern(name) { return id }
        drops.names += 1
        return nil
    }

    /// Interns a PTR target if it is a Cast instance name.
    mutating func instanceTarget(_ name: DNSName) -> NameID? {
        guard let shape = CastName.shape(name.wire), shape.kind == .instance else { return nil }
        return internOrCount(name)
    }

    /// Interns the name at `offset` of a message read in place if it meets `requirement`.
    /// A name that is a compression pointer to one interned before in the same message costs
    /// a lookup in `n`, not an expansion and a hash.
    mutating func intern(at offset: Int, _ n: inout MessageNames, _ requirement: NameRequirement) -> NameID? {
        let start = n.start(of: offset)
        if let id = n.remembered(start) { return requirement.accepts(names.shape(id)?.kind) ? id : nil }
        // Interned first, classified from the table (once per distinct name, not per use).
        let count = n.expand(offset)
        guard let id = names.intern(scratch: n.name, count: count, original: { n.original(offset) }) else {
            drops.names += 1
            return nil
        }
        n.remember(start, id)
        return requirement.accepts(names.shape(id)?.kind) ? id : nil
    }

    /// The answer and additional records of a message read in place.
    mutating func keyedRecords(_ view: DNSMessageView, _ n: inout MessageNames, into keyed: inout [KeyedRecord]) {
        keyed.removeAll(keepingCapacity: true)
        view.forEachRecord { r in
            // Answers and additionals carry records; the authority section is for probes.
            // (Sections compared by pattern: `==` on a String-backed enum compares raw strings.)
            if case .authority = r.section { return }
            guard let requirement = Self.ownerRequirement(r.type), let owner = intern(at: r.nameOffset, &n, requirement)
            else { return }
            var record = KeyedRecord(type: r.type, ttl: r.ttl, owner: owner)
            switch r.type {
            case .ptr:
                guard let t = intern(at: view.rdataNameOffset(r), &n, .instance) else { return }
                record.target = t
            case .srv:
                record.target = intern(at: view.rdataNameOffset(r), &n, .any)
                record.port = view.srvPort(r)
            case .txt: record.txt = .wire(view.rdata(r))
            case .a: record.address = .v4(view.ipv4(r))
            case .aaaa: record.address = .v6(view.ipv6(r))
            default: return
            }
            keyed.append(record)
        }
    }

    /// The answer and additional records of a decoded message.
    /// - Returns: the records, and the TXT rdata they refer to (``TXTData/decoded(_:)``).
    mutating func keyedRecords(_ message: DNSMessage) -> ([KeyedRecord], [[UInt8]]) {
        var keyed: [KeyedRecord] = []
        var txts: [[UInt8]] = []
        for r in message.answers + message.additionals {
            guard r.name.wire.withUnsafeBufferPointer({ Self.matters(r.type, owner: $0) }) else { continue }
            guard let owner = internOrCount(r.name) else { continue }
            var record = KeyedRecord(type: r.type, ttl: r.ttl, owner: owner)
            switch r.data {
            case .name(let t) where r.type == .ptr:
                guard let t = instanceTarget(t) else { continue }
                record.target = t
            case .srv(_, _, let port, let target):
                record.target = internOrCount(target)
                record.port = port
            case .txt(let txt):
                record.txt = .decoded(txts.count)
                txts.append(txt.wire)
            case .a(let a): record.address = .v4(a)
            case .aaaa(let a): record.address = .v6(a)
            default: continue
            }
            keyed.append(record)
        }
        return (keyed, txts)
    }

    mutating func ingestResponse(
        _ keyed: [KeyedRecord], txt decodedTXT: [[UInt8]] = [], packet: DiscoveryPacket, frame: FrameRef
    ) {
        guard !keyed.isEmpty else { return }
        let now = packet.timestamp
        // Only live capture needs to know which instances and hosts a packet touched.
        let events = options.collectEvents
        var touched: [NameID] = []
        var hostsTouched: [NameID] = []
        for k in keyed {
            let ttl = k.ttl
            switch k.type {
            case .ptr:
                guard let key = k.target else { continue }
                let ownerKey = k.owner
                let ownerKind = names.shape(ownerKey)?.kind
                if events, !touched.contains(key) { touched.append(key) }
                let legacy = packet.legacyUnicast
                let ownerName = ownerKind == .subtype ? names.name(ownerKey) : nil
                withInstance(key, packet: packet, frame: frame) { i in
                    Self.note(ttl, in: &i.ptrTTLs)
                    if ttl == 0 {
                        i.leftAt = now
                        i.leftFrame = frame
                    } else {
                        i.leftAt = nil
                        i.leftFrame = nil
                        // Legacy unicast answers cap TTLs at 10 s (RFC 6762 §6.7): not the true TTL.
                        if !legacy { i.ptrTTL = ttl }
                        if !i.browseNames.contains(ownerKey) {
                            i.browseNames.append(ownerKey)
                            if let ownerName, case .subtype(let app)? = CastName(ownerName) {
                                i.appIDs.insert(app)
                            }
                        }
                    }
                }
            case .srv:
                guard let host = k.target else { continue }
                if events, !touched.contains(k.owner) { touched.append(k.owner) }
                let port = k.port
                let target = names.name(host)
                withInstance(k.owner, packet: packet, frame: frame) { i in
                    Self.note(ttl, in: &i.srvTTLs)
                    if ttl > 0 {
                        i.srvTarget = target
                        i.srvHost = host
                        i.srvPort = port
                    }
                }
            case .txt:
                if events, !touched.contains(k.owner) { touched.append(k.owner) }
                let txt = k.txt
                withInstance(k.owner, packet: packet, frame: frame) { i in
                    Self.note(ttl, in: &i.txtTTLs)
                    // Parse the Cast keys only when the record changed.
                    guard ttl > 0 else { return }
                    func update(_ bytes: UnsafeRawBufferPointer) {
                        guard i.rawTXT.map({ !Self.equal($0, bytes) }) ?? true else { return }
                        if let seen = i.recentTXT.firstIndex(where: { Self.equal($0.raw, bytes) }) {
                            i.rawTXT = i.recentTXT[seen].raw
                            i.txt = i.recentTXT[seen].txt
                            return
                        }
                        let raw = Array(bytes)
                        let parsed = CastTXT(TXTRecord(wire: bytes))
                        i.rawTXT = raw
                        i.txt = parsed
                        if i.recentTXT.count == TrackerLimits.recentTXTKept { i.recentTXT.removeFirst() }
                        i.recentTXT.append((raw, parsed))
                    }
                    switch txt {
                    case .wire(let bytes): update(bytes)
                    case .decoded(let index): decodedTXT[index].withUnsafeBytes { update($0) }
                    case .none: break
                    }
                }
            case .a, .aaaa:
                guard let address = k.address else { continue }
                if events, !hostsTouched.contains(k.owner) { hostsTouched.append(k.owner) }
                addAddress(address, host: k.owner, ttl: ttl, frame: frame)
            default:
                continue
            }
        }
        // What each client could receive of it.
        for index in sessionClients where canReceive(packet, client: clientAddresses[index]) {
            updateClient(index, records: keyed, time: now, frame: frame)
        }
        if events { emitDeviceEvents(touched: touched, hostsTouched: hostsTouched, time: now, frame: frame) }
    }

    /// Makes client `index` one of the clients whose session takes responses (after each of its
    /// queries). When ``TrackerCapacity/sessions`` are already, the one that queried least
    /// recently stops taking them (its session keeps what it saw), so a response costs at most
    /// that many client updates whatever the number of clients.
    mutating func activate(_ index: Int) {
        guard !isActive[index] else { return }
        if sessionClients.count >= options.capacity.sessions, !sessionClients.isEmpty {
            // The client whose last query is the oldest (one without a query counts as oldest).
            var oldest = 0
            for i in sessionClients.indices.dropFirst() {
                guard let t = clients[sessionClients[i]].lastQuery else {
                    oldest = i
                    break
                }
                if let o = clients[sessionClients[oldest]].lastQuery, t < o { oldest = i }
            }
            isActive[sessionClients[oldest]] = false
            sessionClients.remove(at: oldest)
            drops.sessions += 1
        }
        sessionClients.append(index)
        isActive[index] = true
    }

    /// Whether stored bytes equal borrowed ones.
    static func equal(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            var i = 0
            while i + 8 <= x.count {
                if x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                {
                    return false
                }
                i += 8
            }
            while i < x.count {
                if x[i] != b[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// Adds a TTL to a short list of distinct values.
    @inline(__always)
    static func note(_ ttl: UInt32, in list: inout [UInt32]) {
        if list.last != ttl, !list.contains(ttl), list.count < TrackerLimits.maximumTTLsKept { list.append(ttl) }
    }

    /// Updates one instance in place (one array index), creating it on first sight.
    mutating func withInstance(
        _ key: NameID, packet: DiscoveryPacket, frame: FrameRef, _ body: (inout InstanceState) -> Void
    ) {
        if key.index >= instanceSlot.count {
            instanceSlot.append(contentsOf: repeatElement(-1, count: names.count - instanceSlot.count))
        }
        var slot = Int(instanceSlot[key.index])
        if slot < 0 {
            let name = names.name(key)
            let w = name.wire
            let first = names.shape(key)!.first
            let label = CastName.text(w[(first + 1)..<(first + 1 + Int(w[first]))])
            let state = InstanceState(
                key: key, name: name, label: label, firstSeen: packet.timestamp, lastSeen: packet.timestamp,
                firstFrame: frame, lastFrame: frame)
            if instances.count < options.capacity.devices {
                slot = instances.count
                instances.append(state)
                evictionCandidates.append(slot)
            } else if let free = takeIncompleteInstance() {
                slot = free
                instances[slot] = state
                evictionCandidates.append(slot)
                drops.devicesEvicted += 1
            } else {
                drops.devices += 1
                return
            }
            instanceSlot[key.index] = Int32(slot)
        }
        let source = packet.source
        let time = packet.timestamp
        Self.edit(&instances[slot]) { i in
            i.lastSeen = time
            i.lastFrame = frame
            // `sourceFrames` lists the same addresses as `sources`: a short list is scanned
            // rather than hashed (a receiver answers from two or three addresses).
            let known =
                i.sourceFrames.count <= 8
                ? i.sourceFrames.contains { $0.address == source } : i.sources.contains(source)
            if !known, i.sourceFrames.count < TrackerLimits.maximumAddressesKept {
                i.sources.insert(source)
                i.sourceFrames.append((source, frame))
            }
            body(&i)
        }
    }

    /// Frees the slot of the oldest instance still never seen with a SRV or TXT record (the
    /// kind a flood of fake PTR answers creates), or returns `nil` when every one is complete.
    mutating func takeIncompleteInstance() -> Int? {
        while evictionCursor < evictionCandidates.count {
            let slot = evictionCandidates[evictionCursor]
            evictionCursor += 1
            let i = instances[slot]
            guard i.srvTarget == nil, i.txt == nil, i.srvTTLs.isEmpty, i.txtTTLs.isEmpty else { continue }
            instanceSlot[i.key.index] = -1
            return slot
        }
        // Compact the queue once it is consumed, so it does not grow without end.
        evictionCandidates.removeAll(keepingCapacity: true)
        evictionCursor = 0
        return nil
    }

    /// Edits a value in place (an array element, a dictionary value) through a closure.
    /// Static, so that it captures nothing of the tracker and can be used inside another edit.
    @inline(__always)
    static func edit<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }

    mutating func addAddress(_ address: IPAddress, host key: NameID, ttl: UInt32, frame: FrameRef) {
        if key.index >= hostSlot.count {
            hostSlot.append(contentsOf: repeatElement(-1, count: names.count - hostSlot.count))
        }
        var slot = Int(hostSlot[key.index])
        if slot < 0 {
            guard hosts.count < options.capacity.hosts else {
                drops.hosts += 1
                return
            }
            slot = hosts.count
            hostSlot[key.index] = Int32(slot)
            hosts.append(HostState())
        }
        Self.edit(&hosts[slot]) { h in
            if ttl > 0, h.addresses.count < TrackerLimits.maximumAddressesKept, !h.addresses.contains(address) {
                h.addresses.append(address)
                h.addressFrames.append(frame)
            }
            switch address {
            case .v4: Self.note(ttl, in: &h.aTTLs)
            case .v6: Self.note(ttl, in: &h.aaaaTTLs)
            }
        }
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

    mutating func updateClient(_ index: Int, records: [KeyedRecord], time: Timestamp, frame: FrameRef) {
        let window = options.responseWindowNanoseconds
        // The pair budget is taken out while the client is edited in place.
        var budget = pairBudget
        var dropped = 0
        defer {
            pairBudget = budget
            drops.pairs += dropped
        }
        Self.edit(&clients[index]) { c in
            guard c.current != nil else { return }
            for k in records where k.ttl > 0 {
                switch k.type {
                case .ptr:
                    guard let instance = k.target else { continue }
                    let owner = k.owner
                    if c.current!.askedNames.contains(owner) {
                        c.namesAnswered.insert(owner)
                        let kept = c.current!.withProgress(instance, budget: &budget) { p in
                            if p.firstAnswer == nil { p.firstAnswer = (time, frame) }
                        }
                        if !kept { dropped += 1 }
                    }
                    if c.pending != nil, c.pending!.names.contains(owner), c.pending!.answered[instance] == nil,
                        time.nanoseconds(since: c.pending!.time) <= window
                    {
                        c.pending!.answered.set(
                            instance, (Double(time.nanoseconds(since: c.pending!.time)) / 1e6, frame))
                    }
                case .srv:
                    guard let target = k.target else { continue }
                    let kept = c.current!.withProgress(k.owner, budget: &budget) { p in
                        if p.srv == nil { p.srv = (time, frame, target) }
                    }
                    if !kept { dropped += 1 }
                case .txt:
                    let kept = c.current!.withProgress(k.owner, budget: &budget) { p in
                        if p.txt == nil { p.txt = (time, frame) }
                    }
                    if !kept { dropped += 1 }
                case .a, .aaaa:
                    if !c.current!.sawAddress(k.owner, time: time, frame: frame, budget: &budget) { dropped += 1 }
                default:
                    break
                }
            }
        }
    }

    // MARK: Queries: what clients asked

    /// What the tracker needs of a query: its Cast questions and the PTR records it lists as
    /// known answers, names interned.
    struct KeyedQuery {
        /// Records in the authority section: a probe (RFC 6762 §8.2), not a sender browsing.
        var isProbe = false
        var questions: [(key: NameID, kind: CastName.Kind, unicastResponse: Bool)] = []
        /// PTR records under a Cast browse name (RFC 6762 §7.1).
        var knownAnswers: [KnownAnswer] = []
    }

    /// Interns a question name if it is a Cast browse name.
    mutating func castQuestion(_ name: DNSName) -> (NameID, CastName.Kind)? {
        guard let shape = CastName.shape(name.wire), shape.kind != .instance else { return nil }
        guard let id = internOrCount(name) else { return nil }
        return (id, shape.kind)
    }

    /// The owner of a possible known answer: a Cast browse name already interned (asked).
    func knownAnswerOwner(_ id: NameID?) -> NameID? {
        guard let id, names.shape(id).map({ $0.kind != .instance }) == true else { return nil }
        return id
    }

    /// A query read in place.
    mutating func keyedQuery(_ view: DNSMessageView, _ n: inout MessageNames, into q: inout KeyedQuery) {
        q.isProbe = false
        q.questions.removeAll(keepingCapacity: true)
        q.knownAnswers.removeAll(keepingCapacity: true)
        guard view.recordCount(in: .authority) == 0 else {
            q.isProbe = true
            return
        }
        view.forEachQuestion { question in
            if let key = intern(at: question.nameOffset, &n, .browse), let kind = names.shape(key)?.kind {
                q.questions.append((key, kind, question.unicastResponse))
            }
        }
        guard !q.questions.isEmpty else { return }
        view.forEachRecord { r in
            guard case .answer = r.section, r.type == .ptr else { return }
            // The owner must be a name asked (so already interned): looked up, not interned.
            let start = n.start(of: r.nameOffset)
            var owner = n.remembered(start)
            if owner == nil {
                owner = knownAnswerOwner(names.lookup(scratch: n.name, count: n.expand(r.nameOffset)))
                if let owner { n.remember(start, owner) }
            }
            guard let owner, NameRequirement.browse.accepts(names.shape(owner)?.kind),
                let instance = intern(at: view.rdataNameOffset(r), &n, .any)
            else { return }
            q.knownAnswers.append(KnownAnswer(owner: owner, instance: instance, ttl: r.ttl))
        }
    }

    /// A decoded query.
    mutating func keyedQuery(_ message: DNSMessage) -> KeyedQuery {
        var q = KeyedQuery()
        guard message.authorities.isEmpty else {
            q.isProbe = true
            return q
        }
        for question in message.questions {
            if let (key, kind) = castQuestion(question.name) {
                q.questions.append((key, kind, question.unicastResponse))
            }
        }
        guard !q.questions.isEmpty else { return q }
        for record in message.answers where record.type == .ptr {
            guard case .name(let target) = record.data else { continue }
            guard let owner = knownAnswerOwner(names.lookup(record.name)) else { continue }
            guard let instance = internOrCount(target) else { continue }
            q.knownAnswers.append(KnownAnswer(owner: owner, instance: instance, ttl: record.ttl))
        }
        return q
    }

    mutating func ingestQuery(_ query: KeyedQuery, packet: DiscoveryPacket, frame: FrameRef) {
        // A query with records in its authority section is a probe (RFC 6762 §8.2): a
        // responder checking its own names, not a sender browsing.
        guard !query.isProbe, !query.questions.isEmpty else { return }
        let address = packet.source
        guard options.clients.isEmpty || options.clients.contains(address) else { return }
        let now = packet.timestamp
        guard let index = clientIndex(address, packet: packet) else { return }
        closeExpiredQuery(index, now: now)
        // The names asked and the known answers listed go into lists reused from query to
        // query (taken out while in use; the names are copied only into a new burst's state).
        var names: [NameID] = []
        swap(&names, &reusedNames)
        names.removeAll(keepingCapacity: true)
        var listed: [KnownAnswer] = []
        swap(&listed, &reusedKnownAnswers)
        listed.removeAll(keepingCapacity: true)
        defer {
            swap(&names, &reusedNames)
            swap(&listed, &reusedKnownAnswers)
        }
        for q in query.questions where !names.contains(q.key) { names.append(q.key) }
        let ptrAnswers = query.knownAnswers
        // What the client's update needs from the rest of the tracker is read first: the client
        // is then edited in place, without reading or changing anything else meanwhile.
        var subtypeNames: [(key: NameID, name: DNSName)] = []
        for q in query.questions where q.kind == .subtype { subtypeNames.append((q.key, self.names.name(q.key))) }
        for a in ptrAnswers
        where names.contains(a.owner) && ptrTTL(of: a.instance).map({ UInt64(a.ttl) * 2 >= UInt64($0) }) ?? false {
            listed.append(a)
        }
        let sessionGap = options.sessionGapNanoseconds
        let burst = options.burstNanoseconds
        var sessionStarted = false
        var newBurst = false
        let sessionRoom = finishedSessionCount < TrackerLimits.maximumFinishedSessions
        var sessionKept = false
        var sessionForgotten = false
        var closing: QueryState?
        Self.edit(&clients[index]) { c in
            c.queries += 1
            if packet.legacyUnicast {
                c.legacyUnicast = true
                if c.firstLegacyFrame == nil { c.firstLegacyFrame = frame }
            }
            for q in query.questions {
                if q.unicastResponse { c.qu += 1 } else { c.qm += 1 }
            }
            // The app ID's text only when this name is new for the client.
            for (key, name) in subtypeNames where c.subtypeNamesAsked.insert(key).inserted {
                if case .subtype(let app)? = CastName(name) { c.appIDs.insert(app) }
            }
            if c.firstQuery == nil {
                c.firstQuery = now
                c.firstQueryFrame = frame
            }
            // A new session after a long enough silence.
            let newSession = c.lastQuery.map { now.nanoseconds(since: $0) >= sessionGap } ?? true
            c.lastQuery = now
            if newSession {
                if let old = c.current, c.finished.count < TrackerLimits.maximumSessionsKept {
                    if sessionRoom {
                        c.finished.append(old)
                        sessionKept = true
                    } else {
                        sessionForgotten = true
                    }
                }
                c.current = SessionState(start: now, startFrame: frame)
                c.sessionCount += 1
                sessionStarted = true
                c.lastIntervalInSession = nil
            }
            // Bursts and intervals.
            if let last = c.lastBurst, now.nanoseconds(since: last) < burst, c.pending != nil {
                c.pending!.add(names)
                Self.merge(ptrAnswers, into: &c.pending!)
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
                closing = c.pending
                var q = QueryState(time: now, frame: frame, names: Array(names))
                Self.merge(ptrAnswers, into: &q)
                c.pending = q
                newBurst = true
            }
            for n in names { c.current!.askedNames.insert(n) }
            for a in ptrAnswers where names.contains(a.owner) {
                c.namesAnswered.insert(a.owner)
            }
            for a in listed { c.current!.knownAnswers.insert(a.instance) }
        }
        if sessionKept { finishedSessionCount += 1 }
        if sessionForgotten { drops.finishedSessions += 1 }
        activate(index)
        if sessionStarted {
            if options.collectEvents {
                events.append(
                    .sessionStarted(
                        client: address, time: now, frame: frame,
                        names: query.questions.map { self.names.name($0.key).description }))
            }
        }
        if let closing { close(closing, client: index) }
        if newBurst { pendingSince[index] = now }
    }

    /// A PTR record a query lists as already known.
    struct KnownAnswer {
        var owner: NameID
        var instance: NameID
        var ttl: UInt32
    }

    /// Adds the known answers listed under the query's names (the highest TTL of each instance).
    static func merge(_ answers: [KnownAnswer], into q: inout QueryState) {
        for a in answers where q.names.contains(a.owner) {
            q.knownAnswers.set(a.instance, Swift.max(q.knownAnswers[a.instance] ?? a.ttl, a.ttl))
        }
    }

    /// The index of the client at `address`, creating it on first sight; `nil` when the
    /// client table is full.
    mutating func clientIndex(_ address: IPAddress, packet: DiscoveryPacket) -> Int? {
        let index: Int
        if let last = lastClient, last.address == address {
            index = last.index
        } else if let existing = clientSlot[address] {
            index = existing
            lastClient = (address, index)
        } else {
            guard clients.count < options.capacity.clients else {
                drops.clients += 1
                return nil
            }
            index = clients.count
            clientSlot[address] = index
            lastClient = (address, index)
            clients.append(ClientState(address: address))
            clientAddresses.append(address)
            pendingSince.append(nil)
            isActive.append(false)
        }
        if clients[index].mac == nil { clients[index].mac = packet.sourceMAC }
        if clients[index].process == nil, let p = packet.pktap, !p.process.isEmpty {
            clients[index].process = p.pid > 0 ? "\(p.process)[\(p.pid)]" : p.process
        }
        return index
    }

    /// Closes the pending query of client `index` if its response window has passed.
    mutating func closeExpiredQuery(_ index: Int, now: Timestamp) {
        guard let since = pendingSince[index], now.nanoseconds(since: since) > options.responseWindowNanoseconds
        else { return }
        if let q = clients[index].pending {
            clients[index].pending = nil
            close(q, client: index)
        }
        pendingSince[index] = nil
    }

    /// What a closed query meant for one device that was expected to answer it.
    enum QueryOutcomeKind {
        case suppressed
        case answered(delay: Double, frame: FrameRef)
        case missed
    }

    /// Classifies a finished query of client `index` for every device expected to answer it,
    /// and counts it in the client's state.
    mutating func close(_ q: QueryState, client index: Int) {
        // First against the devices (reading the tracker), then into the client (editing it in
        // place, which must not overlap with reading the rest of the tracker).
        var outcomes: [(key: NameID, kind: QueryOutcomeKind)] = []
        for slot in instances.indices {
            // Fields read in place: copying each instance's state here cost more than the rest.
            let key = instances[slot].key
            guard instances[slot].browseNames.contains(where: { q.names.contains($0) }) else { continue }
            let answer = q.answer(key)
            guard instances[slot].firstSeen <= q.time || answer != nil else { continue }
            if let left = instances[slot].leftAt, left <= q.time { continue }
            // A device the client listed with at least half its TTL must stay silent; a PTR from
            // it in the window is an announcement or an answer to someone else, not this answer.
            if let known = q.knownAnswerTTL(key), let ttl = instances[slot].ptrTTL, UInt64(known) * 2 >= UInt64(ttl) {
                outcomes.append((key, .suppressed))
            } else if let (delay, frame) = answer {
                outcomes.append((key, .answered(delay: delay, frame: frame)))
            } else {
                outcomes.append((key, .missed))
            }
        }
        var entry = QueryLogEntry(
            time: q.time, frame: q.frame, names: q.names.members, answered: [], suppressed: [], missed: [])
        let collectEvents = options.collectEvents
        var budget = pairBudget
        defer { pairBudget = budget }
        var dropped = 0
        defer { drops.pairs += dropped }
        // The per-query table: at most `rows` entries in all, each listing at most
        // `QueryOutcome.maximumDevicesListed` devices per kind.
        let logRoom = queryLogCount < options.capacity.rows
        let listLimit = QueryOutcome.maximumDevicesListed
        var listDropped = 0
        var delaysRoom = TrackerLimits.maximumDelaysInAll - delaysKept
        var logged = false
        var notLogged = false
        defer {
            drops.queryListEntries += listDropped
            delaysKept = TrackerLimits.maximumDelaysInAll - delaysRoom
            if logged { queryLogCount += 1 }
            if notLogged { drops.queries += 1 }
        }
        Self.edit(&clients[index]) { c in
            let keepEntry = (c.queryLog.count < TrackerLimits.maximumQueriesKept && logRoom) || collectEvents
            for (key, kind) in outcomes {
                let counted = c.responses.modify(key, budget: &budget, default: { ResponseCounter() }) { counter in
                    counter.expected += 1
                    switch kind {
                    case .suppressed:
                        counter.suppressed += 1
                        if keepEntry {
                            if entry.suppressed.count < listLimit {
                                entry.suppressed.append(key)
                            } else {
                                listDropped += 1
                            }
                        }
                    case .answered(let delay, let frame):
                        counter.answered += 1
                        if counter.delays.count < TrackerLimits.maximumDelaysKept, delaysRoom > 0 {
                            counter.delays.append(delay)
                            delaysRoom -= 1
                        }
                        if keepEntry {
                            if entry.answered.count < listLimit {
                                entry.answered.append((key, delay, frame))
                            } else {
                                listDropped += 1
                            }
                        }
                    case .missed:
                        if keepEntry {
                            if entry.missed.count < listLimit { entry.missed.append(key) } else { listDropped += 1 }
                        }
                        counter.missed += 1
                        if counter.missedFrames.count < TrackerLimits.maximumMissedFramesKept {
                            counter.missedFrames.append(q.frame)
                        }
                    }
                }
                if !counted { dropped += 1 }
            }
            if c.queryLog.count < TrackerLimits.maximumQueriesKept {
                if logRoom {
                    c.queryLog.append(entry)
                    logged = true
                } else {
                    notLogged = true
                }
            }
        }
        if collectEvents, !entry.missed.isEmpty {
            var devices: [DeviceSnapshot] = []
            for key in entry.missed {
                let d = snapshot(key)
                if !devices.contains(where: { $0.id == d.id }) { devices.append(d) }
            }
            events.append(
                .queryUnanswered(client: clientAddresses[index], time: q.time, frame: q.frame, devices: devices))
        }
    }

    // MARK: SSDP / DIAL

    mutating func ingestSSDP(_ ssdp: SSDPMessage, packet: DiscoveryPacket, frame: FrameRef) {
        switch ssdp.kind {
        case .mSearch:
            guard ssdp.isDIAL else { return }
            let address = packet.source
            guard options.clients.isEmpty || options.clients.contains(address) else { return }
            guard let index = clientIndex(address, packet: packet) else { return }
            Self.edit(&clients[index]) { c in
                c.dialSearches += 1
                if c.firstDialSearch == nil {
                    c.firstDialSearch = packet.timestamp
                    c.firstDialSearchFrame = frame
                }
            }
        case .response, .notify:
            guard ssdp.isDIAL else { return }
            let key = Self.dialKey(ssdp, source: packet.source)
            let now = packet.timestamp
            if dial[key] == nil {
                guard dial.count < options.capacity.dialDevices else {
                    drops.dialDevices += 1
                    return
                }
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

/// The names of one message read in place: a scratch buffer to expand them into, and where
/// each name interned so far started, so that a compression pointer to it is recognised.
struct MessageNames {
    /// Scratch bytes: one expanded name (with the interning table's padding), then the
    /// remembered starts.
    static let nameBytes = 256 + NameTable.padding
    static let scratchBytes = nameBytes + capacity * 8
    static let capacity = 32

    /// The message's bytes (not the whole view: this is passed around for every name).
    let bytes: UnsafeRawBufferPointer
    /// Where ``expand(_:)`` puts a name.
    let name: UnsafeMutableRawPointer
    private let starts: UnsafeMutablePointer<(offset: Int32, id: Int32)>
    private var count = 0

    init(view: DNSMessageView, scratch: UnsafeMutableRawBufferPointer) {
        bytes = view.message.bytes
        name = scratch.baseAddress!
        starts = (scratch.baseAddress! + Self.nameBytes).bindMemory(
            to: (offset: Int32, id: Int32).self, capacity: Self.capacity)
    }

    /// The offset where the name at `offset` really starts: past any leading compression
    /// pointers (which, in a checked message, point strictly backwards).
    func start(of offset: Int) -> Int {
        let b = bytes
        var o = offset
        while o + 1 < b.count, b[o] & 0xC0 == 0xC0 {
            let target = Int(b[o] & 0x3F) << 8 | Int(b[o + 1])
            guard target < o else { break }
            o = target
        }
        return o
    }

    func remembered(_ start: Int) -> NameID? {
        for i in 0..<count where starts[i].offset == Int32(start) { return NameID(raw: starts[i].id) }
        return nil
    }

    /// Remembers where a name interned as `id` started (the caller found it not remembered).
    mutating func remember(_ start: Int, _ id: NameID) {
        guard count < Self.capacity else { return }
        starts[count] = (Int32(start), id.raw)
        count += 1
    }

    /// Expands the name at `offset` to ``name``.
    /// - Returns: its length.
    func expand(_ offset: Int) -> Int {
        DNSName.expand(
            at: offset, in: ByteCursor(bytes), into: UnsafeMutableRawBufferPointer(start: name, count: Self.nameBytes))
    }

    /// The name at `offset` as written (for a name seen for the first time).
    func original(_ offset: Int) -> DNSName {
        // Expanded into the scratch buffer again (the lower-cased copy there is done with), then
        // copied at its exact size: names are kept for the whole run.
        let n = expand(offset)
        return DNSName(wire: Array(UnsafeRawBufferPointer(start: name, count: n)))
    }
}
