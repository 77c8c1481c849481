import Testing

@testable import WireFormat

// DNSMessageView.copy(to:): a checked view moved into memory of its own (the pipelined reader
// hands views between threads this way) must read exactly as the original did, after the read
// buffer and the index it was checked with have gone on to other messages.

@Suite("A checked view copied out of its buffer")
struct MessageViewCopyTests {
    /// Everything a reader can see of a view: header, counts, each question and record with
    /// its expanded name and rdata, the stamp.
    struct Seen: Equatable {
        var id: UInt16
        var flags: UInt16
        var base: Int
        var offset: Int
        var counts: [Int]
        var stamp: UInt64?
        var bytes: [UInt8]
        var questions: [[UInt8]] = []
        var records: [[UInt8]] = []

        init(_ v: DNSMessageView) {
            id = v.id
            flags = v.flags
            base = v.message.base
            offset = v.message.offset
            let c = v.decodedCounts
            counts = [c.0, c.1, c.2, c.3]
            stamp = v.messageStamp
            bytes = Array(v.message.bytes)
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
            defer { scratch.deallocate() }
            var qs: [[UInt8]] = []
            v.forEachQuestion { q in
                qs.append(
                    Array(v.name(at: q.nameOffset, into: scratch)) + [
                        UInt8(q.type.rawValue & 0xFF), UInt8(q.rawClass >> 8),
                    ])
            }
            var rs: [[UInt8]] = []
            v.forEachRecord { r in
                rs.append(
                    Array(v.name(at: r.nameOffset, into: scratch)) + [UInt8(r.section == .answer ? 1 : 2)]
                        + withUnsafeBytes(of: r.ttl) { Array($0) } + Array(v.rdata(r)))
            }
            questions = qs
            records = rs
        }
    }

    /// A response with `records` PTR answers and one question (more than the index holds when
    /// `records` > 64: the view then reads them from the bytes).
    static func response(records: Int, id: UInt16) -> [UInt8] {
        var b: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x84, 0x00, 0, 1]
        b += [UInt8(records >> 8), UInt8(records & 0xFF), 0, 0, 0, 0]
        b += Fixtures.wireName("_googlecast._tcp.local") + [0, 12, 0, 1]
        for i in 0..<records {
            b += [0xC0, 12, 0, 12, 0, 1, 0, 0, 0x11, UInt8(i & 0xFF)]
            let target = [UInt8(3)] + Array(String(format3(i)).utf8) + [0xC0, 12]
            b += [0, UInt8(target.count)] + target
        }
        return b
    }

    static func format3(_ i: Int) -> String {
        let s = String(i % 1000)
        return String(repeating: "0", count: 3 - s.count) + s
    }

    @Test("a copy reads as the original, after the buffer and the index are reused", arguments: [0, 1, 5, 64, 65, 200])
    func copyOutlivesItsBuffer(_ records: Int) throws {
        let index = DNSMessageIndex()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        let destination = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: DNSMessageView.copyAlignment)
        defer { destination.deallocate() }
        let message = Self.response(records: records, id: 0x1234)
        buffer.copyBytes(from: message)
        let raw = UnsafeRawBufferPointer(rebasing: buffer[0..<message.count])
        let (view, error) = DNSMessageView.check(ByteCursor(raw, base: 42), index: index)
        #expect(error == nil)
        let v = try #require(view)
        #expect(v.copyByteCount >= message.count && v.copyByteCount <= 1 << 16)
        #expect((v.indexedRecords != nil) == (records <= DNSMessageIndex.capacity))
        let original = Seen(v)
        #expect(original.records.count == records)
        let copy = v.copy(to: destination)
        #expect(Seen(copy) == original)
        // The index checks another message in the same buffer: the original view now reads
        // the other message's questions and records, the copy must still read its own.
        let other = Self.response(records: 3, id: 0x9999)
        buffer.copyBytes(from: other)
        _ = DNSMessageView.check(ByteCursor(UnsafeRawBufferPointer(rebasing: buffer[0..<other.count])), index: index)
        for i in other.count..<buffer.count { buffer[i] = 0xEE }
        #expect(Seen(copy) == original)
        #expect(Seen(v) != original)
    }

    @Test("a message recalled from the memo copies with its stamp")
    func recalledCopyKeepsTheStamp() throws {
        let index = DNSMessageIndex()
        let bytes = Self.response(records: 4, id: 7)
        let destination = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: DNSMessageView.copyAlignment)
        defer { destination.deallocate() }
        try bytes.withUnsafeBytes { raw in
            let first = try #require(DNSMessageView.check(ByteCursor(raw), index: index).view)
            let recalled = try #require(DNSMessageView.check(ByteCursor(raw), index: index).view)
            #expect(first.messageStamp != nil)
            #expect(recalled.messageStamp == first.messageStamp)
            let copy = recalled.copy(to: destination)
            #expect(copy.messageStamp == first.messageStamp)
            #expect(Seen(copy) == Seen(first))
        }
    }
}
