import CastDiscovery
import Foundation
import PcapCapture
import Testing
import WireFormat

@testable import Pipeline

// Decoding on its own thread (CaptureRun.forEachPacketPipelined, PacketPipe): the tracker must
// get exactly what reading on one thread gives it — the same packets, in the same order, with
// messages that read the same — and the run must end in the same state, on every capture,
// with batches of every size down to one packet and arenas too small for one message.

@Suite("Pipelined decoding")
struct PacketPipeTests {
    static let external = PipelineSupport.repoRoot.appendingPathComponent("../shared/captures/external")
        .standardizedFileURL

    /// Every capture of the project, and the external ones when `../shared` is there.
    static func captures() -> [String] {
        let fm = FileManager.default
        let own = PipelineSupport.repoRoot.appendingPathComponent("captures").path
        var paths = ((try? fm.contentsOfDirectory(atPath: own)) ?? []).filter(Self.isCapture).sorted()
            .map { own + "/" + $0 }
        if let e = fm.enumerator(atPath: external.path) {
            paths += ((e.allObjects as? [String]) ?? []).filter(Self.isCapture).sorted().map {
                external.path + "/" + $0
            }
        }
        return paths
    }

    static func isCapture(_ name: String) -> Bool {
        [".pcap", ".pcapng", ".gz", ".zst", ".lz4"].contains { name.hasSuffix($0) }
    }

    /// What the tracker can see of one hand-over: the packet and everything its message reads.
    /// Stamps are numbered for the whole process, so two reads of a file give other numbers:
    /// a stamp is shown as the order in which the read first met it.
    struct Seen: Equatable {
        var packet: DiscoveryPacket
        var message: [String]?

        init(_ packet: DiscoveryPacket, _ view: DNSMessageView?, stamps: inout [UInt64: Int]) {
            self.packet = packet
            message = view.map { v in
                let stamp = v.messageStamp.map { s -> String in
                    if stamps[s] == nil { stamps[s] = stamps.count }
                    return "#\(stamps[s]!)"
                }
                return Self.describe(v, stamp: stamp ?? "-")
            }
        }

        static func describe(_ v: DNSMessageView, stamp: String) -> [String] {
            let c = v.decodedCounts
            var out = ["\(v.id) \(v.flags) \(v.message.base) \(c) \(stamp)"]
            out.append(v.message.bytes.map { String($0, radix: 16) }.joined(separator: " "))
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
            defer { scratch.deallocate() }
            v.forEachQuestion { q in
                out.append("Q \(Array(v.name(at: q.nameOffset, into: scratch))) \(q.type.rawValue) \(q.rawClass)")
            }
            v.forEachRecord { r in
                out.append(
                    "R \(r.section) \(Array(v.name(at: r.nameOffset, into: scratch))) \(r.type.rawValue) \(r.rawClass) "
                        + "\(r.ttl) \(r.rdataOffset) \(Array(v.rdata(r)))")
            }
            return out
        }
    }

    static func open(_ path: String) throws -> CaptureRun {
        try CaptureRun.open(path, notices: { _ in }).get()
    }

    /// The hand-overs and the run's end state reading on one thread.
    static func inPlace(_ path: String) throws -> ([Seen], CaptureRun) {
        var run = try open(path)
        var seen: [Seen] = []
        var stamps: [UInt64: Int] = [:]
        run.forEachPacketInPlace { seen.append(Seen($0, $1, stamps: &stamps)) }
        return (seen, run)
    }

    static func pipelined(_ path: String, batches: Int = 3, capacity: Int, arena: Int) throws -> ([Seen], CaptureRun) {
        var run = try open(path)
        var seen: [Seen] = []
        var stamps: [UInt64: Int] = [:]
        run.forEachPacketPipelined(progress: nil, batches: batches, capacity: capacity, arenaCapacity: arena) {
            seen.append(Seen($0, $1, stamps: &stamps))
        }
        return (seen, run)
    }

    /// The same hand-overs (reported by the first that differs, not as two whole lists).
    static func expectSame(_ seen: [Seen], _ expected: [Seen], _ place: String) {
        #expect(seen.count == expected.count, "\(place)")
        if let i = zip(seen, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("\(place): hand-over \(i) (frame \(expected[i].packet.frame)) differs")
        }
    }

    static func expectSameEnd(_ a: CaptureRun, _ b: CaptureRun, _ place: String) {
        #expect(a.file.recordsRead == b.file.recordsRead, "\(place)")
        #expect(a.decoder.statistics == b.decoder.statistics, "\(place)")
        #expect(a.interfaces.framesNotDecoded == b.interfaces.framesNotDecoded, "\(place)")
        #expect(a.finalNotes == b.finalNotes, "\(place)")
        #expect(a.endedInError == b.endedInError, "\(place)")
    }

    @Test("the same packets and messages as reading on one thread", arguments: captures())
    func sameHandOvers(_ path: String) throws {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let (expected, one) = try Self.inPlace(path)
        // Default batches; batches of one packet; of seven packets with an arena of 300 bytes,
        // which most responses overflow (a batch then ends early, or an empty one gives the
        // message memory of its own).
        for (batches, capacity, arena) in [
            (3, PacketBatch.defaultCapacity, PacketBatch.defaultArenaCapacity), (2, 1, 0), (2, 7, 300),
        ] {
            let (seen, two) = try Self.pipelined(path, batches: batches, capacity: capacity, arena: arena)
            let place = "\(name), batches of \(capacity)/\(arena) B"
            Self.expectSame(seen, expected, place)
            Self.expectSameEnd(one, two, place)
        }
    }

    /// A capture of `copies` × the records of `source`, each copy later in time, so that it
    /// spans many default batches.
    static func repeated(_ source: String, copies: Int, filler: Int = 0, to output: String) throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        #expect(data.count > 24 && [0xD4, 0x4D].contains(data[0]) && data[2] == 0xB2, "a little-endian pcap")
        var out = Array(data[0..<24])
        for copy in 0..<copies {
            var at = 24
            while at + 16 <= data.count {
                var header = Array(data[at..<at + 16])
                let length = Int(header[8]) | Int(header[9]) << 8 | Int(header[10]) << 16 | Int(header[11]) << 24
                var seconds =
                    UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24
                seconds &+= UInt32(copy * 600)
                for k in 0..<4 { header[k] = UInt8(truncatingIfNeeded: seconds >> (8 * k)) }
                out += header
                out += data[at + 16..<min(data.count, at + 16 + length)]
                at += 16 + length
            }
            // `filler` ARP frames (not discovery traffic) after each copy.
            for _ in 0..<filler {
                let stamp = (0..<4).map { UInt8(truncatingIfNeeded: (1_800_000_000 + copy * 600) >> (8 * $0)) }
                out += stamp + [0, 0, 0, 0, 60, 0, 0, 0, 60, 0, 0, 0]
                out += [UInt8](repeating: 0xFF, count: 6) + [2, 0, 0, 0, 0, 1, 0x08, 0x06]
                out += [UInt8](repeating: 0, count: 46)
            }
        }
        try Data(out).write(to: URL(fileURLWithPath: output))
    }

    /// Runs `body` with the path of a temporary capture of `copies` × multi-device.pcap (and
    /// `filler` ARP frames after each copy), removed afterwards.
    static func withRepeatedCapture(copies: Int, filler: Int = 0, _ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("packet-pipe-\(getpid())-\(filler)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("repeated.pcap").path
        try repeated(PipelineSupport.path("multi-device.pcap"), copies: copies, filler: filler, to: path)
        try body(path)
    }

    /// The hand-overs and end state of ``CaptureRun/forEachPacketAdaptively(progress:_:)``, and
    /// whether it went on two threads.
    static func adaptively(_ path: String) throws -> ([Seen], CaptureRun, Bool) {
        var run = try open(path)
        var seen: [Seen] = []
        var stamps: [UInt64: Int] = [:]
        let onTwo = run.forEachPacketAdaptively { seen.append(Seen($0, $1, stamps: &stamps)) }
        return (seen, run, onTwo)
    }

    @Test("a capture of many batches: the same hand-overs and the same report")
    func manyBatches() throws {
        try Self.withRepeatedCapture(copies: 2200) { path in
            let (expected, one) = try Self.inPlace(path)
            #expect(expected.count > 3 * PacketBatch.defaultCapacity)
            let (seen, two) = try Self.pipelined(
                path, capacity: PacketBatch.defaultCapacity, arena: PacketBatch.defaultArenaCapacity)
            Self.expectSame(seen, expected, "long capture")
            Self.expectSameEnd(one, two, "long capture")

            let (adapted, adaptive, onTwo) = try Self.adaptively(path)
            #expect(onTwo, "a capture of mostly mDNS goes on two threads after the sample")
            Self.expectSame(adapted, expected, "long capture, adaptively")
            Self.expectSameEnd(one, adaptive, "long capture, adaptively")

            var o = AnalysisRun.Options(files: [path])
            o.pipelined = false
            let (single, _, _) = PipelineSupport.run(o)
            o.pipelined = true
            let (pipelined, status, _) = PipelineSupport.run(o)
            #expect(status == .success)
            let a = try #require(single)
            let b = try #require(pipelined)
            #expect(a.captures == b.captures)
            #expect(a.devices == b.devices)
            #expect(a.findings == b.findings)
            #expect(a.devices.count >= 2)
        }
    }

    @Test("a capture of mostly other traffic stays on one thread, with the same hand-overs")
    func sparseStaysOnOneThread() throws {
        try Self.withRepeatedCapture(copies: 400, filler: 100) { path in
            let (expected, one) = try Self.inPlace(path)
            #expect(one.file.recordsRead > CaptureRun.pipelineSample)
            let (seen, run, onTwo) = try Self.adaptively(path)
            #expect(!onTwo)
            Self.expectSame(seen, expected, "sparse capture")
            Self.expectSameEnd(one, run, "sparse capture")
        }
    }
}
