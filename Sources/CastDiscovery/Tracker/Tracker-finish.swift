// The end of a timeline: closes what is open, groups instances into devices by TXT id, and turns
// sessions, response counters and the query log into rows (bounded by `rows`).

import WireFormat

extension DiscoveryTracker {
    /// Ends the timeline: closes open queries and sessions and returns what was found.
    public mutating func finish() -> TimelineResult {
        for index in clients.indices {
            if let q = clients[index].pending {
                clients[index].pending = nil
                pendingSince[index] = nil
                close(q, client: index)
            }
            clients[index].endSession()
        }

        // Devices: instances grouped by TXT id (instance label when there is none).
        var parts: [TimelineResult.DevicePart] = []
        var keysByDevice: [String: [NameID]] = [:]
        var partIndex: [String: Int] = [:]
        for i in instances {
            let id = i.txt?.id.flatMap { $0.isEmpty ? nil : $0 } ?? i.label
            keysByDevice[id, default: []].append(i.key)
            let host = i.srvHost.flatMap { self.host($0) }
            var ttls = i.ttls
            if let host {
                for (type, values) in host.ttls { ttls[type, default: []].formUnion(values) }
            }
            // Alive until its goodbye, or until the last PTR's TTL (120 s when none was kept).
            let ttl = Int64(i.ptrTTL ?? i.srvTTLs.filter { $0 > 0 }.min() ?? 120)
            let until =
                i.leftAt ?? Timestamp(seconds: i.lastSeen.seconds + ttl, nanoseconds: Int64(i.lastSeen.nanoseconds))
            var part = TimelineResult.DevicePart(
                id: id, instances: [i.label], txt: i.txt, host: i.srvTarget?.description, port: i.srvPort.map(Int.init),
                addresses: host?.addresses ?? [], appIDs: i.appIDs,
                browseNames: Set(i.browseNames.map { names.name($0).description }), firstSeen: i.firstSeen,
                lastSeen: i.lastSeen, firstFrame: i.firstFrame, lastFrame: i.lastFrame, leftAt: i.leftAt,
                leftFrame: i.leftFrame, ttls: ttls, sources: i.sources,
                addressFrames: host.map { h in zip(h.addresses, h.addressFrames).map { (address: $0.0, frame: $0.1) } }
                    ?? [],
                sourceFrames: i.sourceFrames, vlans: i.vlans, lastMulticast: i.lastMulticast)
            part.senders = i.senders
            if let host { part.senders.absorb(host.senders) }
            part.instanceSpans = [
                InstanceSpan(instance: i.label, firstSeen: i.firstSeen, aliveUntil: until, firstFrame: i.firstFrame)
            ]
            if let index = partIndex[id] {
                parts[index].absorb(part)
            } else {
                partIndex[id] = parts.count
                parts.append(part)
            }
        }

        // Latency: every session of every client, for every device (at most `rows` of each
        // table: they grow as clients × devices).
        var latency: [LatencyRow] = []
        var responses: [TimelineResult.ResponsePart] = []
        let maximumRows = options.capacity.rows
        let partKeys = parts.map { keysByDevice[$0.id] ?? [] }
        var partOfKey: [NameID: Int] = [:]
        for (i, keys) in partKeys.enumerated() { for k in keys { partOfKey[k] = i } }
        // When there are more session × device rows than `rows`, the ones where the device
        // reached the session are kept first, then the others, each in order.
        func reached(_ s: SessionState, _ i: Int) -> Bool {
            !s.progress.isEmpty && partKeys[i].contains { s.progress($0) != nil }
        }
        var reachedRows = 0
        var totalRows = 0
        for c in clients {
            for session in c.finished {
                totalRows += parts.count
                if !session.progress.isEmpty { for i in parts.indices where reached(session, i) { reachedRows += 1 } }
            }
        }
        var reachedLeft = Swift.min(reachedRows, maximumRows)
        var othersLeft = maximumRows - reachedLeft
        drops.latencyRows += Swift.max(0, totalRows - maximumRows)
        for c in clients {
            for session in c.finished {
                for i in parts.indices {
                    if reached(session, i) {
                        guard reachedLeft > 0 else { continue }
                        reachedLeft -= 1
                    } else {
                        guard othersLeft > 0 else { continue }
                        othersLeft -= 1
                    }
                    latency.append(row(session, client: c.address, device: parts[i], keys: partKeys[i]))
                }
            }
            // The devices the client's queries expected (its counters are sparse), in device
            // order, each summed over its instances in order.
            var expected = Set<Int>()
            for (key, counter) in c.responses.entries where counter.expected > 0 {
                if let i = partOfKey[key] { expected.insert(i) }
            }
            for i in expected.sorted() {
                guard responses.count < maximumRows else {
                    drops.responseRows += 1
                    continue
                }
                var counter = ResponseCounter()
                for key in partKeys[i] { if let r = c.response(key) { counter += r } }
                responses.append(.init(client: c.address, deviceID: parts[i].id, counter: counter))
            }
        }

        // Per-query outcomes, with instances named by device id. Devices are numbered, and each
        // query marks the ones it listed in two arrays (answered, listed) instead of building
        // sets: linear in the lists whatever their size, and nothing allocated per query.
        let deviceIDs = Array(keysByDevice.keys)
        // Each instance name's device number, by the name's place in the table (-1: none): an
        // array read, where a dictionary hashed the name for every device of every query.
        var deviceOfName = [Int](repeating: -1, count: names.count)
        for (number, id) in deviceIDs.enumerated() {
            for k in keysByDevice[id] ?? [] { deviceOfName[k.index] = number }
        }
        func deviceOfInstance(_ k: NameID) -> Int? {
            let d = deviceOfName[k.index]
            return d >= 0 ? d : nil
        }
        var answeredIn = [Int](repeating: -1, count: deviceIDs.count)
        var listedIn = [Int](repeating: -1, count: deviceIDs.count)
        var queryNumber = 0
        var queries: [QueryOutcome] = []
        queries.reserveCapacity(clients.reduce(0) { $0 + $1.queryLog.count })
        // A client asks the same few names in query after query: each list of names is spelled
        // once, and its queries share the one array.
        var namesText: [[NameID]: [String]] = [:]
        func spelled(_ keys: [NameID]) -> [String] {
            if let text = namesText[keys] { return text }
            let text = keys.map { names.name($0).description }.sorted()
            namesText[keys] = text
            return text
        }
        for c in clients {
            for e in c.queryLog {
                queryNumber += 1
                var answers: [QueryOutcome.Answer] = []
                answers.reserveCapacity(Swift.min(e.answered.count, QueryOutcome.maximumDevicesListed))
                for a in e.answered.sorted(by: { $0.delay < $1.delay }) {
                    guard let d = deviceOfInstance(a.instance), answeredIn[d] != queryNumber else { continue }
                    answeredIn[d] = queryNumber
                    guard answers.count < QueryOutcome.maximumDevicesListed else {
                        drops.queryListEntries += 1
                        continue
                    }
                    answers.append(
                        QueryOutcome.Answer(
                            deviceID: deviceIDs[d], delayMs: a.delay, frame: a.frame,
                            unicast: e.unicastAnswers.contains(a.instance)))
                }
                /// The devices of `keys` not answered and not listed before in this query.
                func unlisted(_ keys: [NameID]) -> [String] {
                    var out: [String] = []
                    out.reserveCapacity(Swift.min(keys.count, QueryOutcome.maximumDevicesListed))
                    for k in keys {
                        guard let d = deviceOfInstance(k), answeredIn[d] != queryNumber, listedIn[d] != queryNumber
                        else { continue }
                        listedIn[d] = queryNumber
                        guard out.count < QueryOutcome.maximumDevicesListed else {
                            drops.queryListEntries += 1
                            continue
                        }
                        out.append(deviceIDs[d])
                    }
                    return out
                }
                let suppressed = unlisted(e.suppressed)
                queries.append(
                    QueryOutcome(
                        client: c.address, time: e.time, frame: e.frame,
                        names: spelled(e.names), answered: answers,
                        suppressed: suppressed, missed: unlisted(e.missed), unicastResponse: e.unicastResponse))
            }
        }

        let serviceType = names.lookup(CastName.serviceTypeName)
        let clientParts = clients.map { c -> TimelineResult.ClientPart in
            var part = TimelineResult.ClientPart(
                client: Client(
                    address: c.address, mac: c.mac, process: c.process, queries: c.queries, quQuestions: c.qu,
                    qmQuestions: c.qm, appIDsQueried: c.appIDs.sorted(), firstQuery: c.firstQuery,
                    lastQuery: c.lastQuery, firstQueryFrame: c.firstQueryFrame, legacyUnicast: c.legacyUnicast,
                    firstLegacyFrame: c.firstLegacyFrame, dialSearches: c.dialSearches,
                    firstDialSearch: c.firstDialSearch, firstDialSearchFrame: c.firstDialSearchFrame,
                    dialUserAgent: c.dialUserAgent,
                    dialSearchesAnswered: c.dialSearchLog.filter { !$0.answers.isEmpty }.count,
                    dialSearchFrames: c.dialSearchLog.prefix(Finding.maximumFrames).map(\.frame),
                    fastIntervals: c.fastIntervals,
                    appIDsAnswered: Set(
                        c.namesAnswered.members.compactMap { key -> String? in
                            if case .subtype(let app)? = CastName(names.name(key)) { return app }
                            return nil
                        }
                    ).sorted(),
                    serviceTypeAnswered: serviceType.map { c.namesAnswered.contains($0) } ?? false,
                    intervalsMs: c.intervals, followsDoubling: c.intervalCount < 2 ? nil : !c.doublingViolated,
                    sessions: c.sessionCount, vlans: c.vlans.map(Int.init), mediaCriterionQueried: c.mediaCriterion,
                    mediaCriterionAnswered: c.namesAnswered.members.contains { key in
                        CastName(names.name(key)) == .mediaCriterion
                    }),
                intervalCount: c.intervalCount)
            part.client.localNamesOverDNS = localDNS[c.address] ?? []
            return part
        }
        // DIAL rows after the mDNS ones, in what room the table has left.
        let dialLatency = dialRows(room: Swift.max(0, maximumRows - latency.count), drops: &drops)
        return TimelineResult(
            devices: parts, dial: dialInfosWithDescriptions(), dialKeys: dialOrder, dialLatency: dialLatency,
            clients: clientParts, latency: latency,
            responses: responses, queries: queries, malformed: malformed, malformedCount: malformedCount,
            reflected: reflected, reflectedCount: reflectedCount, reflectedTTLs: reflectedTTLs,
            linkSources: linkSources.sources, drops: drops, clientsLeftOut: clientsLeftOut,
            connections: connections, connectionsDropped: connectionsDropped,
            discoveryPortUnreachable: discoveryPortUnreachable,
            discoveryPortUnreachableCount: discoveryPortUnreachableCount, sawConnectionPhase: sawConnectionPhase)
    }

    func row(_ s: SessionState, client: IPAddress, device: TimelineResult.DevicePart, keys: [NameID]) -> LatencyRow {
        var first: (time: Timestamp, frame: FrameRef)?
        var resolved: (time: Timestamp, frame: FrameRef)?
        var missingParts: [String] = []
        for key in keys {
            let p = s.progress(key) ?? SessionProgress()
            if let a = p.firstAnswer, first == nil || a.time < first!.time { first = a }
            // Resolved when the client had all four: the PTR answer too, which may be the last
            // to arrive when the rest was already in its cache.
            var parts: [(time: Timestamp, frame: FrameRef)] = p.firstAnswer.map { [$0] } ?? []
            var missing: [String] = []
            if let srv = p.srv { parts.append((srv.time, srv.frame)) } else { missing.append("SRV") }
            if let txt = p.txt { parts.append(txt) } else { missing.append("TXT") }
            if let srv = p.srv {
                if let a = s.addressSeen(srv.target) {
                    parts.append(a)
                } else {
                    missing.append("an A/AAAA record for \(names.name(srv.target))")
                }
            } else {
                missing.append("an address record")
            }
            if missing.isEmpty, let last = parts.max(by: { $0.time < $1.time }) {
                if resolved == nil || last.time < resolved!.time { resolved = last }
            } else if missingParts.isEmpty {
                missingParts = missing
            }
        }
        var firstReason: String?
        if first == nil {
            let asked = keys.contains { k in
                instance(k)?.browseNames.contains(where: { s.askedNames.contains($0) }) ?? false
            }
            let left = keys.allSatisfy { k in instance(k)?.leftAt.map { $0 <= s.start } ?? false }
            if !asked {
                firstReason = "the client asked for no name this device was seen under"
            } else if keys.contains(where: { s.knownAnswers.contains($0) }) {
                firstReason = "withheld by known-answer suppression: the client already listed this device"
            } else if left {
                firstReason = "the device had said goodbye before the session started"
            } else {
                firstReason = "no PTR answer for this device reached the client during the session"
            }
        }
        let ms = { (t: Timestamp) in Double(t.nanoseconds(since: s.start)) / 1e6 }
        return LatencyRow(
            client: client, deviceID: device.id, sessionStart: s.start, sessionStartFrame: s.startFrame,
            firstAnswerMs: first.map { ms($0.time) }, firstAnswerFrame: first?.frame, firstAnswerMissing: firstReason,
            resolvedMs: resolved.map { ms($0.time) }, resolvedFrame: resolved?.frame,
            resolvedMissing: resolved == nil
                ? "never saw "
                    + (missingParts.isEmpty ? ["SRV", "TXT", "an address record"] : missingParts)
                    .joined(separator: ", ") + " for it during the session"
                : nil)
    }
}
