// Queries: what clients asked. A query, keyed once, is counted for its client and placed in a
// session and a burst; a burst is closed when its response window passes, and classified then
// for every device that was expected to answer it.

import WireFormat

extension DiscoveryTracker {
    /// What the tracker needs of a query: its Cast questions and the PTR records it lists as
    /// known answers, names interned.
    struct KeyedQuery {
        /// Records in the authority section: a probe (RFC 6762 §8.2), not a sender browsing.
        var isProbe = false
        var questions: [(key: NameID, kind: CastName.Kind, unicastResponse: Bool)] = []
        /// PTR records under a Cast browse name (RFC 6762 §7.1).
        var knownAnswers: [KnownAnswer] = []
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
                let found = names.lookup(scratch: n.name, count: n.expand(r.nameOffset))
                if found == nil { knownAnswerOwnerMissed = true }
                owner = knownAnswerOwner(found)
                if let owner { n.remember(start, owner) }
            }
            guard let owner, NameRequirement.browse.accepts(names.shape(owner)?.kind),
                let instance = intern(at: view.rdataNameOffset(r), &n, .any)
            else { return }
            q.knownAnswers.append(KnownAnswer(owner: owner, instance: instance, ttl: r.ttl))
        }
    }

    /// Adds a query.
    mutating func ingestQuery(_ query: KeyedQuery, packet: DiscoveryPacket, frame: FrameRef) {
        // A query with records in its authority section is a probe (RFC 6762 §8.2): a
        // responder checking its own names, not a sender browsing.
        guard !query.isProbe, !query.questions.isEmpty else { return }
        noteRouted(packet, frame: frame)
        let address = packet.source
        guard options.clients.isEmpty || options.clients.contains(address) else { return leaveOut(address) }
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
        for q in query.questions where !names.contains(q.key) { names.append(q.key) }
        // What the client's update needs from the rest of the tracker is read first: the client
        // is then edited in place, without reading anything else meanwhile.
        // Only subtypes the client had not asked yet are read as names (a repeated query, the
        // common case, builds no list).
        var subtypeNames: [(key: NameID, name: DNSName)] = []
        for q in query.questions where q.kind == .subtype && !clients[index].subtypeNamesAsked.contains(q.key) {
            subtypeNames.append((q.key, self.names.name(q.key)))
        }
        for a in query.knownAnswers
        where names.contains(a.owner) && ptrTTL(of: a.instance).map({ UInt64(a.ttl) * 2 >= UInt64($0) }) ?? false {
            listed.append(a)
        }
        clients[index].count(
            query, subtypeNames: subtypeNames, legacyUnicast: packet.legacyUnicast, at: now, frame: frame)
        let effect = clients[index].place(
            names: names, knownAnswers: query.knownAnswers, listed: listed, at: now, frame: frame,
            sessionGap: options.sessionGapNanoseconds, burst: options.burstNanoseconds,
            sessionRoom: finishedSessionCount < TrackerLimits.maximumFinishedSessions)
        if effect.sessionStarted || effect.askedNew { forgetRepeats(of: index) }
        switch effect.endedSession {
        case .kept: finishedSessionCount += 1
        case .forgotten: drops.finishedSessions += 1
        case .notCounted: break
        }
        activate(index)
        if effect.sessionStarted, options.collectEvents {
            events.append(
                .sessionStarted(
                    client: address, time: now, frame: frame,
                    names: query.questions.map { self.names.name($0.key).description }))
        }
        if effect.burstEnded, let ended = clients[index].ended.take() { close(ended, client: index) }
        if effect.burstStarted {
            pendingSince[index] = now
            clients[index].pending?.unicastResponse = query.questions.contains { $0.unicastResponse }
        }
        swap(&names, &reusedNames)
        swap(&listed, &reusedKnownAnswers)
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
            clientInterfaces.append(packet.interfaceIndex)
            repeats.addClient()
            pendingSince.append(nil)
            isActive.append(false)
        }
        if clients[index].mac == nil { clients[index].mac = packet.sourceMAC }
        if let vlan = packet.outerVLAN, !clients[index].vlans.contains(vlan),
            clients[index].vlans.count < TrackerLimits.maximumVLANsKept
        {
            clients[index].vlans.append(vlan)
        }
        if clients[index].process == nil, let p = packet.pktap, !p.process.isEmpty {
            clients[index].process = p.pid > 0 ? "\(p.process)[\(p.pid)]" : p.process
        }
        return index
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

    /// Classifies a finished query of client `index` for every device expected to answer it,
    /// and counts it in the client's state.
    mutating func close(_ q: QueryState, client index: Int) {
        let outcomes = outcomes(of: q)
        let collectEvents = options.collectEvents
        let closed = clients[index].close(
            q, outcomes: outcomes, budget: &pairBudget, delaysRoom: TrackerLimits.maximumDelaysInAll - delaysKept,
            logRoom: queryLogCount < options.capacity.rows, listAll: collectEvents)
        drops.pairs += closed.pairsDropped
        drops.queryListEntries += closed.listEntriesDropped
        delaysKept += closed.delaysKept
        switch closed.logged {
        case true?: queryLogCount += 1
        case false?: drops.queries += 1
        case nil: break
        }
        if collectEvents, !closed.entry.missed.isEmpty {
            var devices: [DeviceSnapshot] = []
            for key in closed.entry.missed {
                // A device whose records had run out when the query was sent (its expiry event
                // came first) is gone, not unanswering: the live event leaves it out.
                if let i = instance(key), let ttl = shortestTTL(i),
                    q.time.nanoseconds(since: i.lastSeen) > Int64(ttl) * 1_000_000_000
                {
                    continue
                }
                let d = snapshot(key)
                if !devices.contains(where: { $0.id == d.id }) { devices.append(d) }
            }
            if !devices.isEmpty {
                events.append(
                    .queryUnanswered(client: clientAddresses[index], time: q.time, frame: q.frame, devices: devices))
            }
        }
    }

    /// What a finished query meant for each device expected to answer it: every instance seen
    /// under a name it asked, that was there when it was asked, and had not said goodbye.
    func outcomes(of q: QueryState) -> [(key: NameID, kind: QueryOutcomeKind)] {
        var outcomes: [(key: NameID, kind: QueryOutcomeKind)] = []
        // At most one a device: grown one append at a time it cost half the function.
        outcomes.reserveCapacity(instances.count)
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
        return outcomes
    }
}
