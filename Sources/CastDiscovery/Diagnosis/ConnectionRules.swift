// Rules about the connection phase (issue 15; DOMAIN.md §7.2 #1, #8, #12): a device the client
// found, and then could not connect to. Chrome lists a device only after its Cast channel
// opens, so in Chrome these look exactly like "not found"; the verdict says "found, but could
// not connect" instead.

import WireFormat

extension Diagnosis {
    /// The codes of the connection phase: a capture whose only errors are these found its
    /// devices, and could not use them.
    static let connectionCodes: Set<FindingCode> = [
        .connectRefused, .connectTimeout, .connectUnreachable, .tlsStalled,
    ]

    /// What the sender knew before it tried: `It had resolved the device 11 ms before.`
    static func discoveryText(_ c: Connection) -> String {
        guard let ms = c.fromDiscoveryMs else {
            return "The capture does not show this client resolving the device first (it may have used its cache)."
        }
        return "The first SYN went out \(Wording.duration(milliseconds: ms)) after the client had resolved the device."
    }

    /// An error when the client reached the device in no other way (no other connection to it
    /// was established); a warning when another address or port worked, or when only a setup
    /// port (8008, 8443) failed while the Cast port was not tried.
    static func connectionSeverity(_ context: DiagnosisContext, _ c: Connection) -> Severity {
        let others = context.report.connections.filter {
            $0.client == c.client && $0.deviceID == c.deviceID && $0.timeline == c.timeline
        }
        if others.contains(where: { $0.outcome == .established && !$0.tlsStalled }) { return .warning }
        let castPort = context.devicesByID[c.deviceID]?.port ?? 8009
        return c.port == castPort || c.port == 8009 ? .error : .warning
    }

    static let connectionAdvice =
        "Check, from the sender's subnet, that the advertised address is the device's (a stale lease, a "
        + "Docker or VPN address in its A record, an address another host now has) and that TCP to the port "
        + "passes every firewall between the two: a gateway or reflector that passes mDNS between VLANs does not "
        + "pass TCP 8009 by itself, and Cast groups use the leading member's port (32xxx/42xxx). Check that the "
        + "device is awake, and that the sender's own routes do not send the connection into a VPN."

    /// CONNECT_REFUSED: the device's address answered the SYN with RST.
    static func connectRefused(_ context: DiagnosisContext) -> [Finding] {
        context.report.connections.filter { $0.outcome == .refused }.map { c in
            let name = context.name(of: c.deviceID)
            let after = c.answer.flatMap { a in c.firstAttempt.map { Double(a.time.nanoseconds(since: $0.time)) / 1e6 }
            }
            return Finding(
                code: .connectRefused, severity: connectionSeverity(context, c),
                title: "\(c.client) found \(name), but its connection to \(c.endpoint) was refused",
                detail: "\(Wording.count(c.syns, "SYN")) from \(c.client) to \(c.endpoint) "
                    + "\(after.map { "answered with RST \(Wording.duration(milliseconds: $0)) later" } ?? "answered with RST"). "
                    + "Nothing listens on that port at that address, or a firewall on the way rejects the "
                    + "connection with RST. \(discoveryText(c)) A Cast sender cannot open its channel: Chrome does "
                    + "not list the device at all, apps show it and fail to cast.",
                advice: connectionAdvice,
                frames: c.synFrames.prefix(1) + [c.answer?.frame].compactMap { $0 },
                subjects: FindingSubjects(clients: [c.client.description], devices: [c.deviceID]))
        }
    }

    /// CONNECT_TIMEOUT: SYNs retransmitted (or unanswered for 3 s), and nothing came back.
    static func connectTimeout(_ context: DiagnosisContext) -> [Finding] {
        context.report.connections.filter { $0.outcome == .timeout }.map { c in
            let name = context.name(of: c.deviceID)
            return Finding(
                code: .connectTimeout, severity: connectionSeverity(context, c),
                title: "\(c.client) found \(name), but its connection to \(c.endpoint) timed out",
                detail: "\(Wording.count(c.syns, "SYN")) from \(c.client) to \(c.endpoint) "
                    + "(\(Wording.count(c.attempts, "attempt"))) got no SYN-ACK, no RST and no ICMP error in the "
                    + "capture. Something between the two drops TCP to that port (a firewall between subnets or "
                    + "VLANs, a VPN route), the advertised address is not where the device is, or the device is "
                    + "asleep. \(discoveryText(c))",
                advice: connectionAdvice,
                frames: c.synFrames, subjects: FindingSubjects(clients: [c.client.description], devices: [c.deviceID]))
        }
    }

    /// CONNECT_UNREACHABLE: an ICMP destination unreachable answered the SYN.
    static func connectUnreachable(_ context: DiagnosisContext) -> [Finding] {
        context.report.connections.filter { $0.outcome == .unreachable }.map { c in
            let name = context.name(of: c.deviceID)
            let reason = c.unreachableReason ?? "unreachable"
            return Finding(
                code: .connectUnreachable, severity: connectionSeverity(context, c),
                title: "\(c.client) found \(name), but \(c.endpoint) is unreachable (ICMP \(reason))",
                detail: "The SYN from \(c.client) to \(c.endpoint) was answered with ICMP destination unreachable, "
                    + "\(reason). A \(reason.contains("prohibited") ? "firewall's reject rule" : "router or the device's host") "
                    + "turned the connection away. \(discoveryText(c))",
                advice: reason.contains("host") || reason.contains("address")
                    ? "Nothing answers at the advertised address on that link: the device may have moved to another "
                        + "address (an old lease in its records), be asleep, or be on another subnet. "
                        + connectionAdvice
                    : "Find the firewall rule that rejects TCP to port \(c.port) (on a router between VLANs, or on "
                        + "the device's host) and allow it from the sender's subnet. " + connectionAdvice,
                frames: c.synFrames.prefix(1) + [c.answer?.frame].compactMap { $0 },
                subjects: FindingSubjects(clients: [c.client.description], devices: [c.deviceID]))
        }
    }

    /// TLS_STALLED: TCP was established and the client sent its ClientHello, but no ServerHello
    /// came back while the connection was open (it closed first, or the capture went on 3 s).
    static func tlsStalled(_ context: DiagnosisContext) -> [Finding] {
        let captures = context.report.captures
        let lastEnd = captures.compactMap(\.end).max()
        return context.report.connections.filter(\.tlsStalled).compactMap { c -> Finding? in
            guard let hello = c.clientHello else { return nil }
            // The end of the hello's capture (of all of them, merged).
            let capture = hello.frame.capture
            let end = context.report.merged || capture >= captures.count ? lastEnd : captures[capture].end ?? lastEnd
            let waited = end.map { Double($0.nanoseconds(since: hello.time)) / 1e6 } ?? 0
            guard c.closed != nil || waited >= Double(ConnectionAttempt.timeoutNanoseconds) / 1e6 else { return nil }
            let name = context.name(of: c.deviceID)
            return Finding(
                code: .tlsStalled, severity: connectionSeverity(context, c),
                title: "\(c.client) connected to \(name) at \(c.endpoint), but TLS never completed",
                detail: "TCP to \(c.endpoint) was established"
                    + "\(c.connectMs.map { " in \(Wording.duration(milliseconds: $0))" } ?? ""), and the client sent its ClientHello; no "
                    + "ServerHello followed \(c.closed != nil ? "before the connection closed" : "in \(Wording.duration(milliseconds: waited))"). "
                    + "Something on the path passes the TCP handshake and stops the data (a proxy or an inspecting "
                    + "firewall), or another host that answers on this port is not a Cast device.",
                advice: "Check that the address is the Cast device's and that nothing between sender and device "
                    + "intercepts TLS on port \(c.port) (SSL inspection, a transparent proxy).",
                frames: [hello.frame] + [c.closed?.frame].compactMap { $0 },
                subjects: FindingSubjects(clients: [c.client.description], devices: [c.deviceID]))
        }
    }

    /// NOT_CONNECTED: a client resolved a device and never tried to connect to it, in a capture
    /// that holds the connection phase (so a capture filter did not hide the SYN). A note: a
    /// sender that only lists devices (a Cast dialog opened and closed, a phone's background
    /// scan, `avahi-browse`) never connects either. A warning when every address the device
    /// advertised is publicly routable: Chrome refuses such devices without trying
    /// (DOMAIN.md §7.2 #14).
    static func notConnected(_ context: DiagnosisContext) -> [Finding] {
        context.report.connections.filter { $0.outcome == .notAttempted }.compactMap { c -> Finding? in
            let device = context.devicesByID[c.deviceID]
            let v4 =
                device?.addresses.compactMap { a -> IPv4Address? in
                    if case .v4(let v) = a { return v }
                    return nil
                } ?? []
            let publicOnly = !v4.isEmpty && v4.allSatisfy { AddressScope($0) == .publicRoutable }
            let name = context.name(of: c.deviceID)
            var detail =
                "\(c.client) resolved \(name) (\(c.endpoint)) and sent no SYN to any address of it, though the "
                + "capture holds TCP connection setups (so it was not filtered to discovery traffic). "
            let advice: String
            if publicOnly {
                detail +=
                    "Every IPv4 address the device advertises is publicly routable "
                    + "(\(list(v4.map(\.description)))): Chrome does not connect to Cast devices at such addresses "
                    + "unless the MediaRouterCastAllowAllIPs policy is set, and does not list them."
                advice =
                    "Give the device a private (RFC 1918) address on the LAN, or set Chrome's "
                    + "MediaRouterCastAllowAllIPs policy where that is intended."
            } else {
                detail +=
                    "A sender that only lists devices (a Cast dialog opened and closed, a phone's background scan) "
                    + "does not connect; a sender that was asked to cast and still sent nothing filtered the device "
                    + "out itself (its app ID or capabilities did not match, or it refuses the address)."
                advice =
                    "If the user picked the device and nothing happened, check the sender's log; compare the "
                    + "device's TXT (ca, rs) with what the app asks for."
            }
            return Finding(
                code: .notConnected, severity: publicOnly ? .warning : .info,
                title: "\(c.client) found \(name) and never tried to connect",
                detail: detail, advice: advice,
                frames: context.latencyRows[c.client]?[c.deviceID]?.compactMap(\.resolvedFrame) ?? [],
                subjects: FindingSubjects(clients: [c.client.description], devices: [c.deviceID]))
        }
    }

    /// MDNS_PORT_UNREACHABLE: a host answered mDNS or SSDP datagrams with ICMP port unreachable:
    /// no socket there on 5353 / 1900, or a host firewall that rejects them (DOMAIN.md §7.2 #8).
    static func discoveryPortUnreachable(_ context: DiagnosisContext) -> [Finding] {
        let notes = context.report.discoveryPortUnreachable
        let byRefuser = Dictionary(grouping: notes, by: \.refuser)
        return byRefuser.keys.sorted().map { refuser in
            let list = byRefuser[refuser]!
            let senders = Array(Set(list.map(\.sender))).sorted().map(\.description)
            let ports = Set(list.map(\.port)).sorted().map(String.init).joined(separator: " and ")
            let what = list.allSatisfy { $0.port == DiscoveryDecoder.ssdpPort } ? "SSDP" : "mDNS"
            var reasons: [String] = []
            for n in list where !reasons.contains(n.reason) { reasons.append(n.reason) }
            let reason = reasons.joined(separator: " or ")
            return Finding(
                code: .mdnsPortUnreachable, severity: .warning,
                title: "\(refuser) turns \(what) away with ICMP \(reason)",
                detail: "\(refuser) answered \(Wording.count(list.count, "\(what) datagram")) to UDP port \(ports) "
                    + "from \(Self.list(senders)) with ICMP \(reason): no socket listens there, or a host "
                    + "firewall rejects them. If \(refuser) is a sender, the answers it asked for never reach its "
                    + "app (Windows' Public profile, firewalld without the mdns service).",
                advice: "On \(refuser), allow incoming UDP \(ports) (firewalld: `firewall-cmd --add-service=mdns`; "
                    + "Windows: set the network to Private, or allow the app through the firewall).",
                frames: list.map(\.frame), subjects: FindingSubjects(clients: [refuser.description]))
        }
    }
}
