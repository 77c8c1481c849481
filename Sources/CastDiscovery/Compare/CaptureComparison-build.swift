extension CaptureComparison {
    /// Lines up two captures taken at the same time: A on the sender's side, B on the
    /// devices' side.
    ///
    /// The senders are the hosts that sent Cast queries in A and no Cast response in either
    /// capture; the devices are the hosts that sent Cast responses in B. A message counts only
    /// when the other capture was running when it should have arrived there.
    public static func compare(
        _ a: CompareSide, _ b: CompareSide, options: Options = Options()
    ) -> Result<CaptureComparison, Refusal> {
        let match = MessageMatcher.match(a.messages, b.messages, window: options.window)

        // Roles.
        var responders = Set<String>()
        for side in [a, b] {
            for (m, kind) in zip(side.messages, side.kinds) where kind == .response {
                responders.insert(m.host)
                responders.insert(m.source)
            }
        }
        var senderHosts = hosts(of: a, kind: .query).filter { host in
            !responders.contains(host) && !(a.addresses[host] ?? []).contains(where: responders.contains)
        }
        var deviceHosts = hosts(of: b, kind: .response)
        var otherSenders: [String] = []
        var otherDevices: [String] = []
        if let wanted = options.sender {
            guard let chosen = choose(wanted, among: senderHosts, in: a) else {
                return .failure(.noSuchSender(wanted, known: senderHosts.map { label($0, in: a) }))
            }
            (senderHosts, otherSenders) = chosen
        }
        if let wanted = options.device {
            guard let chosen = choose(wanted, among: deviceHosts, in: b) else {
                return .failure(.noSuchDevice(wanted, known: deviceHosts.map { label($0, in: b) }))
            }
            (deviceHosts, otherDevices) = chosen
        }
        let senderSet = Set(senderHosts)
        let deviceSet = Set(deviceHosts)

        // Which pairs are the sender's queries and which the devices' answers.
        let directions: [CastMessageKind?] = match.pairs.map { p in
            if a.kinds[p.a] == .query, senderSet.contains(a.messages[p.a].host) { return .query }
            if b.kinds[p.b] == .response, deviceSet.contains(b.messages[p.b].host) { return .response }
            return nil
        }

        // The clock offset, both ways when it can be (NTP's symmetric-path estimate).
        let differences = match.pairs.map { b.messages[$0.b].time - a.messages[$0.a].time }
        let q = zip(differences, directions).filter { $0.1 == .query }.map(\.0)
        let r = zip(differences, directions).filter { $0.1 == .response }.map(\.0)
        var offset = match.pairs.isEmpty ? nil : match.offset
        var basis: OffsetBasis = offset == nil ? .assumed : .oneDirection
        var delays = differences.map { $0 - (offset?.median ?? 0) }
        if !q.isEmpty, !r.isEmpty {
            let (mq, mr) = (MessageMatcher.median(q), MessageMatcher.median(r))
            let theta = (mq + mr) / 2
            let (dq, dr) = (mq - theta, theta - mr)
            // Each pair's own estimate of the offset, given its direction's usual delay.
            let estimates = zip(differences, directions).map { d, dir in
                dir == .query ? d - dq : dir == .response ? d + dr : d
            }
            offset = ClockOffset(
                median: theta,
                spread: (MessageMatcher.percentile(estimates, 0.9) - MessageMatcher.percentile(estimates, 0.1)) / 2,
                pairs: match.pairs.count)
            basis = .bothDirections
            delays = differences.map { $0 - theta }
        }
        let theta = offset?.median ?? 0
        for k in delays.indices where directions[k] == .response { delays[k] = -delays[k] }

        var pairOfA: [Int: Int] = [:]
        var pairOfB: [Int: Int] = [:]
        for (k, p) in match.pairs.enumerated() {
            pairOfA[p.a] = k
            pairOfB[p.b] = k
        }
        let margin = min(options.window, 0.25)
        let queries = direction(
            from: a, to: b, kind: .query, hosts: senderSet, shift: theta, margin: margin, pairOf: pairOfA,
            pairs: match.pairs, delays: delays, otherIndex: { $0.b })
        let answers = direction(
            from: b, to: a, kind: .response, hosts: deviceSet, shift: -theta, margin: margin, pairOf: pairOfB,
            pairs: match.pairs, delays: delays, otherIndex: { $0.a })

        var changed: [ChangedCopy] = []
        for (k, p) in match.pairs.enumerated() where p.changed && directions[k] != nil {
            guard changed.count < maximumChangedListed else { break }
            let (ma, mb) = (a.messages[p.a], b.messages[p.b])
            changed.append(
                ChangedCopy(
                    kind: directions[k]!, frameA: ma.frame, frameB: mb.frame, sourceA: ma.source, sourceB: mb.source,
                    ttlA: ma.ttl, ttlB: mb.ttl, reencoded: p.reencoded))
        }

        var result = CaptureComparison(
            a: a, b: b, match: match, offset: offset, offsetBasis: basis,
            senders: senderHosts.map { host(queries.perHost[$0], host: $0, in: a) },
            devices: deviceHosts.map { host(answers.perHost[$0], host: $0, in: b) },
            otherSenders: otherSenders, otherDevices: otherDevices, queries: queries.traffic,
            answers: answers.traffic, changedCopies: changed, pairDelays: delays, pairDirections: directions)
        result.findings = CompareRules.findings(result)
        return .success(result)
    }

    /// A DNS message's answer count (ANCOUNT), 0 for fewer than 12 bytes.
    static func answerCount(_ bytes: [UInt8]) -> Int {
        bytes.count >= 12 ? Int(bytes[6]) << 8 | Int(bytes[7]) : 0
    }

    /// The hosts that sent messages of `kind` in `side`, most messages first.
    static func hosts(of side: CompareSide, kind: CastMessageKind) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for (m, k) in zip(side.messages, side.kinds) where k == kind {
            if counts[m.host] == nil { order.append(m.host) }
            counts[m.host, default: 0] += 1
        }
        return order.enumerated().sorted { (counts[$0.1]!, -$0.0) > (counts[$1.1]!, -$1.0) }.map(\.1)
    }

    /// The hosts `--sender`/`--device` names, and the labels of the others; `nil` when it names
    /// none.
    static func choose(_ wanted: String, among hosts: [String], in side: CompareSide) -> ([String], [String])? {
        let name = wanted.lowercased()
        let chosen = hosts.filter { names(of: $0, in: side).contains(name) }
        guard !chosen.isEmpty else { return nil }
        let kept = Set(chosen)
        return (chosen, hosts.filter { !kept.contains($0) }.map { label($0, in: side) })
    }

    /// What `--sender`/`--device` may call a host: its key, its addresses, its name (lower case).
    static func names(of host: String, in side: CompareSide) -> Set<String> {
        var all: Set<String> = [host.lowercased()]
        for address in side.addresses[host] ?? [] { all.insert(address.lowercased()) }
        if let name = side.names[host] { all.insert(name.lowercased()) }
        return all
    }

    static func label(_ host: String, in side: CompareSide) -> String {
        HostTraffic(host: host, addresses: side.addresses[host] ?? [host], name: side.names[host]).label
    }

    /// One host's counts in its direction.
    static func host(_ counts: (seen: Int, arrived: Int)?, host: String, in side: CompareSide) -> HostTraffic {
        var t = HostTraffic(host: host, addresses: side.addresses[host] ?? [host], name: side.names[host])
        t.seen = counts?.seen ?? 0
        t.arrived = counts?.arrived ?? 0
        return t
    }

    /// The messages of `kind` that `hosts` sent, seen in `from`, and which of them reached `to`.
    static func direction(
        from: CompareSide, to: CompareSide, kind: CastMessageKind, hosts: Set<String>, shift: Double, margin: Double,
        pairOf: [Int: Int], pairs: [MessagePair], delays: [Double], otherIndex: (MessagePair) -> Int
    ) -> (traffic: DirectionTraffic, perHost: [String: (seen: Int, arrived: Int)]) {
        var t = DirectionTraffic()
        var perHost: [String: (seen: Int, arrived: Int)] = [:]
        var lost: [Int] = []
        var arrivedDelays: [Double] = []
        for (i, m) in from.messages.enumerated() where from.kinds[i] == kind && hosts.contains(m.host) {
            let pair = pairOf[i].map { pairs[$0] }
            if pair == nil {
                // Lost only if the other capture was running when it should have arrived.
                let expected = m.time + shift
                guard let start = to.start, let end = to.end, expected >= start, expected + margin <= end else {
                    t.outsideOverlap += 1
                    continue
                }
            }
            t.seen += 1
            perHost[m.host, default: (0, 0)].seen += 1
            if m.multicast { t.multicastSeen += 1 }
            guard let k = pairOf[i], let p = pair else {
                lost.append(i)
                continue
            }
            t.arrived += 1
            perHost[m.host, default: (0, 0)].arrived += 1
            if m.multicast { t.multicastArrived += 1 }
            arrivedDelays.append(delays[k])
            t.lastArrival = max(t.lastArrival ?? m.time, m.time)
            let other = to.messages[otherIndex(p)]
            if p.changed {
                t.changed += 1
                if other.source != m.source { t.sourceChanged += 1 }
                if other.ttl != m.ttl { t.ttlChanged += 1 }
                if p.reencoded { t.reencoded += 1 }
                if kind == .query, answerCount(other.content) > answerCount(m.content) { t.knownAnswersAdded += 1 }
            }
        }
        t.delay = Summary(arrivedDelays)
        t.lostFrames = lost.prefix(CaptureComparison.maximumLostFramesListed).map { from.messages[$0].frame }
        t.lostAfterLastArrival = lost.filter { i in t.lastArrival.map { from.messages[i].time > $0 } ?? true }.count
        if let first = lost.first {
            let m = from.messages[first]
            let expected = m.time + shift
            let near = to.messages.lastIndex { $0.time <= expected }.map { to.messages[$0].frame }
            t.firstLost = LostMessage(frame: m.frame, time: m.time, nearFrame: near)
        }
        return (t, perHost)
    }
}
