import Testing
import WireFormat

// IPv4 and UDP headers are read with one bounds check when the whole fixed header is there, and
// field by field otherwise (so that a fault names its field and byte). These tests pin both
// paths: the fields of a whole header, and, for every shorter or invalid header, the exact
// error the field-by-field reading gives, at frame-relative offsets.

@Suite("IPv4 and UDP header fast paths")
struct IPHeaderFastPathTests {
    /// An IPv4 header (TTL 255, UDP, 192.0.2.21 → 224.0.0.251, id 0x1234, DF), a UDP header
    /// (5353 → 5353, length 12) and four payload bytes, behind 6 bytes of something else.
    static let prefix = 6
    static let frame: [UInt8] =
        [UInt8](repeating: 0xEE, count: prefix) + [
            0x45, 0x00, 0x00, 0x20, 0x12, 0x34, 0x40, 0x00, 0xFF, 0x11, 0x00, 0x00,
            0xC0, 0x00, 0x02, 0x15, 0xE0, 0x00, 0x00, 0xFB,
            0x14, 0xE9, 0x14, 0xE9, 0x00, 0x0C, 0x00, 0x00,
            0xDE, 0xAD, 0xBE, 0xEF,
        ]

    static func decodeIPv4(_ bytes: [UInt8], count: Int? = nil) -> Result<IPPacket, DecodeError> {
        bytes.withUnsafeBytes { raw in
            let cut = UnsafeRawBufferPointer(rebasing: raw[prefix..<(prefix + (count ?? raw.count - prefix))])
            return Result { () throws(DecodeError) in try IPPacket.decodeIPv4(ByteCursor(cut, base: prefix)) }
        }
    }

    @Test("a whole header gives every field and the payload's frame position")
    func wholeHeader() throws {
        let ip = try Self.decodeIPv4(Self.frame).get()
        #expect(ip.version == 4)
        #expect(ip.source == IPAddress("192.0.2.21"))
        #expect(ip.destination == IPAddress("224.0.0.251"))
        #expect(ip.ttl == 255)
        #expect(ip.proto == .udp)
        #expect(ip.fragment == nil)
        #expect(!ip.truncated)
        #expect(ip.payload.position == Self.prefix + 20)
        #expect(ip.payload.remaining == 12)
        let udp = try UDPDatagram.decode(ip.payload)
        #expect(udp.sourcePort == 5353 && udp.destinationPort == 5353 && udp.length == 12)
        #expect(!udp.truncated)
        #expect(udp.payload.position == Self.prefix + 28 && udp.payload.remaining == 4)
    }

    @Test("a fragment's offset and flags are read on the fast path")
    func fragmentFields() throws {
        var bytes = Self.frame
        bytes[Self.prefix + 6] = 0x21  // MF, offset 0x0102 × 8
        bytes[Self.prefix + 7] = 0x02
        let ip = try Self.decodeIPv4(bytes).get()
        #expect(ip.fragment?.moreFragments == true)
        #expect(ip.fragment?.offset == 0x0102 * 8)
        #expect(ip.fragment?.identification == 0x1234)
    }

    /// The fields of the fixed IPv4 header in reading order: start and size.
    static let ipv4Fields = [(0, 1), (1, 1), (2, 2), (4, 2), (6, 2), (8, 1), (9, 1), (10, 2), (12, 4), (16, 4)]

    @Test("a header cut short names the field it ends in", arguments: 0..<20)
    func truncatedIPv4(length: Int) {
        let (start, size) = Self.ipv4Fields.first { $0.0 + $0.1 > length }!
        let expected = DecodeError.truncated(offset: Self.prefix + start, needed: size, available: length - start)
        #expect(throws: expected) { try Self.decodeIPv4(Self.frame, count: length).get() }
    }

    @Test("a wrong version, a short header length or total length is named, whole or cut short")
    func invalidIPv4() {
        for count in [nil, 19] as [Int?] {
            var bytes = Self.frame
            bytes[Self.prefix] = 0x65
            #expect(throws: DecodeError.invalid(offset: Self.prefix, field: .ipVersion(6))) {
                try Self.decodeIPv4(bytes, count: count).get()
            }
            bytes[Self.prefix] = 0x44
            #expect(throws: DecodeError.invalid(offset: Self.prefix, field: .ipv4HeaderLength(16))) {
                try Self.decodeIPv4(bytes, count: count).get()
            }
        }
        var bytes = Self.frame
        bytes[Self.prefix + 3] = 0x13
        #expect(throws: DecodeError.invalid(offset: Self.prefix + 2, field: .ipv4TotalLength(19))) {
            try Self.decodeIPv4(bytes).get()
        }
        // Options announced but not captured: the header length runs past the bytes.
        bytes = Self.frame
        bytes[Self.prefix] = 0x4F
        bytes[Self.prefix + 3] = 0x40
        #expect(throws: DecodeError.truncated(offset: Self.prefix, needed: 60, available: 32)) {
            try Self.decodeIPv4(bytes).get()
        }
    }

    static func decodeUDP(_ bytes: [UInt8], count: Int) -> Result<UDPDatagram, DecodeError> {
        bytes.withUnsafeBytes { raw in
            let start = prefix + 20
            let cut = UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)])
            return Result { () throws(DecodeError) in try UDPDatagram.decode(ByteCursor(cut, base: start)) }
        }
    }

    @Test("a UDP header cut short names the field it ends in", arguments: 0..<8)
    func truncatedUDP(length: Int) {
        let start = length / 2 * 2
        let expected = DecodeError.truncated(offset: Self.prefix + 20 + start, needed: 2, available: length - start)
        #expect(throws: expected) { try Self.decodeUDP(Self.frame, count: length).get() }
    }

    @Test("a UDP length below 8 is named at its field; one past the bytes is marked truncated")
    func udpLength() throws {
        var bytes = Self.frame
        bytes[Self.prefix + 25] = 0x07
        #expect(throws: DecodeError.invalid(offset: Self.prefix + 24, field: .udpLength(7))) {
            try Self.decodeUDP(bytes, count: 12).get()
        }
        bytes[Self.prefix + 25] = 0x20
        let udp = try Self.decodeUDP(bytes, count: 12).get()
        #expect(udp.truncated && udp.length == 32 && udp.payload.remaining == 4)
    }
}
