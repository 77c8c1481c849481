import Foundation
import PcapCapture
import Testing
import WireFormat

// The native reader on hand-built files: classic pcap variants, pcapng blocks and options in
// both byte orders, several sections, timestamp resolutions, and every kind of fault.

@Suite("Native capture reader")
struct NativeReaderTests {
    typealias S = CaptureTestSupport

    static let frameA = S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4)
    static let frameB = S.sll2(0x86DD, S.mdns6)
    static let frameC = S.arp

    /// Writes `bytes` to a temporary file and opens it.
    static func open(_ bytes: [UInt8], _ body: (CaptureFile) throws -> Void) throws {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("t.cap")
            try S.writeFile(url, bytes)
            try body(try CaptureFile(path: url.path))
        }
    }

    static func openError(_ bytes: [UInt8]) throws -> PcapError? {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("t.cap")
            try S.writeFile(url, bytes)
            do throws(PcapError) {
                _ = try CaptureFile(path: url.path)
                return nil
            } catch {
                return error
            }
        }
    }

    // MARK: Classic pcap

    /// A classic pcap with any magic, byte order, snap length and link-type field.
    static func pcap(
        magic: UInt32 = 0xA1B2_C3D4, bigEndian: Bool = false, snapLength: UInt32 = 65_535, linkField: UInt32 = 1,
        records: [(sec: UInt32, frac: UInt32, bytes: [UInt8], caplen: UInt32?)]
    ) -> [UInt8] {
        let u16 = bigEndian ? S.be16 : S.le16
        let u32 = bigEndian ? S.be32 : S.le32
        let modified = magic == 0xA1B2_CD34
        var out = u32(magic) + u16(2) + u16(4) + u32(0) + u32(0) + u32(snapLength) + u32(linkField)
        for r in records {
            out += u32(r.sec) + u32(r.frac) + u32(r.caplen ?? UInt32(r.bytes.count)) + u32(UInt32(r.bytes.count))
            if modified { out += u32(7) + u16(0x0800) + [0, 0] }
            out += r.bytes
        }
        return out
    }

    @Test(
        "Classic pcap: µs, ns and modified magics in both byte orders",
        arguments: [
            (UInt32(0xA1B2_C3D4), false), (0xA1B2_C3D4, true), (0xA1B2_3C4D, false), (0xA1B2_3C4D, true),
            (0xA1B2_CD34, false), (0xA1B2_CD34, true),
        ])
    func classicVariants(magic: UInt32, bigEndian: Bool) throws {
        let bytes = Self.pcap(
            magic: magic, bigEndian: bigEndian,
            records: [(1_795_992_591, 123_456, Self.frameA, nil), (4_000_000_000, 7, Self.frameC, nil)])
        try Self.open(bytes) { file in
            let nano = magic == 0xA1B2_3C4D
            #expect(file.format == .pcap)
            #expect(file.nanosecondFile == nano)
            #expect(file.snapLength == 65_535)
            #expect(file.interfaces.count == 1)
            let (read, count, end) = S.readAll(file)
            #expect(count == 2 && end == .endOfFile)
            #expect(read.map(\.2) == [Self.frameA, Self.frameC])
            let scale: Int64 = nano ? 1 : 1000
            #expect(
                read.map(\.1.timestamp) == [
                    Timestamp(seconds: 1_795_992_591, nanoseconds: 123_456 * scale),
                    Timestamp(seconds: 4_000_000_000, nanoseconds: 7 * scale),
                ])
            #expect(read.allSatisfy { $0.1.interface == 0 })
        }
    }

    @Test("The FCS-length bits of the link-type field are masked off, as libpcap does")
    func fcsBits() throws {
        // LT_FCS_LENGTH_PRESENT (bit 26) with an FCS length of 4 (bits 28-31) on Ethernet.
        try Self.open(Self.pcap(linkField: 0x4400_0001, records: [(1, 0, Self.frameA, nil)])) { file in
            #expect(file.linkType == .ethernet)
            #expect(file.linkTypeName == "EN10MB")
            #expect(S.readAll(file).count == 1)
        }
    }

    @Test("A record longer than the snapshot length is a fault naming its frame and byte offset")
    func caplenOverSnaplen() throws {
        let bytes = Self.pcap(
            snapLength: 96,
            records: [
                (1, 0, Array(Self.frameA.prefix(60)), nil), (2, 0, Self.frameA + [UInt8](repeating: 0, count: 50), nil),
                (3, 0, Self.frameC, nil),
            ])
        try Self.open(bytes) { file in
            let (read, count, end) = S.readAll(file)
            #expect(read.map(\.0) == [1])
            #expect(count == 1)
            let offset = Int64(24 + 16 + 60)
            #expect(file.fault?.frame == 2)
            #expect(file.fault?.byteOffset == offset)
            guard case .error(let message) = end else {
                Issue.record("expected .error, got \(end)")
                return
            }
            #expect(message.contains("frame 2") && message.contains("byte offset \(offset)"), "\(message)")
            #expect(message == file.fault?.message)
        }
    }

    @Test("Snapshot length 0 bounds records by the link type's largest (256 KiB)")
    func snaplenZero() throws {
        let big = [UInt8](repeating: 0x5A, count: 262_144)
        let bytes = Self.pcap(snapLength: 0, records: [(1, 0, big, nil), (2, 0, big + [0], nil)])
        try Self.open(bytes) { file in
            let (read, _, end) = S.readAll(file)
            #expect(read.map(\.2) == [big])
            guard case .error = end else {
                Issue.record("a 262145-byte record should be rejected, got \(end)")
                return
            }
        }
    }

    @Test("A record larger than the buffer grows it; one past the 16 MiB limit is a fault")
    func bufferGrowth() throws {
        let large = (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let bytes = Self.pcap(
            snapLength: 0xFFFF_FFFF,
            records: [
                (1, 0, Self.frameA, nil), (2, 0, large, nil), (3, 0, Self.frameC, nil),
                (4, 0, [], UInt32(17 << 20)),
            ])
        try Self.open(bytes) { file in
            let (read, _, end) = S.readAll(file)
            #expect(read.map(\.0) == [1, 2, 3])
            #expect(read.map(\.2) == [Self.frameA, large, Self.frameC])
            #expect(file.fault?.frame == 4)
            guard case .error(let message) = end else {
                Issue.record("expected .error, got \(end)")
                return
            }
            #expect(message.contains("16 MiB"), "\(message)")
        }
    }

    @Test("Records straddling buffer refills, read from a pipe in small writes, are all intact")
    func straddlingThroughAPipe() throws {
        var records: [(sec: UInt32, frac: UInt32, bytes: [UInt8], caplen: UInt32?)] = []
        var size = 0
        var i = 0
        while size < 9 << 20 {  // more than two buffers
            let n = (i &* 7919) % 3000
            records.append((UInt32(i), UInt32(i % 1_000_000), (0..<n).map { UInt8(truncatingIfNeeded: $0 ^ i) }, nil))
            size += 16 + n
            i += 1
        }
        let bytes = Self.pcap(records: records)
        let pipe = Pipe()
        let writer = Thread {
            let handle = pipe.fileHandleForWriting
            var at = 0
            while at < bytes.count {
                let n = min(4093, bytes.count - at)
                handle.write(Data(bytes[at..<(at + n)]))
                at += n
            }
            try? handle.close()
        }
        writer.start()
        let file = try CaptureFile(path: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)")
        var frames = 0
        var mismatches = 0
        let (count, end) = file.forEachRecord { frame, header, data in
            let r = records[frame - 1]
            if Array(data) != r.bytes || header.timestamp.seconds != Int64(r.sec) { mismatches += 1 }
            frames += 1
        }
        #expect(count == records.count && frames == records.count)
        #expect(mismatches == 0)
        #expect(end == .endOfFile)
        #expect(file.fileSize == nil)
    }

    // MARK: Opening errors

    @Test("Empty input is one clear line")
    func emptyInput() throws {
        let error = try #require(try Self.openError([]))
        #expect(error.kind == .notACapture)
        #expect(error.message == "is empty (0 bytes): not a capture file")
    }

    @Test("An unknown format names what its first bytes look like")
    func unknownFormat() throws {
        let bytes = Array("<!DOCTYPE html>\n<html></html>\n".utf8)
        let error = try #require(try Self.openError(bytes))
        #expect(error.kind == .notACapture)
        #expect(
            error.message == "is not a pcap or pcapng capture: its first bytes look like \(FileKind.describe(bytes))")
        #expect(!error.description.contains("\n"))
    }

    @Test("A pcapng file cut inside its section header cannot be opened")
    func pcapngHeaderCut() throws {
        var b = PcapngBuilder()
        b.sectionHeader()
        let error = try #require(try Self.openError(Array(b.bytes.prefix(20))))
        #expect(error.kind == .notACapture)
        #expect(error.message.contains("pcapng"), "\(error)")
    }
}
