import Foundation

// pcapng files written byte by byte, in either byte order, for the reader's tests: blocks the
// tools here do not write (big-endian sections, if_tsresol in powers of 2, SPB, the obsolete
// Packet Block, statistics, custom blocks) and damaged ones.

struct PcapngBuilder {
    var bigEndian = false
    var bytes: [UInt8] = []

    init(bigEndian: Bool = false) { self.bigEndian = bigEndian }

    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? CaptureTestSupport.be16(v) : CaptureTestSupport.le16(v) }
    func u32(_ v: UInt32) -> [UInt8] { bigEndian ? CaptureTestSupport.be32(v) : CaptureTestSupport.le32(v) }
    func u64(_ v: UInt64) -> [UInt8] {
        let halves = [UInt32(v >> 32), UInt32(v & 0xFFFF_FFFF)]
        return bigEndian ? halves.flatMap(u32) : halves.reversed().flatMap(u32)
    }

    static func padded(_ b: [UInt8]) -> [UInt8] { b + [UInt8](repeating: 0, count: (4 - b.count % 4) % 4) }

    /// One option (code, length, value padded to 4 bytes).
    func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        u16(code) + u16(UInt16(value.count)) + Self.padded(value)
    }
    func option(_ code: UInt16, _ text: String) -> [UInt8] { option(code, Array(text.utf8)) }
    /// Options followed by opt_endofopt, or nothing when there are none.
    func options(_ list: [[UInt8]]) -> [UInt8] { list.isEmpty ? [] : list.flatMap { $0 } + u32(0) }

    /// A block: type, total length, body (padded), total length.
    mutating func block(_ type: UInt32, _ body: [UInt8]) {
        let body = Self.padded(body)
        let length = UInt32(12 + body.count)
        bytes += u32(type) + u32(length) + body + u32(length)
    }

    mutating func sectionHeader(_ opts: [[UInt8]] = []) {
        // The type is the same in both orders; the byte-order magic is written in this order.
        block(0x0A0D_0D0A, u32(0x1A2B_3C4D) + u16(1) + u16(0) + u64(UInt64.max) + options(opts))
    }

    mutating func interface(linkType: UInt16, snapLength: UInt32 = 262_144, _ opts: [[UInt8]] = []) {
        block(1, u16(linkType) + u16(0) + u32(snapLength) + options(opts))
    }

    mutating func enhancedPacket(
        interface: UInt32, timestamp: UInt64, _ data: [UInt8], originalLength: Int? = nil, _ opts: [[UInt8]] = []
    ) {
        block(
            6,
            u32(interface) + u32(UInt32(timestamp >> 32)) + u32(UInt32(timestamp & 0xFFFF_FFFF))
                + u32(UInt32(data.count)) + u32(UInt32(originalLength ?? data.count)) + Self.padded(data)
                + options(opts))
    }

    mutating func obsoletePacket(interface: UInt16, drops: UInt16, timestamp: UInt64, _ data: [UInt8]) {
        block(
            2,
            u16(interface) + u16(drops) + u32(UInt32(timestamp >> 32)) + u32(UInt32(timestamp & 0xFFFF_FFFF))
                + u32(UInt32(data.count)) + u32(UInt32(data.count)) + Self.padded(data))
    }

    /// A Simple Packet Block: the original length, then as many bytes as were captured.
    mutating func simplePacket(originalLength: Int, _ captured: [UInt8]) {
        block(3, u32(UInt32(originalLength)) + Self.padded(captured))
    }

    mutating func statistics(interface: UInt32, received: UInt64, ifDrop: UInt64, osDrop: UInt64) {
        block(
            5,
            u32(interface) + u32(0) + u32(0)
                + options([option(4, u64(received)), option(5, u64(ifDrop)), option(7, u64(osDrop))]))
    }

    /// A Name Resolution Block with one IPv4 record and the end-of-records record.
    mutating func nameResolution() {
        let record = [192, 0, 2, 1] + Array("tv.local".utf8) + [0]
        block(4, u16(1) + u16(UInt16(record.count)) + Self.padded(record) + u16(0) + u16(0))
    }

    /// A custom block (copiable, with a private enterprise number) and a block of unknown type.
    mutating func customAndUnknown() {
        block(0x0000_0BAD, u32(32_473) + [1, 2, 3, 4, 5])
        block(0x0000_0FFF, [9, 9, 9, 9])
    }

    /// Timestamp resolution option: `byte` as if_tsresol.
    func resolution(_ byte: UInt8) -> [UInt8] { option(9, [byte]) }
    /// if_tsoffset, signed seconds.
    func offset(_ seconds: Int64) -> [UInt8] { option(14, u64(UInt64(bitPattern: seconds))) }
}
