import Foundation
import PcapCapture
import Testing
import WireFormat

// pcapng written byte by byte: interfaces, sections, resolutions, block kinds, faults.

@Suite("Native pcapng reader")
struct PcapngReaderTests {
    typealias S = CaptureTestSupport
    typealias N = NativeReaderTests

    /// Two interfaces (Ethernet with a 128-byte snap length, Linux cooked v2 in nanoseconds), one
    /// packet on each and one more on the first.
    static func twoInterfaces(bigEndian: Bool) -> [UInt8] {
        var b = PcapngBuilder(bigEndian: bigEndian)
        b.sectionHeader([b.option(1, "section comment")])
        b.interface(linkType: 1, snapLength: 128, [b.option(2, "eth0"), b.option(3, "Wired")])
        b.interface(linkType: 276, snapLength: 0, [b.option(2, "any"), b.resolution(9)])
        b.enhancedPacket(interface: 0, timestamp: 1_795_992_591_250_000, N.frameA, [b.option(1, "first packet")])
        b.enhancedPacket(interface: 1, timestamp: 1_795_992_592_000_000_123, N.frameB, originalLength: 1_000)
        b.enhancedPacket(interface: 0, timestamp: 1_795_992_593_000_001, N.frameC)
        return b.bytes
    }

    @Test(
        "Interfaces with different link types, snap lengths and resolutions, in both byte orders",
        arguments: [false, true])
    func mixedInterfaces(bigEndian: Bool) throws {
        try N.open(Self.twoInterfaces(bigEndian: bigEndian)) { file in
            #expect(file.format == .pcapng)
            #expect(file.linkType == .ethernet)
            #expect(file.snapLength == 128)
            #expect(!file.nanosecondFile)
            let (read, count, end) = S.readAll(file)
            #expect(count == 3 && end == .endOfFile)
            #expect(read.map(\.0) == [1, 2, 3])
            #expect(read.map(\.1.interface) == [0, 1, 0])
            #expect(read.map(\.2) == [N.frameA, N.frameB, N.frameC])
            #expect(read[1].1.originalLength == 1_000)
            #expect(
                read.map(\.1.timestamp) == [
                    Timestamp(seconds: 1_795_992_591, nanoseconds: 250_000_000),
                    Timestamp(seconds: 1_795_992_592, nanoseconds: 123),
                    Timestamp(seconds: 1_795_992_593, nanoseconds: 1_000),
                ])
            let interfaces = file.interfaces
            #expect(interfaces.map(\.index) == [0, 1])
            #expect(interfaces.map(\.linkType) == [.ethernet, .linuxSLL2])
            #expect(interfaces.map(\.linkTypeName) == ["EN10MB", "LINUX_SLL2"])
            #expect(interfaces.map(\.snapLength) == [128, 0])
            #expect(interfaces.map(\.name) == ["eth0", "any"])
            #expect(interfaces.map(\.description) == ["Wired", nil])
            #expect(
                file.comments == [
                    CaptureComment(frame: nil, text: "section comment"), CaptureComment(frame: 1, text: "first packet"),
                ])
        }
    }

    @Test(
        "if_tsresol in powers of 10 and 2, up to 10^-19 and 2^-63",
        arguments: [
            // (if_tsresol, raw units, seconds, nanoseconds)
            (UInt8(6), UInt64(1_500_000), Int64(1), Int64(500_000_000)),
            (9, 1_795_992_591_123_456_789, 1_795_992_591, 123_456_789),
            (3, 12_345, 12, 345_000_000),
            (0, 42, 42, 0),
            (12, 1_000_000_000_001, 1, 0),
            (19, 12_345_678_901_234_567_890, 1, 234_567_890),
            (0x80 | 20, (5 << 20) + (1 << 19), 5, 500_000_000),
            (0x80 | 10, 1023, 0, 999_023_437),
            (0x80 | 63, 3 << 62, 1, 500_000_000),
            (0x80, 7, 7, 0),
        ] as [(UInt8, UInt64, Int64, Int64)])
    func resolutions(resolution: UInt8, raw: UInt64, seconds: Int64, nanoseconds: Int64) throws {
        for bigEndian in [false, true] {
            var b = PcapngBuilder(bigEndian: bigEndian)
            b.sectionHeader()
            b.interface(linkType: 1, [b.resolution(resolution)])
            b.enhancedPacket(interface: 0, timestamp: raw, N.frameA)
            try N.open(b.bytes) { file in
                let (read, _, end) = S.readAll(file)
                #expect(end == .endOfFile)
                #expect(read.first?.1.timestamp == Timestamp(seconds: seconds, nanoseconds: nanoseconds))
            }
        }
    }

    @Test(
        "if_tsresol finer than 2^-63 or 10^-19 is a fault, not an overflow",
        arguments: [UInt8(0x80 | 64), 20, 0xFF, 127])
    func impossibleResolution(resolution: UInt8) throws {
        var b = PcapngBuilder()
        b.sectionHeader()
        b.interface(linkType: 1)
        b.enhancedPacket(interface: 0, timestamp: 1, N.frameA)
        let offset = b.bytes.count
        b.interface(linkType: 1, [b.resolution(resolution)])
        b.enhancedPacket(interface: 1, timestamp: UInt64.max, N.frameA)
        try N.open(b.bytes) { file in
            let (read, _, end) = S.readAll(file)
            #expect(read.count == 1)
            #expect(file.fault?.byteOffset == Int64(offset))
            guard case .error = end else {
                Issue.record("expected .error, got \(end)")
                return
            }
        }
    }

    @Test("if_tsoffset adds whole seconds, negative ones included", arguments: [Int64(1_000), -5])
    func timestampOffset(offset: Int64) throws {
        var b = PcapngBuilder(bigEndian: true)
        b.sectionHeader()
        b.interface(linkType: 1, [b.offset(offset)])
        b.enhancedPacket(interface: 0, timestamp: 10_000_001, N.frameA)
        try N.open(b.bytes) { file in
            #expect(S.readAll(file).records.first?.1.timestamp == Timestamp(seconds: 10 + offset, nanoseconds: 1_000))
        }
    }

    @Test("Concatenated sections: own byte orders, interfaces numbered across them, frames continuing")
    func sections() throws {
        var first = PcapngBuilder()
        first.sectionHeader()
        first.interface(linkType: 1)
        first.enhancedPacket(interface: 0, timestamp: 1_000_000, N.frameA)
        var second = PcapngBuilder(bigEndian: true)
        second.sectionHeader()
        second.interface(linkType: 101)
        second.interface(linkType: 276, [second.option(2, "any")])
        second.enhancedPacket(interface: 1, timestamp: 2_000_000, N.frameB)
        second.enhancedPacket(interface: 0, timestamp: 3_000_000, S.mdns4)
        second.simplePacket(originalLength: N.frameC.count, N.frameC)  // interface 0 of the section
        try N.open(first.bytes + second.bytes) { file in
            let (read, count, end) = S.readAll(file)
            #expect(count == 4 && end == .endOfFile)
            #expect(read.map(\.0) == [1, 2, 3, 4])
            #expect(read.map(\.1.interface) == [0, 2, 1, 1])
            #expect(read.map(\.2) == [N.frameA, N.frameB, S.mdns4, N.frameC])
            #expect(file.interfaces.map(\.section) == [0, 1, 1])
            #expect(file.interfaces.map(\.linkType) == [.ethernet, .raw, .linuxSLL2])
            #expect(file.interfaces.map(\.linkTypeName) == ["EN10MB", "RAW", "LINUX_SLL2"])
        }
    }

    @Test("Simple Packet Blocks: the captured length is the original length cut to the snap length")
    func simplePackets() throws {
        var b = PcapngBuilder()
        b.sectionHeader()
        b.interface(linkType: 1, snapLength: 64)
        b.simplePacket(originalLength: N.frameA.count, Array(N.frameA.prefix(64)))
        b.simplePacket(originalLength: 42, Array(N.frameA.prefix(42)))
        try N.open(b.bytes) { file in
            let (read, _, end) = S.readAll(file)
            #expect(end == .endOfFile)
            #expect(read.map(\.1.capturedLength) == [64, 42])
            #expect(read.map(\.1.originalLength) == [N.frameA.count, 42])
            #expect(read.map(\.2) == [Array(N.frameA.prefix(64)), Array(N.frameA.prefix(42))])
        }
    }

    @Test("The obsolete Packet Block, Name Resolution, statistics, custom and unknown blocks")
    func otherBlocks() throws {
        var b = PcapngBuilder(bigEndian: true)
        b.sectionHeader()
        b.nameResolution()
        b.interface(linkType: 1)
        b.customAndUnknown()
        b.obsoletePacket(interface: 0, drops: 3, timestamp: 5_000_000, N.frameA)
        b.statistics(interface: 0, received: 10, ifDrop: 2, osDrop: 1)
        b.statistics(interface: 0, received: 12, ifDrop: 3, osDrop: 4)
        b.statistics(interface: 9, received: 1, ifDrop: 1, osDrop: 1)  // no such interface: ignored
        b.enhancedPacket(interface: 0, timestamp: 6_000_000, N.frameC)
        try N.open(b.bytes) { file in
            let (read, count, end) = S.readAll(file)
            #expect(count == 2 && end == .endOfFile)
            #expect(read.map(\.2) == [N.frameA, N.frameC])
            #expect(read.map(\.1.timestamp.seconds) == [5, 6])
            let i = try #require(file.interfaces.first)
            #expect(i.received == 12 && i.droppedByInterface == 3 && i.droppedByOS == 4)
        }
    }

    @Test("At most maximumComments comments are kept")
    func commentLimit() throws {
        var b = PcapngBuilder()
        b.sectionHeader()
        b.interface(linkType: 1)
        for i in 0...CaptureFile.maximumComments {
            b.enhancedPacket(interface: 0, timestamp: UInt64(i), N.frameC, [b.option(1, "c\(i)")])
        }
        try N.open(b.bytes) { file in
            #expect(S.readAll(file).count == CaptureFile.maximumComments + 1)
            #expect(file.comments.count == CaptureFile.maximumComments)
            #expect(file.comments.last == CaptureComment(frame: CaptureFile.maximumComments, text: "c999"))
        }
    }

    @Test("A pcapng file without interfaces opens and reads no records")
    func noInterfaces() throws {
        var b = PcapngBuilder()
        b.sectionHeader()
        try N.open(b.bytes) { file in
            #expect(file.interfaces.isEmpty)
            #expect(file.linkType == .ethernet)
            #expect(S.readAll(file).count == 0)
            #expect(file.end == .endOfFile)
        }
    }

    // MARK: Faults

    /// A good file of two packets, then `damage` applied at the end; returns the offset where
    /// the damage starts.
    static func damaged(_ damage: (inout PcapngBuilder) -> Void) -> (bytes: [UInt8], offset: Int) {
        var b = PcapngBuilder()
        b.sectionHeader()
        b.interface(linkType: 1)
        b.enhancedPacket(interface: 0, timestamp: 1, N.frameA)
        b.enhancedPacket(interface: 0, timestamp: 2, N.frameC)
        let offset = b.bytes.count
        damage(&b)
        b.enhancedPacket(interface: 0, timestamp: 3, N.frameA)
        return (b.bytes, offset)
    }

    struct Fault: Sendable, CustomTestStringConvertible {
        var name: String
        var truncated = false
        var damage: @Sendable (inout PcapngBuilder) -> Void
        var testDescription: String { name }
    }

    static let faults: [Fault] = [
        Fault(name: "unknown interface") { $0.enhancedPacket(interface: 7, timestamp: 3, N.frameA) },
        Fault(name: "trailing length differs") { b in
            b.enhancedPacket(interface: 0, timestamp: 3, N.frameA)
            b.bytes[b.bytes.count - 4] ^= 0x10
        },
        Fault(name: "length not a multiple of 4") { b in
            b.bytes += b.u32(6) + b.u32(13) + [UInt8](repeating: 0, count: 16)
        },
        Fault(name: "length below 12") { b in b.bytes += b.u32(6) + b.u32(8) + b.u32(8) },
        Fault(name: "4 GiB block") { b in b.bytes += b.u32(6) + b.u32(0xFFFF_FFF0) + [UInt8](repeating: 0, count: 64) },
        Fault(name: "bad byte-order magic in a later section") { b in
            b.bytes +=
                b.u32(0x0A0D_0D0A) + b.u32(28) + [0x12, 0x34, 0x56, 0x78] + [UInt8](repeating: 0, count: 12)
                + b.u32(28)
        },
        Fault(name: "captured length past the block") { b in
            b.block(6, b.u32(0) + b.u32(0) + b.u32(3) + b.u32(4000) + b.u32(4000) + [1, 2, 3, 4])
        },
        Fault(name: "enhanced packet block too short") { b in b.block(6, b.u32(0) + b.u32(0)) },
        Fault(name: "section of another major version") { b in
            b.block(0x0A0D_0D0A, b.u32(0x1A2B_3C4D) + b.u16(2) + b.u16(0) + b.u64(UInt64.max))
        },
        Fault(name: "simple packet in a section without interfaces") { b in
            b.sectionHeader()
            b.simplePacket(originalLength: 4, [1, 2, 3, 4])
        },
    ]

    @Test("A damaged block ends reading there, with its frame and byte offset", arguments: faults)
    func fault(_ f: Fault) throws {
        var (bytes, offset) = Self.damaged(f.damage)
        if f.name == "simple packet in a section without interfaces" { offset += 28 }  // after the new SHB
        try N.open(bytes) { file in
            let (read, count, end) = S.readAll(file)
            #expect(read.map(\.2) == [N.frameA, N.frameC], "everything before the fault is delivered")
            #expect(count == 2)
            let fault = try #require(file.fault)
            #expect(fault.frame == 3)
            #expect(fault.byteOffset == Int64(offset))
            #expect(fault.message.contains("frame 3") && fault.message.contains("byte offset \(offset)"), "\(fault)")
            switch end {
            case .error(let m): #expect(!f.truncated && m == fault.message)
            case .truncated(let m): #expect(f.truncated && m == fault.message)
            case .endOfFile: Issue.record("\(f.name): read to the end")
            }
        }
    }

    @Test("A file cut inside a block is truncated, not damaged", arguments: [1, 9, 30])
    func cutBlock(chop: Int) throws {
        let (bytes, offset) = Self.damaged { _ in }
        let cut = Array(bytes.dropLast(chop))
        try N.open(cut) { file in
            let (read, _, end) = S.readAll(file)
            #expect(read.count == 2)
            #expect(file.fault?.byteOffset == Int64(offset))
            guard case .truncated(let message) = end else {
                Issue.record("expected .truncated, got \(end)")
                return
            }
            #expect(message.contains("frame 3"))
        }
    }

    @Test("The filters work per interface link type")
    func filterPerLinkType() throws {
        try N.open(Self.twoInterfaces(bigEndian: false)) { file in
            try file.setFilter("udp port 5353")
            // Frames 1 (Ethernet) and 2 (SLL2) are mDNS; frame 3 is ARP.
            #expect(S.readAll(file).records.map(\.0) == [1, 2])
        }
        try N.open(Self.twoInterfaces(bigEndian: true)) { file in
            try file.setDiscoveryPrefilter()
            // The prefilter may drop the ARP frame, never the mDNS ones, and counts it either way.
            let kept = S.readAll(file).records.map(\.0)
            #expect(kept == [1, 2] || kept == [1, 2, 3])
            #expect(file.recordsRead == 3)
            #expect(file.firstTimestamp?.seconds == 1_795_992_591 && file.lastTimestamp?.seconds == 1_795_992_593)
        }
    }
}
