import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// DIAL in the renderers: each Cast device's DIAL answer with LOCATION and SERVER (never cut), the
// other DIAL devices apart, the DIAL searches with USER-AGENT, and the DIAL latency rows, on
// captures/dial-other-device.pcap (a Chromecast-style device and a Roku-style DIAL server).

@Suite("DIAL in the renderers")
struct DIALRenderingTests {
    static func report() throws -> AnalysisReport {
        var r = try ReportFixtures.report(["dial-other-device.pcap"])
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    @Test("text: DIAL answers, other DIAL devices, searches and latency; LOCATION and SERVER whole")
    func text() throws {
        let text = AnalysisText.render(try Self.report())
        #expect(text.contains("\nDIAL answers of Cast devices (1)\n"))
        #expect(text.contains("    LOCATION http://192.0.2.21:8008/ssdp/device-desc.xml\n"))
        #expect(text.contains("    SERVER Linux/3.8.13+, UPnP/1.0, Portable SDK for UPnP devices/1.6.18\n"))
        #expect(text.contains("\nOther DIAL devices (1): DIAL servers that are not Cast devices\n"))
        #expect(text.contains("    LOCATION http://192.0.2.26:8060/dial/dd.xml\n"))
        #expect(text.contains("    SERVER Roku UPnP/1.0 Roku/9.1.0\n"))
        #expect(text.contains("USER-AGENT Google Chrome/120.0.0.0 Linux"))
        #expect(text.contains("\nDIAL latency, ms from M-SEARCH to 200 OK\n"))
        #expect(text.contains("#15 → #21"))
        // The Cast device count does not include the Roku-style server.
        #expect(text.contains("\n1 device (1 unknown), 1 client"))
        let terminal = AnalysisText.render(try Self.report(), width: .terminal(100))
        for line in terminal.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
    }

    @Test("text: a LOCATION and SERVER longer than a line are wrapped, never cut")
    func longValues() throws {
        var r = try Self.report()
        let server = "Vendor/" + String(repeating: "x", count: 230) + " UPnP/1.0 " + String(repeating: "y", count: 40)
        let location = "http://192.0.2.26:8060/" + String(repeating: "p", count: 150) + "/dd.xml"
        r.otherDevices[0].server = server
        r.otherDevices[0].location = location
        let text = AnalysisText.render(r, width: .terminal(100))
        for line in text.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
        // Without the line breaks and spaces, the values are all there.
        let joined = text.filter { $0 != "\n" && $0 != " " }
        #expect(joined.contains(location))
        #expect(joined.contains(server.filter { $0 != " " }))
        #expect(!text.contains("…\n    SERVER"))
    }

    @Test("Markdown and HTML: the other DIAL devices have their own table")
    func markdownAndHTML() throws {
        let r = try Self.report()
        let md = AnalysisMarkdown.render(r)
        #expect(md.contains("### Other DIAL devices (not Cast devices)"))
        #expect(md.contains("| 192.0.2.26 | 4 | 192.0.2.10 |"))
        #expect(md.contains("### DIAL latency (ms from M-SEARCH to 200 OK)"))
        #expect(md.contains("Roku UPnP/1.0 Roku/9.1.0"))
        let html = HTMLReport.render(r)
        #expect(html.contains("<h3>Other DIAL devices (1)</h3>"))
        #expect(html.contains("<code>http://192.0.2.26:8060/dial/dd.xml</code>"))
        #expect(html.contains("<code>Google Chrome/120.0.0.0 Linux</code>"))
    }

    @Test("JSON: otherDevices, DIAL latency rows marked via dial, dialAnswerMs, the searcher's USER-AGENT")
    func json() throws {
        let r = try Self.report()
        let doc = try #require(
            try JSONSerialization.jsonObject(with: Data(AnalysisJSON.render(r).utf8)) as? [String: Any])
        let others = try #require(doc["otherDevices"] as? [[String: Any]])
        #expect(others.map { $0["id"] as? String } == ["295c0004-6807-106d-80cf-0a1b2c3d4e5f"])
        #expect(others.first?["castLocation"] as? Bool == false)
        #expect(others.first?["answers"] as? Int == 4)
        let devices = try #require(doc["devices"] as? [[String: Any]])
        #expect(devices.count == 1)
        #expect((devices.first?["dial"] as? [String: Any])?["castLocation"] as? Bool == true)
        let latency = try #require(doc["latency"] as? [[String: Any]])
        #expect(latency.count == 4 && latency.allSatisfy { $0["via"] as? String == "dial" })
        let summaries = try #require(doc["summaries"] as? [String: Any])
        let overall = try #require(summaries["overall"] as? [String: Any])
        #expect((overall["dialAnswerMs"] as? [String: Any])?["count"] as? Int == 4)
        #expect(overall["firstAnswerMs"] is NSNull)
        let clients = try #require(doc["clients"] as? [[String: Any]])
        #expect(clients.first?["dialUserAgent"] as? String == "Google Chrome/120.0.0.0 Linux")
        #expect(clients.first?["dialSearchesAnswered"] as? Int == 4)
    }
}
