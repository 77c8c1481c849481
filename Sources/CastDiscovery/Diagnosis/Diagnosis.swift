import WireFormat

/// The diagnosis engine: turns an analysis into findings, each with evidence frames and advice.
///
/// Rules follow ../shared/DOMAIN.md §4 (real failure causes and their capture signatures) and
/// RFC 6762; each code is documented in docs/diagnostics.md. They are tuned so that a healthy
/// capture gives no `error` and no `warning`.
public enum Diagnosis {
    /// Shared (PTR) answers later than this are slow (RFC 6762 §6: 20–120 ms, 400–500 ms
    /// after a TC query).
    public static let slowSharedAnswerMs = 500.0
    /// Query intervals shorter than this break RFC 6762 §5.2's "at least one second".
    public static let fastIntervalMs = 900.0
    /// This many too-fast intervals make a query storm.
    public static let stormIntervals = 3

    /// Every finding for the report, most severe first (stable order within a severity).
    public static func diagnose(_ r: AnalysisReport) -> [Finding] {
        var f: [Finding] = []
        f += captureFindings(r)
        f += trafficFindings(r)
        f += clientFindings(r)
        f += deviceFindings(r)
        f += pathFindings(r)
        // At most `maximumFindingsPerCode` of one code (a flood of fake devices would otherwise
        // give one finding per client and device); the rest are counted in LIMIT_REACHED.
        var perCode: [FindingCode: Int] = [:]
        var drops = r.limitDrops
        var notListed: [FindingCode: Int] = [:]
        f = f.filter { finding in
            perCode[finding.code, default: 0] += 1
            guard perCode[finding.code]! > maximumFindingsPerCode else { return true }
            notListed[finding.code, default: 0] += 1
            return false
        }
        drops.findings = notListed.values.reduce(0, +)
        // First among the warnings: it says how far the rest can be trusted.
        if let limit = limitFinding(drops, capacity: r.capacity, notListed: notListed) { f.insert(limit, at: 0) }
        return sorted(f)
    }

    /// The most findings of one code a report lists.
    public static let maximumFindingsPerCode = 20

    /// LIMIT_REACHED: what was dropped to stay within the limits, or `nil` if nothing was.
    static func limitFinding(_ d: LimitDrops, capacity c: TrackerCapacity, notListed: [FindingCode: Int]) -> Finding? {
        guard !d.isEmpty else { return nil }
        var parts: [String] = []
        if d.devices > 0 {
            parts.append("\(d.devices) new device\(d.devices == 1 ? "" : "s") beyond \(c.devices) (--max-devices)")
        }
        if d.devicesEvicted > 0 {
            parts.append(
                "\(d.devicesEvicted) incomplete device\(d.devicesEvicted == 1 ? "" : "s") (never seen with SRV "
                    + "or TXT) forgotten to make room")
        }
        if d.clients > 0 { parts.append("\(d.clients) packets from clients beyond \(c.clients) (--max-clients)") }
        if d.names > 0 { parts.append("\(d.names) records whose names did not fit in \(c.names) (--max-names)") }
        if d.hosts > 0 { parts.append("\(d.hosts) address records of hosts beyond \(c.hosts)") }
        if d.dialDevices > 0 { parts.append("\(d.dialDevices) DIAL answers from devices beyond \(c.dialDevices)") }
        if d.fragments > 0 {
            parts.append("\(d.fragments) fragmented datagrams abandoned by the reassembly limits (--max-fragments)")
        }
        if d.sessions > 0 {
            parts.append(
                "\(d.sessions) discovery sessions stopped taking responses to keep \(c.sessions) at once "
                    + "(--max-sessions)")
        }
        if d.finishedSessions > 0 {
            parts.append(
                "\(d.finishedSessions) finished discovery sessions beyond \(TrackerLimits.maximumFinishedSessions) in all"
            )
        }
        if d.queries > 0 {
            parts.append("\(d.queries) queries beyond \(c.rows) in the per-query table (--max-rows)")
        }
        if d.pairs > 0 {
            parts.append(
                "\(d.pairs) client × device updates beyond \(c.pairs) pairs (--max-pairs): those responses and "
                    + "session progress were not counted")
        }
        if d.latencyRows > 0 {
            parts.append("\(d.latencyRows) latency rows (session × device) beyond \(c.rows) (--max-rows)")
        }
        if d.responseRows > 0 {
            parts.append("\(d.responseRows) response rows (client × device) beyond \(c.rows) (--max-rows)")
        }
        if d.queryListEntries > 0 {
            parts.append(
                "\(d.queryListEntries) device ids beyond \(QueryOutcome.maximumDevicesListed) in one query's answered, "
                    + "suppressed or missed list")
        }
        if d.findings > 0 {
            let codes = notListed.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            parts.append(
                "\(d.findings) findings beyond \(maximumFindingsPerCode) of one kind not listed (\(codes))")
        }
        return Finding(
            code: .limitReached, severity: .warning,
            title: "Some discovery state was dropped to keep memory bounded",
            detail: "The capture holds more than castscope keeps: " + parts.joined(separator: "; ")
                + ". Everything else was analysed; devices, clients and latencies may be missing from the "
                + "report.",
            advice: "A flood of announcements, names or fragments like this is a misbehaving device or an "
                + "attack on the network: look for the sender in Wireshark. If the network really is that "
                + "large, raise the limits with the options named above.")
    }

    /// Sorts findings by severity, keeping the rules' order within one severity.
    public static func sorted(_ findings: [Finding]) -> [Finding] {
        findings.enumerated().sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }
            .map(\.element)
    }

    // MARK: The capture itself

    static func captureFindings(_ r: AnalysisReport) -> [Finding] {
        var f: [Finding] = []
        for (i, c) in r.captures.enumerated() {
            if c.protectedWiFiFrames > 0 {
                let blind = c.mdnsPackets == 0
                f.append(
                    Finding(
                        code: .encryptedWiFi, severity: blind ? .error : .warning,
                        title: "\(c.file) is an encrypted Wi-Fi capture: mDNS inside it cannot be read",
                        detail: "\(c.protectedWiFiFrames) of \(c.wifiDataFrames) 802.11 data frames have the Protected "
                            + "bit set. Multicast mDNS travels in group-key-encrypted frames, so without the network "
                            + "keys and the 4-way handshake nothing in them can be decoded"
                            + (blind ? "." : "; only the \(c.mdnsPackets) unencrypted mDNS packets were analysed."),
                        advice: "Capture on the sender itself (tcpdump on its interface, rvictl for an iPhone, "
                            + "PCAPdroid for Android) or on a wired port, or decrypt the capture in Wireshark with "
                            + "the network's key and a captured handshake first.",
                        frames: [], subjects: FindingSubjects()))
                _ = i
            }
            if c.truncated {
                f.append(
                    Finding(
                        code: .truncatedCapture, severity: .info,
                        title: "\(c.file) ends in the middle of a packet",
                        detail: "The capture file stops part-way through a record (the capture was killed or the "
                            + "disk filled up). The \(c.packets) complete frames before the cut were analysed.",
                        advice: "Stop captures with Ctrl-C (tcpdump flushes on SIGINT) and check free space; "
                            + "nothing needs to be done for this analysis.",
                        frames: c.packets > 0 ? [FrameRef(capture: i, frame: c.packets)] : []))
            }
        }
        if r.malformedCount > 0 {
            let reasons = Set(r.malformedFrames.map(\.reason)).sorted().prefix(3).joined(separator: "; ")
            f.append(
                Finding(
                    code: .malformedPackets, severity: .warning,
                    title:
                        "\(r.malformedCount) discovery packet\(r.malformedCount == 1 ? "" : "s") could not be decoded",
                    detail: "mDNS or SSDP packets that are cut short or break the protocol's rules (\(reasons)). "
                        + "What decoded before each fault was used.",
                    advice: "If the capture used a small snap length, capture again with `-s 0`; otherwise look at "
                        + "the frames in Wireshark: a device or proxy that sends broken mDNS may be dropped by senders.",
                    frames: r.malformedFrames.map(\.frame)))
        }
        return f
    }

    // MARK: Is there discovery traffic at all?

    static func trafficFindings(_ r: AnalysisReport) -> [Finding] {
        let mdns = r.captures.reduce(0) { $0 + $1.mdnsPackets }
        let ssdp = r.captures.reduce(0) { $0 + $1.ssdpPackets }
        let encrypted = r.captures.contains { $0.protectedWiFiFrames > 0 }
        let dialSearched = r.clients.contains { $0.dialSearches > 0 }
        if mdns == 0 {
            // Encrypted Wi-Fi explains the silence; a DIAL-only sender is its own finding.
            if encrypted || dialSearched { return [] }
            return [
                Finding(
                    code: .noMDNSTraffic, severity: .error, title: "No mDNS traffic at all in the capture",
                    detail: "Not one UDP packet to or from port 5353 in \(r.captures.map(\.packets).reduce(0, +)) "
                        + "frames" + (ssdp > 0 ? " (there are \(ssdp) SSDP packets)." : ".")
                        + " Either the capture was taken on the wrong interface or with a filter that drops mDNS, "
                        + "or nothing on this network speaks mDNS.",
                    advice: "Capture on the interface the sender uses for the LAN (not a VPN, cellular or Docker "
                        + "interface), without a capture filter or with `udp port 5353 or udp port 1900`, while "
                        + "pressing the Cast button.")
            ]
        }
        let queried = r.clients.contains { $0.queries > 0 }
        if !queried, !dialSearched {
            let heard = r.devices.filter { $0.via.contains("mdns") }
            return [
                Finding(
                    code: .noCastQueries, severity: .error, title: "Nobody searched for Cast devices",
                    detail: "The capture has \(mdns) mDNS packets but no query for _googlecast._tcp.local or an "
                        + "app-ID subtype, and no DIAL search."
                        + (heard.isEmpty
                            ? ""
                            : " \(heard.count) Cast device\(heard.count == 1 ? " was" : "s were") heard "
                                + "announcing, so the network carries mDNS: the sender never asked."),
                    advice: "On iOS 14+, check that the app may use the Local Network (Settings › Privacy › Local "
                        + "Network) and that Info.plist has NSBonjourServices with _googlecast._tcp and "
                        + "_<APPID>._googlecast._tcp plus NSLocalNetworkUsageDescription (castscope check-plist). "
                        + "With startDiscoveryAfterFirstTapOnCastButton, discovery starts only after the first tap. "
                        + "Make sure the capture covers the moment the Cast button was pressed.",
                    frames: heard.map(\.firstFrame), subjects: FindingSubjects(devices: heard.map(\.id)))
            ]
        }
        return []
    }

    // MARK: Clients

    static func clientFindings(_ r: AnalysisReport) -> [Finding] {
        var f: [Finding] = []
        let mdnsDevices = r.devices.filter { $0.via.contains("mdns") }
        let byID = Dictionary(r.devices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        // Indexes built once, so that nothing below costs clients × queries or clients ×
        // devices × latency rows (a flood of fake clients and devices must not hang the report).
        let queriesByClient = Dictionary(grouping: r.queries, by: \.client)
        let clientsAnswered = Set(r.queries.filter { !$0.answered.isEmpty }.map(\.client))
        var latencyRows: [IPAddress: [String: [LatencyRow]]] = [:]
        for row in r.latency { latencyRows[row.client, default: [:]][row.deviceID, default: []].append(row) }
        // Cache refreshes at 80/85/90/95 % of a short TTL are legitimately close together
        // (RFC 6762 §5.2): an interval within 5 % ± 2 % of a TTL in use is not a storm.
        let refreshTTLs = Set(mdnsDevices.flatMap { $0.ttls.flatMap(\.values) }.filter { $0 > 0 }).sorted()
        for c in r.clients {
            let address = c.address.description
            let queries = queriesByClient[c.address] ?? []
            let subject = FindingSubjects(clients: [address])
            if c.queries == 0, c.dialSearches > 0 {
                f.append(
                    Finding(
                        code: .dialOnly, severity: .warning,
                        title: "\(address) searched only with SSDP/DIAL, never with mDNS",
                        detail: "\(c.dialSearches) SSDP M-SEARCH for DIAL and no mDNS query for _googlecast._tcp. "
                            + "DIAL is the legacy discovery path: it needs the sender and the device in one VLAN "
                            + "with SSDP multicast forwarded, and current Cast SDKs discover with mDNS.",
                        advice: "Update the sender to a current Cast SDK (mDNS discovery); on a segmented network, "
                            + "forward SSDP (239.255.255.250:1900) or move sender and device into one VLAN.",
                        frames: c.firstDialSearchFrame.map { [$0] } ?? [], subjects: subject))
            }
            guard c.queries > 0 else { continue }
            let answered = queries.contains { !$0.answered.isEmpty || !$0.suppressed.isEmpty }
            let queryFrames = queries.map(\.frame)
            if !answered {
                let othersAnswered = !clientsAnswered.subtracting([c.address]).isEmpty
                if mdnsDevices.isEmpty {
                    f.append(
                        Finding(
                            code: .queriesUnanswered, severity: .error,
                            title: "\(address) asked for Cast devices \(c.queries) times and got no answer",
                            detail: "No Cast device answered or announced itself anywhere in the capture: the "
                                + "queries (\(queryNames(queries))) met silence. Typical causes: multicast blocked "
                                + "or IGMP-snooped away on the access point or switch, client isolation on the "
                                + "Wi-Fi, the device on another VLAN/subnet, or the device is off.",
                            advice: "Check that the device is on and on the same network; on the access point "
                                + "disable client/AP isolation and allow multicast (mDNS 224.0.0.251 / ff02::fb); "
                                + "across VLANs, add an mDNS reflector/gateway. Capturing on the device's side too "
                                + "shows whether the queries arrive.",
                            frames: queryFrames, subjects: subject))
                } else {
                    let names = mdnsDevices.map { $0.friendlyName ?? $0.id }
                    f.append(
                        Finding(
                            code: .clientNotAnswered, severity: .error,
                            title: "Cast devices are on the network but never answered \(address)",
                            detail: "\(address) sent \(c.queries) Cast quer\(c.queries == 1 ? "y" : "ies"), none "
                                + "answered within 1 s, while \(list(names)) "
                                + (othersAnswered ? "answered other hosts' queries" : "announced themselves")
                                + ". The client's queries do not reach the devices (client isolation, multicast "
                                + "filtering from this client, a firewall) or their answers do not reach it.",
                            advice: "Disable client/AP isolation and multicast filtering for this client; check "
                                + "its firewall allows UDP 5353 in and out; on Android the app needs a "
                                + "WifiManager.MulticastLock.",
                            frames: queryFrames + mdnsDevices.map(\.firstFrame),
                            subjects: FindingSubjects(clients: [address], devices: mdnsDevices.map(\.id))))
                }
            } else {
                // Base type answered, an app ID never.
                let answeredApps = Set(c.appIDsAnswered.map { $0.lowercased() })
                let missing = c.appIDsQueried.filter { !answeredApps.contains($0.lowercased()) }
                if c.serviceTypeAnswered, !missing.isEmpty {
                    let missingApps = Set(missing.map { $0.lowercased() })
                    let subtypeQueries = queries.filter { q in
                        q.names.contains { n in
                            // `_<APPID>._sub.…`: the app ID is the first label without its underscore.
                            let label = n.lowercased().prefix { $0 != "." }
                            return label.hasPrefix("_") && n.lowercased().dropFirst(label.count).hasPrefix("._sub.")
                                && missingApps.contains(String(label.dropFirst()))
                        }
                    }
                    f.append(
                        Finding(
                            code: .appIDUnanswered, severity: .error,
                            title:
                                "No device answered for app ID \(capped(missing)) asked by \(address)",
                            detail: "\(address) searched for _\(missing[0])._sub._googlecast._tcp.local and no "
                                + "device answered under that name, although Cast devices answered the plain "
                                + "_googlecast._tcp.local query. Devices publish an app-ID subtype only for "
                                + "receiver apps they can run, so the app ID is wrong, unpublished, or not "
                                + "available on these devices.",
                            advice: "Check the receiver app ID in the sender code and in the Cast Developer "
                                + "Console (published, or the device registered for testing); the Default Media "
                                + "Receiver is CC1AD845.",
                            frames: subtypeQueries.map(\.frame),
                            subjects: FindingSubjects(clients: [address], appIDs: missing)))
                }
            }
            // Incomplete resolution per device.
            let clientRows = latencyRows[c.address] ?? [:]
            for device in mdnsDevices {
                guard let rows = clientRows[device.id],
                    rows.contains(where: { $0.firstAnswerMs != nil }), !rows.contains(where: { $0.resolvedMs != nil })
                else { continue }
                let reason = rows.compactMap(\.resolvedMissing).first ?? "the records never arrived"
                f.append(
                    Finding(
                        code: .incompleteResolution, severity: .error,
                        title: "\(device.friendlyName ?? device.id) was found by \(address) but never resolved",
                        detail: "The PTR for \(device.instance ?? device.id) reached \(address), but it \(reason). "
                            + "Without SRV, TXT and an address the sender cannot connect or show the device.",
                        advice: "Look at the device's responses in the frames listed: if it sends only the PTR, its "
                            + "mDNS responder is faulty (update its firmware); if the client's follow-up SRV/TXT/A "
                            + "queries go unanswered, multicast or unicast replies are being dropped.",
                        frames: rows.compactMap(\.firstAnswerFrame) + queryFrames,
                        subjects: FindingSubjects(clients: [address], devices: [device.id])))
            }
            // Slow answers.
            var slow: [(delay: Double, query: FrameRef, answer: FrameRef, device: String)] = []
            for q in queries {
                for a in q.answered where a.delayMs > slowSharedAnswerMs {
                    slow.append((a.delayMs, q.frame, a.frame, a.deviceID))
                }
            }
            if !slow.isEmpty {
                let worst = slow.sorted { $0.delay > $1.delay }
                let devices = Array(Set(slow.map(\.device))).sorted()
                f.append(
                    Finding(
                        code: .slowResponse, severity: .warning,
                        title: "Slow answers to \(address): up to \(ms(worst[0].delay)) ms",
                        detail: "\(slow.count) answer\(slow.count == 1 ? "" : "s") from "
                            + "\(list(devices.map { byID[$0]?.friendlyName ?? $0 })) came more than "
                            + "\(Int(slowSharedAnswerMs)) ms after the query; RFC 6762 §6 has responders send shared "
                            + "answers within 20–120 ms (400–500 ms after a truncated query). Senders with short "
                            + "timeouts give up or show the device late.",
                        advice: "Check the device's load and firmware, Wi-Fi power saving (DTIM) on the access "
                            + "point, and any mDNS proxy or reflector that delays packets.",
                        frames: worst.flatMap { [$0.query, $0.answer] },
                        subjects: FindingSubjects(clients: [address], devices: devices)))
            }
            let storm = c.intervalsMs.filter { i in
                i < fastIntervalMs && !Self.isRefreshInterval(i, ttls: refreshTTLs)
            }
            if storm.count >= stormIntervals {
                f.append(
                    Finding(
                        code: .queryStorm, severity: .warning,
                        title: "\(address) queries faster than RFC 6762 allows",
                        detail: "\(storm.count) of its query intervals were shorter than "
                            + "\(Int(fastIntervalMs)) ms; RFC 6762 §5.2 wants at least 1 s between the first two "
                            + "queries and doubling after that. Fast repeats load every device on the network and "
                            + "can trip multicast rate limits on access points.",
                        advice: "Fix the sender's discovery loop (start discovery once; let the mDNS stack "
                            + "schedule the queries).",
                        frames: queryFrames, subjects: subject))
            }
            if c.legacyUnicast {
                f.append(
                    Finding(
                        code: .legacyUnicast, severity: .info,
                        title: "\(address) sends legacy unicast queries (not from port 5353)",
                        detail: "Its queries come from an ephemeral port, so devices answer with unicast, TTLs of at "
                            + "most 10 s and no continuous monitoring (RFC 6762 §6.7). That is how one-shot tools "
                            + "like dig work; a Cast sender should use a full mDNS stack.",
                        advice: "Fine for a one-off check; for an app, use the platform's mDNS API (NSD, "
                            + "NWBrowser, Avahi, Bonjour) instead of a hand-made DNS socket.",
                        frames: c.firstLegacyFrame.map { [$0] } ?? [], subjects: subject))
            }
        }
        return f
    }

    // MARK: Devices

    static func deviceFindings(_ r: AnalysisReport) -> [Finding] {
        var f: [Finding] = []
        let end = r.captures.compactMap(\.end).max()
        // The queries each device missed, built once (not devices × queries × missed lists).
        var missedBy: [String: [QueryOutcome]] = [:]
        for q in r.queries { for id in q.missed { missedBy[id, default: []].append(q) } }
        for d in r.devices where d.via.contains("mdns") {
            let name = d.friendlyName ?? d.id
            let subject = FindingSubjects(devices: [d.id])
            if !d.txt.isEmpty {
                var missing: [String] = []
                if !d.txt.contains(where: { $0.key.lowercased() == "id" && !$0.value.isEmpty }) { missing.append("id") }
                if !d.txt.contains(where: { $0.key.lowercased() == "fn" && !$0.value.isEmpty }) { missing.append("fn") }
                if !missing.isEmpty || d.port == 0 {
                    let what = (missing.map { "TXT key `\($0)`" } + (d.port == 0 ? ["a non-zero SRV port"] : []))
                    f.append(
                        Finding(
                            code: .txtMissingRequired, severity: .error,
                            title: "\(name) lacks \(what.joined(separator: " and ")): senders ignore it",
                            detail: "Chrome and the Cast SDKs drop a receiver whose TXT record has no `id` or no "
                                + "`fn`, or whose SRV port is 0. \(d.instance ?? d.id) announced "
                                + d.txt.map { "\($0.key)=\($0.value)" }.prefix(12).joined(separator: " ") + ".",
                            advice: "This is the receiver's firmware (or a third-party Cast implementation) publishing "
                                + "an incomplete record: update it, or fix its mDNS service definition.",
                            frames: [d.firstFrame], subjects: subject))
                }
            }
            if !d.addresses.isEmpty,
                !d.addresses.contains(where: { if case .v4 = $0 { return true } else { return false } })
            {
                f.append(
                    Finding(
                        code: .noIPv4Address, severity: .warning,
                        title: "\(name) resolves only to IPv6",
                        detail:
                            "Its host \(d.host ?? "?") has only AAAA records (\(list(d.addresses.map(\.description)))). "
                            + "Senders that browse or connect over IPv4 only (go-chromecast, some apps) cannot reach it.",
                        advice: "Check the device's IPv4 configuration (DHCP) and that IPv4 mDNS is not filtered; "
                            + "make sure the sender supports IPv6.",
                        frames: d.addressFrames.map(\.frame) + [d.firstFrame], subjects: subject))
            }
            if let left = d.leftAt {
                f.append(
                    Finding(
                        code: .deviceLeft, severity: .info, title: "\(name) said goodbye",
                        detail: "It sent its records with TTL 0 at \(clock(left)) (it was switched off, left the "
                            + "network, or its Cast service restarted) and did not announce again in the capture.",
                        advice: "If this was not expected, check the device's power and network; a group leaving "
                            + "usually means its leader changed.",
                        frames: d.leftFrame.map { [$0] } ?? [], subjects: subject))
            } else if let end, let ttl = shortestTTL(d), Double(end.nanoseconds(since: d.lastSeen)) / 1e9 > Double(ttl)
            {
                let unanswered = (missedBy[d.id] ?? []).filter { $0.time > d.lastSeen }
                if !unanswered.isEmpty {
                    f.append(
                        Finding(
                            code: .deviceExpired, severity: .warning,
                            title: "\(name) went silent: its records expired without a goodbye",
                            detail: "Last heard at \(clock(d.lastSeen)); its shortest TTL is \(ttl) s, the capture "
                                + "went on \(Int(Double(end.nanoseconds(since: d.lastSeen)) / 1e9)) s longer, and "
                                + "\(unanswered.count) quer\(unanswered.count == 1 ? "y" : "ies") after that got no "
                                + "answer from it. Caches drop it now. Typical causes: IGMP snooping ages out the "
                                + "device's multicast membership, or it lost power or network.",
                            advice: "If the device still works when addressed directly (TCP 8009), look at IGMP "
                                + "snooping / multicast querier settings on the switch or access point.",
                            frames: [d.lastFrame] + unanswered.map(\.frame), subjects: subject))
                }
            }
            let v4 = d.addressFrames.filter { if case .v4 = $0.address { return true } else { return false } }
            if v4.count > 1 {
                f.append(
                    Finding(
                        code: .addressChanged, severity: .warning,
                        title: "\(name) changed its IPv4 address during the capture",
                        detail: "Its host \(d.host ?? "?") was announced with \(list(v4.map(\.address.description))) "
                            + "in turn. Senders that cached the old address fail until they resolve again.",
                        advice: "Give the device a DHCP reservation; look for two DHCP servers or a device "
                            + "moving between access points/VLANs.",
                        frames: v4.map(\.frame), subjects: subject))
            }
        }
        // Duplicate names and identities.
        var byName: [String: [Device]] = [:]
        for d in r.devices where d.via.contains("mdns") {
            if let fn = d.friendlyName, !fn.isEmpty { byName[fn.lowercased(), default: []].append(d) }
        }
        for (_, same) in byName.sorted(by: { $0.key < $1.key }) where same.count > 1 {
            f.append(
                Finding(
                    code: .duplicateName, severity: .warning,
                    title: "\(same.count) devices are called \"\(same[0].friendlyName!)\"",
                    detail: "Devices \(list(same.map(\.id))) share the friendly name; users cannot tell them apart in "
                        + "the Cast menu and may cast to the wrong one.",
                    advice: "Rename one of them in the Google Home app.",
                    frames: same.map(\.firstFrame), subjects: FindingSubjects(devices: same.map(\.id))))
        }
        for d in r.devices where d.instances.count > 1 || d.instances.contains(where: hasConflictSuffix) {
            f.append(
                Finding(
                    code: .duplicateName, severity: .warning,
                    title: "\(d.friendlyName ?? d.id) appears under more than one instance name",
                    detail: "One id, instances \(list(d.instances)): an mDNS name conflict was resolved by renaming, "
                        + "or a group's leadership moves between hosts, so senders see the device flap.",
                    advice: "Look for two devices (or a reflector) answering for the same name; for groups, check the "
                        + "members' network stability.",
                    frames: [d.firstFrame, d.lastFrame], subjects: FindingSubjects(devices: [d.id])))
        }
        return f
    }

    static func hasConflictSuffix(_ instance: String) -> Bool {
        // Cast: "<model>-<32 hex>-1"; avahi style: "name #2" / "name (2)".
        let parts = instance.split(separator: "-")
        if parts.count >= 3, let last = parts.last, Int(last) != nil,
            parts[parts.count - 2].count == 32, parts[parts.count - 2].allSatisfy(\.isHexDigit)
        {
            return true
        }
        if let hash = instance.lastIndex(of: "#"), Int(instance[instance.index(after: hash)...]) != nil { return true }
        return instance.hasSuffix(")") && instance.contains(" (")
            && Int(
                instance[
                    instance.index(after: instance.lastIndex(of: "(")!)..<instance.index(before: instance.endIndex)])
                != nil
    }

    // MARK: The path between clients and devices

    static func pathFindings(_ r: AnalysisReport) -> [Finding] {
        var f: [Finding] = []
        var repeated: [(device: Device, copies: [(address: IPAddress, frame: FrameRef)])] = []
        for d in r.devices where d.via.contains("mdns") {
            let own = Set(d.addresses)
            let v4Sources = d.sourceFrames.filter { if case .v4 = $0.address { return true } else { return false } }
            let foreign = v4Sources.filter { !own.contains($0.address) }
            guard !own.isEmpty, !foreign.isEmpty else { continue }
            if v4Sources.contains(where: { own.contains($0.address) }) {
                // Heard from the device itself and again from another host: a repeater.
                repeated.append((d, foreign))
                continue
            }
            f.append(
                Finding(
                    code: .crossSubnet, severity: .warning,
                    title: "\(d.friendlyName ?? d.id)'s answers come from another host",
                    detail: "Its records arrived only from \(list(foreign.map(\.address.description))) while its "
                        + "address is \(list(d.addresses.map(\.description))): an mDNS reflector or gateway relays "
                        + "it from another subnet. Discovery can work, but the sender must then reach the device "
                        + "across a router (TCP 8009, and 8008 for DIAL).",
                    advice: "Make sure routing and firewalls allow the sender to reach the device's address; "
                        + "reflected discovery without routed reachability shows devices that cannot be cast to.",
                    frames: foreign.map(\.frame), subjects: FindingSubjects(devices: [d.id])))
        }
        if r.reflectedCount > 0 || !repeated.isEmpty {
            var detail: [String] = []
            if r.reflectedCount > 0 {
                detail.append(
                    "\(r.reflectedCount) multicast mDNS packet\(r.reflectedCount == 1 ? "" : "s") had IP TTL "
                        + "\(r.reflectedTTLs.map(String.init).joined(separator: ", ")) instead of 255 (RFC 6762 §11 "
                        + "requires 255 and receivers check it): they were re-sent by a reflector, repeater or "
                        + "router, or by a non-conforming stack.")
            }
            for (d, copies) in repeated {
                detail.append(
                    "\(d.friendlyName ?? d.id)'s records were heard from the device and again from "
                        + "\(list(copies.map(\.address.description))).")
            }
            f.append(
                Finding(
                    code: .reflectedTraffic, severity: .warning,
                    title: "An mDNS reflector or repeater is on the path",
                    detail: detail.joined(separator: " "),
                    advice: "Know which reflector is on the path (avahi enable-reflector, a Wi-Fi controller's mDNS "
                        + "gateway, mdns-repeater); duplicate or TTL≠255 packets can confuse caches and strict "
                        + "receivers may drop them.",
                    frames: r.reflectedFrames + repeated.flatMap { $0.copies.map(\.frame) },
                    subjects: FindingSubjects(devices: repeated.map(\.device.id))))
        }
        return f
    }

    // MARK: Helpers

    static func shortestTTL(_ d: Device) -> UInt32? {
        d.ttls.flatMap(\.values).filter { $0 > 0 }.min()
    }

    static func queryNames(_ queries: [QueryOutcome]) -> String {
        var names: [String] = []
        var seen: Set<String> = []
        for q in queries { for n in q.names where seen.insert(n).inserted { names.append(n) } }
        return capped(names)
    }

    /// `items` joined with commas, at most ``maximumListed`` of them, the rest counted.
    static func capped(_ items: [String]) -> String {
        guard items.count > maximumListed else { return items.joined(separator: ", ") }
        return items.prefix(maximumListed).joined(separator: ", ") + " and \(items.count - maximumListed) more"
    }

    /// The most names a finding's text lists (a flood of fake names must not make a finding
    /// megabytes long); the rest are counted.
    static let maximumListed = 12

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

    static func list(_ items: [String]) -> String {
        if items.count > maximumListed { return capped(items) }
        switch items.count {
        case 0: return "none"
        case 1: return items[0]
        case 2: return "\(items[0]) and \(items[1])"
        default: return items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }

    static func ms(_ v: Double) -> String { String(Int(v.rounded())) }

    /// `23:40:01.123` UTC.
    static func clock(_ t: Timestamp) -> String {
        let s = ((t.seconds % 86400) + 86400) % 86400
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millis = Int64(t.nanoseconds) / 1_000_000
        let m = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60)).\(m) UTC"
    }
}
