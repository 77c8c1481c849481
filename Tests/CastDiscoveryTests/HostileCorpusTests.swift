import CastDiscovery
import Foundation
import PcapCapture
import Testing
import WireFormat

// The hostile capture corpus (issue 7, Tests/hostile/corpus, written by
// scripts/gen-hostile-corpus.py) read in process, both ways castscope reads captures: in place
// (the analysis path) and materialised (dump, --merge). `make test` also runs this under
// AddressSanitizer. Tests/hostile/run.sh checks the same files through the release binary.

/// One line of Tests/hostile/corpus/MANIFEST.tsv.
struct HostileCase: Sendable, CustomTestStringConvertible {
    var name: String
    var file: String
    /// 0: readable to the end (or cut short); 65: opening or reading fails.
    var exitStatus: Int
    var records: Int
    var discovery: Int
    var malformed: Int
    var undecodable: Int
    /// Whether the well-formed announcement in the file must come out as a device.
    var device: Bool
    var testDescription: String { name }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("hostile/corpus")

    static func all() -> [HostileCase] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8, !f[0].hasPrefix("#"), let exit = Int(f[2]), let records = Int(f[3]),
                let discovery = Int(f[4]), let malformed = Int(f[5]), let undecodable = Int(f[6])
            else { return nil }
            return HostileCase(
                name: f[0], file: f[1], exitStatus: exit, records: records, discovery: discovery, malformed: malformed,
                undecodable: undecodable, device: f[7] == "yes")
        }
    }
}

@Suite("Hostile capture corpus")
struct HostileCorpusTests {
    @Test("the manifest lists every file of the corpus")
    func manifestComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: HostileCase.directory.path)
            .filter { $0.contains(".pcap") }  // compressed ones too: .pcap.gz, .pcap.zst, .pcap.lz4
        #expect(files.count >= 16)
        #expect(Set(files) == Set(HostileCase.all().map(\.file)))
    }

    @Test("each file: what could be decoded is, the rest is counted", arguments: HostileCase.all())
    func corpusFile(_ c: HostileCase) throws {
        let path = HostileCase.directory.appendingPathComponent(c.file).path
        let inPlace: CaptureFile
        let materialised: CaptureFile
        do {
            inPlace = try CaptureFile(path: path)
            materialised = try CaptureFile(path: path)
        } catch {
            // Only a file that cannot be opened at all may fail here, with libpcap's reason.
            #expect(c.exitStatus == 65 && c.records == 0, "\(c.name): \(error)")
            #expect(!"\(error)".isEmpty)
            return
        }
        for file in [inPlace, materialised] {
            if let expression = DiscoveryFilter.expression(for: file.linkType) { try file.setFilter(expression) }
        }

        // In place, as `castscope analyze` reads.
        var decoder = DiscoveryDecoder(linkType: inPlace.linkType)
        var tracker = DiscoveryTracker()
        while inPlace.readRecord({ frame, header, bytes in
            decoder.decodeInPlace(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
            ) { packet, view in tracker.ingest(packet, message: view, capture: 0) }
        }) {}
        let stats = decoder.statistics
        #expect(inPlace.recordsRead == c.records)
        #expect(stats.discoveryPackets == c.discovery)
        #expect(stats.malformedPackets == c.malformed)
        #expect(stats.undecodableFrames == c.undecodable)
        if c.name == "ip-fragments" {
            // 200 datagrams never completed (timed out, or still waiting when the file ends), one
            // abandoned for overlapping with different bytes, one put together.
            let r = stats.reassembly
            #expect(r.timedOut + r.incomplete == 200 && r.invalid == 1 && r.reassembled == 1, "\(r)")
        }
        switch inPlace.end {
        case .error?: #expect(c.exitStatus == 65, "\(c.name): reading stopped with an error")
        case .endOfFile?, .truncated?: #expect(c.exitStatus == 0, "\(c.name): read to the end")
        case nil: Issue.record("\(c.name): the reader did not record how it ended")
        }
        let info = CaptureInfo(
            file: c.file, linkType: inPlace.linkTypeName, packets: inPlace.recordsRead, statistics: stats,
            start: inPlace.firstTimestamp, end: inPlace.lastTimestamp)
        let report = AnalysisReport(
            captures: [info], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        let names = report.devices.compactMap(\.friendlyName)
        #expect(names.contains("Hostile Lab TV") == c.device, "\(c.name): devices \(names)")

        // Materialised, as `castscope dump` reads: the same packets and faults.
        var full = DiscoveryDecoder(linkType: materialised.linkType)
        var packets = 0
        var faults = 0
        _ = materialised.forEachRecord { frame, header, bytes in
            if let p = full.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                packets += 1
                if p.error != nil { faults += 1 }
            }
        }
        #expect(packets == c.discovery && faults == c.malformed)
        #expect(full.statistics.undecodableFrames == c.undecodable)
    }
}
