import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

#if canImport(FoundationXML)
    import FoundationXML
#endif

// The report of `castscope report` (issue 4): the self-contained HTML page and the Markdown
// verdict and findings, on real captures and on hand-made reports full of hostile strings.

// MARK: - Support

/// Builds analysis reports for the tests.
enum ReportFixtures {
    /// The repository root, from this file's path (Tests/ReportsTests/HTMLReportTests.swift).
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Reads `captures/<name>` with a minimal classic-pcap reader (this test target does not
    /// link libpcap) and the project's DiscoveryDecoder, as `castscope analyze` does.
    static func load(_ name: String) throws -> (info: CaptureInfo, packets: [DiscoveryPacket]) {
        let bytes = [UInt8](try Data(contentsOf: repoRoot.appendingPathComponent("captures/\(name)")))
        func u32(_ o: Int, _ big: Bool) -> UInt32 {
            let b = bytes[o..<o + 4].map(UInt32.init)
            return big ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
        let magic = u32(0, false)
        let big = magic == 0xD4C3_B2A1 || magic == 0x4D3C_B2A1
        let nano = magic == 0xA1B2_3C4D || magic == 0x4D3C_B2A1
        #expect([0xA1B2_C3D4, 0xA1B2_3C4D, 0xD4C3_B2A1, 0x4D3C_B2A1].contains(magic), "not a classic pcap")
        var decoder = DiscoveryDecoder(linkType: LinkType(rawValue: Int32(u32(20, big) & 0x0FFF_FFFF)))
        var packets: [DiscoveryPacket] = []
        var offset = 24
        var frame = 0
        var first: Timestamp?
        var last: Timestamp?
        while offset + 16 <= bytes.count {
            let length = Int(u32(offset + 8, big))
            guard offset + 16 + length <= bytes.count else { break }
            frame += 1
            let fraction = Int64(u32(offset + 4, big))
            let t = Timestamp(seconds: Int64(u32(offset, big)), nanoseconds: nano ? fraction : fraction * 1000)
            first = first ?? t
            last = t
            let original = Int(u32(offset + 12, big))
            let packet = Array(bytes[offset + 16..<offset + 16 + length]).withUnsafeBytes {
                decoder.decode(frame: frame, timestamp: t, bytes: $0, originalLength: original)
            }
            if let packet { packets.append(packet) }
            offset += 16 + length
        }
        let stats = decoder.statistics
        var info = CaptureInfo(
            file: "captures/\(name)", linkType: "EN10MB", packets: frame, discoveryPackets: stats.discoveryPackets,
            malformedPackets: stats.malformedPackets, truncated: offset != bytes.count, start: first, end: last)
        info.mdnsPackets = stats.mdnsPackets
        info.ssdpPackets = stats.ssdpPackets
        return (info, packets)
    }

    /// The report of real captures, each its own timeline.
    static func report(_ names: [String], findings: [Finding] = []) throws -> AnalysisReport {
        var captures: [CaptureInfo] = []
        var timelines: [TimelineResult] = []
        for (i, name) in names.enumerated() {
            let (info, packets) = try load(name)
            var tracker = DiscoveryTracker()
            for p in packets { tracker.ingest(p, capture: i) }
            captures.append(info)
            timelines.append(tracker.finish())
        }
        var r = AnalysisReport(captures: captures, timelines: timelines, options: AnalysisOptions(), merged: false)
        r.findings = findings
        return r
    }

    static let castType = DNSName("_googlecast._tcp.local")

    /// Writes a rendered page to `$CASTSCOPE_HTML_DUMP/<name>` when that is set, to look at it
    /// in a browser.
    static func dump(_ name: String, _ text: String) {
        guard let dir = ProcessInfo.processInfo.environment["CASTSCOPE_HTML_DUMP"] else { return }
        try? text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
    }

    static func label(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// An mDNS response announcing a device (PTR, subtype PTRs, TXT, SRV, A).
    static func announcement(
        instance: String, txt: [String], host: String, address: IPv4Address, appIDs: [String] = [], ttl: UInt32 = 120
    ) -> DNSMessage {
        let name = DNSName(labels: [label(instance)] + castType.labels.map(Array.init))
        var m = DNSMessage(id: 0, flags: 0x8400, counts: [0, 4 + appIDs.count, 0, 0])
        m.answers = [DNSResourceRecord(name: castType, type: .ptr, ttl: ttl, data: .name(name))]
        for app in appIDs {
            let subtype = DNSName(labels: [label("_" + app), label("_sub")] + castType.labels.map(Array.init))
            m.answers.append(DNSResourceRecord(name: subtype, type: .ptr, ttl: ttl, data: .name(name)))
        }
        m.answers += [
            DNSResourceRecord(name: name, type: .txt, cacheFlush: true, ttl: 4500, data: .txt(TXTRecord(txt))),
            DNSResourceRecord(
                name: name, type: .srv, cacheFlush: true, ttl: 120,
                data: .srv(priority: 0, weight: 0, port: 8009, target: DNSName(host))),
            DNSResourceRecord(name: DNSName(host), type: .a, cacheFlush: true, ttl: 120, data: .a(address)),
        ]
        return m
    }

    static func query(_ names: [DNSName] = [castType]) -> DNSMessage {
        var m = DNSMessage(id: 0, flags: 0, counts: [names.count, 0, 0, 0])
        m.questions = names.map { DNSQuestion(name: $0, type: .ptr) }
        return m
    }

    static func packet(_ frame: Int, _ seconds: Double, from: IPv4Address, _ m: DNSMessage) -> DiscoveryPacket {
        DiscoveryPacket(
            frame: frame, timestamp: Timestamp(seconds: 1_764_459_600, nanoseconds: Int64(seconds * 1e9)), ipVersion: 4,
            source: .v4(from), destination: .v4(IPv4Address(224, 0, 0, 251)), ttl: 255, sourcePort: 5353,
            destinationPort: 5353, payload: .mdns(m))
    }

    static let hostile = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>", "'><svg onload=alert(3)>",
        "a&b", "evil\u{202E}gnp.exe", "bell\u{07}esc\u{1B}[2J", "//evil.example/x", "https://evil.example/",
    ]

    /// A report in which everything that comes from the network or the command line is hostile.
    static func hostileReport(findings: [Finding]) -> AnalysisReport {
        var tracker = DiscoveryTracker()
        let announce = announcement(
            instance: "Inst<script>alert(1)</script>\u{202E}",
            txt: [
                "id=<script>alert(1)</script>", "fn=\"><img src=x onerror=alert(2)>",
                "md='><svg onload=alert(3)>", "ca=4101", "st=1", "rs=a&b https://evil.example/",
            ], host: "h.local", address: IPv4Address(192, 0, 2, 21), appIDs: ["<b>APP</b>"])
        tracker.ingest(packet(1, 0.5, from: IPv4Address(192, 0, 2, 10), query()), capture: 0)
        tracker.ingest(packet(2, 0.6, from: IPv4Address(192, 0, 2, 21), announce), capture: 0)
        let capture = CaptureInfo(
            file: "\"><img src=x onerror=alert(4)>\u{202E}\u{1B}.pcap", linkType: "EN10MB", packets: 2,
            discoveryPackets: 2, start: Timestamp(seconds: 1_764_459_600, nanoseconds: 0),
            end: Timestamp(seconds: 1_764_459_601, nanoseconds: 0))
        var r = AnalysisReport(
            captures: [capture], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        r.findings = findings
        return r
    }

    static func finding(_ severity: Severity, _ code: String = "TEST_CODE", frames: [FrameRef] = []) -> Finding {
        Finding(
            code: FindingCode(rawValue: code), severity: severity, title: "Title <script>alert(1)</script>",
            detail: "Device \"><img src=x onerror=alert(2)> never answered\u{1B}[31m \u{202E}txt.exe",
            advice: "Check 'quotes' & <b>tags</b> at //evil.example/x", frames: frames,
            subjects: FindingSubjects(
                clients: ["192.0.2.10"], devices: ["<script>alert(1)</script>"], appIDs: ["'><svg onload=alert(3)>"]))
    }

    /// 50 devices announcing and 20 clients querying, for size limits.
    static func largeReport() -> AnalysisReport {
        var tracker = DiscoveryTracker()
        var frame = 0
        for i in 0..<50 {
            frame += 1
            let a = announcement(
                instance: "Device-\(i)",
                txt: ["id=dev\(i)", "fn=Living room device number \(i)", "md=Chromecast", "ca=4101"],
                host: "d\(i).local", address: IPv4Address(10, 0, UInt8(i / 200), UInt8(i % 200 + 1)))
            tracker.ingest(packet(frame, 0.01 * Double(i), from: IPv4Address(10, 0, 0, UInt8(i + 1)), a), capture: 0)
        }
        for round in 0..<3 {
            for j in 0..<20 {
                frame += 1
                let t = 1 + Double(round) * 10 + Double(j) * 0.02
                tracker.ingest(packet(frame, t, from: IPv4Address(10, 1, 0, UInt8(j + 1)), query()), capture: 0)
            }
        }
        let capture = CaptureInfo(
            file: "large.pcap", linkType: "EN10MB", packets: frame, discoveryPackets: frame,
            start: Timestamp(seconds: 1_764_459_600, nanoseconds: 0),
            end: Timestamp(seconds: 1_764_459_640, nanoseconds: 0))
        return AnalysisReport(
            captures: [capture], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
    }
}

/// The parsed page: every element with its attributes, and the text.
final class ParsedPage: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var text = ""
    var stack: [String] = []
    var svgDepth = 0
    /// Text inside `<style>`.
    var style = ""
    var error: Error?
    var maxSVGHeight = 0.0
    var svgCount = 0

    init(_ html: String) throws {
        super.init()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = self
        parser.shouldResolveExternalEntities = false
        if !parser.parse() { throw parser.parserError ?? error ?? CocoaError(.coderReadCorrupt) }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append((name, attributes))
        stack.append(name)
        if name == "svg" {
            svgCount += 1
            maxSVGHeight = max(maxSVGHeight, Double(attributes["height"] ?? "") ?? .infinity)
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if stack.last == "style" { style += string } else { text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }

    var names: Set<String> { Set(elements.map(\.name)) }
    func attributes(_ name: String) -> [String] { elements.flatMap { $0.attributes.keys }.filter { $0 == name } }
}

/// What every page must satisfy, whatever the report: well-formed, self-contained, inert.
func checkPage(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ParsedPage {
    let page = try ParsedPage(html)
    let allowed: Set<String> = [
        "html", "head", "meta", "title", "style", "body", "main", "header", "h1", "h2", "h3", "h4", "p", "nav", "a",
        "section", "article", "footer", "div", "span", "strong", "code", "bdi", "br", "dl", "dt", "dd", "ol", "li",
        "table", "caption", "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "svg", "g", "rect", "line",
        "circle", "path", "text", "tspan",
    ]
    #expect(
        page.names.isSubset(of: allowed), "unexpected elements \(page.names.subtracting(allowed))",
        sourceLocation: sourceLocation)
    #expect(!html.lowercased().contains("<script"), sourceLocation: sourceLocation)
    #expect(!html.lowercased().contains("<img"), sourceLocation: sourceLocation)
    for (name, attributes) in page.elements {
        for (key, value) in attributes {
            #expect(
                !key.lowercased().hasPrefix("on"), "event handler \(key) on \(name)", sourceLocation: sourceLocation)
            #expect(
                key != "style" && key != "src" && key != "xmlns", "\(key) on \(name)", sourceLocation: sourceLocation)
            #expect(
                !value.contains("//") && !value.lowercased().contains("javascript:"),
                "URL in \(name) \(key)=\(value)", sourceLocation: sourceLocation)
            if key == "href" { #expect(value.hasPrefix("#"), "link out: \(value)", sourceLocation: sourceLocation) }
        }
    }
    // The CSP is the first thing in <head> after the charset.
    let csp = page.elements.first { $0.attributes["http-equiv"] == "Content-Security-Policy" }
    #expect(
        csp?.attributes["content"] == "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
        sourceLocation: sourceLocation)
    // The style sheet loads nothing.
    #expect(
        !page.style.contains("url(") && !page.style.contains("@import") && !page.style.contains("//"),
        sourceLocation: sourceLocation)
    // No control characters (other than newline and tab) and no bidi overrides reach the page.
    #expect(
        !html.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F || (0x80..<0xA0).contains($0.value)
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }, sourceLocation: sourceLocation)
    // Outside text content, nothing that looks like a URL.
    let markup = html.replacingOccurrences(of: ">[^<]*<", with: "><", options: .regularExpression)
    #expect(!markup.contains("http:") && !markup.contains("https:"), sourceLocation: sourceLocation)
    #expect(page.maxSVGHeight < 1400, "an SVG is \(page.maxSVGHeight) px high", sourceLocation: sourceLocation)
    return page
}

// MARK: - Tests

@Suite("HTML report")
struct HTMLReportTests {
    @Test("HTMLText.escape: the five characters, controls and bidi overrides")
    func escape() {
        #expect(HTMLText.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTMLText.escape("a\u{1B}[2J\u{7}b") == "a\\027[2J\\007b")
        #expect(HTMLText.escape("x\u{202E}y\u{2066}z\u{85}") == "x\\u{202e}y\\u{2066}z\\u{85}")
        #expect(HTMLText.escape("tab\tnew\nline") == "tab\tnew\nline")
        #expect(HTMLText.escape("Wohnzimmer-TV 日本 🎬") == "Wohnzimmer-TV 日本 🎬")
        #expect(HTMLText.clipped("<abcdef>", 4) == "&lt;ab…")
    }

    @Test("the verdict reflects the worst severity")
    func verdict() {
        let f = ReportFixtures.finding
        #expect(Verdict([]).headline == "No problems found")
        #expect(Verdict([]).level == "ok")
        #expect(Verdict([f(.info, "A", [])]).headline == "No problems found (1 note)")
        #expect(Verdict([f(.info, "A", []), f(.info, "B", [])]).level == "ok")
        let warnings = Verdict([f(.warning, "A", []), f(.info, "B", []), f(.warning, "C", [])])
        #expect(warnings.headline == "Discovery works, with problems: 2 warnings")
        #expect(warnings.level == "warning")
        let errors = Verdict([f(.error, "A", []), f(.warning, "B", []), f(.error, "C", [])])
        #expect(errors.headline == "Discovery failed: 2 errors, 1 warning")
        #expect(errors.level == "error")
        #expect(errors.worst == .error)
    }

    @Test("real capture: verdict, devices, clients, a timeline and the latency chart")
    func multiDevice() throws {
        let report = try ReportFixtures.report(["multi-device.pcap"])
        let html = HTMLReport.render(report)
        let page = try checkPage(html)
        #expect(html.contains("<section class=\"verdict ok\" id=\"verdict\">"))
        #expect(html.contains("No problems found"))
        for name in ["Downstairs", "Kitchen Speaker", "Bedroom TV"] {
            #expect(html.contains("<bdi class=\"name\">\(name)</bdi>"), "device row \(name)")
            #expect(html.contains("\(name)</text>"), "timeline/latency row \(name)")
        }
        // The figure's caption names the client; the row label does not repeat (and cut) it.
        #expect(html.contains("<bdi>192.0.2.10</bdi>"))
        #expect(html.contains(">Queries</text>"))
        #expect(html.contains("<code>CC1AD845</code>"))
        #expect(html.contains("Google Cast Group"))
        // One legend, one timeline (one client), one latency chart.
        #expect(page.svgCount == 3)
        // Answers to the client: three green dots with their delays, the slow one labelled.
        #expect(html.components(separatedBy: "fill=\"#2e7d32\"><title>").count - 1 == 3)
        #expect(html.contains(">104 ms</text>"))
        #expect(html.contains("aria-label=\"Discovery latency per device\""))
    }

    @Test("real captures: goodbye, client isolation and several files")
    func otherCaptures() throws {
        let goodbye = HTMLReport.render(try ReportFixtures.report(["goodbye.pcap"]))
        _ = try checkPage(goodbye)
        #expect(goodbye.contains("goodbye (TTL 0)"))
        #expect(goodbye.contains("<span class=\"bad\">"))  // the Left column

        let isolation = HTMLReport.render(try ReportFixtures.report(["client-isolation.pcap"]))
        _ = try checkPage(isolation)
        #expect(isolation.contains("Devices (0)"))
        #expect(isolation.contains("No device answered or appeared in this capture."))
        // Every query is a red mark: no answer.
        #expect(isolation.components(separatedBy: "fill=\"#c62828\"><title>Query").count - 1 == 5)
        #expect(isolation.contains("No latency measured"))

        let two = HTMLReport.render(
            try ReportFixtures.report(
                ["healthy-ipv4.pcap", "goodbye.pcap"],
                findings: [
                    Finding(
                        code: .deviceLeft, severity: .info, title: "A device said goodbye", detail: "d",
                        advice: "a", frames: [FrameRef(capture: 1, frame: 27), FrameRef(capture: 0, frame: 3)])
                ]))
        _ = try checkPage(two)
        #expect(two.contains("<span class=\"file\">healthy-ipv4.pcap</span>: frame #3"))
        #expect(two.contains("<span class=\"file\">goodbye.pcap</span>: frame #27"))
        #expect(!two.contains("captures/"), "the page names files without their directory")
        #expect(two.contains("No problems found (1 note)"))
        #expect(two.contains("c2 +"))  // relative times name their capture
    }

    @Test("hostile strings from the network appear only escaped")
    func hostile() throws {
        let findings = [
            ReportFixtures.finding(.error, "QUERIES_UNANSWERED", frames: [FrameRef(capture: 0, frame: 1)]),
            ReportFixtures.finding(.warning, "SLOW_RESPONSE"),
            ReportFixtures.finding(.error, "NO_IPV4_ADDRESS", frames: (1...40).map { FrameRef(capture: 0, frame: $0) }),
        ]
        let report = ReportFixtures.hostileReport(findings: findings)
        #expect(report.devices.count == 1)
        let html = HTMLReport.render(report)
        ReportFixtures.dump("hostile.html", html)
        let page = try checkPage(html)
        for raw in ["<script>alert(1)</script>", "<img src=x", "<svg onload", "<b>APP</b>", "<b>tags</b>"] {
            #expect(!html.contains(raw), "raw \(raw)")
        }
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(html.contains("&#39;&gt;&lt;svg onload=alert(3)&gt;"))
        #expect(html.contains("&lt;b&gt;APP&lt;/b&gt;"))
        #expect(html.contains("\\u{202e}txt.exe"))
        // Parsed back, the text holds the strings as text.
        #expect(page.text.contains("<script>alert(1)</script>"))
        #expect(page.text.contains("\"><img src=x onerror=alert(4)>\\u{202e}\\027.pcap"))
        #expect(page.text.contains("Check 'quotes' & <b>tags</b> at //evil.example/x"))
        // The verdict and the grouping.
        #expect(html.contains("<section class=\"verdict error\" id=\"verdict\">"))
        #expect(html.contains("Discovery failed: 2 errors, 1 warning"))
        let errors = try #require(html.range(of: "<h3 class=\"error\">Errors (2)</h3>"))
        let warnings = try #require(html.range(of: "<h3 class=\"warning\">Warnings (1)</h3>"))
        #expect(errors.upperBound < warnings.lowerBound)
        #expect(!html.contains("Notes ("))
        // At most Finding.maximumFrames frames, with a Wireshark filter.
        #expect(html.contains("frame.number in {1 2 3 "))
        #expect(!html.contains("#31,"))
    }

    @Test("empty reports render")
    func empty() throws {
        let noPackets = AnalysisReport(
            captures: [CaptureInfo(file: "empty.pcap", linkType: "EN10MB")], timelines: [], options: AnalysisOptions(),
            merged: false)
        let html = HTMLReport.render(noPackets)
        _ = try checkPage(html)
        #expect(html.contains("Devices (0)") && html.contains("Clients (0)"))
        #expect(html.contains("nothing to draw"))

        var tracker = DiscoveryTracker()
        tracker.ingest(
            ReportFixtures.packet(1, 0.1, from: IPv4Address(192, 0, 2, 9), DNSMessage(id: 0, flags: 0x8400)), capture: 0
        )
        let quiet = AnalysisReport(
            captures: [
                CaptureInfo(
                    file: "quiet.pcap", linkType: "EN10MB", packets: 1, start: Timestamp(seconds: 5, nanoseconds: 0),
                    end: Timestamp(seconds: 5, nanoseconds: 0))
            ], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        let quietHTML = HTMLReport.render(quiet)
        _ = try checkPage(quietHTML)
        #expect(quietHTML.contains("No client searched"))
    }

    @Test("50 devices and 20 clients: bounded charts")
    func large() throws {
        let report = ReportFixtures.largeReport()
        #expect(report.devices.count == 50)
        #expect(report.clients.count == 20)
        let html = HTMLReport.render(report)
        ReportFixtures.dump("large.html", html)
        let page = try checkPage(html)
        #expect(page.svgCount == 1 + 20 + 1)
        #expect(html.contains("+ 20 more devices not drawn"))
        #expect(html.contains("+ 10 more devices not drawn (see the table below)"))
        #expect(html.utf8.count < 3_000_000)
        for i in 0..<50 { #expect(html.contains("Living room device number \(i)</bdi>")) }
    }

    @Test("Markdown: verdict, findings by severity, frames with their files")
    func markdown() throws {
        var report = try ReportFixtures.report(["healthy-ipv4.pcap", "goodbye.pcap"])
        report.findings = [
            ReportFixtures.finding(.warning, "SLOW_RESPONSE", frames: [FrameRef(capture: 1, frame: 9)]),
            ReportFixtures.finding(
                .error, "QUERIES_UNANSWERED", frames: [FrameRef(capture: 0, frame: 4), FrameRef(capture: 0, frame: 6)]),
        ]
        let md = ReportMarkdown.render(report)
        #expect(md.contains("**Verdict: Discovery failed: 1 error, 1 warning**"))
        let errors = try #require(md.range(of: "#### Errors (1)"))
        let warnings = try #require(md.range(of: "#### Warnings (1)"))
        #expect(errors.upperBound < warnings.lowerBound)
        #expect(md.contains("- `QUERIES_UNANSWERED` **Title \\<script\\>alert\\(1\\)\\</script\\>**"))
        #expect(md.contains("  - Frames: #4, #6 in `healthy-ipv4.pcap`"))
        #expect(md.contains("  - Frames: #9 in `goodbye.pcap`"))
        #expect(md.contains("  - What to do: Check 'quotes' & \\<b\\>tags\\</b\\> at //evil.example/x\n"))
        #expect(md.contains("  - Concerns: client 192.0.2.10; device \\<script\\>alert\\(1\\)\\</script\\>"))
        #expect(!md.contains("<script>") && !md.contains("\u{1B}") && !md.contains("\u{202E}"))

        // One capture: frames without the file name. No findings: the verdict only.
        var one = try ReportFixtures.report(["healthy-ipv4.pcap"])
        one.findings = [ReportFixtures.finding(.info, "DEVICE_LEFT", frames: [FrameRef(capture: 0, frame: 5)])]
        let oneMD = ReportMarkdown.render(one)
        #expect(oneMD.contains("  - Frames: #5\n"))
        #expect(oneMD.contains("**Verdict: No problems found \\(1 note\\)**"))
        #expect(oneMD.contains("#### Notes (1)"))
        one.findings = []
        let none = ReportMarkdown.render(one)
        #expect(none.contains("**Verdict: No problems found**\n\n### Devices"))
        #expect(!none.contains("### Findings"))
    }
}
