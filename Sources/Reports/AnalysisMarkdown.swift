import CastDiscovery
import WireFormat

/// The Markdown rendering of `castscope analyze`, for pasting into an issue tracker.
public enum AnalysisMarkdown {
    public static func render(_ r: AnalysisReport) -> String {
        var out = "## CastScope analysis\n\n"
        for c in r.captures {
            out += "- `\(code(c.file))`: \(escape(AnalysisTables.captureLine(c)))\n"
        }
        for u in r.unreadable { out += "- `\(code(u.file))`: not read: \(escape(u.error))\n" }
        out += "\n" + escape(AnalysisTables.countsLine(r)) + "\n"
        out += "\n" + ReportMarkdown.findings(r)
        out += "\n### Devices\n\n" + table(AnalysisTables.deviceHeader, AnalysisTables.deviceRows(r))
        out += "\n### Clients\n\n" + table(AnalysisTables.clientHeader, AnalysisTables.clientRows(r))
        let (rows, notes) = AnalysisTables.latencyRows(r)
        out += "\n### Latency (ms from session start)\n\n" + table(AnalysisTables.latencyHeader, rows)
        if !notes.isEmpty {
            out += "\n"
            for (i, n) in notes.enumerated() { out += "\(i + 1). \(escape(n))\n" }
        }
        if !r.responses.isEmpty {
            out += "\n### Answers to queries\n\n" + table(AnalysisTables.responseHeader, AnalysisTables.responseRows(r))
        }
        out += "\n### Summary (ms)\n\n" + table(AnalysisTables.summaryHeader, AnalysisTables.summaryRows(r))
        return out
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        if rows.isEmpty { return "_none_\n" }
        var out = "| " + header.map(escape).joined(separator: " | ") + " |\n"
        out += "|" + String(repeating: " --- |", count: header.count) + "\n"
        for row in rows { out += "| " + row.map(escape).joined(separator: " | ") + " |\n" }
        return out
    }

    /// Escapes text for Markdown: punctuation that formats, pipes that split table cells, HTML
    /// angle brackets, and terminal controls; newlines become spaces.
    public static func escape(_ s: String) -> String {
        var out = ""
        for ch in TerminalText.sanitize(s) {
            switch ch {
            case "\\", "`", "*", "_", "{", "}", "[", "]", "(", ")", "#", "+", "!", "|", "~", ">", "<":
                out += "\\" + String(ch)
            case "\n", "\r": out += " "
            default: out.append(ch)
            }
        }
        return out
    }

    /// Text for inside a code span: backticks replaced.
    static func code(_ s: String) -> String {
        TerminalText.sanitize(s).replacingBackticks
    }
}

extension String {
    var replacingBackticks: String { String(map { $0 == "`" ? "'" : $0 }) }
}
