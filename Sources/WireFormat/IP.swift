/// An IP protocol number (the IPv4 Protocol field / IPv6 Next Header).
public struct IPProtocol: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// IPv6 hop-by-hop options, 0.
    @inlinable public static var hopByHop: IPProtocol { IPProtocol(rawValue: 0) }
    /// ICMP, 1.
    @inlinable public static var icmp: IPProtocol { IPProtocol(rawValue: 1) }
    /// TCP, 6.
    @inlinable public static var tcp: IPProtocol { IPProtocol(rawValue: 6) }
    /// UDP, 17.
    @inlinable public static var udp: IPProtocol { IPProtocol(rawValue: 17) }
    /// IPv6 routing header, 43.
    @inlinable public static var routing: IPProtocol { IPProtocol(rawValue: 43) }
    /// IPv6 fragment header, 44.
    @inlinable public static var fragment: IPProtocol { IPProtocol(rawValue: 44) }
    /// Authentication header, 51.
    @inlinable public static var authentication: IPProtocol { IPProtocol(rawValue: 51) }
    /// ICMPv6, 58.
    @inlinable public static var icmpv6: IPProtocol { IPProtocol(rawValue: 58) }
    /// IPv6 "no next header", 59.
    @inlinable public static var noNextHeader: IPProtocol { IPProtocol(rawValue: 59) }
    /// IPv6 destination options, 60.
    @inlinable public static var destinationOptions: IPProtocol { IPProtocol(rawValue: 60) }
}

/// Where a packet sits in a fragmented datagram.
public struct FragmentInfo: Hashable, Sendable {
    /// The datagram identification (IPv4: 16 bits; IPv6: 32 bits).
    public var identification: UInt32
    /// Offset of this fragment's data in the datagram, in bytes.
    public var offset: Int
    /// Whether more fragments follow.
    public var moreFragments: Bool
}

/// An IPv4 or IPv6 header, decoded in place.
public struct IPPacket {
    /// 4 or 6.
    public var version: UInt8
    /// Source address.
    public var source: IPAddress
    /// Destination address.
    public var destination: IPAddress
    /// IPv4 TTL or IPv6 hop limit.
    public var ttl: UInt8
    /// The upper-layer protocol (after IPv6 extension headers).
    public var proto: IPProtocol
    /// Fragment position, when the packet is a fragment (and not a whole datagram).
    public var fragment: FragmentInfo?
    /// The upper-layer payload, cut to the length the header states.
    public var payload: ByteCursor
    /// Whether the capture holds fewer bytes than the header says (snap length).
    public var truncated: Bool

    /// Decodes an IPv4 or IPv6 header from `cursor` according to `etherType`.
    public static func decode(_ etherType: EtherType, _ cursor: ByteCursor) throws(DecodeError) -> IPPacket {
        etherType == .ipv6 ? try decodeIPv6(cursor) : try decodeIPv4(cursor)
    }

    /// Decodes an IPv4 header; options are skipped.
    public static func decodeIPv4(_ cursor: ByteCursor) throws(DecodeError) -> IPPacket {
        let start = cursor.position
        let versionIHL: UInt8
        let totalLength: Int
        let identification: UInt16
        let flagsOffset: UInt16
        let ttl: UInt8
        let proto: IPProtocol
        let source: IPv4Address
        let destination: IPv4Address
        let first = cursor.peekUInt8() ?? 0
        if cursor.remaining >= 20, first >> 4 == 4, first & 0xF >= 5 {
            // A whole fixed header of a valid version and length, read with one bounds check
            // (a field read at a time cost five times the instructions); anything else takes
            // the path below, which names the field and byte at fault.
            let b = cursor.bytes
            let o = cursor.offset
            @inline(__always) func u16(_ at: Int) -> UInt16 {
                UInt16(bigEndian: b.loadUnaligned(fromByteOffset: o &+ at, as: UInt16.self))
            }
            @inline(__always) func u32(_ at: Int) -> UInt32 {
                UInt32(bigEndian: b.loadUnaligned(fromByteOffset: o &+ at, as: UInt32.self))
            }
            versionIHL = first
            totalLength = Int(u16(2))
            identification = u16(4)
            flagsOffset = u16(6)
            ttl = b[o &+ 8]
            proto = IPProtocol(rawValue: b[o &+ 9])
            source = IPv4Address(rawValue: u32(12))
            destination = IPv4Address(rawValue: u32(16))
        } else {
            var c = cursor
            versionIHL = try c.readUInt8()
            guard versionIHL >> 4 == 4 else { throw .invalid(offset: start, field: .ipVersion(versionIHL >> 4)) }
            let headerLength = Int(versionIHL & 0xF) * 4
            guard headerLength >= 20 else { throw .invalid(offset: start, field: .ipv4HeaderLength(headerLength)) }
            try c.skip(1)  // DSCP/ECN
            totalLength = Int(try c.readUInt16())
            identification = try c.readUInt16()
            flagsOffset = try c.readUInt16()
            ttl = try c.readUInt8()
            proto = IPProtocol(rawValue: try c.readUInt8())
            try c.skip(2)  // checksum
            source = IPv4Address(rawValue: try c.readUInt32())
            destination = IPv4Address(rawValue: try c.readUInt32())
        }
        let headerLength = Int(versionIHL & 0xF) * 4
        guard totalLength >= headerLength else {
            throw .invalid(offset: start + 2, field: .ipv4TotalLength(totalLength))
        }
        var whole = cursor
        try whole.skip(headerLength)  // options
        let available = cursor.remaining
        let truncated = totalLength > available
        let payload = whole.prefix(Swift.min(totalLength, available) - headerLength)
        let moreFragments = flagsOffset & 0x2000 != 0
        let fragmentOffset = Int(flagsOffset & 0x1FFF) * 8
        var fragment: FragmentInfo?
        if moreFragments || fragmentOffset != 0 {
            fragment = FragmentInfo(
                identification: UInt32(identification), offset: fragmentOffset, moreFragments: moreFragments)
        }
        return IPPacket(
            version: 4, source: .v4(source), destination: .v4(destination), ttl: ttl, proto: proto,
            fragment: fragment, payload: payload, truncated: truncated)
    }

    /// The most extension headers followed before giving up.
    static let maximumExtensionHeaders = 16

    /// Decodes an IPv6 header and walks hop-by-hop, routing, destination-options, fragment and
    /// authentication headers up to the upper-layer protocol.
    public static func decodeIPv6(_ cursor: ByteCursor) throws(DecodeError) -> IPPacket {
        var c = cursor
        let start = c.position
        let first = try c.readUInt32()
        guard first >> 28 == 6 else { throw .invalid(offset: start, field: .ipVersion(UInt8(first >> 28))) }
        let payloadLength = Int(try c.readUInt16())
        var next = IPProtocol(rawValue: try c.readUInt8())
        let hopLimit = try c.readUInt8()
        let source = try IPv6Address(reading: &c)
        let destination = try IPv6Address(reading: &c)
        let available = c.remaining
        // A payload length of 0 means a jumbogram (hop-by-hop option); use what was captured.
        let declared = payloadLength == 0 ? available : payloadLength
        let truncated = declared > available
        var body = c.prefix(Swift.min(declared, available))
        var fragment: FragmentInfo?
        var headers = 0
        loop: while true {
            switch next {
            case .hopByHop, .routing, .destinationOptions:
                let nextHeader = try body.readUInt8()
                let length = (Int(try body.readUInt8()) + 1) * 8
                try body.skip(length - 2)
                next = IPProtocol(rawValue: nextHeader)
            case .authentication:
                let nextHeader = try body.readUInt8()
                let length = (Int(try body.readUInt8()) + 2) * 4
                try body.skip(length - 2)
                next = IPProtocol(rawValue: nextHeader)
            case .fragment:
                let nextHeader = try body.readUInt8()
                try body.skip(1)
                let offsetFlags = try body.readUInt16()
                let identification = try body.readUInt32()
                let offset = Int(offsetFlags >> 3) * 8
                let more = offsetFlags & 1 != 0
                if more || offset != 0 {
                    fragment = FragmentInfo(identification: identification, offset: offset, moreFragments: more)
                }
                next = IPProtocol(rawValue: nextHeader)
                // Headers after the fragment header belong to the fragmentable part, which is
                // only whole after reassembly.
                if fragment != nil { break loop }
            default:
                break loop
            }
            headers += 1
            if headers > maximumExtensionHeaders {
                throw .invalid(offset: body.position, field: .ipv6ExtensionHeaders)
            }
        }
        return IPPacket(
            version: 6, source: .v6(source), destination: .v6(destination), ttl: hopLimit, proto: next,
            fragment: fragment, payload: body.rest, truncated: truncated)
    }
}

/// A UDP header, decoded in place.
public struct UDPDatagram {
    /// Source port.
    public var sourcePort: UInt16
    /// Destination port.
    public var destinationPort: UInt16
    /// The length field (header included).
    public var length: Int
    /// The payload, cut to `length - 8` or to what was captured.
    public var payload: ByteCursor
    /// Whether the capture holds fewer bytes than the length field says.
    public var truncated: Bool

    /// Decodes the 8-byte header. A length shorter than 8 is an error; a length longer than
    /// the captured bytes is clamped and marked `truncated` (gopacket style); bytes past the
    /// length (link-layer padding) are ignored.
    public static func decode(_ cursor: ByteCursor) throws(DecodeError) -> UDPDatagram {
        var c = cursor
        let sourcePort: UInt16
        let destinationPort: UInt16
        let lengthOffset = c.position &+ 4
        let length: Int
        if c.remaining >= 8 {
            // The whole header with one bounds check.
            let b = c.bytes
            let o = c.offset
            sourcePort = UInt16(bigEndian: b.loadUnaligned(fromByteOffset: o, as: UInt16.self))
            destinationPort = UInt16(bigEndian: b.loadUnaligned(fromByteOffset: o &+ 2, as: UInt16.self))
            length = Int(UInt16(bigEndian: b.loadUnaligned(fromByteOffset: o &+ 4, as: UInt16.self)))
            c.offset = o &+ 8
        } else {
            sourcePort = try c.readUInt16()
            destinationPort = try c.readUInt16()
            length = Int(try c.readUInt16())
            try c.skip(2)  // checksum
        }
        guard length >= 8 else { throw .invalid(offset: lengthOffset, field: .udpLength(length)) }
        let truncated = length - 8 > c.remaining
        return UDPDatagram(
            sourcePort: sourcePort, destinationPort: destinationPort, length: length,
            payload: c.prefix(length - 8), truncated: truncated)
    }

    /// Reads only the two ports (for a first fragment, before reassembly).
    public static func ports(_ cursor: ByteCursor) -> (source: UInt16, destination: UInt16)? {
        guard let s = cursor.peekUInt16(), let d = cursor.peekUInt16(ahead: 2) else { return nil }
        return (s, d)
    }
}
