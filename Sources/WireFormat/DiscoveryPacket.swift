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
    /// A TCP segment of the connection phase (SYN, RST, FIN, or a TLS hello).
    case tcp(TCPSummary)
    /// An ICMP or ICMPv6 destination unreachable, and what it quotes.
    case icmp(ICMPUnreachable)
}

/// A discovery packet: owned, decoded, and with everything a report needs as evidence.
///
/// Only discovery packets become values like this; every other frame is skipped while its
/// bytes are still borrowed from libpcap.
///
/// The fields every packet has are stored inline and are trivially copyable; what only some
/// packets carry (VLAN tags, PKTAP metadata, fragment frames, a decoded message and, for
/// mDNS, the message's bytes) sits in one immutable, shared box that exists only when one of
/// them is set. A packet on the in-place path (an mDNS message read through
/// ``DNSMessageView``) therefore copies as plain bytes.
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
    /// UDP (or TCP) source port; 0 for ICMP.
    public var sourcePort: UInt16
    /// UDP (or TCP) destination port; 0 for ICMP.
    public var destinationPort: UInt16
    /// For a TCP segment of the connection phase: its header's summary (the payload is then
    /// ``DiscoveryPayload/tcp(_:)``). Stored inline: it is plain data.
    public private(set) var tcp: TCPSummary?
    /// The capturing host's interface it was seen on (LINUX_SLL2 `ifindex`), when the link type
    /// says: on a multi-homed host, a multicast packet on one interface does not reach a socket
    /// on another.
    public var interfaceIndex: UInt32?
    /// The capture file's interface it was read from (pcapng interface number, 0 for classic
    /// pcap): set by whoever reads the file, not by the decoder, which sees one frame's bytes.
    public var captureInterface = 0
    /// Whether the UDP payload was cut short by the capture's snap length.
    public var truncatedBySnapLength = false
    /// Whether the payload is mDNS (else SSDP), decoded or not.
    public private(set) var isMDNS: Bool
    /// Whether it is a unicast DNS message (UDP port 53) about a `.local` name, carried as an
    /// `.mdns` payload (it is a DNS message) but not mDNS: a sender asking its DNS server.
    public var isUnicastDNS: Bool {
        isMDNS && (sourcePort == DiscoveryDecoder.dnsPort || destinationPort == DiscoveryDecoder.dnsPort)
            && sourcePort != DiscoveryDecoder.mdnsPort && destinationPort != DiscoveryDecoder.mdnsPort
    }
    /// For mDNS: a legacy unicast query (source port ≠ 5353, RFC 6762 §6.7) or an answer to one.
    public var legacyUnicast = false
    /// For an SSDP answer sent to an M-SEARCH's ephemeral port: the frame of that M-SEARCH.
    public var answersSearchFrame: Int?
    /// The decoding fault, when the packet is malformed (what decoded before it is kept).
    public var error: PacketError?
    /// What only some packets carry; `nil` when none of it is set.
    private var rare: RareFields?

    /// The fields of ``DiscoveryPacket`` that most packets leave empty, shared between copies
    /// and never changed in place (a setter makes a new box), so that copies stay values.
    private final class RareFields: Sendable {
        let vlanIDs: [UInt16]
        let pktap: PKTAPInfo?
        let fragmentFrames: [Int]
        let message: Message
        /// The bytes `message` was materialised from, for an mDNS message.
        let messageBytes: MessageBytes?
        /// For an ICMP destination unreachable: what it says.
        let icmp: ICMPUnreachable?
        /// For an HTTP segment: its payload (at most ``TCPSummary/maximumHTTPBytes``).
        let tcpPayload: [UInt8]?

        enum Message: Hashable, Sendable {
            case absent
            case dns(DNSMessage)
            case ssdp(SSDPMessage)
        }

        init(
            vlanIDs: [UInt16], pktap: PKTAPInfo?, fragmentFrames: [Int], message: Message, messageBytes: MessageBytes?,
            icmp: ICMPUnreachable?, tcpPayload: [UInt8]?
        ) {
            self.vlanIDs = vlanIDs
            self.pktap = pktap
            self.fragmentFrames = fragmentFrames
            self.message = message
            self.messageBytes = messageBytes
            self.icmp = icmp
            self.tcpPayload = tcpPayload
        }

        var isEmpty: Bool {
            vlanIDs.isEmpty && pktap == nil && fragmentFrames.isEmpty && message == .absent && messageBytes == nil
                && icmp == nil && tcpPayload == nil
        }
    }

    /// A DNS message's bytes, offset 0 at its header, and the frame position of its first byte
    /// (so that faults found again have the same offsets).
    private struct MessageBytes: Sendable {
        let bytes: [UInt8]
        let base: Int
    }

    /// Replaces the rare fields, keeping no box when all are empty. A new message drops the
    /// bytes of the old one unless `messageBytes` gives new ones.
    private mutating func setRare(
        vlanIDs: [UInt16]? = nil, pktap: PKTAPInfo?? = nil, fragmentFrames: [Int]? = nil,
        message: RareFields.Message? = nil, messageBytes: MessageBytes? = nil, icmp: ICMPUnreachable?? = nil,
        tcpPayload: [UInt8]?? = nil
    ) {
        let box = RareFields(
            vlanIDs: vlanIDs ?? self.vlanIDs, pktap: pktap ?? self.pktap,
            fragmentFrames: fragmentFrames ?? self.fragmentFrames, message: message ?? rare?.message ?? .absent,
            messageBytes: message == nil ? rare?.messageBytes : messageBytes, icmp: icmp ?? rare?.icmp,
            tcpPayload: tcpPayload ?? rare?.tcpPayload)
        rare = box.isEmpty ? nil : box
    }

    /// VLAN IDs, outermost first.
    public var vlanIDs: [UInt16] {
        get { rare?.vlanIDs ?? [] }
        set { if !(newValue.isEmpty && rare == nil) { setRare(vlanIDs: newValue) } }
    }
    /// The outermost VLAN ID (the trunk's 802.1Q tag), if the frame was tagged.
    public var outerVLAN: UInt16? { rare?.vlanIDs.first }
    /// Apple PKTAP metadata (interface, process), for PKTAP captures.
    public var pktap: PKTAPInfo? {
        get { rare?.pktap }
        set { if !(newValue == nil && rare == nil) { setRare(pktap: .some(newValue)) } }
    }
    /// The frames whose fragments formed this datagram; empty if it was not fragmented.
    public var fragmentFrames: [Int] {
        get { rare?.fragmentFrames ?? [] }
        set { if !(newValue.isEmpty && rare == nil) { setRare(fragmentFrames: newValue) } }
    }

    /// For an ICMP or ICMPv6 destination unreachable: what it says.
    public var icmp: ICMPUnreachable? { rare?.icmp }

    /// For a kept HTTP segment (``TCPSummary/http``, ``TCPSummary/castHTTPData``): its payload,
    /// at most ``TCPSummary/maximumHTTPBytes``; empty otherwise.
    public var tcpPayload: [UInt8] {
        get { rare?.tcpPayload ?? [] }
        set { if !(newValue.isEmpty && rare == nil) { setRare(tcpPayload: .some(newValue.isEmpty ? nil : newValue)) } }
    }

    /// Whether this is a packet of the connection phase (TCP or ICMP), not discovery traffic.
    public var isConnection: Bool { tcp != nil || rare?.icmp != nil }

    /// The decoded message.
    public var payload: DiscoveryPayload {
        get {
            if let tcp { return .tcp(tcp) }
            if let icmp = rare?.icmp { return .icmp(icmp) }
            switch rare?.message {
            case .dns(let m)?: return .mdns(m)
            case .ssdp(let m)?: return .ssdp(m)
            case .absent?, nil: return isMDNS ? .mdns(nil) : .ssdp(nil)
            }
        }
        set {
            let message: RareFields.Message
            var wire: MessageBytes?
            switch newValue {
            case .mdns(let m):
                isMDNS = true
                message = m.map { .dns($0) } ?? .absent
                // A message set as a value (a fixture, a message to send) is kept in wire
                // format too, so that it is read through the one parser like a decoded one.
                wire = m.map { MessageBytes(bytes: $0.wireFormat(), base: 0) }
            case .ssdp(let m):
                isMDNS = false
                message = m.map { .ssdp($0) } ?? .absent
            case .tcp(let t):
                isMDNS = false
                tcp = t
                return
            case .icmp(let i):
                isMDNS = false
                setRare(icmp: .some(i))
                return
            }
            if !(message == .absent && rare == nil) { setRare(message: message, messageBytes: wire) }
        }
    }

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
        // A payload not decoded (yet) needs no box: the decoder makes every packet this way.
        switch payload {
        case .mdns(nil): self.isMDNS = true
        case .ssdp(nil): self.isMDNS = false
        default:
            self.isMDNS = true
            self.payload = payload
        }
    }

    /// The mDNS message, if this is mDNS and its header decoded.
    public var mdns: DNSMessage? {
        if case .dns(let m)? = rare?.message { return m }
        return nil
    }

    /// Sets the mDNS message materialised from `bytes` (offset 0 at its header), keeping a
    /// copy of the bytes for ``withMessageView(index:_:)``.
    mutating func setMDNS(_ message: DNSMessage, bytes: ByteCursor) {
        isMDNS = true
        setRare(message: .dns(message), messageBytes: MessageBytes(bytes: Array(bytes.bytes), base: bytes.base))
    }

    /// Calls `body` with the mDNS message checked again in place over the bytes the packet
    /// keeps: the same view ``DiscoveryDecoder/decodeInPlace(frame:timestamp:bytes:originalLength:_:)``
    /// gives, with the same fault. `nil` when the packet is not mDNS, its header did not
    /// decode, or it was not made by ``DiscoveryDecoder/decode(frame:timestamp:bytes:originalLength:)``
    /// (in-place packets and packets built by hand keep no bytes).
    /// - Parameter index: as for ``DNSMessageView/check(_:index:)``.
    public func withMessageView<R>(index: DNSMessageIndex? = nil, _ body: (DNSMessageView?) -> R) -> R {
        guard let kept = rare?.messageBytes else { return body(nil) }
        return kept.bytes.withUnsafeBytes { raw in
            body(DNSMessageView.check(ByteCursor(raw, base: kept.base), index: index).view)
        }
    }

    /// The mDNS message's bytes as they came, from its header on: what `castscope compare`
    /// matches between two captures. `nil` when the packet is not mDNS, its header did not
    /// decode, or the packet keeps no bytes (in-place packets, packets built by hand).
    public var messageWireBytes: [UInt8]? { rare?.messageBytes?.bytes }

    /// The SSDP message, if this is SSDP and it decoded.
    public var ssdp: SSDPMessage? {
        if case .ssdp(let m)? = rare?.message { return m }
        return nil
    }

    public static func == (a: DiscoveryPacket, b: DiscoveryPacket) -> Bool {
        a.frame == b.frame && a.timestamp == b.timestamp && a.sourceMAC == b.sourceMAC
            && a.destinationMAC == b.destinationMAC && a.rawIPInEthernet == b.rawIPInEthernet
            && a.ipVersion == b.ipVersion && a.source == b.source && a.destination == b.destination && a.ttl == b.ttl
            && a.sourcePort == b.sourcePort && a.destinationPort == b.destinationPort
            && a.truncatedBySnapLength == b.truncatedBySnapLength && a.isMDNS == b.isMDNS
            && a.legacyUnicast == b.legacyUnicast && a.answersSearchFrame == b.answersSearchFrame && a.error == b.error
            && a.interfaceIndex == b.interfaceIndex
            && a.vlanIDs == b.vlanIDs && a.pktap == b.pktap && a.fragmentFrames == b.fragmentFrames
            && a.rare?.message ?? .absent == b.rare?.message ?? .absent && a.tcp == b.tcp && a.icmp == b.icmp
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(frame)
        hasher.combine(timestamp)
        hasher.combine(source)
        hasher.combine(destination)
        hasher.combine(sourcePort)
        hasher.combine(destinationPort)
        hasher.combine(payload)
    }
}
