import Foundation
import PcapCapture
import Pipeline
import Testing
import WireFormat

@testable import CastDiscovery

// Every diagnosis code produced from a real capture made in network namespaces with real mDNS
// stacks (captures/), or from a reproducible derivation of one (cut, corrupted, or the
// Protected bit set on a public 802.11 capture). Healthy captures give no error or warning.

enum DiagnosisSupport {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let external = repoRoot.appendingPathComponent("../shared/captures/external").standardizedFileURL

    static func path(_ name: String) -> String { repoRoot.appendingPathComponent("captures/\(name)").path }

    /// Reads captures the way `castscope analyze` does (one timeline each, through the
    /// Pipeline's AnalysisRun) and diagnoses them.
    static func report(paths: [String], options: AnalysisOptions = AnalysisOptions()) throws -> AnalysisReport {
        var failures: [String] = []
        let (report, _) = AnalysisRun.run(
            AnalysisRun.Options(files: paths, analysis: options),
            notices: { if $0.kind == .error { failures.append($0.text) } })
        guard let report, failures.isEmpty else { throw PipelineFailure(messages: failures) }
        return report
    }

    struct PipelineFailure: Error {
        var messages: [String]
    }

    static func report(_ names: String...) throws -> AnalysisReport { try report(paths: names.map(path)) }

    static func codes(_ r: AnalysisReport, _ severities: Set<Severity> = Set(Severity.allCases)) -> [String] {
        r.findings.filter { severities.contains($0.severity) }.map(\.code.rawValue)
    }

    /// Writes `bytes` to a temporary file and returns its path.
    static func temporary(_ bytes: Data, name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("castscope-diag-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try bytes.write(to: url)
        return url.path
    }

    /// (offset of data, caplen) of every record of a little- or big-endian pcap.
    static func records(_ d: Data) -> [(Int, Int)] {
        let little = d.prefix(4) == Data([0xD4, 0xC3, 0xB2, 0xA1]) || d.prefix(4) == Data([0x4D, 0x3C, 0xB2, 0xA1])
        var out: [(Int, Int)] = []
        var pos = 24
        while pos + 16 <= d.count {
            let b = [UInt8](d[(d.startIndex + pos + 8)..<(d.startIndex + pos + 12)])
            let cap =
                little
                ? Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 | Int(b[3]) << 24
                : Int(b[3]) | Int(b[2]) << 8 | Int(b[1]) << 16 | Int(b[0]) << 24
            out.append((pos + 16, cap))
            pos += 16 + cap
        }
        return out
    }
}

private typealias S = DiagnosisSupport

@Suite("Diagnosis on real captures")
struct DiagnosisTests {
    @Test(
        "healthy captures give no error and no warning",
        arguments: ["healthy-ipv4.pcap", "multi-device.pcap", "any-sll2.pcap", "fragmented.pcap"])
    func healthy(name: String) throws {
        let r = try S.report(name)
        #expect(S.codes(r, [.error, .warning]) == [], "\(r.findings.map(\.title))")
        #expect(Verdict(r.findings).line(r.findings).hasPrefix("OK: No problems found"))
    }

    @Test(
        "each scenario produces its code (and no unexpected error)",
        arguments: [
            ("goodbye.pcap", "DEVICE_LEFT", Severity.info),
            ("ipv6.pcap", "NO_IPV4_ADDRESS", .warning),
            ("legacy-unicast.pcap", "LEGACY_UNICAST", .info),
            ("dial-ssdp.pcap", "DIAL_ONLY", .info),
            ("dial-other-device.pcap", "DIAL_ONLY", .info),
            ("dial-unanswered.pcap", "DIAL_UNANSWERED", .error),
            ("client-isolation.pcap", "QUERIES_UNANSWERED", .error),
            ("own-queries-dropped.pcap", "CLIENT_NOT_ANSWERED", .error),
            ("reflector.pcap", "CROSS_SUBNET", .warning),
            ("repeater.pcap", "REFLECTED_TRAFFIC", .warning),
            // A Chromecast announces and nobody asks: a warning (an error only with --plist).
            ("no-cast-queries.pcap", "NO_CAST_QUERIES", .warning),
            // No Cast traffic at all shows nothing wrong with Cast: a note.
            ("no-mdns.pcap", "NO_MDNS_TRAFFIC", .info),
            ("app-id-unanswered.pcap", "APP_ID_UNANSWERED", .error),
            ("incomplete-resolution.pcap", "INCOMPLETE_RESOLUTION", .error),
            ("txt-missing-fn.pcap", "TXT_MISSING_REQUIRED", .error),
            ("device-expired.pcap", "DEVICE_EXPIRED", .warning),
            ("slow-response.pcap", "SLOW_RESPONSE", .warning),
            ("duplicate-name.pcap", "DUPLICATE_NAME", .warning),
            ("address-changed.pcap", "ADDRESS_CHANGED", .warning),
            ("query-storm.pcap", "QUERY_STORM", .warning),
        ])
    func scenario(name: String, code: String, severity: Severity) throws {
        let r = try S.report(name)
        let f = try #require(r.findings.first { $0.code.rawValue == code }, "\(name): \(S.codes(r))")
        #expect(f.severity == severity)
        #expect(!f.frames.isEmpty || code == "NO_MDNS_TRAFFIC")
        #expect(!f.title.isEmpty && !f.detail.isEmpty && !f.advice.isEmpty)
    }

    @Test(
        "scenario captures give exactly their own code among errors and warnings",
        arguments: [
            ("no-cast-queries.pcap", ["NO_CAST_QUERIES"]), ("no-mdns.pcap", []),
            ("app-id-unanswered.pcap", ["APP_ID_UNANSWERED"]),
            ("incomplete-resolution.pcap", ["INCOMPLETE_RESOLUTION"]),
            ("txt-missing-fn.pcap", ["TXT_MISSING_REQUIRED"]), ("device-expired.pcap", ["DEVICE_EXPIRED"]),
            ("slow-response.pcap", ["SLOW_RESPONSE"]), ("duplicate-name.pcap", ["DUPLICATE_NAME"]),
            ("address-changed.pcap", ["ADDRESS_CHANGED"]), ("query-storm.pcap", ["QUERY_STORM"]),
            ("client-isolation.pcap", ["QUERIES_UNANSWERED"]),
            ("own-queries-dropped.pcap", ["CLIENT_NOT_ANSWERED"]), ("ipv6.pcap", ["NO_IPV4_ADDRESS"]),
            ("dial-ssdp.pcap", []), ("dial-other-device.pcap", []), ("dial-unanswered.pcap", ["DIAL_UNANSWERED"]),
            ("reflector.pcap", ["CROSS_SUBNET"]),
            ("repeater.pcap", ["REFLECTED_TRAFFIC"]),
            ("goodbye.pcap", []), ("legacy-unicast.pcap", []), ("cached-address.pcap", []),
            ("local-name-dns.pcap", ["LOCAL_NAME_OVER_DNS"]), ("wrong-interface.pcap", ["SENDER_WRONG_INTERFACE"]),
        ])
    func exactly(name: String, codes: [String]) throws {
        let r = try S.report(name)
        #expect(S.codes(r, [.error, .warning]) == codes)
    }

    @Test("no mDNS at all: NO_MDNS_TRAFFIC, a note (an error with an Info.plist), nothing about queries")
    func noMDNS() throws {
        let r = try S.report("no-mdns.pcap")
        #expect(r.captures[0].mdnsPackets == 0 && r.captures[0].packets > 0)
        #expect(S.codes(r) == ["NO_MDNS_TRAFFIC"])
        #expect(r.findings.first?.severity == .info)
        #expect(Verdict(r).line(r.findings).hasPrefix("OK: No problems found (1 note). Note: No mDNS traffic"))
        let plist = InfoPlist(data: Array("<plist><dict></dict></plist>".utf8))
        let withApp = Diagnosis.diagnose(r, inputs: DiagnosisInputs(plist: plist))
        #expect(withApp.first { $0.code == .noMDNSTraffic }?.severity == .error)
    }

    @Test("slow response: evidence pairs each slow query with its late answer, delay over 500 ms")
    func slow() throws {
        let r = try S.report("slow-response.pcap")
        let f = try #require(r.findings.first { $0.code == .slowResponse })
        let slowAnswers = r.queries.flatMap { q in q.answered.filter { $0.delayMs > 500 }.map { (q.frame, $0.frame) } }
        #expect(!slowAnswers.isEmpty)
        #expect(Set(f.frames) == Set(slowAnswers.flatMap { [$0.0, $0.1] }))
    }

    @Test("device expired: cache refreshes at 5 % of a 10 s TTL are not a query storm")
    func refreshIsNotStorm() throws {
        let r = try S.report("device-expired.pcap")
        #expect(!S.codes(r).contains("QUERY_STORM"))
        let c = try #require(r.clients.first)
        #expect(c.fastIntervals >= 3)  // the refreshes are fast, and explained
    }

    @Test("client isolation: one finding for both clients, each one's query frames its evidence")
    func isolation() throws {
        let r = try S.report("client-isolation.pcap")
        let unanswered = r.findings.filter { $0.code == .queriesUnanswered }
        #expect(unanswered.count == 1)
        let f = try #require(unanswered.first)
        #expect(Set(f.subjects.clients) == ["192.0.2.10", "192.0.2.5"])
        #expect(f.title.hasPrefix("2 clients asked for Cast devices and got no answer: "))
        #expect(f.evidence.map(\.kind) == [.client, .client])
        for e in f.evidence {
            let mine = r.queries.filter { $0.client.description == e.subject }.map(\.frame)
            #expect(e.frames == mine)
            #expect(e.detail.hasPrefix("\(e.subject) asked for Cast devices"))
        }
        #expect(!S.codes(r).contains("CLIENT_NOT_ANSWERED"))
    }

    @Test("own queries dropped: the sender is not answered, the phone is")
    func ownQueriesDropped() throws {
        let r = try S.report("own-queries-dropped.pcap")
        let f = r.findings.filter { $0.code == .clientNotAnswered }
        #expect(f.count == 1)
        #expect(f.first?.subjects.clients == ["192.0.2.10"])
        #expect(f.first?.detail.contains("answered other hosts' queries") == true)
        #expect(!S.codes(r).contains("QUERIES_UNANSWERED"))
    }

    @Test("goodbye: DEVICE_LEFT points at the goodbye frame, and nothing else is wrong")
    func goodbye() throws {
        let r = try S.report("goodbye.pcap")
        let f = try #require(r.findings.first { $0.code == .deviceLeft })
        #expect(f.frames == r.devices.first?.leftFrame.map { [$0] })
        #expect(S.codes(r, [.error, .warning]) == [])
    }

    @Test("a cut-off capture gives TRUNCATED_CAPTURE with the last whole frame")
    func truncated() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: S.path("goodbye.pcap")))
        let last = try #require(S.records(data).last)
        let cut = try S.temporary(data.prefix(last.0 + 10), name: "cut.pcap")
        let r = try S.report(paths: [cut])
        let f = try #require(r.findings.first { $0.code == .truncatedCapture })
        #expect(f.severity == .info)
        #expect(f.frames == [FrameRef(capture: 0, frame: S.records(data).count - 1)])
    }

    @Test("corrupted packets give MALFORMED_PACKETS with their frames")
    func malformed() throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: S.path("healthy-ipv4.pcap")))
        let recs = S.records(data)
        // Frame 2: a compression pointer to itself at the question name; frame 6: label type 0x80.
        data[data.startIndex + recs[1].0 + 54] = 0xC0
        data[data.startIndex + recs[1].0 + 55] = 0x0C
        data[data.startIndex + recs[5].0 + 54] = 0x80
        let r = try S.report(paths: [try S.temporary(data, name: "bad.pcap")])
        let f = try #require(r.findings.first { $0.code == .malformedPackets })
        #expect(f.frames == [FrameRef(capture: 0, frame: 2), FrameRef(capture: 0, frame: 6)])
        #expect(f.detail.contains("bad compression pointer"))
    }

    @Test(
        "an 802.11 capture with protected data frames gives ENCRYPTED_WIFI",
        .enabled(if: FileManager.default.fileExists(atPath: S.external.path), "../shared is absent"))
    func encrypted() throws {
        // zeek/radiotap.pcap: a real unprotected 802.11 + radiotap mDNS frame (frame 3). Setting its
        // Protected bit (frame control byte 1, 0x40) makes it what a WPA2 capture looks like.
        var data = try Data(contentsOf: S.external.appendingPathComponent("zeek/radiotap.pcap"))
        let recs = S.records(data)
        let (offset, _) = recs[2]
        let radiotapLength = Int(data[data.startIndex + offset + 2]) | Int(data[data.startIndex + offset + 3]) << 8
        data[data.startIndex + offset + radiotapLength + 1] |= 0x40
        let r = try S.report(paths: [try S.temporary(data, name: "wpa.pcap")])
        let f = try #require(r.findings.first { $0.code == .encryptedWiFi })
        #expect(f.severity == .error)
        #expect(r.captures[0].protectedWiFiFrames == 1)
        #expect(!S.codes(r).contains("NO_MDNS_TRAFFIC"))
    }

    @Test("findings are sorted by severity and the verdict names the first error")
    func ordering() throws {
        let r = try S.report("own-queries-dropped.pcap")
        #expect(r.findings.map(\.severity) == r.findings.map(\.severity).sorted())
        let v = Verdict(r.findings).line(r.findings)
        #expect(v.hasPrefix("FAIL: Discovery failed: 1 error"))
        #expect(v.contains(r.findings[0].title))
    }
}
