// The tracker's type: its stored state, its lookups, and the entry point that sends each packet
// to its facet (Tracker-responses, Tracker-queries, Tracker-dial; finish and events likewise).

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
    /// What the last few distinct messages were keyed to (Tracker-memo), and whether keying
    /// the current query looked up a known answer's owner in vain (then it is not remembered).
    var keyedMemo = KeyedMessageMemo()
    var knownAnswerOwnerMissed = false
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
    /// The capture interface each client's first query was seen on (LINUX_SLL2), by index.
    var clientInterfaces: [UInt32?] = []
    var clientSlot: [IPAddress: Int] = [:]
    /// The responses that reached each client's session and changed nothing (Tracker-repeats).
    var repeats = RepeatTable()
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
    /// Multicast Cast queries and responses whose IP TTL a router decremented (see
    /// ``IPTTL/isDecremented(_:)``): the first few, how many, and the TTLs.
    var reflected: [FrameRef] = []
    var reflectedCount = 0
    var reflectedTTLs: Set<UInt8> = []
    /// The IPv4 sources each link address sent mDNS from.
    var linkSources = LinkSources()
    /// Unicast DNS queries for `.local` names, by client address (Tracker-unicastDNS).
    var localDNS: [IPAddress: [LocalDNSQuery]] = [:]
    /// The searchers `--client` left out, in order of first sight (at most
    /// ``maximumEvidenceFrames``): what to offer when the client asked for is not there.
    var clientsLeftOut: [IPAddress] = []
    /// The connection phase (Tracker-connections): attempts in order, by their ends; ports
    /// devices advertised besides the Cast ports; ICMP port unreachables for discovery ports.
    var connections: [ConnectionAttempt] = []
    var connectionSlot: [ConnectionKey: Int] = [:]
    var connectionsDropped = 0
    /// DIAL description fetches followed (Tracker-dialHTTP), by their connection.
    var httpExchanges: [HTTPExchange] = []
    var httpSlot: [ConnectionKey: Int] = [:]
    /// Whether each attempt's outcome was reported as a live event.
    var connectionReported: [Bool] = []
    var advertisedPorts: [UInt16] = []
    var discoveryPortUnreachable: [DiscoveryPortUnreachable] = []
    var discoveryPortUnreachableCount = 0
    /// Whether any packet of the connection phase was seen (else the capture may have been
    /// filtered to discovery traffic, and no connection can be said to be missing).
    var sawConnectionPhase = false

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

    /// Counts a Cast query or response that a router passed on: multicast with a decremented
    /// IP TTL. (Other TTLs prove nothing: Chrome sends its queries with TTL 1, and a responder
    /// sending TTL 1 from its own address is non-conforming, not relayed.)
    mutating func noteRouted(_ packet: DiscoveryPacket, frame: FrameRef) {
        guard packet.destination.isMulticast, IPTTL.isDecremented(packet.ttl) else { return }
        reflectedCount += 1
        reflectedTTLs.insert(packet.ttl)
        if reflected.count < Self.maximumEvidenceFrames { reflected.append(frame) }
    }

    /// Notes a searcher that `--client` leaves out.
    mutating func leaveOut(_ address: IPAddress) {
        guard clientsLeftOut.count < Self.maximumEvidenceFrames, !clientsLeftOut.contains(address) else { return }
        clientsLeftOut.append(address)
    }

    /// The state of the client at `address`, if it sent anything.
    func client(at address: IPAddress) -> ClientState? { clientSlot[address].map { clients[$0] } }

    /// Adds one materialised discovery packet (in capture order): its mDNS message is read
    /// through a view over the bytes the packet kept, so there is one way in for every message.
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - capture: the index of its capture file, for evidence references.
    public mutating func ingest(_ packet: DiscoveryPacket, capture: Int) {
        packet.withMessageView { view in ingest(packet, message: view, capture: capture) }
    }

    /// Adds one discovery packet whose mDNS message is read in place (the analysis hot path,
    /// from ``DiscoveryDecoder/decodeInPlace(frame:timestamp:bytes:originalLength:_:)``).
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - message: its mDNS message as a view over borrowed bytes; `nil` for SSDP (or an
    ///     mDNS packet whose header did not decode).
    ///   - capture: the index of its capture file, for evidence references.
    public mutating func ingest(_ packet: DiscoveryPacket, message view: DNSMessageView?, capture: Int) {
        let frame = FrameRef(capture: capture, frame: packet.frame, interface: packet.captureInterface)
        if packet.isConnection {
            ingestConnection(packet, frame: frame)
            return
        }
        if let error = packet.error {
            malformedCount += 1
            if malformed.count < Self.maximumEvidenceFrames { malformed.append((frame, error.description)) }
        }
        if packet.isMDNS { linkSources.note(packet) }
        if let view, packet.isUnicastDNS {
            ingestUnicastDNS(view, packet: packet, frame: frame)
        } else if let view {
            if view.isResponse {
                // The list is reused from packet to packet (taken out while in use).
                var keyed: [KeyedRecord] = []
                swap(&keyed, &reusedRecords)
                let lent = key(view, into: &keyed)
                // The stamp stands for these records only while the memo holds them.
                let stamp = lent != nil || keyedMemo.find(view) != nil ? view.messageStamp : nil
                ingestResponse(keyed, packet: packet, frame: frame, stamp: stamp)
                if let lent { keyedMemo.giveBack(lent, records: &keyed) }
                swap(&keyed, &reusedRecords)
            } else {
                var query = KeyedQuery()
                swap(&query, &reusedQuery)
                let lent = key(view, into: &query)
                ingestQuery(query, packet: packet, frame: frame)
                if let lent { keyedMemo.giveBack(lent, query: &query) }
                swap(&query, &reusedQuery)
            }
        } else if let ssdp = packet.ssdp {
            ingestSSDP(ssdp, packet: packet, frame: frame)
        }
    }
}
