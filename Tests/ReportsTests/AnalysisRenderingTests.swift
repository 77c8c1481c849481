import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

@Suite("Analysis renderers")
struct AnalysisRenderingTests {
    /// A report whose network-supplied strings are hostile: escapes, pipes, Markdown, very long.
    static func hostileReport() -> AnalysisReport {
        let evil = "Evil\u{1B}[2J | *TV* <b>" + String(repeating: "W", count: 150)
        return castExchangeReport(
            instance: "Evil|`inst`", txt: ["id=abc", "fn=\(evil)", "md=Chromecast", "ca=4101", "st=1", "rs=\u{7}beep"],
            txtTTL: 4500, client: .v6(IPv6Address("fe80::1c2a:3bff:fe4d:5e6f")!), device: .v6(IPv6Address("fe80::21")!),
            file: "x|y`.pcap")
    }

    /// One Cast query from `client` at t = 100 s, and `device`'s answer 42 ms later: PTR to
    /// `instance`, TXT `txt`, SRV (8009, h.local) and h.local's A 192.0.2.21.
    static func castExchangeReport(
        instance label: String, txt: [String], txtTTL: UInt32, client: IPAddress, device: IPAddress, file: String
    ) -> AnalysisReport {
        castExchange(instance: label, txt: txt, txtTTL: txtTTL, client: client, device: device, file: file).report
    }

    /// The same, with the timeline the report was made from.
    static func castExchange(
        instance label: String, txt: [String], txtTTL: UInt32, client: IPAddress, device: IPAddress, file: String
    ) -> (timeline: TimelineResult, report: AnalysisReport) {
        var tracker = DiscoveryTracker()
        let instance = DNSName(
            labels: [Array(label.utf8)] + DNSName("_googlecast._tcp.local").labels.map(Array.init))
        var response = DNSMessage(id: 0, flags: 0x8400, counts: [0, 4, 0, 0])
        response.answers = [
            DNSResourceRecord(name: DNSName("_googlecast._tcp.local"), type: .ptr, ttl: 120, data: .name(instance)),
            DNSResourceRecord(
                name: instance, type: .txt, cacheFlush: true, ttl: txtTTL, data: .txt(TXTRecord(txt))),
            DNSResourceRecord(
                name: instance, type: .srv, cacheFlush: true, ttl: 120,
                data: .srv(priority: 0, weight: 0, port: 8009, target: DNSName("h.local"))),
            DNSResourceRecord(
                name: DNSName("h.local"), type: .a, cacheFlush: true, ttl: 120, data: .a(IPv4Address(192, 0, 2, 21))),
        ]
        var query = DNSMessage(id: 0, flags: 0, counts: [1, 0, 0, 0])
        query.questions = [DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr)]
        let v6: Bool
        if case .v6 = client { v6 = true } else { v6 = false }
        let group: IPAddress = v6 ? .v6(.mdnsGroup) : .v4(.mdnsGroup)
        let q = DiscoveryPacket(
            frame: 1, timestamp: Timestamp(seconds: 100, nanoseconds: 0), ipVersion: v6 ? 6 : 4, source: client,
            destination: group, ttl: 255, sourcePort: 5353, destinationPort: 5353, payload: .mdns(query))
        let r = DiscoveryPacket(
            frame: 2, timestamp: Timestamp(seconds: 100, nanoseconds: 42_000_000), ipVersion: v6 ? 6 : 4,
            source: device, destination: group, ttl: 255, sourcePort: 5353, destinationPort: 5353,
            payload: .mdns(response))
        tracker.ingest(q, capture: 0)
        tracker.ingest(r, capture: 0)
        let capture = CaptureInfo(
            file: file, linkType: "EN10MB", packets: 2, discoveryPackets: 2, start: q.timestamp, end: r.timestamp)
        let timeline = tracker.finish()
        return (
            timeline,
            AnalysisReport(captures: [capture], timelines: [timeline], options: AnalysisOptions(), merged: false)
        )
    }

    @Test("text: no control characters, nothing wider than a 100-column terminal, values present")
    func text() {
        let report = Self.hostileReport()
        let text = AnalysisText.render(report, width: .terminal(100))
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F })
        for line in text.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
        #expect(text.contains("Evil\\027[2J | *TV*"))
        #expect(text.contains("42.0"))
        #expect(text.contains("fe80::1c2a:3bff:fe4d:5e6f"))
    }

    @Test("Markdown: table cells cannot be split or formatted by network text")
    func markdown() {
        let md = AnalysisMarkdown.render(Self.hostileReport())
        #expect(md.contains("Evil\\\\027\\[2J \\| \\*TV\\* \\<b\\>"))
        #expect(!md.contains("<b>"))
        var borderCounts: [Int] = []
        for line in md.split(separator: "\n") where line.hasPrefix("| Evil") {
            // Every unescaped pipe is a cell border: 9 in the device row (8 columns), 4 in
            // the summary row (3 columns).
            var borders = 0
            var escaped = false
            for ch in line {
                if escaped {
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "|" {
                    borders += 1
                }
            }
            borderCounts.append(borders)
        }
        #expect(borderCounts == [9, 4])
    }

    @Test("JSON: parses, has the schema's fields, and escapes controls")
    func json() throws {
        let text = AnalysisJSON.render(Self.hostileReport())
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let root = try #require(object)
        #expect(root["schemaVersion"] as? Int == 1)
        let devices = try #require(root["devices"] as? [[String: Any]])
        #expect(devices.count == 1)
        // TXT values keep the \DDD escapes of bytes that are not printable text.
        #expect((devices[0]["friendlyName"] as? String)?.hasPrefix("Evil\\027[2J | *TV* <b>") == true)
        #expect(devices[0]["kind"] as? String == "video")
        #expect(devices[0]["status"] as? String == "busy")
        let latency = try #require(root["latency"] as? [[String: Any]])
        #expect(latency.first?["firstAnswerMs"] as? Double == 42.0)
        #expect(latency.first?["resolvedMs"] as? Double == 42.0)
        #expect((root["findings"] as? [Any])?.isEmpty == true)
        #expect(!text.contains("\u{1B}"))
    }

    @Test("milliseconds keep microsecond resolution without exponents")
    func milliseconds() {
        #expect(AnalysisJSON.milliseconds(0) == "0.000")
        #expect(AnalysisJSON.milliseconds(1234.5678) == "1234.568")
        #expect(AnalysisJSON.milliseconds(-0.0004) == "0.000")
        #expect(AnalysisJSON.milliseconds(-2.5) == "-2.500")
        #expect(AnalysisJSON.milliseconds(1e12) == "1000000000000.000")
    }
}
