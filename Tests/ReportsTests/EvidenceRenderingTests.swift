import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// A merged finding (one per code) shows each subject's line and frames in every renderer; a
// finding with one subject reads as before.
@Suite("Evidence per subject in the renderers")
struct EvidenceRenderingTests {
    static func frames(_ numbers: [Int]) -> [FrameRef] { numbers.map { FrameRef(capture: 0, frame: $0) } }

    /// The hostile report with one finding about two clients.
    static func report() -> AnalysisReport {
        var r = AnalysisRenderingTests.hostileReport()
        var f = Finding(
            code: .dialOnly, severity: .warning, title: "2 clients searched only with SSDP/DIAL: 192.0.2.1 and b",
            detail: "Common.", advice: "Do it.", frames: frames([1, 2]),
            subjects: FindingSubjects(clients: ["192.0.2.1", "192.0.2.2"]))
        f.evidence = [
            FindingEvidence(
                kind: .client, subject: "192.0.2.1", detail: "192.0.2.1 searched 3 times", frames: frames([1])),
            FindingEvidence(kind: .client, subject: "192.0.2.2", detail: "searched once", frames: frames([2])),
        ]
        r.findings = [f]
        return r
    }

    @Test("text: one item per subject with its frames; the subject named when its line does not")
    func text() {
        let text = AnalysisText.render(Self.report())
        #expect(text.contains("    - 192.0.2.1 searched 3 times\n      Frames: #1\n"))
        #expect(text.contains("    - 192.0.2.2: searched once\n      Frames: #2\n"))
        #expect(!text.contains("    Frames: #1 #2"))
    }

    @Test("text: a one-subject finding keeps its single Frames line")
    func single() {
        var r = Self.report()
        r.findings[0].evidence = [r.findings[0].evidence[0]]
        let text = AnalysisText.render(r)
        #expect(text.contains("    Frames: #1 #2\n") && !text.contains("    - 192.0.2.1"))
    }

    @Test("Markdown: an Evidence list, one item per subject")
    func markdown() {
        let md = AnalysisMarkdown.render(Self.report())
        #expect(md.contains("  - Evidence:\n    - 192.0.2.1 searched 3 times (frames #1)\n"))
        #expect(md.contains("    - 192.0.2.2: searched once (frames #2)\n"))
    }

    @Test("HTML: a list item per subject with its frames and filter")
    func html() {
        let html = HTMLReport.render(Self.report())
        #expect(html.contains("<ul class=\"evidence\"><li><bdi>192.0.2.1 searched 3 times</bdi>"))
        #expect(html.contains("frame.number == 2"))
    }

    @Test("JSON: an evidence array with kind, subject, detail and frames")
    func json() throws {
        let doc = try #require(
            JSONSerialization.jsonObject(with: Data(AnalysisJSON.render(Self.report()).utf8)) as? [String: Any])
        let finding = try #require((doc["findings"] as? [[String: Any]])?.first)
        let evidence = try #require(finding["evidence"] as? [[String: Any]])
        #expect(evidence.map { $0["subject"] as? String } == ["192.0.2.1", "192.0.2.2"])
        #expect(evidence.map { $0["kind"] as? String } == ["client", "client"])
        #expect(evidence[1]["detail"] as? String == "searched once")
        #expect((evidence[1]["frames"] as? [[String: Any]])?.first?["frame"] as? Int == 2)
        #expect((finding["frames"] as? [Any])?.count == 2)
    }
}
