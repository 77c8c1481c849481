// Rules about each client: did its search get answers, fast enough, in a sane rhythm.
extension Diagnosis {
    /// DIAL_ONLY: the client searched with SSDP M-SEARCH for DIAL and never with mDNS.
    static func dialOnly(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard !c.queried, c.client.dialSearches > 0 else { return [] }
        return [
            Finding(
                code: .dialOnly, severity: .warning,
                title: "\(c.address) searched only with SSDP/DIAL, never with mDNS",
                detail: "\(c.client.dialSearches) SSDP M-SEARCH for DIAL and no mDNS query for _googlecast._tcp. "
                    + "DIAL is the legacy discovery path: it needs the sender and the device in one VLAN "
                    + "with SSDP multicast forwarded, and current Cast SDKs discover with mDNS.",
                advice: "Update the sender to a current Cast SDK (mDNS discovery); on a segmented network, "
                    + "forward SSDP (239.255.255.250:1900) or move sender and device into one VLAN.",
                frames: c.client.firstDialSearchFrame.map { [$0] } ?? [], subjects: c.subject)
        ]
    }

    /// QUERIES_UNANSWERED when no Cast device was heard at all, CLIENT_NOT_ANSWERED when some
    /// were: none of the client's queries was answered.
    static func notAnswered(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, !c.answered else { return [] }
        let devices = context.mdnsDevices
        let queries = c.queryCount
        if devices.isEmpty {
            return [
                Finding(
                    code: .queriesUnanswered, severity: .error,
                    title: "\(c.address) asked for Cast devices \(queries) times and got no answer",
                    detail: "No Cast device answered or announced itself anywhere in the capture: the "
                        + "queries (\(queryNames(c.queries))) met silence. Typical causes: multicast blocked "
                        + "or IGMP-snooped away on the access point or switch, client isolation on the "
                        + "Wi-Fi, the device on another VLAN/subnet, or the device is off.",
                    advice: "Check that the device is on and on the same network; on the access point "
                        + "disable client/AP isolation and allow multicast (mDNS 224.0.0.251 / ff02::fb); "
                        + "across VLANs, add an mDNS reflector/gateway. Capturing on the device's side too "
                        + "shows whether the queries arrive.",
                    frames: c.queryFrames, subjects: c.subject)
            ]
        }
        let othersAnswered = !context.clientsAnswered.subtracting([c.client.address]).isEmpty
        return [
            Finding(
                code: .clientNotAnswered, severity: .error,
                title: "Cast devices are on the network but never answered \(c.address)",
                detail: "\(c.address) sent \(Wording.count(queries, "Cast query", "Cast queries")), none "
                    + "answered within 1 s, while \(list(devices.map { $0.friendlyName ?? $0.id })) "
                    + (othersAnswered ? "answered other hosts' queries" : "announced themselves")
                    + ". The client's queries do not reach the devices (client isolation, multicast "
                    + "filtering from this client, a firewall) or their answers do not reach it.",
                advice: "Disable client/AP isolation and multicast filtering for this client; check "
                    + "its firewall allows UDP 5353 in and out; on Android the app needs a "
                    + "WifiManager.MulticastLock.",
                frames: c.queryFrames + devices.map(\.firstFrame),
                subjects: FindingSubjects(clients: [c.address], devices: devices.map(\.id)))
        ]
    }

    /// APP_ID_UNANSWERED: the base type was answered, an app-ID subtype the client asked for
    /// never.
    static func appIDUnanswered(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, c.answered, c.client.serviceTypeAnswered else { return [] }
        let answeredApps = Set(c.client.appIDsAnswered.map { $0.lowercased() })
        let missing = c.client.appIDsQueried.filter { !answeredApps.contains($0.lowercased()) }
        guard !missing.isEmpty else { return [] }
        let missingApps = Set(missing.map { $0.lowercased() })
        let subtypeQueries = c.queries.filter { q in
            q.names.contains { n in
                // `_<APPID>._sub.…`: the app ID is the first label without its underscore.
                let label = n.lowercased().prefix { $0 != "." }
                return label.hasPrefix("_") && n.lowercased().dropFirst(label.count).hasPrefix("._sub.")
                    && missingApps.contains(String(label.dropFirst()))
            }
        }
        return [
            Finding(
                code: .appIDUnanswered, severity: .error,
                title: "No device answered for app ID \(capped(missing)) asked by \(c.address)",
                detail: "\(c.address) searched for _\(missing[0])._sub._googlecast._tcp.local and no "
                    + "device answered under that name, although Cast devices answered the plain "
                    + "_googlecast._tcp.local query. Devices publish an app-ID subtype only for "
                    + "receiver apps they can run, so the app ID is wrong, unpublished, or not "
                    + "available on these devices.",
                advice: "Check the receiver app ID in the sender code and in the Cast Developer "
                    + "Console (published, or the device registered for testing); the Default Media "
                    + "Receiver is CC1AD845.",
                frames: subtypeQueries.map(\.frame),
                subjects: FindingSubjects(clients: [c.address], appIDs: missing))
        ]
    }

    /// INCOMPLETE_RESOLUTION, one per device: its PTR reached the client, but in no session
    /// did its SRV, TXT and an address follow.
    static func incompleteResolution(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried else { return [] }
        let clientRows = context.latencyRows[c.client.address] ?? [:]
        var findings: [Finding] = []
        for device in context.mdnsDevices {
            guard let rows = clientRows[device.id],
                rows.contains(where: { $0.firstAnswerMs != nil }), !rows.contains(where: { $0.resolvedMs != nil })
            else { continue }
            let reason = rows.compactMap(\.resolvedMissing).first ?? "the records never arrived"
            findings.append(
                Finding(
                    code: .incompleteResolution, severity: .error,
                    title: "\(device.friendlyName ?? device.id) was found by \(c.address) but never resolved",
                    detail: "The PTR for \(device.instance ?? device.id) reached \(c.address), but it \(reason). "
                        + "Without SRV, TXT and an address the sender cannot connect or show the device.",
                    advice: "Look at the device's responses in the frames listed: if it sends only the PTR, its "
                        + "mDNS responder is faulty (update its firmware); if the client's follow-up SRV/TXT/A "
                        + "queries go unanswered, multicast or unicast replies are being dropped.",
                    frames: rows.compactMap(\.firstAnswerFrame) + c.queryFrames,
                    subjects: FindingSubjects(clients: [c.address], devices: [device.id])))
        }
        return findings
    }

    /// SLOW_RESPONSE: shared answers to the client later than ``slowSharedAnswerMs``.
    static func slowResponse(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried else { return [] }
        var slow: [(delay: Double, query: FrameRef, answer: FrameRef, device: String)] = []
        for q in c.queries {
            for a in q.answered where a.delayMs > slowSharedAnswerMs {
                slow.append((a.delayMs, q.frame, a.frame, a.deviceID))
            }
        }
        guard !slow.isEmpty else { return [] }
        let worst = slow.sorted { $0.delay > $1.delay }
        let devices = Array(Set(slow.map(\.device))).sorted()
        return [
            Finding(
                code: .slowResponse, severity: .warning,
                title: "Slow answers to \(c.address): up to \(Wording.decimal(worst[0].delay, places: 0)) ms",
                detail: "\(Wording.count(slow.count, "answer")) from \(list(devices.map(context.name(of:)))) came "
                    + "more than \(Int(slowSharedAnswerMs)) ms after the query; RFC 6762 §6 has responders send "
                    + "shared answers within 20–120 ms (400–500 ms after a truncated query). Senders with short "
                    + "timeouts give up or show the device late.",
                advice: "Check the device's load and firmware, Wi-Fi power saving (DTIM) on the access "
                    + "point, and any mDNS proxy or reflector that delays packets.",
                frames: worst.flatMap { [$0.query, $0.answer] },
                subjects: FindingSubjects(clients: [c.address], devices: devices))
        ]
    }

    /// QUERY_STORM: at least ``stormIntervals`` query intervals shorter than
    /// ``fastIntervalMs`` that are not cache refresh steps.
    static func queryStorm(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried else { return [] }
        let storm = c.client.intervalsMs.filter { i in
            i < fastIntervalMs && !isRefreshInterval(i, ttls: context.refreshTTLs)
        }
        guard storm.count >= stormIntervals else { return [] }
        return [
            Finding(
                code: .queryStorm, severity: .warning,
                title: "\(c.address) queries faster than RFC 6762 allows",
                detail: "\(storm.count) of its query intervals were shorter than "
                    + "\(Int(fastIntervalMs)) ms; RFC 6762 §5.2 wants at least 1 s between the first two "
                    + "queries and doubling after that. Fast repeats load every device on the network and "
                    + "can trip multicast rate limits on access points.",
                advice: "Fix the sender's discovery loop (start discovery once; let the mDNS stack "
                    + "schedule the queries).",
                frames: c.queryFrames, subjects: c.subject)
        ]
    }

    /// LEGACY_UNICAST: the client's queries come from a port other than 5353.
    static func legacyUnicast(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, c.client.legacyUnicast else { return [] }
        return [
            Finding(
                code: .legacyUnicast, severity: .info,
                title: "\(c.address) sends legacy unicast queries (not from port 5353)",
                detail: "Its queries come from an ephemeral port, so devices answer with unicast, TTLs of at "
                    + "most 10 s and no continuous monitoring (RFC 6762 §6.7). That is how one-shot tools "
                    + "like dig work; a Cast sender should use a full mDNS stack.",
                advice: "Fine for a one-off check; for an app, use the platform's mDNS API (NSD, "
                    + "NWBrowser, Avahi, Bonjour) instead of a hand-made DNS socket.",
                frames: c.client.firstLegacyFrame.map { [$0] } ?? [], subjects: c.subject)
        ]
    }

    /// The names a client's queries asked for, each once, capped.
    static func queryNames(_ queries: [QueryOutcome]) -> String {
        var names: [String] = []
        var seen: Set<String> = []
        for q in queries { for n in q.names where seen.insert(n).inserted { names.append(n) } }
        return capped(names)
    }

    /// Whether an interval of `ms` is a cache refresh step of one of the sorted `ttls` (seconds):
    /// within 5 % ± 2 % of it, that is 30·ttl ≤ ms ≤ 70·ttl (a binary search, not a scan).
    static func isRefreshInterval(_ ms: Double, ttls: [UInt32]) -> Bool {
        // The smallest TTL with 70·ttl ≥ ms, then whether 30·ttl ≤ ms.
        var low = 0
        var high = ttls.count
        while low < high {
            let mid = (low + high) / 2
            if 70 * Double(ttls[mid]) < ms { low = mid + 1 } else { high = mid }
        }
        return low < ttls.count && 30 * Double(ttls[low]) <= ms
    }
}
