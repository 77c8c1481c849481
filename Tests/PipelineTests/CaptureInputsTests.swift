import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Pipeline

// Directories of rotated captures (`tcpdump -C N -W K`, `-G secs`) and several files read as
// one timeline: the same devices and findings as the one capture they were cut from.
@Suite struct CaptureInputsTests {
    typealias S = PipelineSupport

    /// A fresh directory under the temporary directory.
    static func directory(_ name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("castscope-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Cuts `captures/<name>` into files of `frames` records with `editcap -c`, which is what
    /// `tcpdump -C` rotation produces (one capture split at record boundaries), then names
    /// them as `tcpdump -W K` leaves them after wrapping round once: `<name>0` holds the newest
    /// part, so name order is not time order.
    /// - Returns: the directory (one per `tag`: tests run in parallel) and the number of parts.
    static func rotated(_ name: String, frames: Int, tag: String) throws -> (String, Int) {
        let dir = try directory("rotated-\(tag)-\(name)")
        let editcap = Process()
        editcap.executableURL = URL(fileURLWithPath: "/usr/bin/editcap")
        editcap.arguments = ["-c", String(frames), S.path(name), dir + "/part.pcap"]
        try editcap.run()
        editcap.waitUntilExit()
        try #require(editcap.terminationStatus == 0, "editcap failed")
        let parts = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("part_") }.sorted()
        try #require(parts.count >= 3)
        // Time order part_00000, part_00001, … becomes names name1, name2, …, name0 (the last).
        for (i, part) in parts.enumerated() {
            try FileManager.default.moveItem(
                atPath: dir + "/" + part, toPath: dir + "/\(name)\((i + 1) % parts.count)")
        }
        try Data("not a capture\n".utf8).write(to: URL(fileURLWithPath: dir + "/README.txt"))
        return (dir, parts.count)
    }

    /// What must not depend on how the capture was cut: devices, clients, latencies, findings.
    static func essence(_ r: AnalysisReport) -> [String] {
        r.devices.map { "device \($0.id) \($0.friendlyName ?? "-") \($0.addresses)" }
            + r.clients.map { "client \($0.address) \($0.queries) \($0.sessions)" }
            + r.latency.map { "latency \($0.client) \($0.deviceID) \($0.firstAnswerMs ?? -1)" }
            + r.findings.map { "finding \($0.code) \($0.severity)" }
    }

    @Test(arguments: ["goodbye.pcap", "own-queries-dropped.pcap"])
    func mergedDirectoryIsTheOriginalCapture(name: String) throws {
        let (dir, parts) = try Self.rotated(name, frames: 10, tag: "merged")
        var o = AnalysisRun.Options(files: [dir])
        o.merge = true
        let (merged, status, notices) = S.run(o)
        let report = try #require(merged)
        #expect(status == .success)
        // Read in name order, the README skipped with a note.
        #expect(
            report.captures.map { ($0.file as NSString).lastPathComponent } == (0..<parts).map { "\(name)\($0)" })
        #expect(
            notices == [
                .warning("\(dir)/README.txt: skipped: not a capture file (no pcap, pcapng, gzip, zstd or lz4 magic)")
            ])
        let original = try #require(S.run(AnalysisRun.Options(files: [S.path(name)])).0)
        #expect(!Self.essence(original).isEmpty)
        #expect(Self.essence(report) == Self.essence(original))
        #expect(report.captures.map(\.packets).reduce(0, +) == original.captures[0].packets)
    }

    @Test func directoryWithoutMergeIsEachFileOnItsOwn() throws {
        let (dir, parts) = try Self.rotated("goodbye.pcap", frames: 10, tag: "each")
        let (report, status, _) = S.run(AnalysisRun.Options(files: [dir]))
        let r = try #require(report)
        #expect(status == .success)
        #expect(!r.merged)
        #expect(r.captures.count == parts)
    }

    @Test func directoryWithoutCapturesIsNoInput() throws {
        let dir = try Self.directory("no-captures")
        try Data("text\n".utf8).write(to: URL(fileURLWithPath: dir + "/notes.txt"))
        let (report, status, notices) = S.run(AnalysisRun.Options(files: [dir]))
        #expect(report == nil)
        #expect(status == .noInput)
        #expect(notices.last == .error("\(dir): no capture file in the directory (pcap, pcapng, gzip, zstd or lz4)"))
    }

    @Test(arguments: [
        (["cap10", "cap2", "cap1", "cap"], ["cap", "cap1", "cap2", "cap10"]),
        (["b.pcap", "a.pcap", "a.pcap.gz"], ["a.pcap", "a.pcap.gz", "b.pcap"]),
        (["x_00010_2026.pcap", "x_00009_2026.pcap"], ["x_00009_2026.pcap", "x_00010_2026.pcap"]),
    ])
    func nameOrderComparesNumbersAsNumbers(names: [String], expected: [String]) {
        #expect(names.sorted(by: CaptureInputs.naturalOrder) == expected)
    }
}
