/// The lossless discovery prefilter, checked by hand on a record's bytes before decoding it.
///
/// It keeps every frame the BPF expression of `DiscoveryFilter` (PcapCapture) keeps, and no
/// other: a test runs both on every frame of every capture and on mutated frames. The checks
/// follow the program libpcap's optimiser makes of that expression (`tcpdump -d -y EN10MB
/// '...'`), load for load, including its quirks:
/// - a load past the end of the captured bytes makes the whole filter reject the frame (BPF
///   returns 0), even where a later alternative would have matched;
/// - `udp port N` on IPv4 matches when the fragment offset is zero (so a first fragment too),
///   with the header length taken from the IHL nibble unchecked (an IHL of 0 reads the "ports"
///   from the IP header itself);
/// - `udp` on IPv6 means next header 17 directly after the fixed header;
/// - on Ethernet, ARP is rejected, other EtherTypes kept; inside one VLAN tag only IP and a
///   further tag count; under the second tag, a third tag keeps the frame;
/// - DLT_NULL compares the address family as the host's byte order (Linux: `AF_INET6` is 10),
///   DLT_LOOP in network byte order; other families are kept.
public enum DiscoveryPrefilter {
    /// Whether a frame of `linkType` may be discovery traffic and must be decoded.
    ///
    /// Inlinable, and switching on the raw value: comparing with `LinkType`'s static
    /// properties would go through their lazy initialisers and a generic `==` on every record.
    @inlinable @inline(__always)
    public static func keeps(_ linkType: LinkType, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let frame = Frame(bytes)
        switch linkType.rawValue {
        case 1: return frame.ethernet()  // EN10MB
        case 113: return frame.cooked(etherTypeAt: 14, payloadAt: 16)  // LINUX_SLL
        case 276: return frame.cooked(etherTypeAt: 0, payloadAt: 20)  // LINUX_SLL2
        case 0: return frame.loopback(ipv4: nullFamily(2), ipv6: nullFamily(afINET6))  // NULL
        case 108: return frame.loopback(ipv4: 2, ipv6: afINET6)  // LOOP
        case 12, 101: return frame.raw()  // RAW: DLT_RAW, LINKTYPE_RAW
        case 228: return frame.ipv4(at: 0)  // IPV4
        case 229: return frame.ipv6(at: 0)  // IPV6
        default: return true  // no expression for this link type: everything is decoded
        }
    }

    /// libpcap compiles `ip6` on a loopback link to the host's `AF_INET6`.
    #if os(Linux)
        @usableFromInline static var afINET6: UInt32 { 10 }
    #else
        @usableFromInline static var afINET6: UInt32 { 30 }
    #endif

    /// An address family as DLT_NULL's header holds it for BPF's big-endian 32-bit load: in the
    /// host's byte order.
    @inlinable @inline(__always)
    static func nullFamily(_ family: UInt32) -> UInt32 { family.bigEndian }

    /// `HTTP`, the first four payload bytes of a unicast SSDP answer (and of an HTTP response).
    @usableFromInline static var http: UInt32 { 0x4854_5450 }
    /// `GET `, the first four payload bytes of an HTTP request for a device description.
    @usableFromInline static var get: UInt32 { 0x4745_5420 }

    /// A frame's bytes with BPF's loads: each is `nil` past the end of the captured bytes.
    @usableFromInline
    struct Frame {
        @usableFromInline let base: UnsafeRawPointer?
        @usableFromInline let count: Int

        @inlinable @inline(__always)
        init(_ bytes: UnsafeRawBufferPointer) {
            base = bytes.baseAddress
            count = bytes.count
        }

        @inlinable @inline(__always)
        func u8(_ offset: Int) -> UInt8? {
            guard offset < count, let base else { return nil }
            return base.load(fromByteOffset: offset, as: UInt8.self)
        }

        @inlinable @inline(__always)
        func u16(_ offset: Int) -> UInt16? {
            guard offset &+ 2 <= count, let base else { return nil }
            return UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        }

        @inlinable @inline(__always)
        func u32(_ offset: Int) -> UInt32? {
            guard offset &+ 4 <= count, let base else { return nil }
            return UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }

        /// Ports 5353 (mDNS), 1900 (SSDP) and 53 (DNS).
        @inlinable @inline(__always)
        static func isDiscoveryPort(_ port: UInt16) -> Bool { port == 5353 || port == 1900 || port == 53 }

        /// Ethernet with up to two VLAN tags read (a third keeps the frame).
        @inlinable @inline(__always)
        func ethernet() -> Bool {
            guard let type = u16(12) else { return false }
            switch type {
            case 0x86DD: return ipv6(at: 14)
            case 0x0800: return ipv4(at: 14)
            case 0x0806: return false
            case 0x8100, 0x88A8, 0x9100: return ethernetTagged()
            default: return true  // possibly raw IP labelled Ethernet (rvictl)
            }
        }

        /// After the first VLAN tag: the rest of the expression, shifted by 4 then by 8 bytes.
        @inlinable
        func ethernetTagged() -> Bool {
            guard let inner = u16(16) else { return false }
            switch inner {
            case 0x86DD: return ipv6(at: 18)
            case 0x0800: return ipv4(at: 18)
            case 0x8100, 0x88A8, 0x9100: break
            default: return false
            }
            guard let third = u16(20) else { return false }
            switch third {
            case 0x86DD: return ipv6(at: 22)
            case 0x0800: return ipv4(at: 22)
            case 0x8100, 0x88A8, 0x9100: return true
            default: return false
            }
        }

        /// LINUX_SLL and LINUX_SLL2: the protocol field, then IP; ARP rejected, others kept.
        @inlinable @inline(__always)
        func cooked(etherTypeAt typeOffset: Int, payloadAt offset: Int) -> Bool {
            guard let type = u16(typeOffset) else { return false }
            switch type {
            case 0x86DD: return ipv6(at: offset)
            case 0x0800: return ipv4(at: offset)
            case 0x0806: return false
            default: return true
            }
        }

        /// DLT_NULL and DLT_LOOP: a 4-byte address family, compared as one big-endian word.
        @inlinable @inline(__always)
        func loopback(ipv4 v4: UInt32, ipv6 v6: UInt32) -> Bool {
            guard let family = u32(0) else { return false }
            if family == v6 { return ipv6(at: 4) }
            if family == v4 { return ipv4(at: 4) }
            return true
        }

        /// Raw IP: the version nibble chooses; anything else is rejected.
        @inlinable @inline(__always)
        func raw() -> Bool {
            guard let first = u8(0) else { return false }
            switch first & 0xF0 {
            case 0x60: return ipv6(at: 0)
            case 0x40: return ipv4(at: 0)
            default: return false
            }
        }

        /// An IPv4 packet at `h`: UDP with a zero fragment offset on a discovery port or with an
        /// `HTTP` payload, TCP and ICMP of the connection phase (``tcp(at:)``, ``icmp(at:type:)``),
        /// or any fragment after the first.
        @inlinable @inline(__always)
        func ipv4(at h: Int) -> Bool {
            guard let proto = u8(h &+ 9) else { return false }
            // Loaded after `proto`, so within the captured bytes.
            let fragmentOffset = base!.loadUnaligned(fromByteOffset: h &+ 6, as: UInt16.self).bigEndian & 0x1FFF
            if fragmentOffset != 0 { return true }
            let upper = h &+ Int(base!.load(fromByteOffset: h, as: UInt8.self) & 0x0F) &* 4
            switch proto {
            case 17:
                guard let source = u16(upper) else { return false }
                if Self.isDiscoveryPort(source) { return true }
                guard let destination = u16(upper &+ 2) else { return false }
                if Self.isDiscoveryPort(destination) { return true }
                return u32(upper &+ 8) == DiscoveryPrefilter.http
            case 6: return tcp(at: upper)
            case 1: return icmp(at: upper, type: 3)
            default: return false
            }
        }

        /// A TCP header at `t`: SYN, RST or FIN set; PSH from port 8008; or a payload that starts
        /// a TLS handshake record whose first message type is below 3 (the decoder keeps
        /// ClientHello, 1, and ServerHello, 2), or `HTTP` or `GET `. BPF's order: flags, the
        /// source port, then the data offset and the payload bytes (the TLS byte, its type, and
        /// the payload's first four bytes as one word).
        @inlinable @inline(__always)
        func tcp(at t: Int) -> Bool {
            guard let flags = u8(t &+ 13) else { return false }
            if flags & 0x07 != 0 { return true }
            // Loaded after `flags`, so within the captured bytes.
            let base = base!
            let sourcePort = UInt16(bigEndian: base.loadUnaligned(fromByteOffset: t, as: UInt16.self))
            if sourcePort == 8008, flags & 0x08 != 0 { return true }
            let payload = t &+ Int(base.load(fromByteOffset: t &+ 12, as: UInt8.self) & 0xF0) >> 2
            guard let contentType = u8(payload) else { return false }
            if contentType == 0x16 {
                guard let handshake = u8(payload &+ 5) else { return false }
                if handshake < 3 { return true }
            }
            guard let word = u32(payload) else { return false }
            return word == DiscoveryPrefilter.http || word == DiscoveryPrefilter.get
        }

        /// An ICMP or ICMPv6 header at `i` whose type is `type` (destination unreachable).
        @inlinable @inline(__always)
        func icmp(at i: Int, type: UInt8) -> Bool {
            guard let found = u8(i) else { return false }
            return found == type
        }

        /// An IPv6 packet at `h`: UDP (next header 17) on a discovery port or with an `HTTP`
        /// payload, TCP (6) and ICMPv6 (58) of the connection phase, or a first next header
        /// other than those three.
        @inlinable @inline(__always)
        func ipv6(at h: Int) -> Bool {
            guard let next = u8(h &+ 6) else { return false }
            if next == 6 { return tcp(at: h &+ 40) }
            if next == 58 { return icmp(at: h &+ 40, type: 1) }
            guard next == 17 else { return true }
            guard let source = u16(h &+ 40) else { return false }
            if Self.isDiscoveryPort(source) { return true }
            guard let destination = u16(h &+ 42) else { return false }
            if Self.isDiscoveryPort(destination) { return true }
            return u32(h &+ 48) == DiscoveryPrefilter.http
        }
    }
}
