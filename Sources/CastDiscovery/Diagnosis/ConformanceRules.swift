// Rules about Cast responders that break RFC 6762 in ways receivers may notice. Only Cast
// devices' own packets count: other services' stacks are not a Cast problem.

extension Diagnosis {
    /// RESPONSE_TTL_NOT_255, one per device: its own multicast responses (not relayed copies)
    /// carry an IP TTL other than 255 (RFC 6762 §11). Unicast replies are left out: stacks
    /// send them with the system's default TTL (64 on Linux: python-zeroconf does), and
    /// queriers check a unicast reply's source address, not its TTL.
    static func responseTTLNot255(_ context: DiagnosisContext) -> [Finding] {
        context.paths.compactMap { p -> Finding? in
            let low = p.own.filter { $0.multicast && $0.ipTTL != 255 && !$0.ttlDecremented }
            guard !low.isEmpty else { return nil }
            let d = p.device
            let packets = low.reduce(0) { $0 + $1.packets }
            let ttls = Set(low.map(\.ipTTL)).sorted().map(String.init).joined(separator: ", ")
            return Finding(
                code: .responseTTLNot255, severity: .info,
                title: "\(d.friendlyName ?? d.id) sends responses with IP TTL \(ttls)",
                detail: "\(Wording.count(packets, "multicast response")) from the device itself "
                    + "(\(list(low.map(senderText)))) carry IP TTL \(ttls); RFC 6762 §11 asks 255 of every "
                    + "response. It is the device's own stack, not a relay. Most queriers accept them; queriers "
                    + "built to the 2004 draft, and avahi with check-response-ttl=yes, drop them.",
                advice: "Nothing to do for current senders. If an older or strict querier does not see the device, "
                    + "update the receiver's firmware or its mDNS library (set the socket's multicast and unicast "
                    + "TTL to 255).",
                frames: low.map(\.frame), subjects: FindingSubjects(devices: [d.id]))
        }
    }
}
