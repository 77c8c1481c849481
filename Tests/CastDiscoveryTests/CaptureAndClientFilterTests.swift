import Foundation
import Testing
import WireFormat

@testable import CastDiscovery

private typealias S = DiagnosisSupport

// An empty capture is empty, not "the wrong interface"; `--client` for a host that did not
// search says so and lists who did, not "Nobody searched".
@Suite("EMPTY_CAPTURE and NO_SUCH_CLIENT")
struct CaptureAndClientFilterTests {
    /// A pcap file header (Ethernet) and no record, as `name` (one name per test: tests run in
    /// parallel, and rewriting a file another test is reading empties it under that test).
    static func emptyCapture(_ name: String) throws -> String {
        var header = Data()
        for (value, size) in [(0xa1b2_c3d4, 4), (2, 2), (4, 2), (0, 4), (0, 4), (65535, 4), (1, 4)] {
            for i in 0..<size { header.append(UInt8((value >> (8 * i)) & 0xFF)) }
        }
        return try S.temporary(header, name: name)
    }

    @Test("a header and no frame: EMPTY_CAPTURE, an error, and not NO_MDNS_TRAFFIC")
    func empty() throws {
        let r = try S.report(paths: [try Self.emptyCapture("empty.pcap")])
        #expect(S.codes(r) == ["EMPTY_CAPTURE"])
        #expect(r.findings.first?.severity == .error)
        #expect(r.findings.first?.title.hasSuffix("empty.pcap is empty: it has no frames at all") == true)
    }

    @Test("an empty capture beside one with frames: a warning, the other diagnosed as alone")
    func emptyBesideAnother() throws {
        let r = try S.report(paths: [
            try Self.emptyCapture("empty-beside-another.pcap"), S.path("client-isolation.pcap"),
        ])
        let empty = try #require(r.findings.first { $0.code == .emptyCapture })
        #expect(empty.severity == .warning)
        #expect(S.codes(r, [.error]) == ["QUERIES_UNANSWERED"])
    }

    @Test("--client for an address that did not search: NO_SUCH_CLIENT lists the searchers")
    func noSuchClient() throws {
        var options = AnalysisOptions()
        options.clients = [IPAddress("192.0.2.99")!]
        let r = try S.report(paths: [S.path("client-isolation.pcap")], options: options)
        #expect(S.codes(r) == ["NO_SUCH_CLIENT"])
        let f = try #require(r.findings.first)
        #expect(f.title == "No client 192.0.2.99 in the capture")
        #expect(f.detail.hasSuffix("came from 2 addresses: 192.0.2.5 and 192.0.2.10."))
        #expect(r.clientsLeftOut.map(\.description) == ["192.0.2.5", "192.0.2.10"])
    }

    @Test("--client for a searcher: no NO_SUCH_CLIENT, its own findings")
    func clientPresent() throws {
        var options = AnalysisOptions()
        options.clients = [IPAddress("192.0.2.10")!]
        let r = try S.report(paths: [S.path("client-isolation.pcap")], options: options)
        #expect(S.codes(r) == ["QUERIES_UNANSWERED"])
        #expect(r.findings[0].subjects.clients == ["192.0.2.10"])
    }

    @Test("--client on a capture without mDNS: NO_SUCH_CLIENT, not NO_MDNS_TRAFFIC")
    func noMDNS() throws {
        var options = AnalysisOptions()
        options.clients = [IPAddress("192.0.2.99")!]
        let r = try S.report(paths: [S.path("no-mdns.pcap")], options: options)
        #expect(S.codes(r) == ["NO_SUCH_CLIENT"])
        #expect(r.findings[0].detail.hasSuffix("No host searched for Cast devices in the capture at all."))
    }
}
