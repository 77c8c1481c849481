// Rules about the path between clients and devices: reflectors, gateways, repeaters.
extension Diagnosis {
    /// CROSS_SUBNET, one per device: its records arrived only from other hosts' addresses,
    /// relayed by an mDNS reflector or gateway.
    static func crossSubnet(_ context: DiagnosisContext) -> [Finding] {
        context.relayed.filter { !$0.alsoDirect }.map { d, foreign, _ in
            Finding(
                code: .crossSubnet, severity: .warning,
                title: "\(d.friendlyName ?? d.id)'s answers come from another host",
                detail: "Its records arrived only from \(list(foreign.map(\.address.description))) while its "
                    + "address is \(list(d.addresses.map(\.description))): an mDNS reflector or gateway relays "
                    + "it from another subnet. Discovery can work, but the sender must then reach the device "
                    + "across a router (TCP 8009, and 8008 for DIAL).",
                advice: "Make sure routing and firewalls allow the sender to reach the device's address; "
                    + "reflected discovery without routed reachability shows devices that cannot be cast to.",
                frames: foreign.map(\.frame), subjects: FindingSubjects(devices: [d.id]))
        }
    }

    /// REFLECTED_TRAFFIC: multicast mDNS with an IP TTL other than 255, or devices heard
    /// directly and again from another host (a repeater).
    static func reflectedTraffic(_ context: DiagnosisContext) -> Finding? {
        let r = context.report
        let repeated = context.relayed.filter(\.alsoDirect)
        guard r.reflectedCount > 0 || !repeated.isEmpty else { return nil }
        var detail: [String] = []
        if r.reflectedCount > 0 {
            detail.append(
                "\(Wording.count(r.reflectedCount, "multicast mDNS packet")) had IP TTL "
                    + "\(r.reflectedTTLs.map(String.init).joined(separator: ", ")) instead of 255 (RFC 6762 §11 "
                    + "requires 255 and receivers check it): they were re-sent by a reflector, repeater or "
                    + "router, or by a non-conforming stack.")
        }
        for (d, copies, _) in repeated {
            detail.append(
                "\(d.friendlyName ?? d.id)'s records were heard from the device and again from "
                    + "\(list(copies.map(\.address.description))).")
        }
        return Finding(
            code: .reflectedTraffic, severity: .warning,
            title: "An mDNS reflector or repeater is on the path",
            detail: detail.joined(separator: " "),
            advice: "Know which reflector is on the path (avahi enable-reflector, a Wi-Fi controller's mDNS "
                + "gateway, mdns-repeater); duplicate or TTL≠255 packets can confuse caches and strict "
                + "receivers may drop them.",
            frames: r.reflectedFrames + repeated.flatMap { $0.copies.map(\.frame) },
            subjects: FindingSubjects(devices: repeated.map(\.device.id)))
    }
}
