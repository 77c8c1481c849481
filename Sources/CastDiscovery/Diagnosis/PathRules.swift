// Rules about the path between clients and devices: reflectors, gateways, repeaters, routed
// copies, advertised addresses that are not where the device is, and relayed queries that
// devices ignore. Each claims a relay only on evidence in the capture (DevicePath).

import WireFormat

extension Diagnosis {
    /// CROSS_SUBNET, one per device: its records never came from the device itself, only
    /// relayed by an mDNS reflector or gateway (another host's address, or a router's TTL).
    static func crossSubnet(_ context: DiagnosisContext) -> [Finding] {
        context.paths.filter { !$0.heardDirectly && !$0.relayed.isEmpty }.map { p in
            let d = p.device
            return Finding(
                code: .crossSubnet, severity: .warning,
                title: "\(d.friendlyName ?? d.id)'s answers come from another host",
                detail: "Its records arrived only \(relayDescription(p.relayed)) while its address is "
                    + "\(list(d.addresses.map(\.description))): an mDNS reflector or gateway relays it from another "
                    + "subnet. Discovery can work, but the sender must then reach the device across a router "
                    + "(TCP 8009, and 8008 for DIAL).",
                advice: "Make sure routing and firewalls allow the sender to reach the device's address; "
                    + "reflected discovery without routed reachability shows devices that cannot be cast to.",
                frames: p.relayed.map(\.sender.frame), subjects: FindingSubjects(devices: [d.id]))
        }
    }

    /// REFLECTED_TRAFFIC: Cast packets a router passed on (multicast with a decremented TTL),
    /// or devices heard directly and again from another host (a repeater). Senders' queries
    /// with TTL 1 and responders sending TTL 1 themselves are not evidence of either.
    static func reflectedTraffic(_ context: DiagnosisContext) -> Finding? {
        let r = context.report
        let repeated = context.paths.filter { $0.heardDirectly && !$0.relayed.isEmpty }
        guard r.reflectedCount > 0 || !repeated.isEmpty else { return nil }
        var detail: [String] = []
        if r.reflectedCount > 0 {
            detail.append(
                "\(Wording.count(r.reflectedCount, "multicast Cast mDNS packet")) arrived with IP TTL "
                    + "\(r.reflectedTTLs.map(String.init).joined(separator: ", ")), a few hops below the value "
                    + "they were sent with: a router passed them on, although 224.0.0.251 and ff02::fb must "
                    + "not leave the link (RFC 6762 §11).")
        }
        for p in repeated {
            let own = p.own.filter { p.device.addresses.contains($0.address) }
            detail.append(
                "\(p.device.friendlyName ?? p.device.id)'s records were heard from the device itself, "
                    + "\(list(own.map(senderText))), and again \(relayDescription(p.relayed)): another host "
                    + "re-sent them.")
        }
        return Finding(
            code: .reflectedTraffic, severity: .warning,
            title: "An mDNS reflector or repeater is on the path",
            detail: detail.joined(separator: " "),
            advice: "Know which reflector is on the path (avahi enable-reflector, a Wi-Fi controller's mDNS "
                + "gateway, mdns-repeater); duplicate copies confuse caches, and copies with an IP TTL other "
                + "than 255 are dropped by receivers that check it (avahi with check-response-ttl=yes).",
            frames: r.reflectedFrames + repeated.flatMap { $0.relayed.map(\.sender.frame) },
            subjects: FindingSubjects(devices: repeated.map(\.device.id)))
    }

    /// ADVERTISED_ADDRESS_UNREACHABLE, one per device: its own answers give an IPv4 address
    /// that is not where it sends from (a Docker bridge, link-local, public, another private
    /// network). An error when it gives no other IPv4 address: senders cannot connect.
    static func advertisedAddressUnreachable(_ context: DiagnosisContext) -> [Finding] {
        context.paths.filter { !$0.misplaced.isEmpty }.map { p in
            let d = p.device
            let name = d.friendlyName ?? d.id
            let sources = p.own.filter(\.address.isV4)
            let reasons = p.misplaced.map { "\($0.address) (\(misplacementText($0.reason)))" }
            let usable = d.addresses.filter { a in a.isV4 && !p.misplaced.contains { $0.address == a } }
            let consequence =
                p.noUsableIPv4
                ? "It gives no other IPv4 address, so senders (Chrome and the Cast SDKs connect to the A "
                    + "record, TCP 8009) cannot connect and do not list it."
                : "It also gives \(list(usable.map(\.description))); a sender that picks the wrong one "
                    + "fails to connect."
            let advice =
                "Make the receiver advertise the address of the interface senders are on: a receiver in a "
                + "Docker container needs host networking (`--network host`); limit the mDNS stack to the LAN "
                + "interface (avahi `allow-interfaces=`, python-zeroconf `interfaces=[…]`); a 169.254 address "
                + "means the interface got no DHCP lease."
                + (p.misplaced.contains { $0.reason == .publicAddress }
                    ? " Chrome refuses Cast devices at publicly routable addresses unless the "
                        + "MediaRouterCastAllowAllIPs policy is set." : "")
            return Finding(
                code: .advertisedAddressUnreachable, severity: p.noUsableIPv4 ? .error : .warning,
                title: "\(name) advertises an address it is not at",
                detail: "Its own answers, from \(list(sources.map(senderText))), give its address as "
                    + "\(list(reasons)), which is not where they come from. \(consequence)",
                advice: advice,
                frames: (sources.map(\.frame)
                    + d.addressFrames.filter { a in p.misplaced.contains { $0.address == a.address } }.map(\.frame)),
                subjects: FindingSubjects(devices: [d.id]))
        }
    }

    /// RELAYED_QUERIES_IGNORED, one per client: its queries reach the link through another
    /// host's interface (its link source also sends other IPv4 hosts' packets), keeping its
    /// off-subnet source address; devices that answer on-link queriers ignore them (RFC 6762
    /// §11: responders check that the source is on the link).
    static func relayedQueriesIgnored(_ context: DiagnosisContext) -> [Finding] {
        context.report.clients.compactMap { c -> Finding? in
            guard let e = relayedQueries(of: c, context) else { return nil }
            let queries = context.queriesByClient[c.address] ?? []
            return Finding(
                code: .relayedQueriesIgnored, severity: .error,
                title: "\(c.address)'s queries are relayed from another subnet and ignored",
                detail: "Its \(Wording.count(queries.count, "query", "queries")) reach this link from "
                    + "\(e.mac), which also sends as \(list(e.others.map(\.description))): a reflector or router "
                    + "forwards them with their original, off-link source address. "
                    + "\(list(e.ignoring.map(context.name))) answered queriers on the link but never these: devices "
                    + "ignore queries from sources that are not on their link (RFC 6762 §11).",
                advice: "Use an mDNS gateway that re-sends queries from its own address on the device's "
                    + "subnet (avahi enable-reflector, a controller's mDNS gateway) instead of one that forwards "
                    + "packets unchanged, or put the sender on the devices' subnet.",
                frames: queries.map(\.frame), subjects: FindingSubjects(clients: [c.address.description]))
        }
    }

    /// The evidence that client `c`'s queries were relayed from another subnet and ignored:
    /// the link source they came from, the other IPv4 hosts it also sends as, and the devices
    /// (sorted ids) that missed them while answering other clients. `nil` without it.
    static func relayedQueries(
        of c: Client, _ context: DiagnosisContext
    ) -> (mac: MACAddress, others: [IPAddress], ignoring: [String])? {
        let r = context.report
        guard c.address.isV4, c.queries > 0, let mac = c.mac, let shared = r.linkSources[mac], shared.count > 1
        else { return nil }
        // A device's own link source is not a relay.
        guard !context.paths.contains(where: { p in p.own.contains { $0.mac == mac } }) else { return nil }
        let queries = context.queriesByClient[c.address] ?? []
        guard !queries.contains(where: { !$0.answered.isEmpty || !$0.suppressed.isEmpty }) else { return nil }
        // Devices that were expected to answer it and answered someone else.
        let ignoring = Set(queries.flatMap(\.missed)).filter { id in
            context.clientsAnswered.contains { other in
                other != c.address
                    && (context.queriesByClient[other] ?? []).contains { q in q.answered.contains { $0.deviceID == id }
                    }
            }
        }
        guard !ignoring.isEmpty else { return nil }
        return (mac, shared.filter { $0 != c.address }, ignoring.sorted())
    }

    /// `from 192.0.2.40 (MAC …, IP TTL 1)`, for each relayed copy, with its evidence.
    static func relayDescription(_ relayed: [(sender: RecordSender, evidence: DevicePath.RelayEvidence)]) -> String {
        "from " + list(relayed.map { senderText($0.sender) })
    }

    /// `192.0.2.21 (MAC 02:…, IP TTL 255)`.
    static func senderText(_ s: RecordSender) -> String {
        "\(s.address) (\(s.mac.map { "MAC \($0), " } ?? "")IP TTL \(s.ipTTL))"
    }

    static func misplacementText(_ m: DevicePath.Misplacement) -> String {
        switch m {
        case .dockerBridge: return "a Docker bridge range, 172.16.0.0/12; docker0 is 172.17.0.0/16"
        case .linkLocal: return "link-local 169.254.0.0/16: an interface without a DHCP lease"
        case .publicAddress: return "a publicly routable address"
        case .special: return "a loopback or reserved address"
        case .otherNetwork: return "another private network than the one it sends from: a second interface or a VPN"
        }
    }
}
