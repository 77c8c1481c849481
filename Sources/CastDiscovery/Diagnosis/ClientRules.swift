// Rules about each client: did its search get answers, fast enough, in a sane rhythm.

import WireFormat

extension Diagnosis {
    /// QUERIES_UNANSWERED when no Cast device was heard at all, CLIENT_NOT_ANSWERED when some
    /// were: none of the client's queries was answered.
    static func notAnswered(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, !c.answered else { return [] }
        if let end = queriedAtCaptureEnd(context, c) { return [end] }
        let devices = context.mdnsDevices
        // On a trunk capture with every device on another VLAN, VLAN_SEPARATED says why.
        if !devices.isEmpty, vlanSeparatedDevices(context, c.client).count == devices.count { return [] }
        let queries = c.queryCount
        if devices.isEmpty {
            return [
                Finding(
                    code: .queriesUnanswered, severity: .error,
                    title: "\(c.address) asked for Cast devices \(Wording.times(queries)) and got no answer",
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
        // Queries relayed with an off-subnet source are ignored by design: RELAYED_QUERIES_IGNORED.
        guard relayedQueries(of: c.client, context) == nil else { return [] }
        // Asking on the wrong interface has its own finding (SENDER_WRONG_INTERFACE).
        if offSubnet(context, c) != nil { return [] }
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

    /// SENDER_WRONG_INTERFACE: none of the client's queries was answered, they come from an
    /// IPv4 subnet (/24) that no Cast device's address or packets are in, and devices were heard
    /// on another (DOMAIN.md §7.2 #2, §4 #6, #8, #9): the sender asks on a VPN, Docker or
    /// tethering interface. About the sender's own address, unlike CROSS_SUBNET (the devices'
    /// records arriving through a gateway); a reflector that answers the sender makes it
    /// answered, so it never fires there.
    static func senderWrongInterface(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard let (own, devices) = offSubnet(context, c) else { return [] }
        let deviceSubnets = Array(Set(devices.flatMap { d in Self.ipv4(of: d).map(Self.subnet24) })).sorted()
        let kind = Self.virtualInterface(own).map { "\(Self.subnet24(own)) looks like \($0). " } ?? ""
        let names = list(devices.map { context.name(of: $0.id) })
        let verb = devices.count == 1 ? "is" : "are"
        let queries = Wording.count(c.client.queries, "Cast query", "Cast queries")
        let detail =
            "\(c.address) sent \(queries) and none was answered, while \(names) \(verb) on "
            + "\(list(deviceSubnets)). \(kind)mDNS is link-local: queries sent on another interface (a VPN, a "
            + "Docker bridge, USB or Wi-Fi tethering, a second network card) never reach the devices."
        return [
            Finding(
                code: .senderWrongInterface, severity: .error,
                title: "\(c.address) asks for Cast devices from \(Self.subnet24(own)), where no device is",
                detail: detail,
                advice: "Send discovery on the interface of the devices' LAN: disconnect the VPN or allow "
                    + "local network access in its settings; run the sender in Docker with host networking; "
                    + "in libraries, choose the interface (go-chromecast --iface, zeroconf interfaces=[…]); on "
                    + "Android, capture in root mode rather than through PCAPdroid's VPN.",
                frames: c.queryFrames + devices.map(\.firstFrame),
                subjects: FindingSubjects(clients: [c.address], devices: devices.map(\.id)))
        ]
    }

    /// The client's IPv4 address and the devices heard, when the client's queries went
    /// unanswered from a /24 that holds no device address or device packet source.
    static func offSubnet(_ context: DiagnosisContext, _ c: ClientContext) -> (IPv4Address, [Device])? {
        guard c.queried, !c.answered, case .v4(let own) = c.client.address else { return nil }
        // On a trunk capture the tags say where each host is: VLAN_SEPARATED, or (a gateway
        // between the VLANs) CLIENT_NOT_ANSWERED, tell it better than the /24 guess.
        guard c.client.vlans.isEmpty else { return nil }
        let devices = context.mdnsDevices.filter { !Self.ipv4(of: $0).isEmpty }
        guard !devices.isEmpty else { return nil }
        let ownSubnet = own.rawValue >> 8
        guard !devices.contains(where: { d in Self.ipv4(of: d).contains { $0.rawValue >> 8 == ownSubnet } })
        else { return nil }
        return (own, devices)
    }

    /// A device's IPv4 addresses: its A records and the sources of its packets.
    static func ipv4(of d: Device) -> [IPv4Address] {
        (d.addresses + d.sources).compactMap { a in
            if case .v4(let v) = a { return v }
            return nil
        }
    }

    /// `192.0.2.0/24`.
    static func subnet24(_ a: IPv4Address) -> String {
        IPv4Address(rawValue: a.rawValue & 0xFFFF_FF00).description + "/24"
    }

    /// What a well-known virtual-interface range is, if `a` is in one.
    static func virtualInterface(_ a: IPv4Address) -> String? {
        let v = a.rawValue
        if v >> 8 == 0x0AD7_AD { return "PCAPdroid's VPN (10.215.173.0/24)" }
        if v >> 16 == 0xAC11 { return "Docker's default bridge (172.17.0.0/16)" }
        if v & 0xFFC0_0000 == 0x6440_0000 { return "a carrier-grade NAT or Tailscale address (100.64.0.0/10)" }
        if v >> 16 == 0xA9FE { return "a link-local address (169.254.0.0/16): no DHCP on that interface" }
        return nil
    }

    /// APP_ID_UNANSWERED: the base type was answered, an app-ID subtype the client asked for
    /// never.
    static func appIDUnanswered(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, c.answered, c.client.serviceTypeAnswered else { return [] }
        let answeredApps = Set(c.client.appIDsAnswered.map { $0.lowercased() })
        let missing = c.client.appIDsQueried.filter { !answeredApps.contains($0.lowercased()) }
        guard !missing.isEmpty else { return [] }
        let missingApps = Set(missing.map { $0.lowercased() })
        // The queries that asked for a missing app ID, up to the frames a finding keeps. A
        // client repeats the same few names in every query: each name is tested once.
        var asksMissing: [String: Bool] = [:]
        var subtypeFrames: [FrameRef] = []
        for q in c.queries where subtypeFrames.count < Finding.maximumFrames {
            let asks = q.names.contains { n in
                if let known = asksMissing[n] { return known }
                // `_<APPID>._sub.…`: the app ID is the first label without its underscore.
                let lower = n.lowercased()
                let label = lower.prefix { $0 != "." }
                let asks =
                    label.hasPrefix("_") && lower.dropFirst(label.count).hasPrefix("._sub.")
                    && missingApps.contains(String(label.dropFirst()))
                asksMissing[n] = asks
                return asks
            }
            if asks { subtypeFrames.append(q.frame) }
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
                frames: subtypeFrames, subjects: FindingSubjects(clients: [c.address], appIDs: missing))
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

    /// LOCAL_NAME_OVER_DNS: after its first Cast query, the client asked a unicast DNS server
    /// (port 53) for a `.local` name, typically the SRV target `<uuid>.local` it just got over
    /// mDNS (DOMAIN.md §7.2 #11). Only mDNS answers `.local` (RFC 6762 §3), so the server says
    /// NXDOMAIN or gives an unrelated address, and the sender cannot connect.
    static func localNameOverDNS(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, let first = c.client.firstQuery else { return [] }
        let asked = c.client.localNamesOverDNS.filter { $0.time >= first }
        guard let q = asked.first else { return [] }
        let ofDevice = context.mdnsDevices.first { $0.host.map(Self.bareName) == Self.bareName(q.name) }
        let names = Array(Set(asked.map(\.name))).sorted()
        let servers = Array(Set(asked.map(\.server.description))).sorted()
        let answers = asked.compactMap { a in a.answer.map { "\(a.type) \(a.name): \($0)" } }
        let hostNote =
            ofDevice.map { " — the SRV target of \(context.name(of: $0.id)), which mDNS had already resolved" } ?? ""
        return [
            Finding(
                code: .localNameOverDNS, severity: .warning,
                title: "\(c.address) asked its DNS server for \(q.name)",
                detail:
                    "After its mDNS search, \(c.address) sent \(Wording.count(asked.count, "unicast DNS query", "unicast DNS queries")) "
                    + "(UDP port 53) to \(list(servers)) for \(list(names))\(hostNote). Only mDNS answers "
                    + "names under .local (RFC 6762 §3): a DNS server replies NXDOMAIN or an unrelated address, "
                    + "so the sender finds the device but cannot connect to it. "
                    + (answers.isEmpty ? "No answer was captured." : "The server said: \(capped(answers))."),
                advice: "Make the sender resolve .local names with mDNS, or connect to the address from the "
                    + "device's mDNS A record: on Linux install nss-mdns and put `mdns4_minimal [NOTFOUND=return]` "
                    + "before `dns` on the hosts line of /etc/nsswitch.conf (in Docker, that is the container's "
                    + "resolver: use host networking and avahi); in Node.js apps (chromecasts, castv2-client) use "
                    + "the A record's address instead of looking the host name up with dns.lookup.",
                frames: asked.flatMap { [$0.frame] + ($0.answerFrame.map { [$0] } ?? []) },
                subjects: FindingSubjects(clients: [c.address], devices: ofDevice.map { [$0.id] } ?? []))
        ]
    }

    /// A DNS name as text without its final dot, lower case.
    static func bareName(_ name: String) -> String {
        (name.hasSuffix(".") ? String(name.dropLast()) : name).lowercased()
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
