import WireFormat

extension AnalysisReport {
    /// Builds the report from one or more timelines: devices merge by id, DIAL devices merge
    /// into the mDNS device with the same address, clients merge by address.
    public init(captures: [CaptureInfo], timelines: [TimelineResult], options: AnalysisOptions, merged: Bool) {
        self.captures = captures
        self.merged = merged
        self.sessionGapSeconds = Double(options.sessionGapNanoseconds) / 1e9
        self.findings = []
        self.clientFilter = options.clients.sorted()
        self.clientsLeftOut = Array(Set(timelines.flatMap(\.clientsLeftOut)).sorted().prefix(30))

        // Devices by id across timelines.
        // (Indexes by key: a flood of devices must not make this quadratic.)
        var parts: [TimelineResult.DevicePart] = []
        var partIndex: [String: Int] = [:]
        for timeline in timelines {
            for part in timeline.devices {
                if let i = partIndex[part.id] {
                    parts[i].absorb(part)
                } else {
                    partIndex[part.id] = parts.count
                    parts.append(part)
                }
            }
        }
        var devices = parts.map(Device.init(part:))

        // DIAL devices: merged into an mDNS device with the same address; else a Cast device
        // when LOCATION is a Cast device description; else another DIAL device, listed apart.
        var dialByKey: [String: DIALInfo] = [:]
        var dialOrder: [String] = []
        for timeline in timelines {
            for (info, key) in zip(timeline.dial, timeline.dialKeys) {
                if var existing = dialByKey[key] {
                    existing.absorb(info)
                    dialByKey[key] = existing
                } else {
                    dialByKey[key] = info
                    dialOrder.append(key)
                }
            }
        }
        var deviceByAddress: [IPAddress: Int] = [:]
        for (i, d) in devices.enumerated() {
            for a in d.addresses where deviceByAddress[a] == nil { deviceByAddress[a] = i }
        }
        var castIDOfDIALKey: [String: String] = [:]
        var otherDevices: [DIALInfo] = []
        for key in dialOrder {
            let info = dialByKey[key]!
            let address = info.locationAddress ?? info.address
            // The first mDNS device (in order) with either address.
            if let i = [deviceByAddress[address], deviceByAddress[info.address]].compactMap({ $0 }).min() {
                if devices[i].dial == nil { devices[i].dial = info }
                if !devices[i].via.contains("dial") { devices[i].via.append("dial") }
                devices[i].firstSeen = Swift.min(devices[i].firstSeen, info.firstSeen)
                devices[i].lastSeen = Swift.max(devices[i].lastSeen, info.lastSeen)
                castIDOfDIALKey[key] = devices[i].id
            } else if info.hasCastLocation {
                let d = Device(dial: info)
                for a in d.addresses where deviceByAddress[a] == nil { deviceByAddress[a] = devices.count }
                castIDOfDIALKey[key] = d.id
                devices.append(d)
            } else {
                otherDevices.append(info)
            }
        }
        self.otherDevices = otherDevices
        self.devices = devices

        // Clients by address.
        var clients: [Client] = []
        var clientIndex: [IPAddress: Int] = [:]
        for timeline in timelines {
            for part in timeline.clients {
                if let i = clientIndex[part.client.address] {
                    clients[i].absorb(part.client)
                } else {
                    clientIndex[part.client.address] = clients.count
                    clients.append(part.client)
                }
            }
        }
        // Hosts, not addresses: a host's addresses (one MAC) joined into one client, and its
        // rows, queries and response counts with it.
        let grouping = HostGrouping(clients)
        self.clients = grouping.hosts.map { Client(host: $0.map { clients[$0] }) }
        var latency = timelines.flatMap(\.latency)
        var queries = timelines.flatMap(\.queries)
        // DIAL rows of Cast devices (other DIAL devices have none), under the host's primary
        // address; they join the mDNS rows after those are joined per host.
        let dialLatency = timelines.flatMap(\.dialLatency).compactMap { row in
            castIDOfDIALKey[row.deviceID].map { id in
                var r = row
                r.deviceID = id
                r.client = grouping.primary[row.client] ?? row.client
                return r
            }
        }
        self.malformedFrames = Array(timelines.flatMap(\.malformed).prefix(DiscoveryTracker.maximumEvidenceFrames))
        self.malformedCount = timelines.reduce(0) { $0 + $1.malformedCount }
        self.reflectedFrames = Array(timelines.flatMap(\.reflected).prefix(DiscoveryTracker.maximumEvidenceFrames))
        self.reflectedCount = timelines.reduce(0) { $0 + $1.reflectedCount }
        self.reflectedTTLs = timelines.reduce(into: Set<UInt8>()) { $0.formUnion($1.reflectedTTLs) }.sorted()
        var links: [MACAddress: [IPAddress]] = [:]
        for t in timelines {
            for (mac, list) in t.linkSources {
                var kept = links[mac] ?? []
                for a in list where !kept.contains(a) { kept.append(a) }
                links[mac] = kept
            }
        }
        self.linkSources = links
        var drops = LimitDrops()
        for t in timelines { drops += t.drops }
        drops.fragments = captures.reduce(0) { $0 + $1.fragmentsDropped }
        self.limitDrops = drops
        self.capacity = options.capacity

        // Responses by (client, device).
        var responseParts: [TimelineResult.ResponsePart] = []
        var responseIndex: [String: Int] = [:]
        for timeline in timelines {
            for r in timeline.responses {
                let key = "\(r.client) \(r.deviceID)"
                if let i = responseIndex[key] {
                    responseParts[i].counter += r.counter
                } else {
                    responseIndex[key] = responseParts.count
                    responseParts.append(r)
                }
            }
        }
        var responses = responseParts.map {
            ResponseStats(
                client: $0.client, deviceID: $0.deviceID, expected: $0.counter.expected, answered: $0.counter.answered,
                suppressed: $0.counter.suppressed, missed: $0.counter.missed, delay: Summary($0.counter.delays),
                missedFrames: Array($0.counter.missedFrames.prefix(TrackerLimits.maximumMissedFramesKept)))
        }
        var responseDelays = responseParts.map(\.counter.delays)
        if !grouping.primary.isEmpty {
            Self.joinHosts(
                grouping, latency: &latency, queries: &queries, responses: &responses, delays: &responseDelays,
                options: options, queriesComplete: drops.queries == 0)
        }
        latency += dialLatency
        self.latency = latency
        self.queries = queries
        self.responses = responses

        // Summaries per device (heard over mDNS, or with DIAL rows) and overall; the mDNS
        // figures come from mDNS rows only, DIAL answers have their own.
        var summaries: [LatencySummary] = []
        var allFirst: [Double] = []
        var allResolved: [Double] = []
        var allDelays: [Double] = []
        var allDIAL: [Double] = []
        let rowsByDevice = Dictionary(grouping: latency, by: \.deviceID)
        var delaysByDevice: [String: [Double]] = [:]
        for (r, d) in zip(responses, responseDelays) { delaysByDevice[r.deviceID, default: []] += d }
        for device in devices {
            let rows = rowsByDevice[device.id] ?? []
            let mdnsRows = rows.filter { $0.via == .mdns }
            let dialRows = rows.filter { $0.via == .dial }
            guard device.via.contains("mdns") || !dialRows.isEmpty else { continue }
            let first = mdnsRows.compactMap(\.firstAnswerMs)
            let resolved = mdnsRows.compactMap(\.resolvedMs)
            let delays = delaysByDevice[device.id] ?? []
            let dial = dialRows.compactMap(\.firstAnswerMs)
            allFirst += first
            allResolved += resolved
            allDelays += delays
            allDIAL += dial
            summaries.append(
                LatencySummary(
                    deviceID: device.id, firstAnswer: Summary(first), resolved: Summary(resolved),
                    responseDelay: Summary(delays), dialAnswer: Summary(dial)))
        }
        self.summaries = summaries
        self.connections = Self.connectionRows(
            timelines, devices: devices, clients: self.clients, latency: latency, primary: grouping.primary,
            captureEnds: captures.map(\.end), merged: merged)
        self.connectionPhaseSeen = timelines.contains(where: \.sawConnectionPhase)
        self.connectionsDropped = timelines.reduce(0) { $0 + $1.connectionsDropped }
        self.discoveryPortUnreachable = Array(
            timelines.flatMap(\.discoveryPortUnreachable).prefix(DiscoveryTracker.maximumEvidenceFrames))
        self.discoveryPortUnreachableCount = timelines.reduce(0) { $0 + $1.discoveryPortUnreachableCount }
        self.overall = LatencySummary(
            deviceID: nil, firstAnswer: Summary(allFirst), resolved: Summary(allResolved),
            responseDelay: Summary(allDelays), dialAnswer: Summary(allDIAL))
    }
}

extension DIALInfo {
    /// The host of `LOCATION` when it is an IP address.
    var locationAddress: IPAddress? { location.flatMap(SSDPMessage.address(inURL:)) }

    /// The UUID of its USN (as sent), else its address.
    public var id: String {
        if let usn, usn.lowercased().hasPrefix("uuid:") { return String(usn.dropFirst(5).prefix { $0 != ":" }) }
        return address.description
    }

    /// Merges another timeline's view of the same DIAL device.
    mutating func absorb(_ o: DIALInfo) {
        lastSeen = Swift.max(lastSeen, o.lastSeen)
        leftAt = o.leftAt
        leftFrame = o.leftFrame
        if location == nil { location = o.location }
        if usn == nil { usn = o.usn }
        if server == nil { server = o.server }
        answers += o.answers
        if firstAnswerFrame == nil { firstAnswerFrame = o.firstAnswerFrame }
        if let d = o.deviceDescription { deviceDescription = d }
        for c in o.answeredClients
        where answeredClients.count < FindingSubjects.maximumEach && !answeredClients.contains(c) {
            answeredClients.append(c)
        }
    }
}

extension Device {
    init(part p: TimelineResult.DevicePart) {
        let caps = p.txt?.capabilityBits.map(CastCapabilities.init(rawValue:))
        id = p.id
        instance = p.instances.first
        instances = p.instances
        friendlyName = p.txt?.friendlyName
        model = p.txt?.model
        kind = DeviceKind(capabilities: caps, model: p.txt?.model)
        capabilities = caps?.list ?? []
        capabilityBits = p.txt?.capabilityBits
        status = p.txt?.statusText
        runningApp = p.txt?.runningApp
        version = p.txt?.version
        icon = p.txt?.icon
        host = p.host
        port = p.port
        addresses = p.addresses.sorted()
        appIDs = p.appIDs.sorted()
        mediaCriterion = p.browseNames.contains { CastName(DNSName($0)) == .mediaCriterion }
        instanceSpans = p.instanceSpans.sorted { $0.firstSeen < $1.firstSeen }
        txt = (p.txt?.entries ?? []).map { ($0.key, $0.value ?? "") }
        firstSeen = p.firstSeen
        lastSeen = p.lastSeen
        leftAt = p.leftAt
        via = ["mdns"]
        ttls = p.ttls.keys.sorted { Self.typeOrder($0) < Self.typeOrder($1) }.map { ($0, p.ttls[$0]!.sorted()) }
        sources = p.sources.sorted()
        firstFrame = p.firstFrame
        lastFrame = p.lastFrame
        addressFrames = p.addressFrames
        sourceFrames = p.sourceFrames
        senders = p.senders
        leftFrame = p.leftFrame
        dial = nil
        vlans = p.vlans.map(Int.init)
        lastMulticast = p.lastMulticast?.time
        lastMulticastFrame = p.lastMulticast?.frame
    }

    init(dial info: DIALInfo) {
        id = info.id
        instance = nil
        instances = []
        // Named by the description a sender fetched from LOCATION, when the capture has it.
        friendlyName = info.deviceDescription?.friendlyName
        model = info.deviceDescription?.modelName
        kind = .unknown
        capabilities = []
        capabilityBits = nil
        status = nil
        runningApp = nil
        version = nil
        icon = nil
        host = nil
        port = nil
        addresses = [info.locationAddress ?? info.address]
        appIDs = []
        txt = []
        firstSeen = info.firstSeen
        lastSeen = info.lastSeen
        leftAt = info.leftAt
        via = ["dial"]
        ttls = []
        sources = [info.address]
        firstFrame = info.firstFrame
        lastFrame = info.leftFrame ?? info.firstFrame
        addressFrames = [(info.locationAddress ?? info.address, info.firstFrame)]
        sourceFrames = [(info.address, info.firstFrame)]
        leftFrame = info.leftFrame
        dial = info
    }

    static func typeOrder(_ t: String) -> Int { ["PTR", "SRV", "TXT", "A", "AAAA"].firstIndex(of: t) ?? 99 }
}

extension Client {
    mutating func absorb(_ o: Client) {
        if mac == nil { mac = o.mac }
        if process == nil { process = o.process }
        queries += o.queries
        quQuestions += o.quQuestions
        qmQuestions += o.qmQuestions
        appIDsQueried = Array(Set(appIDsQueried).union(o.appIDsQueried)).sorted()
        if let f = o.firstQuery, firstQuery == nil || f < firstQuery! {
            firstQuery = f
            firstQueryFrame = o.firstQueryFrame
        }
        if let l = o.lastQuery, lastQuery == nil || l > lastQuery! { lastQuery = l }
        legacyUnicast = legacyUnicast || o.legacyUnicast
        if firstLegacyFrame == nil { firstLegacyFrame = o.firstLegacyFrame }
        dialSearches += o.dialSearches
        dialSearchesAnswered += o.dialSearchesAnswered
        if dialUserAgent == nil { dialUserAgent = o.dialUserAgent }
        dialSearchFrames = Array((dialSearchFrames + o.dialSearchFrames).prefix(Finding.maximumFrames))
        if let d = o.firstDialSearch, firstDialSearch == nil || d < firstDialSearch! {
            firstDialSearch = d
            firstDialSearchFrame = o.firstDialSearchFrame
        }
        fastIntervals += o.fastIntervals
        appIDsAnswered = Array(Set(appIDsAnswered).union(o.appIDsAnswered)).sorted()
        serviceTypeAnswered = serviceTypeAnswered || o.serviceTypeAnswered
        intervalsMs = Array((intervalsMs + o.intervalsMs).prefix(TrackerLimits.maximumIntervalsKept))
        switch (followsDoubling, o.followsDoubling) {
        case (nil, let x), (let x, nil): followsDoubling = x
        case (let a?, let b?): followsDoubling = a && b
        }
        sessions += o.sessions
        for v in o.vlans where !vlans.contains(v) { vlans.append(v) }
        mediaCriterionQueried = mediaCriterionQueried || o.mediaCriterionQueried
        mediaCriterionAnswered = mediaCriterionAnswered || o.mediaCriterionAnswered
        localNamesOverDNS = (localNamesOverDNS + o.localNamesOverDNS).sorted { $0.time < $1.time }
    }
}
