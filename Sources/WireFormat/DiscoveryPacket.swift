/// The layer at which a packet failed to decode.
public enum PacketLayer: String, Hashable, Sendable {
    case link, ip, udp, dns, ssdp
}

/// A decoding fault in a discovery packet: the layer, and the located error.
public struct PacketError: Hashable, Sendable, CustomStringConvertible {
    /// Where in the stack decoding failed.
    public var layer: PacketLayer
    /// What failed and at which byte.
    public var error: DecodeError
    public init(layer: PacketLayer, error: DecodeError) {
        self.layer = layer
        self.error = error
    }
    public var description: String { "\(layer.rawValue): \(error)" }
}

/// The application payload of a discovery packet.
public enum DiscoveryPayload: Hashable, Sendable {
    /// An mDNS message (UDP port 5353 in either direction); `nil` if not even the header decoded.
    case mdns(DNSMessage?)
    /// An SSDP message; `nil` if it could not be decoded.
    case ssdp(SSDPMessage?)
}

/// A discovery packet: owned, decoded, and with everything a report needs as evidence.
///
/// Only discovery packets become values like this; every other frame is skipped while its
/// bytes are still borrowed from libpcap.
public struct DiscoveryPacket: Hashable, Sendable {
    /// Wireshark's frame number: 1-based over every record of the file. For a reassembled
    /// datagram, the frame that completed it.
    public var frame: Int
    /// When it was captured.
    public var timestamp: Timestamp
    /// Link-layer source, when known.
    public var sourceMAC: MACAddress?
    /// Link-layer destination, when known.
    public var destinationMAC: MACAddress?
    /// VLAN IDs, outermost first.
    public var vlanIDs: [UInt16] = []
    /// Apple PKTAP metadata (interface, process), for PKTAP captures.
    public var pktap: PKTAPInfo?
    /// Whether an Ethernet-labelled frame carried raw IP (rvictl quirk).
    public var rawIPInEthernet = false
    /// 4 or 6.
    public var ipVersion: UInt8
    /// Source address.
    public var source: IPAddress
    /// Destination address.
    public var destination: IPAddress
    /// IPv4 TTL / IPv6 hop limit. RFC 6762 §11 expects 255; anything else passed a router or
    /// reflector.
    public var ttl: UInt8
    /// UDP source port.
    public var sourcePort: UInt16
    /// UDP destination port.
    public var destinationPort: UInt16
    /// The frames whose fragments formed this datagram; empty if it was not fragmented.
    public var fragmentFrames: [Int] = []
    /// Whether the UDP payload was cut short by the capture's snap length.
    public var truncatedBySnapLength = false
    /// The decoded message.
    public var payload: DiscoveryPayload
    /// For mDNS: a legacy unicast query (source port ≠ 5353, RFC 6762 §6.7) or an answer to one.
    public var legacyUnicast = false
    /// For an SSDP answer sent to an M-SEARCH's ephemeral port: the frame of that M-SEARCH.
    public var answersSearchFrame: Int?
    /// The decoding fault, when the packet is malformed (what decoded before it is kept).
    public var error: PacketError?

    public init(
        frame: Int, timestamp: Timestamp, ipVersion: UInt8, source: IPAddress, destination: IPAddress, ttl: UInt8,
        sourcePort: UInt16, destinationPort: UInt16, payload: DiscoveryPayload
    ) {
        self.frame = frame
        self.timestamp = timestamp
        self.ipVersion = ipVersion
        self.source = source
        self.destination = destination
        self.ttl = ttl
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.payload = payload
    }

    /// The mDNS message, if this is mDNS and its header decoded.
    public var mdns: DNSMessage? {
        if case .mdns(let m) = payload { return m }
        return nil
    }

    /// The SSDP message, if this is SSDP and it decoded.
    public var ssdp: SSDPMessage? {
        if case .ssdp(let m) = payload { return m }
        return nil
    }

    /// Whether this is an mDNS packet (decoded or not).
    public var isMDNS: Bool {
        if case .mdns = payload { return true }
        return false
    }
}
