import CastDiscovery
import Foundation
import PcapCapture
import Testing
import WireFormat

@testable import Pipeline

// The pipeline's entry points, as the command line calls them: the analysis run (one
// timeline per file, in parallel or in turn; several files merged by time; -c N), the
// notices and exit statuses for files that cannot be read, the merge-by-time loop and
// extraction.

enum PipelineSupport {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String { repoRoot.appendingPathComponent("captures/\(name)").path }

    /// Runs the analysis and collects its notices.
    static func run(_ o: AnalysisRun.Options) -> (AnalysisReport?, Pipeline.ExitStatus, [Notice]) {
        var notices: [Notice] = []
        let (report, status) = AnalysisRun.run(o, notices: { notices.append($0) })
        return (report, status, notices)
    }
}

@Suite struct AnalysisRunTests {
    typealias S = PipelineSupport

    @Test func oneTimelinePerFileWhetherReadInParallelOrInTurn() throws {
        var o = AnalysisRun.Options(files: [S.path("healthy-ipv4.pcap"), S.path("dial-ssdp.pcap")])
        let (parallel, status, notices) = S.run(o)
        o.serial = true
        let (serial, _, _) = S.run(o)
        #expect(status == .success)
        #expect(notices.isEmpty)
        let p = try #require(parallel)
        let s = try #require(serial)
        #expect(p.captures == s.captures)
        #expect(p.devices == s.devices)
        #expect(p.findings == s.findings)
        #expect(p.captures.map(\.file) == o.files)
        #expect(!p.merged)
    }

    @Test func mergedFilesMakeOneTimelineInTimeOrder() throws {
        var o = AnalysisRun.Options(files: [S.path("healthy-ipv4.pcap"), S.path("goodbye.pcap")])
        o.merge = true
        let (merged, status, _) = S.run(o)
        let report = try #require(merged)
        #expect(status == .success)
        #expect(report.merged)
        #expect(report.captures.count == 2)
        // Both files' devices are in the one timeline.
        let separate = try #require(S.run(AnalysisRun.Options(files: o.files)).0)
        #expect(Set(report.devices.map(\.id)) == Set(separate.devices.map(\.id)))
    }

    @Test func frameLimitStopsEachFileAfterNFrames() throws {
        var o = AnalysisRun.Options(files: [S.path("multi-device.pcap")])
        let whole = try #require(S.run(o).0)
        o.frameLimit = 3
        let cut = try #require(S.run(o).0)
        #expect(whole.captures[0].packets == 11)
        #expect(cut.captures[0].packets == 3)
        #expect(cut.captures[0].discoveryPackets <= 3)
    }

    @Test func aMissingFileIsAnErrorNoticeAndExit66ButTheOthersAreAnalysed() throws {
        let o = AnalysisRun.Options(files: ["/nonexistent/x.pcap", S.path("multi-device.pcap")])
        let (report, status, notices) = S.run(o)
        #expect(status == .noInput)
        #expect(notices.count == 1)
        #expect(notices.first?.kind == .error)
        #expect(notices.first?.text.contains("/nonexistent/x.pcap") == true)
        #expect(try #require(report).captures.count == 1)
    }

    @Test func nothingReadableGivesNoReport() {
        let (report, status, _) = S.run(AnalysisRun.Options(files: ["/nonexistent/x.pcap"]))
        #expect(report == nil)
        #expect(status == .noInput)
    }

    @Test func aFileThatIsNotACaptureExits65() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("notes.txt")
        try Data("not a capture\n".utf8).write(to: text)
        let (_, status, notices) = S.run(AnalysisRun.Options(files: [text.path]))
        #expect(status == .dataError)
        #expect(notices.map(\.kind) == [.error])
    }

    @Test func aCutFileIsAWarningNotAFailure() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-cut-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: S.path("multi-device.pcap")))
        let cut = dir.appendingPathComponent("cut.pcap")
        try bytes.prefix(bytes.count - 10).write(to: cut)
        let (report, status, notices) = S.run(AnalysisRun.Options(files: [cut.path]))
        #expect(status == .success)
        #expect(try #require(report).captures[0].truncated)
        #expect(notices.contains { $0.kind == .warning && $0.text.contains("middle of a record") })
    }
}

@Suite struct MergeByTimeTests {
    @Test func interleavesByTimestampAndBreaksTiesByTheSourceListedFirst() {
        let sources: [[Int64]] = [[1, 3, 3, 9], [0, 3, 4], [], [2, 3]]
        var cursors = [Int](repeating: 0, count: sources.count)
        var out: [(Int, Int64)] = []
        mergeByTime(
            sources: sources.count,
            next: { i -> Int64? in
                guard cursors[i] < sources[i].count else { return nil }
                defer { cursors[i] += 1 }
                return sources[i][cursors[i]]
            }, timestamp: { Timestamp(seconds: $0, nanoseconds: 0) }
        ) { out.append(($0, $1)) }
        #expect(out.map(\.1) == [0, 1, 2, 3, 3, 3, 3, 4, 9])
        #expect(out.map(\.0) == [1, 0, 3, 0, 0, 1, 3, 1, 0])
    }

    /// Merges `sources` with `startsAt`, returning the merged (source, value) pairs and, per
    /// source, how many elements had been merged when it was first read.
    static func lazily(_ sources: [[Int64]], startsAt: [Int64?]) -> (out: [(Int, Int64)], firstRead: [Int?]) {
        var cursors = [Int](repeating: 0, count: sources.count)
        var firstRead = [Int?](repeating: nil, count: sources.count)
        var out: [(Int, Int64)] = []
        mergeByTime(
            sources: sources.count, startsAt: { startsAt[$0].map { Timestamp(seconds: $0, nanoseconds: 0) } },
            next: { i -> Int64? in
                if firstRead[i] == nil { firstRead[i] = out.count }
                guard cursors[i] < sources[i].count else { return nil }
                defer { cursors[i] += 1 }
                return sources[i][cursors[i]]
            }, timestamp: { Timestamp(seconds: $0, nanoseconds: 0) }
        ) { out.append(($0, $1)) }
        return (out, firstRead)
    }

    @Test func sourcesWithAStartTimeAreReadOnlyWhenTheTimelineReachesIt() {
        // Rotated files: each starts where the last ended.
        let rotated: [[Int64]] = [[0, 1, 2], [3, 4], [5, 6, 7], [8]]
        let (out, firstRead) = Self.lazily(rotated, startsAt: [0, 3, 5, 8])
        #expect(out.map(\.1) == [0, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(out.map(\.0) == [0, 0, 0, 1, 1, 2, 2, 2, 3])
        // File 1 is read once 0, 1 and 2 are merged (its start, 3, is after 2), and so on.
        #expect(firstRead == [0, 3, 5, 8])
    }

    @Test func startTimesGiveTheSameOrderAsReadingEverySourceAtOnce() {
        let sources: [[Int64]] = [[1, 3, 3, 9], [0, 3, 4], [], [2, 3], [3, 3]]
        let eager = Self.lazily(sources, startsAt: [nil, nil, nil, nil, nil])
        // Ties: a source that starts at a head's time is read before that head is merged.
        let lazy = Self.lazily(sources, startsAt: [1, 0, 100, 2, 3])
        #expect(lazy.out.map(\.0) == eager.out.map(\.0))
        #expect(lazy.out.map(\.1) == eager.out.map(\.1))
        #expect(lazy.out.map(\.0) == [1, 0, 3, 0, 0, 1, 3, 4, 4, 1, 0])
        #expect(eager.firstRead == [0, 0, 0, 0, 0])
        #expect(lazy.firstRead[4] == 3)  // after 0, 1 and 2
        #expect(lazy.firstRead[2] == 11)  // an empty source starting late is read last
    }
}

@Suite struct ExtractionTests {
    @Test func extractedFramesDecodeToTheSameDiscoveryPackets() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-extract-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = PipelineSupport.path("fragmented.pcap")
        var ignored: [Notice] = []
        let run = try CaptureRun.open(input, notices: { ignored.append($0) }).get()
        let source = ExtractSource(run)
        let output = dir.appendingPathComponent("out.pcap").path
        let written = try Extraction.write([source], to: output, linkType: run.file.linkType, snapLength: 262_144)
        #expect(written.frames > source.discoveryPackets)  // fragments were kept too

        func packets(_ path: String) throws -> [DiscoveryPacket] {
            var r = try CaptureRun.open(path, notices: { _ in }).get()
            var all: [DiscoveryPacket] = []
            _ = r.forEachPacket { all.append($0) }
            return all
        }
        let before = try packets(input)
        let after = try packets(output)
        #expect(before.count == after.count)
        #expect(zip(before, after).allSatisfy { $0.timestamp == $1.timestamp && $0.payload == $1.payload })
    }
}
