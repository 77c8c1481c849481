// What the tracker keeps per client, and what each of its queries, the responses it could
// receive and the end of its queries do to it; each mutation returns what the tracker must
// account for.

import WireFormat

extension DiscoveryTracker {
    /// One client: an address that asked for Cast services or searched for DIAL devices.
    struct ClientState {
        var address: IPAddress
        var mac: MACAddress?
        var process: String?
        /// The outer 802.1Q VLAN IDs its packets carried (a trunk capture), in order of sight.
        var vlans: [UInt16] = []
        var queries = 0
        var qu = 0
        var qm = 0
        var appIDs: Set<String> = []
        /// Whether it asked the media criterion subtype (``CastName/mediaCriterion``).
        var mediaCriterion = false
        var subtypeNamesAsked: Set<NameID> = []
        var firstQuery: Timestamp?
        var lastQuery: Timestamp?
        var firstQueryFrame: FrameRef?
        var legacyUnicast = false
        var firstLegacyFrame: FrameRef?
        var dialSearches = 0
        var firstDialSearch: Timestamp?
        var firstDialSearchFrame: FrameRef?
        var dialUserAgent: String?
        /// Its DIAL M-SEARCHes with their answers (the first ``TrackerLimits/maximumDIALSearchesKept``;
        /// the count goes on).
        var dialSearchLog: [DiscoveryTracker.DIALSearch] = []
        var fastIntervals = 0
        var namesAnswered = NameSet()
        var lastBurst: Timestamp?
        var intervals: [Double] = []
        var intervalCount = 0
        var lastIntervalInSession: Double?
        var doublingViolated = false
        var sessionCount = 0
        var current: SessionState?
        /// When the open session started (read in place: `clients[i].current?.start` would copy
        /// the whole client state first, once per response, 8% of a dense capture's time).
        var currentStart: Timestamp? { current?.start }
        var finished: [SessionState] = []
        var pending: QueryState?
        /// The burst the last query ended, until the tracker takes it to classify it. Kept here
        /// rather than handed back in a local `QueryState?`: the tracker destroyed that local
        /// after every query, through the type's value witness (~200 instructions), where most
        /// queries end no burst.
        var ended: QueryState?
        /// Per instance name expected to answer one of its queries (sparse; each entry costs one
        /// of the pair budget).
        var responses = NameMap<ResponseCounter>()
        var queryLog: [QueryLogEntry] = []

        func response(_ id: NameID) -> ResponseCounter? {
            guard let r = responses[id], r.expected > 0 else { return nil }
            return r
        }

        /// A DIAL M-SEARCH from it, with its `USER-AGENT`.
        mutating func noteDIALSearch(_ search: DiscoveryTracker.DIALSearch, userAgent: String?) {
            dialSearches += 1
            if firstDialSearch == nil {
                firstDialSearch = search.time
                firstDialSearchFrame = search.frame
            }
            if dialUserAgent == nil, let userAgent, !userAgent.isEmpty { dialUserAgent = userAgent }
            if dialSearchLog.count < TrackerLimits.maximumDIALSearchesKept { dialSearchLog.append(search) }
        }

        /// Ends its session at the end of the timeline (kept if it has room).
        mutating func endSession() {
            if let s = current, finished.count < TrackerLimits.maximumSessionsKept { finished.append(s) }
            current = nil
        }
    }
}

// MARK: A query from the client

extension DiscoveryTracker.ClientState {
    typealias KnownAnswer = DiscoveryTracker.KnownAnswer
    typealias QueryState = DiscoveryTracker.QueryState

    /// What happened to a finished session when a query started a new one.
    enum SessionEnd {
        /// None ended, or the client's own list of finished sessions is full: nothing to count.
        case notCounted
        /// Kept among the finished sessions.
        case kept
        /// Not kept: the finished sessions of all clients together had no room left.
        case forgotten
    }

    /// What one query did to the client's sessions and bursts.
    /// (The burst a query ends is left in ``ended``: in here, every query's effect was copied
    /// and destroyed with a whole query state inside.)
    struct QueryEffect {
        /// Whether it started a new discovery session.
        var sessionStarted = false
        /// What became of the session that the new one ended.
        var endedSession = SessionEnd.notCounted
        /// Whether it started a new burst (whose response window starts now).
        var burstStarted = false
        /// Whether it asked a name its session had not asked yet.
        var askedNew = false
        /// Whether it ended a burst, now in ``ended`` to be classified.
        var burstEnded = false
    }

    /// Counts one query's questions.
    /// - Parameter subtypeNames: its app subtype questions, with their names (an app ID is
    ///   noted only for a name new for the client).
    mutating func count(
        _ query: DiscoveryTracker.KeyedQuery, subtypeNames: [(key: NameID, name: DNSName)], legacyUnicast: Bool,
        at now: Timestamp, frame: FrameRef
    ) {
        queries += 1
        if legacyUnicast {
            self.legacyUnicast = true
            if firstLegacyFrame == nil { firstLegacyFrame = frame }
        }
        for q in query.questions {
            if q.unicastResponse { qu += 1 } else { qm += 1 }
        }
        for (key, name) in subtypeNames where subtypeNamesAsked.insert(key).inserted {
            switch CastName(name) {
            case .subtype(let app)?: appIDs.insert(app)
            case .mediaCriterion?: mediaCriterion = true
            default: break
            }
        }
        if firstQuery == nil {
            firstQuery = now
            firstQueryFrame = frame
        }
    }

    /// Places one query in a session (a new one after `sessionGap` nanoseconds of silence) and
    /// a burst (queries closer together than `burst` nanoseconds form one).
    /// - Parameters:
    ///   - names: the names asked, no repeats.
    ///   - knownAnswers: the PTR records it lists as known.
    ///   - listed: those of them that suppress their device's answer.
    ///   - sessionRoom: whether the finished sessions of all clients together have room.
    /// A burst the query ends is left in ``ended`` (``QueryEffect/burstEnded``).
    mutating func place(
        names: [NameID], knownAnswers: [KnownAnswer], listed: [KnownAnswer], at now: Timestamp, frame: FrameRef,
        sessionGap: Int64, burst: Int64, sessionRoom: Bool
    ) -> QueryEffect {
        var effect = QueryEffect()
        let newSession = lastQuery.map { now.nanoseconds(since: $0) >= sessionGap } ?? true
        lastQuery = now
        if newSession {
            if let old = current, finished.count < TrackerLimits.maximumSessionsKept {
                if sessionRoom {
                    finished.append(old)
                    effect.endedSession = .kept
                } else {
                    effect.endedSession = .forgotten
                }
            }
            current = DiscoveryTracker.SessionState(start: now, startFrame: frame)
            sessionCount += 1
            effect.sessionStarted = true
            lastIntervalInSession = nil
        }
        if let last = lastBurst, now.nanoseconds(since: last) < burst, pending != nil {
            pending!.add(names)
            pending!.merge(knownAnswers)
        } else {
            if let last = lastBurst, !newSession { noteInterval(Double(now.nanoseconds(since: last)) / 1e6) }
            lastBurst = now
            if pending != nil {
                ended = pending
                effect.burstEnded = true
            }
            var q = QueryState(time: now, frame: frame, names: Array(names))
            q.merge(knownAnswers)
            pending = q
            effect.burstStarted = true
        }
        for n in names where current!.askedNames.insert(n) { effect.askedNew = true }
        for a in knownAnswers where names.contains(a.owner) { namesAnswered.insert(a.owner) }
        for a in listed { current!.knownAnswers.insert(a.instance) }
        return effect
    }

    /// An interval (in milliseconds) between two bursts of one session: RFC 6762 §5.2 has
    /// them start at 1 s or more and at least double.
    private mutating func noteInterval(_ interval: Double) {
        intervalCount += 1
        if interval < 900 { fastIntervals += 1 }
        if intervals.count < TrackerLimits.maximumIntervalsKept { intervals.append(interval) }
        if let previous = lastIntervalInSession {
            if interval < previous * 1.8, interval < 3_600_000 { doublingViolated = true }
        } else if interval < 900 {
            doublingViolated = true
        }
        lastIntervalInSession = interval
    }
}

// MARK: The end of one of its queries

extension DiscoveryTracker.ClientState {
    typealias QueryOutcomeKind = DiscoveryTracker.QueryOutcomeKind

    /// What closing one query did, for the tracker to account for.
    struct ClosedQuery {
        /// The query as the per-query table lists it (kept or not).
        var entry: DiscoveryTracker.QueryLogEntry
        /// Devices whose counter found no room in the pair budget.
        var pairsDropped = 0
        /// Devices beyond ``QueryOutcome/maximumDevicesListed`` in one of the entry's lists.
        var listEntriesDropped = 0
        /// Response delays kept.
        var delaysKept = 0
        /// Whether the entry went into the client's log: `nil` when the client's own log is full
        /// (nothing to count), `false` when the per-query table of all clients is.
        var logged: Bool?
    }

    /// Counts a closed query for every device expected to answer it.
    /// - Parameters:
    ///   - outcomes: what it meant for each of those devices.
    ///   - budget: what is left of the pair budget (a new device counter costs one).
    ///   - delaysRoom: how many more response delays may be kept, all clients together.
    ///   - logRoom: whether the per-query table of all clients has room.
    ///   - listAll: whether to list the devices even when the entry is not logged (for events).
    mutating func close(
        _ q: QueryState, outcomes: [(key: NameID, kind: QueryOutcomeKind)], budget: inout Int, delaysRoom: Int,
        logRoom: Bool, listAll: Bool
    ) -> ClosedQuery {
        var closed = ClosedQuery(
            entry: DiscoveryTracker.QueryLogEntry(
                time: q.time, frame: q.frame, names: q.names.members, answered: [], suppressed: [], missed: [],
                unicastResponse: q.unicastResponse, unicastAnswers: q.unicastAnswers.members))
        // At most `QueryOutcome.maximumDevicesListed` devices per kind in an entry.
        let listLimit = QueryOutcome.maximumDevicesListed
        let keepEntry = (queryLog.count < TrackerLimits.maximumQueriesKept && logRoom) || listAll
        if keepEntry {
            // Each list allocated once at its size, not grown one device at a time.
            var counts = (suppressed: 0, answered: 0, missed: 0)
            for (_, kind) in outcomes {
                switch kind {
                case .suppressed: counts.suppressed += 1
                case .answered: counts.answered += 1
                case .missed: counts.missed += 1
                }
            }
            closed.entry.suppressed.reserveCapacity(Swift.min(counts.suppressed, listLimit))
            closed.entry.answered.reserveCapacity(Swift.min(counts.answered, listLimit))
            closed.entry.missed.reserveCapacity(Swift.min(counts.missed, listLimit))
        }
        for (key, kind) in outcomes {
            let counted = responses.modify(key, budget: &budget, default: { DiscoveryTracker.ResponseCounter() }) {
                counter in
                counter.expected += 1
                switch kind {
                case .suppressed:
                    counter.suppressed += 1
                    if keepEntry {
                        if closed.entry.suppressed.count < listLimit {
                            closed.entry.suppressed.append(key)
                        } else {
                            closed.listEntriesDropped += 1
                        }
                    }
                case .answered(let delay, let frame):
                    counter.answered += 1
                    if counter.delays.count < TrackerLimits.maximumDelaysKept, closed.delaysKept < delaysRoom {
                        counter.delays.append(delay)
                        closed.delaysKept += 1
                    }
                    if keepEntry {
                        if closed.entry.answered.count < listLimit {
                            closed.entry.answered.append((key, delay, frame))
                        } else {
                            closed.listEntriesDropped += 1
                        }
                    }
                case .missed:
                    if keepEntry {
                        if closed.entry.missed.count < listLimit {
                            closed.entry.missed.append(key)
                        } else {
                            closed.listEntriesDropped += 1
                        }
                    }
                    counter.missed += 1
                    if counter.missedFrames.count < TrackerLimits.maximumMissedFramesKept {
                        counter.missedFrames.append(q.frame)
                    }
                }
            }
            if !counted { closed.pairsDropped += 1 }
        }
        if queryLog.count < TrackerLimits.maximumQueriesKept {
            if logRoom { queryLog.append(closed.entry) }
            closed.logged = logRoom
        }
        return closed
    }
}

// MARK: A response it could receive

extension DiscoveryTracker.ClientState {
    /// What one response did to a client's session (the open query is not counted here).
    struct Received {
        /// Records not noted for lack of pair budget.
        var dropped = 0
        /// Whether it added anything to the session (or met a full budget).
        var changed = false

        @inline(__always)
        mutating func note(_ noted: DiscoveryTracker.Noted) {
            switch noted {
            case .unchanged: break
            case .added: changed = true
            case .dropped:
                changed = true
                dropped += 1
            }
        }
    }

    /// Notes what of a response's records reached the client's session (its open query is
    /// ``noteAnswers(_:time:frame:window:unicast:)``'s).
    /// - Parameter budget: what is left of the pair budget (a new session entry costs one).
    @inline(__always)
    mutating func receive(
        _ records: [DiscoveryTracker.KeyedRecord], time: Timestamp, frame: FrameRef, budget: inout Int
    ) -> Received {
        var result = Received()
        guard current != nil else { return result }
        for k in records where k.ttl > 0 {
            switch k.type {
            case .ptr:
                guard let instance = k.target, current!.askedNames.contains(k.owner) else { continue }
                namesAnswered.insert(k.owner)
                result.note(current!.sawAnswer(instance, time: time, frame: frame, budget: &budget))
            case .srv:
                guard let target = k.target else { continue }
                result.note(current!.sawSRV(k.owner, target: target, time: time, frame: frame, budget: &budget))
            case .txt:
                result.note(current!.sawTXT(k.owner, time: time, frame: frame, budget: &budget))
            case .a, .aaaa:
                result.note(current!.sawAddress(k.owner, time: time, frame: frame, budget: &budget))
            default:
                break
            }
        }
        return result
    }

    /// Notes a response's PTR answers for the client's open query.
    /// - Parameters:
    ///   - window: how long after a query an answer counts as its answer, in nanoseconds.
    ///   - unicast: whether the response was sent to the client's address (not multicast).
    @inline(__always)
    mutating func noteAnswers(
        _ records: [DiscoveryTracker.KeyedRecord], time: Timestamp, frame: FrameRef, window: Int64, unicast: Bool
    ) {
        guard current != nil, pending != nil else { return }
        for k in records where k.ttl > 0 && k.type == .ptr {
            guard let instance = k.target else { continue }
            pending!.noteAnswer(instance, owner: k.owner, time: time, frame: frame, window: window, unicast: unicast)
        }
    }
}
