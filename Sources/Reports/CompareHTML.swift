import CastDiscovery

/// `castscope compare --format html`: one self-contained page (inline CSS and SVG, nothing
/// loaded, nothing run) with the two captures' timelines side by side and a line between each
/// pair of matched messages; lost messages stand out. Before-and-after comparisons get their
/// tables. Well-formed XML, like ``HTMLReport``.
public enum CompareHTML {
    /// The most messages drawn per capture and the most pair lines (the tables keep the counts).
    static let maximumDrawn = 3000

    public static func render(_ c: CaptureComparison) -> String {
        let e = HTMLText.escape
        let worst = c.findings.map(\.finding.severity).min()
        var out = head("CastScope compare: \(base(c.a.shownName)) and \(base(c.b.shownName))")
        out += "<header>\n<h1>Where do the packets die?</h1>\n"
        out += "<p class=\"lead\">A: <span class=\"file\">\(e(base(c.a.shownName)))</span> (sender side) · "
        out += "B: <span class=\"file\">\(e(base(c.b.shownName)))</span> (device side)</p>\n</header>\n"
        out += "<section class=\"verdict \(level(worst))\" id=\"verdict\">\n"
        out += "<p class=\"headline\">\(e(CompareReport.verdict(c)))</p>\n"
        out += "<p class=\"tally\">\(e(CompareReport.clockLine(c))).</p>\n</section>\n"

        out += "<h2 id=\"directions\">Each direction</h2>\n<div class=\"scroll\"><table>\n"
        out += "<tr><th>Direction</th><th>Seen</th><th>Arrived</th><th>Lost</th><th>Loss</th><th>Delay p50</th>"
        out += "<th>Delay p90</th><th>Changed</th><th>First lost</th></tr>\n"
        for (name, t, side) in [
            ("Queries: sender → devices", c.queries, "A"), ("Answers: devices → sender", c.answers, "B"),
        ] {
            let lost = t.lost > 0 ? "<td class=\"bad\">\(t.lost)</td>" : "<td>0</td>"
            out += "<tr><td>\(e(name))</td><td>\(t.seen)</td><td>\(t.arrived)</td>\(lost)"
            out += "<td>\(Wording.decimal(t.lossPercent, places: 1)) %</td>"
            out += "<td>\(e(t.delay.map { Wording.duration(milliseconds: $0.p50 * 1000) } ?? "–"))</td>"
            out += "<td>\(e(t.delay.map { Wording.duration(milliseconds: $0.p90 * 1000) } ?? "–"))</td>"
            out += "<td>\(t.changed)</td><td>\(e(t.firstLost.map { "\(side) frame \($0.frame)" } ?? "–"))</td></tr>\n"
        }
        out += "</table></div>\n"

        out += "<h2 id=\"timelines\">The two timelines</h2>\n"
        out += "<p class=\"lead\">Top: capture A; bottom: capture B, shifted by the clock offset. Blue: Cast "
        out += "queries; green: Cast responses; red rings: lost (no copy at the other point); grey: other hosts' "
        out += "messages. A line joins the two copies of one message.</p>\n"
        out += timelines(c)

        for (title, hosts) in [("Senders (capture A)", c.senders), ("Devices (capture B)", c.devices)]
        where !hosts.isEmpty {
            out += "<h2>\(e(title))</h2>\n<div class=\"scroll\"><table>\n"
            out += "<tr><th>Host</th><th>Seen</th><th>Arrived</th><th>Lost</th></tr>\n"
            for h in hosts {
                out += "<tr><td>\(e(h.label))</td><td>\(h.seen)</td><td>\(h.arrived)</td><td>\(h.lost)</td></tr>\n"
            }
            out += "</table></div>\n"
        }

        out += "<h2 id=\"findings\">Findings</h2>\n"
        if c.findings.isEmpty { out += "<p class=\"none\">No finding.</p>\n" }
        for cf in c.findings {
            let f = cf.finding
            out += "<div class=\"finding \(f.severity.rawValue)\">\n<h4><span class=\"badge \(f.severity.rawValue)\">"
            out += "\(f.severity.rawValue)</span> <code>\(e(f.code.rawValue))</code> \(e(f.title))</h4>\n"
            out += "<p>\(e(f.detail))</p>\n<p class=\"advice\">\(e(f.advice))</p>\n"
            if let frames = CompareReport.framesWords(cf) { out += "<p class=\"sub\">Frames: \(e(frames))</p>\n" }
            out += "</div>\n"
        }
        return out + foot()
    }

    public static func render(_ c: BeforeAfterComparison) -> String {
        let e = HTMLText.escape
        var out = head("CastScope before and after: \(base(c.before.file)) and \(base(c.after.file))")
        out += "<header>\n<h1>Before and after</h1>\n"
        out += "<p class=\"lead\">Before: <span class=\"file\">\(e(base(c.before.file)))</span> · After: "
        out += "<span class=\"file\">\(e(base(c.after.file)))</span></p>\n</header>\n"
        let worst = c.findingsAppeared.map(\.severity).min()
        out += "<section class=\"verdict \(level(worst))\" id=\"verdict\">\n"
        out += "<p class=\"headline\">\(e(CompareReport.verdict(c)))</p>\n"
        if c.reason == .noOverlap { out += "<p class=\"tally\">\(e(CompareReport.noOverlapWords))</p>\n" }
        out += "</section>\n<h2>Devices</h2>\n"
        let devices =
            c.appeared.map { ("appeared", $0) } + c.disappeared.map { ("disappeared", $0) }
            + c.kept.map { ("in both", $0) }
        out += table(["Change", "Device"], devices.map { [$0.0, CompareReport.deviceLabel($0.1)] })
        out += "<h2>First answer (p50 / p90)</h2>\n"
        out += table(
            ["Device", "Before", "After"],
            c.latency.map { [$0.name ?? $0.id, CompareReport.latency($0.before), CompareReport.latency($0.after)] }
                + [["all devices", CompareReport.latency(c.overallBefore), CompareReport.latency(c.overallAfter)]])
        out += "<h2>Findings</h2>\n"
        let findings =
            c.findingsAppeared.map { ["appeared", $0.severity.rawValue, $0.code.rawValue, $0.title] }
            + c.findingsResolved.map { ["resolved", $0.severity.rawValue, $0.code.rawValue, $0.title] }
            + c.findingsKept.map { ["in both", $0.severity.rawValue, $0.code.rawValue, $0.title] }
        out += table(["Change", "Severity", "Code", "Finding"], findings)
        return out + foot()
    }

    // MARK: The timelines

    /// Two rows of dots, A above B on A's clock, and a line per matched pair.
    static func timelines(_ c: CaptureComparison) -> String {
        let theta = c.offset?.median ?? 0
        var times = c.a.messages.map(\.time) + c.b.messages.map { $0.time - theta }
        for t in [c.a.start, c.a.end].compactMap({ $0 }) { times.append(t) }
        for t in [c.b.start, c.b.end].compactMap({ $0 }) { times.append(t - theta) }
        guard let lo = times.min(), let hi = times.max() else { return "<p class=\"none\">No Cast message.</p>\n" }
        let (width, left, right) = (1000.0, 40.0, 20.0)
        let (yA, yB) = (40.0, 150.0)
        let span = max(hi - lo, 0.001)
        func x(_ t: Double) -> String { Wording.decimal(left + (t - lo) / span * (width - left - right), places: 1) }

        // Each paired message's direction (the sender's query, a device's answer, or neither).
        var pairedA: [Int: CastMessageKind?] = [:]
        var pairedB: [Int: CastMessageKind?] = [:]
        for (k, p) in c.match.pairs.enumerated() {
            pairedA[p.a] = c.pairDirections[k]
            pairedB[p.b] = c.pairDirections[k]
        }
        let senders = Set(c.senders.map(\.host))
        let devices = Set(c.devices.map(\.host))
        var svg = "<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" "
        svg += "height=\"200\" viewBox=\"0 0 \(Int(width)) 200\" role=\"img\" aria-label=\"The two timelines\">\n"
        svg += "<text x=\"4\" y=\"\(Int(yA) + 4)\" font-size=\"13\" font-weight=\"700\">A</text>\n"
        svg += "<text x=\"4\" y=\"\(Int(yB) + 4)\" font-size=\"13\" font-weight=\"700\">B</text>\n"
        svg += "<line x1=\"\(Int(left))\" y1=\"\(Int(yA))\" x2=\"\(Int(width - right))\" y2=\"\(Int(yA))\" "
        svg += "stroke=\"#d8dee4\" />\n<line x1=\"\(Int(left))\" y1=\"\(Int(yB))\" x2=\"\(Int(width - right))\" "
        svg += "y2=\"\(Int(yB))\" stroke=\"#d8dee4\" />\n"
        for (k, p) in c.match.pairs.prefix(maximumDrawn).enumerated() {
            let colour =
                c.pairDirections[k] == .query ? "#1565c0" : c.pairDirections[k] == .response ? "#2e7d32" : "#b0b8c0"
            svg += "<line x1=\"\(x(c.a.messages[p.a].time))\" y1=\"\(Int(yA))\" "
            svg += "x2=\"\(x(c.b.messages[p.b].time - theta))\" y2=\"\(Int(yB))\" stroke=\"\(colour)\" "
            svg += "stroke-opacity=\"0.5\" />\n"
        }
        func dots(
            _ side: CompareSide, y: Double, shift: Double, paired: [Int: CastMessageKind?], own: Set<String>,
            ownKind: CastMessageKind
        ) -> String {
            var s = ""
            for (i, m) in side.messages.enumerated().prefix(maximumDrawn) {
                let kind = side.kinds[i]
                // Counted here: sent from this side by a sender (A) or a device (B).
                let counted = kind == ownKind && own.contains(m.host)
                let direction: CastMessageKind? = paired[i] ?? (counted ? kind : nil)
                let fill = direction == .query ? "#1565c0" : direction == .response ? "#2e7d32" : "#b0b8c0"
                let lost = counted && paired[i] == nil
                s += "<circle cx=\"\(x(m.time - shift))\" cy=\"\(Int(y))\" r=\"\(lost ? 5 : 3)\" "
                s += lost ? "fill=\"none\" stroke=\"#c62828\" stroke-width=\"2\">" : "fill=\"\(fill)\">"
                s += "<title>frame \(m.frame): \(kind == .query ? "query" : "response") from "
                s += "\(HTMLText.escape(m.source))\(lost ? ", lost" : "")</title></circle>\n"
            }
            return s
        }
        svg += dots(c.a, y: yA, shift: 0, paired: pairedA, own: senders, ownKind: .query)
        svg += dots(c.b, y: yB, shift: theta, paired: pairedB, own: devices, ownKind: .response)
        svg += "<text x=\"\(Int(left))\" y=\"190\" font-size=\"11\" fill=\"#5f6b76\">"
        svg += "\(CompareReport.clock(lo)) UTC (A's clock)</text>\n"
        svg += "<text x=\"\(Int(width - right))\" y=\"190\" font-size=\"11\" fill=\"#5f6b76\" text-anchor=\"end\">"
        svg += "\(CompareReport.clock(hi))</text>\n"
        return svg + "</svg></div>\n"
    }

    // MARK: Page parts

    static func head(_ title: String) -> String { HTMLReport.pageHead(title: title) }

    static func foot() -> String {
        "<footer>Generated by castscope compare. Times are UTC. Frame numbers are Wireshark’s, in the capture "
            + "named.</footer>\n</main>\n</body>\n</html>\n"
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let e = HTMLText.escape
        guard !rows.isEmpty else { return "<p class=\"none\">None.</p>\n" }
        var out = "<div class=\"scroll\"><table>\n<tr>" + header.map { "<th>\(e($0))</th>" }.joined() + "</tr>\n"
        for row in rows { out += "<tr>" + row.map { "<td>\(e($0))</td>" }.joined() + "</tr>\n" }
        return out + "</table></div>\n"
    }

    static func level(_ worst: Severity?) -> String {
        switch worst {
        case .error?: "error"
        case .warning?: "warning"
        default: "ok"
        }
    }

    /// A file's name without its directories (the page may be attached to a bug report).
    static func base(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}
