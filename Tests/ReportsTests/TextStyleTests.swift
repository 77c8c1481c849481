import CastDiscovery
import Testing
import WireFormat

@testable import Reports

@Suite("Coloured terminal text")
struct TextStyleTests {
    /// The text without its SGR escape sequences.
    static func stripped(_ text: String) -> String {
        var out = ""
        var inEscape = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{1B}" {
                inEscape = true
            } else if inEscape {
                if scalar == "m" { inEscape = false }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A capture of one Cast query that nothing answers: a report with findings.
    static func unansweredReport() -> AnalysisReport {
        var tracker = DiscoveryTracker()
        var query = DNSMessage(id: 0, flags: 0, counts: [1, 0, 0, 0])
        query.questions = [DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr)]
        for (frame, second) in [(1, 100), (2, 101), (3, 103)] {
            tracker.ingest(
                DiscoveryPacket(
                    frame: frame, timestamp: Timestamp(seconds: Int64(second), nanoseconds: 0), ipVersion: 4,
                    source: .v4(IPv4Address(192, 0, 2, 7)), destination: .v4(IPv4Address(224, 0, 0, 251)), ttl: 255,
                    sourcePort: 5353, destinationPort: 5353, payload: .mdns(query)),
                capture: 0)
        }
        let capture = CaptureInfo(file: "q.pcap", linkType: "EN10MB", packets: 3, discoveryPackets: 3)
        var report = AnalysisReport(
            captures: [capture], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        report.findings = Diagnosis.diagnose(report)
        return report
    }

    @Test("plain is the default and adds nothing; coloured differs only by escapes around verdict and headings")
    func colouredIsPlainPlusEscapes() {
        let report = Self.unansweredReport()
        let plain = AnalysisText.render(report)
        #expect(AnalysisText.render(report, style: .plain) == plain)
        #expect(!report.findings.isEmpty)
        let coloured = AnalysisText.render(report, style: TextStyle(colored: true))
        #expect(coloured != plain)
        #expect(Self.stripped(coloured) == plain)
        let verdict = Verdict(report.findings)
        let colour = verdict.errors > 0 ? "1;31" : verdict.warnings > 0 ? "1;33" : "1;32"
        #expect(coloured.hasPrefix("\u{1B}[\(colour)m"))
        for severity in Set(report.findings.map(\.severity)) {
            #expect(coloured.contains("m\(severity.rawValue.uppercased())S\u{1B}[0m\n"))
        }
    }

    @Test("each severity heading has its own colour")
    func headings() {
        let style = TextStyle(colored: true)
        #expect(style.heading("ERRORS", .error) == "\u{1B}[1;31mERRORS\u{1B}[0m")
        #expect(style.heading("WARNINGS", .warning) == "\u{1B}[1;33mWARNINGS\u{1B}[0m")
        #expect(TextStyle.plain.heading("ERRORS", .error) == "ERRORS")
    }
}
