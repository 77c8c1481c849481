import WireFormat

// Rules about the network between a client and the devices: VLANs that keep them apart, and
// multicast that stops reaching a client while unicast still does.
extension Diagnosis {
    /// The least number of unanswered multicast (QM) queries that make MULTICAST_DECAYED.
    static let decayedQueries = 3
    /// The least time from the first to the last of them, in seconds: a burst of loss is not
    /// a decay.
    static let decayedSpanSeconds = 10.0

    /// VLAN_SEPARATED, one per client: on a trunk capture (802.1Q tags) the client's Cast
    /// queries carry one VLAN and Cast devices were heard only on others, so nothing crossed.
    static func vlanSeparated(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, !c.client.vlans.isEmpty else { return [] }
        let separated = vlanSeparatedDevices(context, c.client)
        guard !separated.isEmpty else { return [] }
        let ids = Set(separated.map(\.id))
        // What the tracker counted as reaching the client is on its VLAN; defensive all the same.
        let answeredByThem = c.queries.contains { q in q.answered.contains { ids.contains($0.deviceID) } }
        guard !answeredByThem else { return [] }
        let clientVLANs = vlanList(c.client.vlans)
        let devices = separated.map { d in
            "\(d.friendlyName ?? d.id) at \(addressList(d.addresses.isEmpty ? d.sources : d.addresses))"
        }
        let otherVLANs = Array(Set(separated.flatMap(\.vlans))).sorted()
        let foundOthers = c.answered
        let sent = Wording.count(c.client.queries, "Cast query", "Cast queries")
        return [
            Finding(
                code: .vlanSeparated, severity: foundOthers ? .warning : .error,
                title: "\(c.address) on \(clientVLANs) cannot discover Cast devices on \(vlanList(otherVLANs))",
                detail: "On this trunk capture \(addressList([c.client.address])) sent \(sent) on "
                    + "\(clientVLANs), while \(list(devices)) \(separated.count == 1 ? "was" : "were") heard only "
                    + "on \(vlanList(otherVLANs)). Nothing "
                    + "crossed: no query of the client appeared on their VLAN, and none of their records on the "
                    + "client's. mDNS is link-local (224.0.0.251 / ff02::fb, RFC 6762), so a router does not "
                    + "forward it between VLANs"
                    + (foundOthers ? "; the client found only the devices on its own VLAN." : "."),
                advice: "Put the sender and the device in one VLAN, or run an mDNS gateway between "
                    + "\(clientVLANs) and \(vlanList(otherVLANs)): avahi-daemon with `enable-reflector=yes` on a "
                    + "host in both, or the Wi-Fi controller's or router's mDNS gateway (Bonjour gateway) for "
                    + "_googlecast._tcp. Routing and the firewall between the VLANs must then let the sender "
                    + "reach the device on TCP 8009.",
                frames: c.queryFrames + separated.map(\.firstFrame),
                subjects: FindingSubjects(clients: [c.address], devices: separated.map(\.id)))
        ]
    }

    /// The mDNS devices that a client on a trunk capture could not hear: heard only on VLANs
    /// none of the client's packets carried. Empty when the client's packets carried no tag.
    static func vlanSeparatedDevices(_ context: DiagnosisContext, _ client: Client) -> [Device] {
        guard !client.vlans.isEmpty else { return [] }
        let own = Set(client.vlans)
        return context.mdnsDevices.filter { !$0.vlans.isEmpty && own.isDisjoint(with: $0.vlans) }
    }

    /// MULTICAST_DECAYED, one per client and device: the device answered the client's
    /// multicast queries at first; after its last multicast packet, every multicast (QM) query
    /// expecting it to the end of the capture went unanswered (at least ``decayedQueries`` over
    /// ``decayedSpanSeconds``; queries listing it as a known answer at half its TTL or more are
    /// rightly unanswered and not counted), while its unicast answers still reached the client.
    static func multicastDecayed(_ context: DiagnosisContext, _ c: ClientContext) -> [Finding] {
        guard c.queried, c.answered else { return [] }
        var findings: [Finding] = []
        for device in context.mdnsDevices {
            guard let decay = multicastDecay(of: device, in: c.queries) else { continue }
            let name = device.friendlyName ?? device.id
            let span = Double(decay.missed.last!.time.nanoseconds(since: decay.missed[0].time)) / 1e9
            let isIPv6: Bool
            if case .v6 = c.client.address { isIPv6 = true } else { isIPv6 = false }
            let cause =
                isIPv6
                ? "On IPv6 this is MLD snooping of ff02::fb ageing out: with no MLD querier on the link, "
                    + "switches (the Linux bridge included) stop forwarding the group to ports whose "
                    + "reports are not refreshed."
                : "On IPv4 a switch that follows RFC 4541 floods 224.0.0.251 whatever IGMP snooping says "
                    + "(the Linux bridge does), so suspect a Wi-Fi access point or mesh node that does not: "
                    + "multicast-to-unicast conversion (\"multicast enhancement\") or a snooping table that "
                    + "forgot the client."
            let advice =
                isIPv6
                ? "Enable an MLD querier on the link (switch or router; on a Linux bridge "
                    + "`multicast_querier 1`), or turn MLD snooping off; a capture on the device's side shows "
                    + "whether its answers still leave it."
                : "On the access point or mesh node turn off multicast-to-unicast / \"multicast "
                    + "enhancement\" and IGMP snooping for the Wi-Fi (or give the network an IGMP querier), "
                    + "and update its firmware. Senders that ask with QU (iOS, Android) still find the "
                    + "device on their first query; Chrome and other QM senders lose it."
            let queries = Wording.count(decay.missed.count, "multicast (QM) query", "multicast (QM) queries")
            findings.append(
                Finding(
                    code: .multicastDecayed, severity: .error,
                    title: "Multicast from \(name) stopped reaching \(c.address); unicast still does",
                    detail: "\(name) answered \(c.address)'s queries by multicast at first "
                        + "(\(Wording.times(decay.multicastAnswers))); its last multicast packet arrived at "
                        + "\(clock(decay.lastMulticast)). After that \(queries) over "
                        + "\(Wording.decimal(span, places: 0)) s, to the end of the capture, got no answer (queries "
                        + "that listed it as a known answer are not counted), while "
                        + "\(Wording.count(decay.unicastAnswers.count, "unicast answer")) from it still arrived. "
                        + "The device is up and receives the queries; its multicast answers and announcements "
                        + "no longer reach the client. \(cause)",
                    advice: advice,
                    frames: [decay.lastMulticastFrame] + decay.missed.map(\.frame) + decay.unicastAnswers,
                    subjects: FindingSubjects(clients: [c.address], devices: [device.id])))
        }
        return findings
    }

    /// Whether multicast from `device` decayed for some client (MULTICAST_DECAYED fires).
    static func multicastDecayed(_ device: Device, _ context: DiagnosisContext) -> Bool {
        context.report.clients.contains { c in
            multicastDecay(of: device, in: context.queriesByClient[c.address] ?? []) != nil
        }
    }

    /// How multicast from one device decayed for one client.
    struct MulticastDecay {
        /// The client's queries the device answered by multicast (all before the decay).
        var multicastAnswers: Int
        /// The last multicast packet that carried the device's records.
        var lastMulticast: Timestamp
        var lastMulticastFrame: FrameRef
        /// The multicast queries left unanswered after it.
        var missed: [QueryOutcome]
        /// The frames of the unicast answers after it.
        var unicastAnswers: [FrameRef]
    }

    /// The decay of `device`'s multicast answers in `queries` (one client's, in order), or
    /// `nil` when they do not show one.
    static func multicastDecay(of device: Device, in queries: [QueryOutcome]) -> MulticastDecay? {
        guard let last = device.lastMulticast, let lastFrame = device.lastMulticastFrame else { return nil }
        var multicastAnswers = 0
        var missed: [QueryOutcome] = []
        var unicast: [FrameRef] = []
        for q in queries {
            if let a = q.answered.first(where: { $0.deviceID == device.id }) {
                if !a.unicast {
                    multicastAnswers += 1
                } else if q.time > last {
                    unicast.append(a.frame)
                }
            } else if q.time > last, !q.unicastResponse, q.missed.contains(device.id) {
                missed.append(q)
            }
        }
        guard multicastAnswers > 0, missed.count >= decayedQueries, !unicast.isEmpty,
            Double(missed.last!.time.nanoseconds(since: missed[0].time)) / 1e9 >= decayedSpanSeconds
        else { return nil }
        return MulticastDecay(
            multicastAnswers: multicastAnswers, lastMulticast: last, lastMulticastFrame: lastFrame, missed: missed,
            unicastAnswers: unicast)
    }

    /// `VLAN 10` or `VLANs 10 and 20`.
    static func vlanList(_ vlans: [Int]) -> String {
        (vlans.count == 1 ? "VLAN " : "VLANs ") + Wording.cappedList(vlans.map(String.init), maximum: 8, ifEmpty: "-")
    }

    /// Addresses with the /24 of each IPv4 one (`198.51.100.21 (subnet 198.51.100.x)`): the
    /// subnet a capture shows, whose real prefix length it does not carry.
    static func addressList(_ addresses: [IPAddress]) -> String {
        list(
            addresses.map { a in
                guard case .v4 = a else { return a.description }
                let octets = a.description.split(separator: ".")
                return "\(a) (subnet \(octets.prefix(3).joined(separator: ".")).x)"
            })
    }
}
