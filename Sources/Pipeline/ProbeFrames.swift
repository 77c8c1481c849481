import WireFormat

/// Linux cooked frames (LINKTYPE_LINUX_SLL) standing for what the probe's sockets sent and received, when
/// it cannot capture: the analysis then judges the same exchange, from the sockets' view. They
/// carry what the sockets know (addresses, ports, the TTL the kernel reported, the payload)
/// and are never written to a file.
///
/// Linux cooked rather than raw IP so that the frames this host sent carry its MAC, as a
/// capture's would: the report then joins its IPv4 and IPv6 queries into one client. Frames
/// received carry no MAC (the socket does not say it), so no rule judges a device by one.
enum ProbeFrames {
    /// `ip` (an IPv4 or IPv6 packet) behind a Linux cooked header: sent by this host from `mac`
    /// (packet type 4, outgoing), or received (type 0, no address).
    static func cooked(_ ip: [UInt8], sentFrom mac: MACAddress?) -> [UInt8] {
        guard let first = ip.first else { return [] }
        var out: [UInt8] = []
        put16(mac != nil ? 4 : 0, &out)
        put16(1, &out)  // ARPHRD_ETHER
        put16(mac != nil ? 6 : 0, &out)
        for k in 0..<8 {
            out.append(k < 6 ? UInt8(truncatingIfNeeded: (mac?.rawValue ?? 0) >> (40 - 8 * UInt64(k))) : 0)
        }
        put16(first >> 4 == 6 ? 0x86DD : 0x0800, &out)
        return out + ip
    }

    /// A UDP datagram in IPv4 or IPv6.
    static func udp(
        source: IPAddress, destination: IPAddress, sourcePort: UInt16, destinationPort: UInt16, hopLimit: UInt8,
        payload: [UInt8]
    ) -> [UInt8] {
        var udp: [UInt8] = []
        put16(sourcePort, &udp)
        put16(destinationPort, &udp)
        put16(UInt16(truncatingIfNeeded: 8 + payload.count), &udp)
        put16(0, &udp)  // no checksum: the decoder does not check it, and IPv4 allows none
        return ip(source: source, destination: destination, protocol: 17, hopLimit: hopLimit, payload: udp + payload)
    }

    /// A TCP segment with `flags` (SYN 0x02, RST 0x04, ACK 0x10, PSH 0x08, FIN 0x01).
    static func tcp(
        source: IPAddress, destination: IPAddress, sourcePort: UInt16, destinationPort: UInt16, flags: UInt8,
        sequence: UInt32, acknowledgment: UInt32, payload: [UInt8] = []
    ) -> [UInt8] {
        var tcp: [UInt8] = []
        put16(sourcePort, &tcp)
        put16(destinationPort, &tcp)
        put32(sequence, &tcp)
        put32(acknowledgment, &tcp)
        tcp += [0x50, flags]  // 20-byte header
        put16(65535, &tcp)
        put16(0, &tcp)
        put16(0, &tcp)
        return ip(source: source, destination: destination, protocol: 6, hopLimit: 64, payload: tcp + payload)
    }

    /// The first bytes of a TLS handshake record holding a ClientHello (1) or ServerHello (2):
    /// all the decoder reads of one.
    static func tlsHello(_ type: UInt8) -> [UInt8] {
        [22, 3, 1, 0, 4, type, 0, 0, 0]
    }

    static func ip(source: IPAddress, destination: IPAddress, protocol p: UInt8, hopLimit: UInt8, payload: [UInt8])
        -> [UInt8]
    {
        var out: [UInt8] = []
        switch (source, destination) {
        case (.v4(let s), .v4(let d)):
            out = [0x45, 0]
            put16(UInt16(truncatingIfNeeded: 20 + payload.count), &out)
            out += [0, 0, 0x40, 0, hopLimit, p, 0, 0]  // DF, checksum below
            put32(s.rawValue, &out)
            put32(d.rawValue, &out)
            var sum: UInt32 = 0
            for k in stride(from: 0, to: 20, by: 2) { sum += UInt32(out[k]) << 8 | UInt32(out[k + 1]) }
            while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
            let checksum = ~UInt16(sum)
            out[10] = UInt8(checksum >> 8)
            out[11] = UInt8(checksum & 0xFF)
        case (.v6(let s), .v6(let d)):
            out = [0x60, 0, 0, 0]
            put16(UInt16(truncatingIfNeeded: payload.count), &out)
            out += [p, hopLimit]
            for a in [s, d] {
                put32(UInt32(truncatingIfNeeded: a.high >> 32), &out)
                put32(UInt32(truncatingIfNeeded: a.high), &out)
                put32(UInt32(truncatingIfNeeded: a.low >> 32), &out)
                put32(UInt32(truncatingIfNeeded: a.low), &out)
            }
        default:
            return []
        }
        return out + payload
    }

    static func put16(_ v: UInt16, _ out: inout [UInt8]) { out += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func put32(_ v: UInt32, _ out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
