import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// Output that tells the truth (issue 13): text wraps and never cuts, durations in human
// units, plurals right, the verdict in the JSON, unreadable files everywhere.

@Suite("Truthful output")
struct TruthfulOutputTests {
    static let widths = [60, 80, 200]

    /// A report with long facts: a 150-character friendly name, an IPv6 client, a long path.
    static func report() -> AnalysisReport {
        var r = AnalysisRenderingTests.hostileReport()
        r.captures[0].file = "/home/someone/traces/" + String(repeating: "deep/", count: 12) + "capture.pcap"
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    /// Every non-space character of `text`, in order: wrapping may move characters to other
    /// lines and add indents, but must keep all of them.
    static func characters(_ text: String) -> String { String(text.filter { !$0.isWhitespace }) }

    @Test("a terminal's width: every line fits, nothing is cut", arguments: widths)
    func terminalWidth(columns: Int) {
        let r = Self.report()
        let text = AnalysisText.render(r, width: .terminal(columns))
        for line in text.split(separator: "\n") { #expect(line.count <= columns, "wider than \(columns): \(line)") }
        #expect(!text.contains("…"))
        // The facts in paragraphs are all there once the lines are joined back; those in
        // table cells are checked by the column tests below.
        let joined = Self.characters(text)
        #expect(joined.contains(Self.characters(r.captures[0].file)))
        #expect(joined.contains("Evil\\027[2J|*TV*<b>" + String(repeating: "W", count: 150)))
        #expect(joined.hasPrefix(Self.characters(Verdict(r).line(r.findings))))
        // The client's address is in the clients table: whole when there is room, else broken
        // after a colon (the column tests below check that every piece is there).
        #expect(text.contains(columns >= 200 ? "fe80::1c2a:3bff:fe4d:5e6f" : "fe80::1c2a:"))
    }

    @Test("not a terminal: tables as wide as their longest cell, paragraphs at 100 columns")
    func notATerminal() throws {
        let r = Self.report()
        let text = AnalysisText.render(r)
        #expect(text == AnalysisText.render(r, width: .file))
        #expect(!text.contains("…"))
        // The 150-W name is one table cell on one line, not wrapped.
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("  Evil") })
        #expect(row.contains(String(repeating: "W", count: 150)))
        // The verdict line and findings wrap at 100 (a word longer than that stays whole).
        let verdict = Verdict(r).line(r.findings)
        #expect(Self.characters(text).hasPrefix(Self.characters(verdict)))
        for line in text.split(separator: "\n") where !line.hasPrefix("  ") || line.hasPrefix("    ") {
            #expect(line.count <= 100 || !line.dropFirst(4).contains(" "), "wider than 100: \(line)")
        }
    }

    /// The text of column `i` of each row of `table`, laid out in `widths`: each row takes as
    /// many lines as its tallest cell needs (``TextLayout/lines(_:width:)``), and the column's
    /// pieces of it are joined by spaces.
    static func column(_ table: String, _ rows: [[String]], _ i: Int, widths: [Int]) -> [String] {
        let start = 2 + widths[..<i].reduce(0, +) + 2 * i
        var lines = table.split(separator: "\n").map(Array.init)[...]
        return rows.map { row in
            let height = row.indices.map { TextLayout.lines(row[$0], width: widths[$0]).count }.max() ?? 1
            let mine = lines.prefix(height)
            lines = lines.dropFirst(height)
            return mine.map { chars in
                start >= chars.count ? "" : String(chars[start..<Swift.min(start + widths[i], chars.count)])
            }.joined(separator: " ")
        }
    }

    @Test("table layout: columns fit by wrapping the widest cells; every cell survives", arguments: [40, 60, 80, 200])
    func tableLayout(columns: Int) {
        let layout = TextLayout(width: .terminal(columns))
        let header = ["Client", "Queries", "Device", "App IDs"]
        let rows = [
            ["fe80::7a92:9cff:fe0f:a88e, 192.168.1.103", "44", "Living Room speaker group", "233637DE, CC1AD845"],
            ["192.0.2.10", "1", "TV", "-"],
        ]
        let text = layout.table(header, rows)
        for line in text.split(separator: "\n") { #expect(line.count <= columns, "\(line)") }
        #expect(text.hasPrefix("  Client"))
        let widths = layout.columnWidths([header] + rows)
        for i in header.indices {
            let cells = Self.column(text, [header] + rows, i, widths: widths)
            let expected = ([header] + rows).map { $0[i] }
            #expect(cells.map(Self.characters) == expected.map(Self.characters), "column \(i) at \(columns)")
        }
        // Not a terminal: one line per row.
        let wide = TextLayout(width: .file).table(["Client", "Queries", "Device"], rows)
        #expect(wide.split(separator: "\n").count == 3)
        #expect(wide.contains("fe80::7a92:9cff:fe0f:a88e, 192.168.1.103  44"))
    }

    static let cellCases: [(String, Int, [String])] = [
        ("Living Room TV", 8, ["Living", "Room TV"]),
        ("a,b,c,d", 4, ["a,b,", "c,d"]),
        ("fe80::1c2a:3bff:fe4d:5e6f", 12, ["fe80::1c2a:", "3bff:fe4d:", "5e6f"]),
        ("0123456789", 4, ["0123", "4567", "89"]),
        ("short", 10, ["short"]),
    ]

    @Test("cells break at spaces, then after commas and colons, then anywhere", arguments: cellCases)
    func cellLines(cell: String, width: Int, expected: [String]) {
        #expect(TextLayout.lines(cell, width: width) == expected)
    }

    @Test("COLUMNS-like widths below the minimum are raised to it")
    func minimumWidth() {
        #expect(TextWidth.terminal(5).columns == TextWidth.minimumColumns)
        #expect(TextWidth.terminal(132).columns == 132)
        #expect(!TextWidth.file.fitsTables)
    }

    static let durationCases: [(Double, String)] = [
        (0.94, "0.9 ms"), (104.2, "104 ms"), (1250, "1.25 s"), (12_500, "12.5 s"), (59_940, "59.9 s"),
        (59_960, "1 min 00 s"), (65_000, "1 min 05 s"), (3_953_969, "1 h 05 min 54 s"),
        (3_599_700, "1 h 00 min 00 s"), (86_400_000, "1 day"), (3_888_000_000, "45 days"),
        (183_601_000, "2 days 03 h"), (-65_000, "-1 min 05 s"), (Double.nan, "0 ms"),
    ]

    @Test("durations in human units", arguments: durationCases)
    func durations(ms: Double, expected: String) {
        #expect(Wording.duration(milliseconds: ms) == expected)
    }

    @Test("a capture's length is a duration, not a count of milliseconds")
    func captureLength() {
        let start = Timestamp(seconds: 1_764_459_601, nanoseconds: 0)
        let end = Timestamp(seconds: 1_764_459_601 + 3953, nanoseconds: 969_000_000)
        let line = AnalysisTables.captureLine(
            CaptureInfo(file: "x", linkType: "EN10MB", packets: 1, discoveryPackets: 1, start: start, end: end))
        #expect(line.hasSuffix("UTC, 1 h 05 min 54 s"))
        #expect(line.contains("1 frame, 1 discovery packet,"))
    }

    @Test("plurals: once, twice, N times; 1 query, 2 queries")
    func plurals() {
        #expect(Wording.times(1) == "once")
        #expect(Wording.times(2) == "twice")
        #expect(Wording.times(3) == "3 times")
        #expect(Wording.times(0) == "0 times")
        #expect(Wording.count(1, "query", "queries") == "1 query")
        #expect(Wording.count(2, "query", "queries") == "2 queries")
    }

    @Test("QUERIES_UNANSWERED for one query says 'once', never '1 times'")
    func unansweredOnce() throws {
        var query = DNSMessage(id: 0, flags: 0, counts: [1, 0, 0, 0])
        query.questions = [DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr)]
        var tracker = DiscoveryTracker()
        tracker.ingest(
            DiscoveryPacket(
                frame: 1, timestamp: Timestamp(seconds: 100, nanoseconds: 0), ipVersion: 4,
                source: .v4(IPv4Address(192, 0, 2, 10)), destination: .v4(.mdnsGroup), ttl: 255, sourcePort: 5353,
                destinationPort: 5353, payload: .mdns(query)), capture: 0)
        var r = AnalysisReport(
            captures: [CaptureInfo(file: "x.pcap", linkType: "EN10MB", packets: 1, discoveryPackets: 1)],
            timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        r.findings = Diagnosis.diagnose(r)
        let f = try #require(r.findings.first { $0.code == .queriesUnanswered })
        #expect(f.title.contains("asked for Cast devices once"), "\(f.title)")
        #expect(!AnalysisText.render(r).contains("1 times"))
    }

    static let verdictCases: [([Severity], [String], Verdict.Status, String)] = [
        ([], [], .ok, "OK: No problems found"),
        ([.info], [], .ok, "OK: No problems found (1 note)"),
        ([.warning, .info], [], .warn, "WARN: Discovery works, with problems: 1 warning"),
        ([], ["gone.pcap"], .warn, "WARN: No problems found; 1 capture not read: gone.pcap"),
        (
            [.error, .warning], ["a", "b"], .fail,
            "FAIL: Discovery failed: 1 error, 1 warning; 2 captures not read: a and b"
        ),
    ]

    @Test("verdict status, tag and level", arguments: verdictCases)
    func verdict(severities: [Severity], unreadable: [String], status: Verdict.Status, line: String) {
        let findings = severities.map { ReportFixtures.finding($0) }
        let v = Verdict(findings, unreadable: unreadable)
        #expect(v.status == status)
        #expect(v.line(findings).hasPrefix(line), "\(v.line(findings))")
    }

    /// A report of one read capture and one that could not be opened.
    static func withUnreadable() -> AnalysisReport {
        var r = AnalysisRenderingTests.hostileReport()
        r.captures[0].file = "/srv/captures/present.pcap"
        r.unreadable = [
            UnreadableCapture(
                file: "/srv/captures/missing.pcap",
                error: "/srv/captures/missing.pcap: No such file or directory")
        ]
        return r
    }

    @Test("JSON: the verdict object and the unreadable list")
    func jsonVerdict() throws {
        let r = Self.withUnreadable()
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(AnalysisJSON.renderUTF8(r))) as? [String: Any])
        let verdict = try #require(object["verdict"] as? [String: Any])
        #expect(verdict["status"] as? String == "warn")
        #expect(verdict["errors"] as? Int == 0)
        #expect(verdict["warnings"] as? Int == 0)
        #expect(verdict["unreadable"] as? Int == 1)
        let headline = try #require(verdict["headline"] as? String)
        #expect(headline == Verdict(r).line(r.findings))
        #expect(AnalysisText.render(r).hasPrefix(headline + "\n") || headline.count > 100)
        #expect(headline.contains("/srv/captures/missing.pcap"))
        let unreadable = try #require(object["unreadable"] as? [[String: Any]])
        #expect(unreadable.count == 1)
        #expect(unreadable.first?["file"] as? String == "/srv/captures/missing.pcap")
        #expect((unreadable.first?["error"] as? String)?.contains("No such file") == true)
        // Keys a version-1 consumer already reads are still there.
        for key in ["schemaVersion", "captures", "findings", "devices", "clients"] { #expect(object[key] != nil) }
    }

    @Test("text, Markdown and HTML name the unreadable file")
    func unreadableEverywhere() throws {
        let r = Self.withUnreadable()
        let text = AnalysisText.render(r)
        #expect(text.hasPrefix("WARN: "))
        #expect(text.contains("Not read /srv/captures/missing.pcap\n  /srv/captures/missing.pcap: No such file"))
        let md = AnalysisMarkdown.render(r)
        #expect(md.contains("- `/srv/captures/missing.pcap`: not read: "))
        #expect(md.contains("1 capture not read: /srv/captures/missing.pcap"))
        let html = HTMLReport.render(r)
        #expect(html.contains("1 capture not read: missing.pcap"))
        #expect(html.contains("<span class=\"file\">missing.pcap</span>"))
        #expect(html.contains("not read: missing.pcap: No such file or directory"))
        #expect(html.contains("class=\"verdict warning\""))
    }

    @Test("HTML and the report's Markdown name captures by file name only, everywhere")
    func noLocalPaths() throws {
        var r = Self.withUnreadable()
        r.findings = [
            Finding(
                code: .truncatedCapture, severity: .warning, title: "/srv/captures/present.pcap ends mid-packet",
                detail: "Read /srv/captures/present.pcap to the end.", advice: "",
                frames: [FrameRef(capture: 0, frame: 1)])
        ]
        let html = HTMLReport.render(r)
        _ = try checkPage(html)
        #expect(!html.contains("/srv"), "a local path is in the page")
        #expect(html.contains("present.pcap ends mid-packet"))
        #expect(html.contains("<title>CastScope report: present.pcap</title>"))
        #expect(!ReportMarkdown.render(r).contains("/srv"))
        // analyze's own outputs keep the paths as given.
        #expect(AnalysisText.render(r).contains("/srv/captures/present.pcap"))
        #expect(ReportFileNames.fileName("a/b/c.pcap") == "c.pcap")
        #expect(ReportFileNames.fileName("c.pcap") == "c.pcap")
        #expect(ReportFileNames.fileName("-") == "-")
    }

    static let markdownCases: [(String, String)] = [
        ("capture again with `-s 0`; then", "capture again with <code>-s 0</code>; then"),
        ("TXT key `<fn>` & more", "TXT key <code>&lt;fn&gt;</code> &amp; more"),
        ("**bold `x`** end", "<strong>bold <code>x</code></strong> end"),
        ("a * b ** c", "a * b ** c"),
        ("unclosed `tick <i>", "unclosed `tick &lt;i&gt;"),
        ("****", "****"),
        ("`<script>alert(1)</script>`", "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>"),
    ]

    @Test("HTML: code spans and bold in findings' prose are rendered, safely", arguments: markdownCases)
    func inlineMarkdown(text: String, html: String) {
        #expect(HTMLText.inlineMarkdown(text) == html)
    }

    @Test("HTML: a finding's advice shows its command as code, not backticks")
    func adviceCode() throws {
        var r = AnalysisRenderingTests.hostileReport()
        r.findings = [
            Finding(
                code: .malformedPackets, severity: .warning, title: "TXT key `fn` missing",
                detail: "d", advice: "Capture again with `-s 0` and **no** filter.")
        ]
        let html = HTMLReport.render(r)
        _ = try checkPage(html)
        #expect(html.contains("Capture again with <code>-s 0</code> and <strong>no</strong> filter."))
        #expect(html.contains("TXT key <code>fn</code> missing"))
        let article = try #require(html.range(of: "<article")).lowerBound
        let end = try #require(html.range(of: "</article>")).upperBound
        #expect(!html[article..<end].contains("`"))
    }
}
