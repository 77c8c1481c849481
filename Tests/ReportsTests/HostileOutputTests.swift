import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// Safe output (issue 7): the strings the issue names, as raw bytes in a receiver's TXT `fn`,
// through the tracker into every renderer.

@Suite("Hostile friendly names in every output")
struct HostileOutputTests {
    /// The `fn` values: markup, an OSC title escape with BEL, a Markdown table breaker, invalid
    /// UTF-8 (a lone continuation byte, an overlong form, 0xFF), and a 255-byte string.
    static let names: [[UInt8]] = [
        Array("<script>alert(1)</script>".utf8),
        Array("\u{1B}]0;pwned\u{07}".utf8),
        Array("| table | break".utf8),
        [0x80, 0x41, 0xC0, 0xAF, 0xFF, 0x42],
        Array(repeating: 0x57, count: 252),  // "fn=" + 252 bytes: a 255-byte TXT string
    ]

    static func report(_ fn: [UInt8]) -> AnalysisReport {
        let instance = DNSName("Evil._googlecast._tcp.local")
        var response = DNSMessage(id: 0, flags: 0x8400, counts: [0, 4, 0, 0])
        response.answers = [
            DNSResourceRecord(name: DNSName("_googlecast._tcp.local"), type: .ptr, ttl: 120, data: .name(instance)),
            DNSResourceRecord(
                name: instance, type: .txt, cacheFlush: true, ttl: 4500,
                data: .txt(TXTRecord(strings: [Array("id=abc".utf8), Array("fn=".utf8) + fn, Array("md=X".utf8)]))),
            DNSResourceRecord(
                name: instance, type: .srv, cacheFlush: true, ttl: 120,
                data: .srv(priority: 0, weight: 0, port: 8009, target: DNSName("h.local"))),
            DNSResourceRecord(
                name: DNSName("h.local"), type: .a, cacheFlush: true, ttl: 120, data: .a(IPv4Address(192, 0, 2, 21))),
        ]
        var tracker = DiscoveryTracker()
        tracker.ingest(
            DiscoveryPacket(
                frame: 1, timestamp: Timestamp(seconds: 100, nanoseconds: 0), ipVersion: 4,
                source: .v4(IPv4Address(192, 0, 2, 21)), destination: .v4(.mdnsGroup), ttl: 255, sourcePort: 5353,
                destinationPort: 5353, payload: .mdns(response)), capture: 0)
        var r = AnalysisReport(
            captures: [CaptureInfo(file: "x.pcap", linkType: "EN10MB", packets: 1, discoveryPackets: 1)],
            timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    @Test("terminal: no control character or escape sequence survives", arguments: names)
    func terminal(fn: [UInt8]) {
        let text = AnalysisText.render(Self.report(fn))
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F..<0xA0).contains($0.value) })
        #expect(!text.contains("\u{FFFD}"), "invalid bytes are escaped, not replaced")
        if fn.first == 0x1B { #expect(text.contains("\\027]0;pwned\\007")) }
        if fn.first == 0x80 { #expect(text.contains("\\128A\\192\\175\\255B")) }
    }

    @Test("JSON: valid UTF-8, parses, the bytes are escaped rather than dropped", arguments: names)
    func json(fn: [UInt8]) throws {
        let text = AnalysisJSON.render(Self.report(fn))
        let data = Data(text.utf8)
        #expect(String(data: data, encoding: .utf8) != nil)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        let name = try #require(devices.first?["friendlyName"] as? String)
        #expect(!name.unicodeScalars.contains { $0.value < 0x20 })
        if fn.first == 0x80 { #expect(name == "\\128A\\192\\175\\255B") }
        if fn.count == 252 { #expect(name.count == 252) }
        if fn.first == 0x3C { #expect(name == "<script>alert(1)</script>") }  // JSON keeps text; its readers escape
    }

    @Test("Markdown: no link, image or HTML, and table rows keep their columns", arguments: names)
    func markdown(fn: [UInt8]) {
        let md = AnalysisMarkdown.render(Self.report(fn))
        // Every `<`, `[` and `!` from the network is backslash-escaped: no HTML, link or image.
        let chars = Array(md)
        for (i, c) in chars.enumerated() where c == "<" {
            #expect(i > 0 && chars[i - 1] == "\\", "raw < in Markdown")
        }
        if fn.first == 0x3C { #expect(md.contains("\\<script\\>alert\\(1\\)\\</script\\>")) }
        #expect(!md.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        // Every row of a table has as many unescaped `|` as its header.
        var columns: Int?
        for line in md.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard line.hasPrefix("|") else {
                columns = nil
                continue
            }
            let bars = Self.unescapedBars(line)
            if let columns { #expect(bars == columns, "row split: \(line)") } else { columns = bars }
        }
    }

    @Test("HTML: no markup or script survives", arguments: names)
    func html(fn: [UInt8]) {
        let html = HTMLReport.render(Self.report(fn))
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("\u{1B}") && !html.contains("\u{07}"))
        if fn.first == 0x3C { #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")) }
    }

    static func unescapedBars(_ line: String) -> Int {
        var n = 0
        var escaped = false
        for c in line {
            if escaped {
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "|" {
                n += 1
            }
        }
        return n
    }
}
