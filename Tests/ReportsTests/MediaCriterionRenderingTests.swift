import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// The media criterion subtype (`_%<40 hex>._sub`) is not an app ID (issue 13): tables show the
// real app IDs, then `media`; JSON flags it.

@Suite("Media criterion in the renderings")
struct MediaCriterionRenderingTests {
    typealias F = ReportFixtures
    static let media = "%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED"

    /// What static-upnp_chromecast_2018-03.pcap holds: Chrome asks the media criterion, the
    /// 233637DE subtype and the base type; the Chromecast answers under all three.
    static func report() -> AnalysisReport {
        let subtypes = [Self.media, "233637DE"].map { app in
            DNSName(labels: [F.label("_" + app), F.label("_sub")] + F.castType.labels.map(Array.init))
        }
        let sender = IPv4Address(192, 168, 42, 10)
        let device = IPv4Address(192, 168, 42, 56)
        var tracker = DiscoveryTracker()
        tracker.ingest(F.packet(1, 0, from: sender, F.query(subtypes + [F.castType])), capture: 0)
        tracker.ingest(
            F.packet(
                2, 0.01, from: device,
                F.announcement(
                    instance: "Chromecast-02582d8a4a1a51bbdf1df72ba822a4df-1",
                    txt: ["id=02582d8a4a1a51bbdf1df72ba822a4df", "fn=Pool House", "md=Chromecast"],
                    host: "02582d8a.local", address: device, appIDs: [Self.media, "233637DE"])),
            capture: 0)
        return AnalysisReport(
            captures: [CaptureInfo(file: "static-upnp", linkType: "EN10MB")], timelines: [tracker.finish()],
            options: AnalysisOptions(), merged: false)
    }

    @Test("233637DE in text, Markdown, HTML and JSON; the criterion as media, never %9E5E…")
    func renderings() {
        let r = Self.report()
        #expect(r.devices.first?.appIDs == ["233637DE"] && r.devices.first?.mediaCriterion == true)
        #expect(AnalysisTables.deviceRows(r)[0].last == "233637DE,media")
        #expect(AnalysisTables.clientRows(r)[0][4] == "233637DE,media")
        let text = AnalysisText.render(r)
        #expect(text.contains("app IDs 233637DE,media") && !text.contains("%9E5E"))
        let markdown = AnalysisMarkdown.render(r)
        #expect(markdown.contains("233637DE,media") && !markdown.contains("%9E5E"))
        let json = AnalysisJSON.render(r)
        // The per-query names keep the full name asked; no app ID list holds it.
        #expect(json.contains("\"mediaCriterion\": true"))
        #expect(!json.contains("\"%9E5E") && json.contains("\"_%9E5E"))
        let html = HTMLReport.render(r)
        #expect(html.contains("<code>233637DE</code>") && html.contains(">media</span>") && !html.contains("%9E5E"))
    }

    @Test("the App IDs cell: app IDs first, media last, a dash for neither")
    func cell() {
        #expect(AnalysisTables.appIDs([], media: false) == "-")
        #expect(AnalysisTables.appIDs([], media: true) == "media")
        #expect(AnalysisTables.appIDs(["233637DE", "CC1AD845"], media: true) == "233637DE,CC1AD845,media")
    }
}
