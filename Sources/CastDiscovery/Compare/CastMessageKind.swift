import WireFormat

/// What a discovery message is to `castscope compare` (issue 18): a sender's Cast query or a
/// device's Cast response.
public enum CastMessageKind: String, Sendable, Hashable {
    /// An mDNS message to port 5353 with QR=0 and a question whose name is or ends with
    /// `_googlecast._tcp.local`, that is not a responder's probe (probes carry their proposed
    /// records in the authority section).
    case query
    /// An mDNS message from port 5353 with QR=1 and a record whose name is or ends with
    /// `_googlecast._tcp.local`, multicast or unicast.
    case response

    /// The kind of a decoded packet, or `nil` for anything else (other services, SSDP, TCP).
    public init?(_ packet: DiscoveryPacket) {
        guard let m = packet.mdns else { return nil }
        let cast = CastName.serviceTypeName
        if !m.isResponse {
            guard packet.destinationPort == 5353, m.authorities.isEmpty,
                m.questions.contains(where: { $0.name.hasSuffix(cast) })
            else { return nil }
            self = .query
        } else {
            guard packet.sourcePort == 5353,
                (m.answers + m.additionals + m.authorities).contains(where: { $0.name.hasSuffix(cast) })
            else { return nil }
            self = .response
        }
    }
}

extension ObservedMessage {
    /// The message of a decoded mDNS packet, or `nil` when it keeps no bytes.
    public init?(_ packet: DiscoveryPacket) {
        guard let bytes = packet.messageWireBytes else { return nil }
        self.init(
            frame: packet.frame, time: Double(packet.timestamp.seconds) + Double(packet.timestamp.nanoseconds) / 1e9,
            content: bytes, source: packet.source.description, ttl: packet.ttl)
    }
}
