import Foundation
import Testing
import WireFormat

@testable import PcapCapture

// The read-ahead thread (RecordBuffer, ReadAhead) against the reader without it: with buffers a
// few hundred bytes long, records straddle slots, outgrow the headroom and the slots, and the
// same records, offsets, errors, byte counts and end must come out either way.

@Suite("Read-ahead")
struct ReadAheadTests {
    typealias S = CaptureTestSupport

    /// Tiny buffers and a thread: every path of ``RecordBuffer/refillAhead``.
    static let ahead = RecordBuffer.Sizes(first: 96, full: 300, slot: 256, headroom: 128, slots: 3, readAhead: .always)
    /// The same sizes without the thread.
    static let alone = RecordBuffer.Sizes(first: 96, full: 300, slot: 256, headroom: 128, slots: 3, readAhead: .never)

    /// A deterministic classic pcap of `count` records: mostly short, some longer than the
    /// headroom, some longer than a slot, and a few empty.
    static func capture(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var out = S.le32(0xA1B2_C3D4) + S.le16(2) + S.le16(4) + S.le32(0) + S.le32(0) + S.le32(65_535) + S.le32(1)
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for i in 0..<count {
            let pick = next() % 20
            let length =
                switch pick {
                case 0: 0
                case 1: 129 + Int(next() % 100)  // past the headroom
                case 2: 600 + Int(next() % 1500)  // past a slot
                default: 14 + Int(next() % 90)
                }
            out += S.le32(UInt32(i)) + S.le32(UInt32(next() % 1_000_000)) + S.le32(UInt32(length))
            out += S.le32(UInt32(length + 4))
            for _ in 0..<length { out.append(UInt8(truncatingIfNeeded: next())) }
        }
        return out
    }

    /// What a reading gives: every record, how it ended, where, and the source's byte count.
    struct Reading: Equatable {
        var records: [String] = []
        var end: ReadEnd?
        var fault: ReadFault?
        var recordsRead = 0
        var bytesRead: Int64?
    }

    static func read(_ source: any ByteSource, _ sizes: RecordBuffer.Sizes, limit: Int? = nil) -> (Reading, Bool) {
        var reading = Reading()
        do throws(PcapError) {
            let file = try CaptureFile(source: source, path: "test", sizes: sizes)
            file.recordLimit = limit
            file.forEachRecord { frame, header, bytes in
                let sum = bytes.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
                reading.records.append("\(frame) \(header.timestamp) \(header.capturedLength) \(sum)")
            }
            reading.end = file.end
            reading.fault = file.fault
            reading.recordsRead = file.recordsRead
            reading.bytesRead = file.bytesRead
            return (reading, file.readAheadStarted)
        } catch {
            reading.end = .error("open: \(error)")
            return (reading, false)
        }
    }

    /// Whether a stream of `count` bytes must start the thread with ``ahead``'s sizes: it does
    /// once the full buffer (300 bytes) has been read and needs refilling.
    static func threads(_ count: Int) -> Bool? { count > 1000 ? true : count < 200 ? false : nil }

    /// Reads a stream with and without the thread (sources made by `make`) and checks that
    /// both agree, and that the thread ran when the stream is long enough to need it. The byte
    /// count is the same at the end of the stream; before it (a fault, the record limit) each
    /// counts the bytes it had read, at least up to where it stopped.
    static func agree(_ make: () -> any ByteSource, limit: Int? = nil, threads: Bool? = true) -> Reading {
        var (alone, aloneThreaded) = read(make(), Self.alone, limit: limit)
        var (ahead, threaded) = read(make(), Self.ahead, limit: limit)
        #expect(!aloneThreaded)
        if let threads { #expect(threaded == threads) }
        if ahead.end != .endOfFile, let a = ahead.bytesRead, let b = alone.bytesRead {
            let stop = Int64(ahead.fault?.byteOffset ?? 0)
            #expect(a >= stop && b >= stop)
            ahead.bytesRead = nil
            alone.bytesRead = nil
        }
        #expect(ahead == alone)
        return ahead
    }

    @Test("Records, offsets and the end agree with and without the thread", arguments: [Int.max, 1000, 77, 5])
    func wholeFile(chunk: Int) {
        let bytes = Self.capture(count: 3000)
        let reading = Self.agree { MemorySource(bytes, chunk: chunk) }
        #expect(reading.records.count == 3000)
        #expect(reading.end == .endOfFile)
        #expect(reading.bytesRead == Int64(bytes.count))
        // The default sizes without a thread read the same.
        let (plain, _) = Self.read(MemorySource(bytes), RecordBuffer.Sizes())
        #expect(plain == reading)
    }

    @Test("A file cut anywhere ends the same way", arguments: [25, 40, 300, 1023, 4097, 20_000, 50_001])
    func truncated(at cut: Int) {
        let bytes = Array(Self.capture(count: 400)[..<cut])
        let reading = Self.agree({ MemorySource(bytes, chunk: 333) }, threads: Self.threads(cut))
        if case .truncated? = reading.end {} else if reading.end != .endOfFile { Issue.record("\(reading.end!)") }
    }

    @Test("A source failing mid-stream fails at the same record", arguments: [24, 100, 256, 2000, 33_333])
    func failing(after count: Int) {
        let bytes = Self.capture(count: 600)
        let reading = Self.agree({ FailingSource(bytes, failAfter: count, chunk: 97) }, threads: Self.threads(count))
        guard case .error(let message)? = reading.end else {
            Issue.record("no error: \(String(describing: reading.end))")
            return
        }
        #expect(message.contains("disk on fire"))
        #expect(reading.fault != nil)
    }

    @Test("A record larger than every buffer, and than the headroom", arguments: [129, 255, 256, 257, 4000, 65_535])
    func largeRecord(length: Int) throws {
        var bytes = Self.capture(count: 20, seed: 7)
        bytes += S.le32(9) + S.le32(9) + S.le32(UInt32(length)) + S.le32(UInt32(length))
        bytes += (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        bytes += Self.capture(count: 30, seed: 8)[24...]
        let reading = Self.agree { MemorySource(bytes, chunk: 1000) }
        try #require(reading.records.count == 51)
        #expect(reading.records[20].hasPrefix("21 ") && reading.records[20].contains(" \(length) "))
    }

    @Test("recordLimit stops early and stops the thread", arguments: [1, 50, 999])
    func recordLimit(limit: Int) throws {
        let bytes = Self.capture(count: 1000)
        let reading = Self.agree({ MemorySource(bytes, chunk: 500) }, limit: limit, threads: limit > 10)
        #expect(reading.records.count == limit)
        #expect(reading.recordsRead == limit)
        let file = try CaptureFile(source: MemorySource(bytes), path: "test", sizes: Self.ahead)
        file.recordLimit = limit
        file.forEachRecord { _, _, _ in }
        #expect(file.readAheadStarted == (limit > 10))
        #expect(!file.readAheadRunning)
    }

    @Test("Closing a file early joins the thread and lets go of the source")
    func earlyClose() throws {
        let bytes = Self.capture(count: 5000)
        weak var watched: CountingSource?
        var readsAtClose = 0
        do {
            let source = CountingSource(bytes)
            watched = source
            let file = try CaptureFile(source: source, path: "test", sizes: Self.ahead)
            var n = 0
            while n < 200, file.readRecord({ _, _, _ in }) { n += 1 }
            #expect(file.readAheadRunning)
            _ = consume file
            readsAtClose = source.reads
        }
        #expect(watched == nil)
        #expect(readsAtClose > 0)
    }

    @Test("A small file is read without a thread")
    func smallFileNoThread() throws {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("small.pcap")
            try S.writeFile(url, Self.capture(count: 2000))
            let file = try CaptureFile(path: url.path)
            let (_, count, end) = S.readAll(file)
            #expect(count == 2000 && end == .endOfFile)
            #expect(!file.readAheadStarted)
        }
    }

    @Test("Every capture reads the same through tiny buffers and the thread", arguments: S.captureFiles())
    func captures(relative: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: S.path(relative))))
        _ = Self.agree({ MemorySource(bytes, chunk: 4096) }, threads: Self.threads(bytes.count))
    }
}

/// A source that fails after `failAfter` bytes.
final class FailingSource: ByteSource {
    private let inner: MemorySource
    private let failAfter: Int
    private(set) var bytesConsumed: Int64 = 0

    init(_ bytes: [UInt8], failAfter: Int, chunk: Int) {
        inner = MemorySource(Array(bytes.prefix(failAfter)), chunk: chunk)
        self.failAfter = failAfter
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteSourceError) -> Int {
        let n = try inner.read(into: buffer)
        if n == 0 { throw ByteSourceError(message: "disk on fire") }
        bytesConsumed += Int64(n)
        return n
    }
}

/// A source that counts its reads (from the read-ahead thread; read by the test after the
/// thread has been joined).
final class CountingSource: ByteSource {
    private let inner: MemorySource
    private(set) var reads = 0
    var bytesConsumed: Int64 { inner.bytesConsumed }

    init(_ bytes: [UInt8]) { inner = MemorySource(bytes, chunk: 100) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteSourceError) -> Int {
        reads += 1
        return try inner.read(into: buffer)
    }
}
