import CastDiscovery
import WireFormat

/// The terminal rendering of `castscope analyze`: tables that fit 100 columns, every
/// network string sanitised.
public enum AnalysisText {
    /// The widest line the tables produce.
    public static let width = 100

    /// - Parameter style: ``TextStyle/plain`` (the default) or coloured for a terminal.
    public static func render(_ r: AnalysisReport, style: TextStyle = .plain) -> String {
        let verdict = Verdict(r.findings)
        var out = style.verdict(clip(verdict.line(r.findings)), verdict) + "\n"
        out += findings(r, style: style)
        out += "\n"
        for c in r.captures {
            out += clip("Capture \(c.file)") + "\n" + clip("  " + AnalysisTables.captureLine(c)) + "\n"
        }
        out += "\n" + AnalysisTables.countsLine(r) + "\n"

        out += "\nDevices (\(r.devices.count))\n"
        out += table(AnalysisTables.deviceHeader, AnalysisTables.deviceRows(r), widths: [17, 17, 7, 15, 5, 6, 9, 8])
        for d in r.devices {
            var words = ["\(AnalysisTables.deviceName(d)):", "id", d.id]
            if let ca = d.capabilityBits { words += ["ca=\(ca)"] + d.capabilities }
            if let host = d.host { words += ["host", host] }
            if d.addresses.count > 1 { words += ["addresses"] + d.addresses.map(\.description) }
            out += wrap(words)
        }

        out += "\nClients (\(r.clients.count))\n"
        out += table(
            AnalysisTables.clientHeader, AnalysisTables.clientRows(r, allAddresses: false),
            widths: [28, 7, 7, 8, 16, 8, 6, 4])
        // A host's other addresses in full, below the table (a table cell would cut them).
        for c in r.clients where c.allAddresses.count > 1 {
            out += wrap(["\(c.address):", "addresses"] + c.allAddresses.map(\.description))
        }

        let (rows, notes) = AnalysisTables.latencyRows(r)
        out += "\nLatency, ms from session start (session gap \(AnalysisTables.ms(r.sessionGapSeconds * 1000)) ms)\n"
        out += table(AnalysisTables.latencyHeader, rows, widths: [28, 24, 13, 12, 12])
        for (i, n) in notes.enumerated() { out += clip("  [\(i + 1)] \(n)") + "\n" }

        if !r.responses.isEmpty {
            out += "\nAnswers to queries (expected, answered, suppressed by known answers, missed)\n"
            out += table(
                AnalysisTables.responseHeader, AnalysisTables.responseRows(r), widths: [26, 18, 4, 4, 4, 4, 26])
        }

        out += "\nSummary, ms\n"
        out += table(AnalysisTables.summaryHeader, AnalysisTables.summaryRows(r), widths: [22, 36, 36])
        return out
    }

    /// Findings by severity: code and title, then the detail, advice and evidence, wrapped.
    static func findings(_ r: AnalysisReport, style: TextStyle = .plain) -> String {
        guard !r.findings.isEmpty else { return "" }
        var out = ""
        for severity in Severity.allCases {
            let group = r.findings.filter { $0.severity == severity }
            guard !group.isEmpty else { continue }
            out += "\n" + style.heading("\(severity.rawValue.uppercased())S", severity) + "\n"
            for f in group {
                func words(_ s: String) -> [String] { s.split(separator: " ").map(String.init) }
                out += wrap(["\(f.code.rawValue):"] + words(f.title), first: "  * ", rest: "    ")
                out += wrap(words(f.detail), first: "    ", rest: "    ")
                out += wrap(["Advice:"] + words(f.advice), first: "    ", rest: "    ")
                if f.evidence.count > 1 {
                    // One item per subject: its own line and frames (the finding's are their union).
                    for e in f.evidence {
                        out += wrap(words(ReportEvidence.line(e)), first: "    - ", rest: "      ")
                        if !e.frames.isEmpty {
                            out += wrap(
                                ["Frames:"] + frameList(e.frames, captures: r.captures), first: "      ", rest: "      "
                            )
                        }
                    }
                } else if !f.frames.isEmpty {
                    out += wrap(["Frames:"] + frameList(f.frames, captures: r.captures), first: "    ", rest: "    ")
                }
            }
        }
        return out
    }

    /// `#12` for one capture, `file#12` when there are several.
    static func frameList(_ frames: [FrameRef], captures: [CaptureInfo]) -> [String] {
        var seen: [FrameRef] = []
        for f in frames where !seen.contains(f) { seen.append(f) }
        return seen.map { f in
            captures.count > 1 && f.capture < captures.count ? "\(captures[f.capture].file)#\(f.frame)" : "#\(f.frame)"
        }
    }

    /// A left-aligned table with two leading spaces and two spaces between columns; cells
    /// longer than their width end in `…`.
    static func table(_ header: [String], _ rows: [[String]], widths: [Int]) -> String {
        var out = ""
        for row in [header] + rows {
            var cells: [String] = []
            for (i, cell) in row.enumerated() {
                let w = widths[i]
                var text = TerminalText.sanitize(cell)
                if text.count > w { text = String(text.prefix(w - 1)) + "…" }
                cells.append(text + String(repeating: " ", count: w - text.count))
            }
            var line = "  " + cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        if rows.isEmpty { out += "  (none)\n" }
        return out
    }

    /// Words joined by spaces, wrapped at ``width``: the first line starts with `first`, the
    /// others with `rest`.
    static func wrap(_ words: [String], first: String = "  ", rest: String = "    ") -> String {
        var out = ""
        var line = first
        var empty = true
        for word in words.map(TerminalText.sanitize) where !word.isEmpty {
            let w = word.count > width - rest.count ? String(word.prefix(width - rest.count - 1)) + "…" : word
            if !empty, line.count + 1 + w.count > width {
                out += line + "\n"
                line = rest
                empty = true
            }
            line += (empty ? "" : " ") + w
            empty = false
        }
        return out + line + "\n"
    }

    static func clip(_ s: String) -> String {
        let t = TerminalText.sanitize(s)
        return t.count > width ? String(t.prefix(width - 1)) + "…" : t
    }
}
