/// Up to four VLAN IDs, outermost first, stored inline so decoding never allocates.
public struct VLANTags: Hashable, Sendable {
    private var ids: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
    /// How many tags the frame had (tags beyond the fourth are counted but not kept).
    public private(set) var count: Int = 0

    public init() {}

    /// Adds the next inner tag.
    public mutating func append(_ id: UInt16) {
        switch count {
        case 0: ids.0 = id
        case 1: ids.1 = id
        case 2: ids.2 = id
        case 3: ids.3 = id
        default: break
        }
        count += 1
    }

    /// The kept IDs as an array.
    public var array: [UInt16] {
        // Most frames have no tag: no array built (this runs for every discovery packet).
        guard count > 0 else { return [] }
        return [ids.0, ids.1, ids.2, ids.3].prefix(Swift.min(count, 4)).map { $0 }
    }

    public static func == (a: VLANTags, b: VLANTags) -> Bool { a.array == b.array }
    public func hash(into hasher: inout Hasher) { hasher.combine(array) }
}

/// Apple's PKTAP per-packet header, borrowed from the frame.
///
/// It tells which interface the packet crossed and, for local traffic, which process sent or
/// received it: evidence for "the app never asked" findings. Only materialised into a
/// ``PKTAPInfo`` for discovery packets.
public struct PKTAPView {
    /// The whole header (at least 108 bytes).
    public let header: ByteCursor

    /// Copies the interesting fields.
    public func materialize() -> PKTAPInfo {
        var c = header
        func cString(at offset: Int, length: Int) -> String {
            var bytes: [UInt8] = []
            var i = offset
            while i < offset + length, i < c.count, c.bytes[i] != 0 {
                bytes.append(c.bytes[i])
                i += 1
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        c.offset = 36
        let flags = (try? c.readUInt32LE()) ?? 0
        c.offset = 52
        let pid = (try? c.readUInt32LE()) ?? 0
        c.offset = 84
        let epid = (try? c.readUInt32LE()) ?? 0
        let direction: PKTAPInfo.Direction? = flags & 1 != 0 ? .inbound : (flags & 2 != 0 ? .outbound : nil)
        return PKTAPInfo(
            interface: cString(at: 12, length: 24), pid: Int32(bitPattern: pid), process: cString(at: 56, length: 20),
            effectivePID: Int32(bitPattern: epid), effectiveProcess: cString(at: 88, length: 20),
            direction: direction)
    }
}

/// The PKTAP fields CastScope keeps as evidence.
public struct PKTAPInfo: Hashable, Sendable {
    /// Packet direction as PKTAP records it.
    public enum Direction: String, Hashable, Sendable { case inbound = "in", outbound = "out" }
    /// Interface name, e.g. `en0`, `pdp_ip0`, `utun3`.
    public var interface: String
    /// Process ID (-1 or 0 when unknown, common for outgoing packets).
    public var pid: Int32
    /// Process name (`comm`), empty when unknown.
    public var process: String
    /// Effective (delegated) process ID.
    public var effectivePID: Int32
    /// Effective process name.
    public var effectiveProcess: String
    /// Inbound or outbound, when the header says.
    public var direction: Direction?

    public init(
        interface: String, pid: Int32, process: String, effectivePID: Int32, effectiveProcess: String,
        direction: Direction?
    ) {
        self.interface = interface
        self.pid = pid
        self.process = process
        self.effectivePID = effectivePID
        self.effectiveProcess = effectiveProcess
        self.direction = direction
    }
}

/// A frame with its link layer taken off, borrowed from the packet buffer.
public struct LinkFrame {
    /// The protocol of `payload`; `.none` when the frame carries no network-layer packet.
    public var etherType: EtherType = .none
    /// The network-layer packet.
    public var payload: ByteCursor
    /// Link-layer source address, when the link type has one.
    public var sourceMAC: MACAddress?
    /// Link-layer destination address, when the link type has one.
    public var destinationMAC: MACAddress?
    /// VLAN tags, outermost first.
    public var vlan = VLANTags()
    /// The PKTAP header, for PKTAP captures.
    public var pktap: PKTAPView?
    /// An 802.11 data frame with the Protected bit: its contents cannot be read.
    public var protectedWiFi = false
    /// Whether an Ethernet-labelled frame turned out to be raw IP (the iPhone `rvictl` quirk).
    public var rawIPInEthernet = false
    /// The capturing host's interface index (LINUX_SLL2, `tcpdump -i any`), when known.
    public var interfaceIndex: UInt32?

    public init(payload: ByteCursor) { self.payload = payload }
}

/// Removes link-layer headers for every link type in ``LinkType/supported``.
public enum LinkLayer {
    /// The maximum nesting of link headers (PKTAP wrapping Ethernet, say).
    static let maximumDepth = 3

    /// Decodes the link layer of one frame.
    /// - Parameters:
    ///   - linkType: the capture's link type.
    ///   - frame: the captured bytes.
    ///   - originalLength: the frame's length on the wire (`len`, not `caplen`), used to tell raw
    ///     IP from Ethernet.
    /// - Returns: the network-layer payload and link metadata.
    public static func decode(
        _ linkType: LinkType, frame: ByteCursor, originalLength: Int
    ) throws(DecodeError) -> LinkFrame {
        var result = LinkFrame(payload: frame)
        try decode(linkType, cursor: frame, originalLength: originalLength, into: &result, depth: 0)
        return result
    }

    static func decode(
        _ linkType: LinkType, cursor start: ByteCursor, originalLength: Int, into result: inout LinkFrame,
        depth: Int
    ) throws(DecodeError) {
        var c = start
        switch linkType {
        case .ethernet:
            try decodeEthernet(&c, originalLength: originalLength, into: &result)
        case .raw, .rawOpenBSD, .rawFile:
            result.etherType = sniffIPVersion(c)
            result.payload = c
        case .ipv4:
            result.etherType = .ipv4
            result.payload = c
        case .ipv6:
            result.etherType = .ipv6
            result.payload = c
        case .null, .loop:
            let raw = try c.readUInt32()
            // DLT_NULL is in the capturing host's byte order: accept both.
            let family = linkType == .loop || raw <= 0xFFFF ? raw : raw.byteSwapped
            switch family {
            case 2: result.etherType = .ipv4
            case 10, 24, 28, 30: result.etherType = .ipv6  // Linux, NetBSD/OpenBSD, FreeBSD, Darwin
            default: result.etherType = .none
            }
            result.payload = c.rest
        case .linuxSLL:
            // packet type(2) ARPHRD(2) address length(2) address(8) protocol(2)
            try c.skip(2)
            let hatype = try c.readUInt16()
            let addressLength = try c.readUInt16()
            if addressLength == 6, hatype == 1 {
                var a = c
                result.sourceMAC = try MACAddress(reading: &a)
            }
            try c.skip(8)
            try decodeEtherTypeChain(EtherType(rawValue: try c.readUInt16()), &c, into: &result)
        case .linuxSLL2:
            // protocol(2) reserved(2) ifindex(4) ARPHRD(2) packet type(1) address length(1) address(8)
            let proto = try c.readUInt16()
            try c.skip(2)
            result.interfaceIndex = try c.readUInt32()
            let hatype = try c.readUInt16()
            try c.skip(1)
            let addressLength = try c.readUInt8()
            if addressLength == 6, hatype == 1 {
                var a = c
                result.sourceMAC = try MACAddress(reading: &a)
            }
            try c.skip(8)
            try decodeEtherTypeChain(EtherType(rawValue: proto), &c, into: &result)
        case .pktap, .pktapLive:
            guard depth < maximumDepth else { throw .invalid(offset: c.position, field: .pktapHeaderLength(0)) }
            let headerStart = c.position
            let headerLength = Int(try c.readUInt32LE())
            let recordType = try c.readUInt32LE()
            let innerDLT = try c.readUInt32LE()
            guard headerLength >= 108, headerLength <= start.remaining else {
                throw .invalid(offset: headerStart, field: .pktapHeaderLength(headerLength))
            }
            var h = start
            result.pktap = PKTAPView(header: try h.readSlice(headerLength))
            guard recordType == 1 else {  // PTH_RECORD_PACKET; anything else carries no packet
                result.etherType = .none
                return
            }
            let inner = start.droppingFirst(headerLength)
            try decode(
                LinkType(rawValue: Int32(bitPattern: innerDLT)), cursor: inner,
                originalLength: originalLength - headerLength, into: &result, depth: depth + 1)
        case .radiotap:
            let version = try c.readUInt8()
            try c.skip(1)
            let length = Int(try c.readUInt16LE())
            guard version == 0, length >= 8, length <= start.remaining else {
                throw .invalid(offset: start.position + 2, field: .radiotapLength(length))
            }
            var frame = start.droppingFirst(length)
            let flags = radiotapFlags(start.prefix(length))
            if let flags {
                if flags & 0x40 != 0 {  // bad FCS: the frame is damaged
                    result.etherType = .none
                    return
                }
                if flags & 0x10 != 0 {  // the frame ends with a 4-byte FCS
                    frame = frame.prefix(Swift.max(frame.remaining - 4, 0))
                }
            }
            try decode80211(&frame, into: &result)
        case .ieee80211:
            try decode80211(&c, into: &result)
        default:
            result.etherType = .none
        }
    }

    static func decodeEthernet(_ c: inout ByteCursor, originalLength: Int, into result: inout LinkFrame)
        throws(DecodeError)
    {
        if decodePlainEthernet(&c, into: &result) { return }
        try decodeAnyEthernet(&c, originalLength: originalLength, into: &result)
    }

    /// Any Ethernet frame: the raw-IP quirk, 802.3 with SNAP, VLAN tags.
    static func decodeAnyEthernet(_ c: inout ByteCursor, originalLength: Int, into result: inout LinkFrame)
        throws(DecodeError)
    {
        // The iPhone rvictl quirk: a file labelled Ethernet that carries raw IP.
        if let sniffed = rawIPInsteadOfEthernet(c, originalLength: originalLength) {
            result.etherType = sniffed
            result.payload = c
            result.rawIPInEthernet = true
            return
        }
        result.destinationMAC = try MACAddress(reading: &c)
        result.sourceMAC = try MACAddress(reading: &c)
        let typeOrLength = try c.readUInt16()
        if typeOrLength <= 1500 {
            // 802.3 with an LLC header: only SNAP can carry IP.
            try decodeSNAP(&c, into: &result)
            return
        }
        try decodeEtherTypeChain(EtherType(rawValue: typeOrLength), &c, into: &result)
    }

    /// The common Ethernet frame, untagged IPv4 or IPv6 whose header has that version (which
    /// rules out the raw-IP quirk, as ``rawIPInsteadOfEthernet(_:originalLength:)`` does), decoded
    /// with one bounds check; `false`, with nothing changed, for any other frame.
    static func decodePlainEthernet(_ c: inout ByteCursor, into result: inout LinkFrame) -> Bool {
        if c.remaining >= 15 {
            let b = UnsafeRawBufferPointer(rebasing: c.bytes[c.offset...])
            let type = UInt16(bigEndian: b.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
            let version = b[14] >> 4
            if (type == EtherType.ipv4.rawValue && version == 4) || (type == EtherType.ipv6.rawValue && version == 6) {
                result.destinationMAC = MACAddress(loading: b, at: 0)
                result.sourceMAC = MACAddress(loading: b, at: 6)
                result.etherType = EtherType(rawValue: type)
                c.offset &+= 14
                result.payload = c.rest
                return true
            }
        }
        return false
    }

    /// Follows VLAN tags until a network-layer EtherType.
    static func decodeEtherTypeChain(_ first: EtherType, _ c: inout ByteCursor, into result: inout LinkFrame)
        throws(DecodeError)
    {
        var type = first
        var tags = 0
        while type.isVLANTag {
            let tci = try c.readUInt16()
            result.vlan.append(tci & 0x0FFF)
            type = EtherType(rawValue: try c.readUInt16())
            tags += 1
            if tags > 8 { break }
        }
        result.etherType = type == .ipv4 || type == .ipv6 ? type : .none
        result.payload = c.rest
    }

    static func decodeSNAP(_ c: inout ByteCursor, into result: inout LinkFrame) throws(DecodeError) {
        let dsap = try c.readUInt8()
        let ssap = try c.readUInt8()
        let control = try c.readUInt8()
        guard dsap == 0xAA, ssap == 0xAA, control == 0x03 else {
            result.etherType = .none
            return
        }
        try c.skip(3)  // OUI
        try decodeEtherTypeChain(EtherType(rawValue: try c.readUInt16()), &c, into: &result)
    }

    /// Decodes an 802.11 MAC header and its LLC/SNAP header.
    static func decode80211(_ c: inout ByteCursor, into result: inout LinkFrame) throws(DecodeError) {
        let fc0 = try c.readUInt8()
        let fc1 = try c.readUInt8()
        let type = (fc0 >> 2) & 0x3
        let subtype = fc0 >> 4
        guard type == 2 else {  // management/control frames carry no IP
            result.etherType = .none
            return
        }
        try c.skip(2)  // duration
        let toDS = fc1 & 0x01 != 0
        let fromDS = fc1 & 0x02 != 0
        let a1 = try MACAddress(reading: &c)
        let a2 = try MACAddress(reading: &c)
        let a3 = try MACAddress(reading: &c)
        try c.skip(2)  // sequence control
        var a4: MACAddress?
        if toDS && fromDS { a4 = try MACAddress(reading: &c) }
        switch (toDS, fromDS) {
        case (false, false): result.destinationMAC = a1; result.sourceMAC = a2
        case (true, false): result.destinationMAC = a3; result.sourceMAC = a2
        case (false, true): result.destinationMAC = a1; result.sourceMAC = a3
        case (true, true): result.destinationMAC = a3; result.sourceMAC = a4
        }
        let isQoS = subtype & 0x8 != 0
        if isQoS {
            try c.skip(2)
            if fc1 & 0x80 != 0 { try c.skip(4) }  // HT control
        }
        if subtype & 0x4 != 0 {  // Null function: no data
            result.etherType = .none
            return
        }
        if fc1 & 0x40 != 0 {
            result.protectedWiFi = true
            result.etherType = .none
            return
        }
        try decodeSNAP(&c, into: &result)
    }

    /// Reads the radiotap Flags field, if present.
    static func radiotapFlags(_ header: ByteCursor) -> UInt8? {
        var c = header
        c.offset = 4
        guard let present = try? c.readUInt32LE() else { return nil }
        var word = present
        while word & 0x8000_0000 != 0 {  // extended presence bitmaps
            guard let next = try? c.readUInt32LE() else { return nil }
            word = next
        }
        guard present & 0x2 != 0 else { return nil }
        if present & 0x1 != 0 {  // TSFT: 8 bytes, 8-aligned
            c.offset = (c.offset + 7) & ~7
            guard (try? c.skip(8)) != nil else { return nil }
        }
        return try? c.readUInt8()
    }

    static func sniffIPVersion(_ c: ByteCursor) -> EtherType {
        switch (c.peekUInt8() ?? 0) >> 4 {
        case 4: return .ipv4
        case 6: return .ipv6
        default: return .none
        }
    }

    /// Whether an "Ethernet" frame is really a raw IP packet: the EtherType makes no sense and
    /// the first bytes form an IP header whose length matches the frame exactly.
    static func rawIPInsteadOfEthernet(_ c: ByteCursor, originalLength: Int) -> EtherType? {
        guard let first = c.peekUInt8() else { return nil }
        if let type = c.peekUInt16(ahead: 12) {
            let etherType = EtherType(rawValue: type)
            if etherType == .arp || etherType.isVLANTag { return nil }
            // A raw IPv4 packet from 8.0.x.x has "0x0800" where the EtherType would be: it is
            // Ethernet only if an IP header of that version really follows.
            let next = (c.peekUInt8(ahead: 14) ?? 0) >> 4
            if etherType == .ipv4, next == 4 { return nil }
            if etherType == .ipv6, next == 6 { return nil }
        }
        switch first >> 4 {
        case 4:
            guard first & 0xF >= 5, let total = c.peekUInt16(ahead: 2), Int(total) == originalLength else { return nil }
            return .ipv4
        case 6:
            guard let payload = c.peekUInt16(ahead: 4), Int(payload) + 40 == originalLength else { return nil }
            return .ipv6
        default:
            return nil
        }
    }
}

extension ByteCursor {
    /// A cursor over the unread bytes after skipping `n` of them (clamped).
    @inlinable
    public func droppingFirst(_ n: Int) -> ByteCursor {
        let start = Swift.min(offset &+ Swift.max(n, 0), bytes.count)
        return ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[start...]), base: base &+ start)
    }
}
