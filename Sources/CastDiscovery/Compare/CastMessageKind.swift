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
    /// - Parameter host: the sending host's name when the caller has it already (the text of
    ///   its link-layer address, cached: formatting one per packet cost a seventh of a run).
    public init?(_ packet: DiscoveryPacket, host: String? = nil) {
        guard let bytes = packet.messageWireBytes else { return nil }
        self.init(
            frame: packet.frame, time: packet.timestamp.epochSeconds,
            content: bytes, source: packet.source.description, ttl: packet.ttl, family: packet.ipVersion,
            multicast: packet.destination.isMulticast, host: host ?? packet.sourceMAC?.description,
            canonical: packet.mdns.map(Self.canonical))
    }

    /// Questions (queries) or records (responses), lower-cased and sorted, without the ID,
    /// sections, TTLs and the unicast-response and cache-flush bits: what survives a relay that
    /// rebuilds the message.
    static func canonical(_ m: DNSMessage) -> Int {
        // Each question or record hashed on its own, the hashes sorted (order does not count),
        // then hashed together: no text is made (describing each record cost a fifth of a run).
        var parts: [Int]
        if m.isResponse {
            parts = (m.answers + m.authorities + m.additionals).filter { $0.type != .opt }.map { r in
                var h = Hasher()
                h.combine(lowercased(r.name))
                h.combine(r.type.rawValue)
                h.combine(r.data)
                return h.finalize()
            }
        } else {
            parts = m.questions.map { q in
                var h = Hasher()
                h.combine(lowercased(q.name))
                h.combine(q.type.rawValue)
                return h.finalize()
            }
        }
        parts.sort()
        var h = Hasher()
        h.combine(m.isResponse)
        h.combine(parts)
        return h.finalize()
    }

    /// The name's wire bytes with ASCII letters in lower case (DNS names compare so).
    static func lowercased(_ name: DNSName) -> [UInt8] {
        name.wire.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }
}

extension DiscoveryPacket {
    /// The `fn` of the first Cast TXT record in an mDNS response, for naming the device that
    /// sent it.
    public var castFriendlyName: String? {
        guard let m = mdns, m.isResponse else { return nil }
        for r in m.answers + m.additionals where r.name.hasSuffix(CastName.serviceTypeName) {
            if case .txt(let txt) = r.data, let fn = CastTXT(txt).friendlyName, !fn.isEmpty { return fn }
        }
        return nil
    }
}
