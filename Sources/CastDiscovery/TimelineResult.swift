import WireFormat

/// What one timeline (one capture, or several merged) showed, before devices are merged by id
/// across timelines.
public struct TimelineResult: Sendable {
    struct DevicePart {
        var id: String
        var instances: [String]
        var txt: CastTXT?
        var host: String?
        var port: Int?
        var addresses: [IPAddress]
        var appIDs: Set<String>
        var browseNames: Set<String>
        var firstSeen: Timestamp
        var lastSeen: Timestamp
        var firstFrame: FrameRef
        var lastFrame: FrameRef
        var leftAt: Timestamp?
        var leftFrame: FrameRef?
        var ttls: [String: Set<UInt32>]
        var sources: Set<IPAddress>
        var addressFrames: [(address: IPAddress, frame: FrameRef)]
        var sourceFrames: [(address: IPAddress, frame: FrameRef)]
    }

    struct ClientPart {
        var client: Client
        var intervalCount: Int
    }

    struct ResponsePart {
        var client: IPAddress
        var deviceID: String
        var counter: DiscoveryTracker.ResponseCounter
    }

    var devices: [DevicePart]
    var dial: [DIALInfo]
    var clients: [ClientPart]
    var latency: [LatencyRow]
    var responses: [ResponsePart]
    var queries: [QueryOutcome]
    var malformed: [(frame: FrameRef, reason: String)]
    var malformedCount: Int
    var reflected: [FrameRef]
    var reflectedCount: Int
    var reflectedTTLs: Set<UInt8>
    /// What was dropped to stay within the tracker's capacity.
    var drops = LimitDrops()
}

extension DiscoveryTracker {
    /// Ends the timeline: closes open queries and sessions and returns what was found.
    public mutating func finish() -> TimelineResult {
        for index in clients.indices {
            if let q = clients[index].pending {
                clients[index].pending = nil
                pendingSince[index] = nil
                close(q, client: index)
            }
            Self.edit(&clients[index]) { c in
                if var s = c.current, c.finished.count < TrackerLimits.maximumSessionsKept {
                    s.compact()
                    c.finished.append(s)
                }
                c.current = nil
            }
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
            let part = TimelineResult.DevicePart(
                id: id, instances: [i.label], txt: i.txt, host: i.srvTarget?.description, port: i.srvPort.map(Int.init),
                addresses: host?.addresses ?? [], appIDs: i.appIDs,
                browseNames: Set(i.browseNames.map { names.name($0).description }), firstSeen: i.firstSeen,
                lastSeen: i.lastSeen, firstFrame: i.firstFrame, lastFrame: i.lastFrame, leftAt: i.leftAt,
                leftFrame: i.leftFrame, ttls: ttls, sources: i.sources,
                addressFrames: host.map { h in zip(h.addresses, h.addressFrames).map { (address: $0.0, frame: $0.1) } }
                    ?? [],
                sourceFrames: i.sourceFrames)
            if let index = partIndex[id] {
                parts[index].absorb(part)
            } else {
                partIndex[id] = parts.count
                parts.append(part)
            }
        }

        // Latency: every session of every client, for every device.
        var latency: [LatencyRow] = []
        var responses: [TimelineResult.ResponsePart] = []
        for c in clients {
            for session in c.finished {
                for part in parts {
                    latency.append(row(session, client: c.address, device: part, keys: keysByDevice[part.id] ?? []))
                }
            }
            for part in parts {
                var counter = ResponseCounter()
                var any = false
                for key in keysByDevice[part.id] ?? [] {
                    guard let r = c.response(key) else { continue }
                    any = true
                    counter += r
                }
                if any { responses.append(.init(client: c.address, deviceID: part.id, counter: counter)) }
            }
        }

        // Per-query outcomes, with instances named by device id.
        var deviceOfInstance: [NameID: String] = [:]
        for (id, keys) in keysByDevice { for k in keys { deviceOfInstance[k] = id } }
        var queries: [QueryOutcome] = []
        for c in clients {
            for e in c.queryLog {
                func ids(_ keys: [NameID]) -> [String] {
                    var out: [String] = []
                    for k in keys { if let id = deviceOfInstance[k], !out.contains(id) { out.append(id) } }
                    return out
                }
                var answers: [QueryOutcome.Answer] = []
                for a in e.answered.sorted(by: { $0.delay < $1.delay }) {
                    guard let id = deviceOfInstance[a.instance], !answers.contains(where: { $0.deviceID == id }) else {
                        continue
                    }
                    answers.append(QueryOutcome.Answer(deviceID: id, delayMs: a.delay, frame: a.frame))
                }
                let answeredIDs = Set(answers.map(\.deviceID))
                let suppressed = ids(e.suppressed).filter { !answeredIDs.contains($0) }
                queries.append(
                    QueryOutcome(
                        client: c.address, time: e.time, frame: e.frame,
                        names: e.names.map { names.name($0).description }.sorted(), answered: answers,
                        suppressed: suppressed,
                        missed: ids(e.missed).filter { !answeredIDs.contains($0) && !suppressed.contains($0) }))
            }
        }

        let serviceType = names.lookup(CastName.serviceTypeName)
        let clientParts = clients.map { c -> TimelineResult.ClientPart in
            TimelineResult.ClientPart(
                client: Client(
                    address: c.address, mac: c.mac, process: c.process, queries: c.queries, quQuestions: c.qu,
                    qmQuestions: c.qm, appIDsQueried: c.appIDs.sorted(), firstQuery: c.firstQuery,
                    lastQuery: c.lastQuery, firstQueryFrame: c.firstQueryFrame, legacyUnicast: c.legacyUnicast,
                    firstLegacyFrame: c.firstLegacyFrame, dialSearches: c.dialSearches,
                    firstDialSearch: c.firstDialSearch, firstDialSearchFrame: c.firstDialSearchFrame,
                    fastIntervals: c.fastIntervals,
                    appIDsAnswered: Set(
                        c.namesAnswered.compactMap { key -> String? in
                            if case .subtype(let app)? = CastName(names.name(key)) { return app }
                            return nil
                        }
                    ).sorted(),
                    serviceTypeAnswered: serviceType.map { c.namesAnswered.contains($0) } ?? false,
                    intervalsMs: c.intervals, followsDoubling: c.intervalCount < 2 ? nil : !c.doublingViolated,
                    sessions: c.sessionCount),
                intervalCount: c.intervalCount)
        }
        return TimelineResult(
            devices: parts, dial: dialOrder.map { dial[$0]!.info }, clients: clientParts, latency: latency,
            responses: responses, queries: queries, malformed: malformed, malformedCount: malformedCount,
            reflected: reflected, reflectedCount: reflectedCount, reflectedTTLs: reflectedTTLs, drops: drops)
    }

    func row(_ s: SessionState, client: IPAddress, device: TimelineResult.DevicePart, keys: [NameID]) -> LatencyRow {
        var first: (time: Timestamp, frame: FrameRef)?
        var resolved: (time: Timestamp, frame: FrameRef)?
        var missingParts: [String] = []
        for key in keys {
            let p = s.progress(key) ?? SessionProgress()
            if let a = p.firstAnswer, first == nil || a.time < first!.time { first = a }
            var parts: [(time: Timestamp, frame: FrameRef)] = []
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

extension TimelineResult.DevicePart {
    /// Merges another instance (or another timeline's view) of the same device.
    mutating func absorb(_ other: TimelineResult.DevicePart) {
        for i in other.instances where !instances.contains(i) { instances.append(i) }
        if txt == nil || (other.lastSeen > lastSeen && other.txt != nil) { txt = other.txt ?? txt }
        if host == nil || other.lastSeen > lastSeen, other.host != nil {
            host = other.host
            port = other.port
        }
        for a in other.addresses where !addresses.contains(a) { addresses.append(a) }
        appIDs.formUnion(other.appIDs)
        browseNames.formUnion(other.browseNames)
        if other.firstSeen < firstSeen {
            firstSeen = other.firstSeen
            firstFrame = other.firstFrame
        }
        for (a, f) in other.addressFrames where !addressFrames.contains(where: { $0.address == a }) {
            addressFrames.append((a, f))
        }
        for (a, f) in other.sourceFrames where !sourceFrames.contains(where: { $0.address == a }) {
            sourceFrames.append((a, f))
        }
        if other.lastSeen > lastSeen {
            lastSeen = other.lastSeen
            lastFrame = other.lastFrame
            leftAt = other.leftAt
            leftFrame = other.leftFrame
        } else if leftAt == nil, other.leftAt != nil, other.lastSeen == lastSeen {
            leftAt = other.leftAt
            leftFrame = other.leftFrame
        }
        for (type, values) in other.ttls { ttls[type, default: []].formUnion(values) }
        sources.formUnion(other.sources)
    }
}
