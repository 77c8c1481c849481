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
        let (deviceHeader, deviceRows) = AnalysisTables.addingVLANs(
            AnalysisTables.deviceHeader, AnalysisTables.deviceRows(r), r.devices.map(\.vlans))
        out += "\n### Devices\n\n" + table(deviceHeader, deviceRows)
        let (clientHeader, clientRows) = AnalysisTables.addingVLANs(
            AnalysisTables.clientHeader, AnalysisTables.clientRows(r), r.clients.map(\.vlans))
        out += "\n### Clients\n\n" + table(clientHeader, clientRows)
        out += dialSections(r)
        let (rows, notes) = AnalysisTables.latencyRows(r)
        out += "\n### Latency (ms from session start)\n\n" + table(AnalysisTables.latencyHeader, rows)
        if !notes.isEmpty {
            out += "\n"
            for (i, n) in notes.enumerated() { out += "\(i + 1). \(escape(n))\n" }
        }
        let (dialRows, dialNotes) = DIALTables.latencyRows(r)
        if !dialRows.isEmpty {
            out += "\n### DIAL latency (ms from M-SEARCH to 200 OK)\n\n" + table(DIALTables.latencyHeader, dialRows)
            if !dialNotes.isEmpty { out += "\n" }
            for (i, n) in dialNotes.enumerated() { out += "\(i + 1). \(escape(n))\n" }
        }
        if !r.connections.isEmpty {
            out += "\n### \(ConnectionTables.title)\n\n" + table(ConnectionTables.header, ConnectionTables.rows(r))
        }
        if !r.responses.isEmpty {
            out += "\n### Answers to queries\n\n" + table(AnalysisTables.responseHeader, AnalysisTables.responseRows(r))
        }
        out += "\n### Summary (ms)\n\n" + table(AnalysisTables.summaryHeader, AnalysisTables.summaryRows(r))
        return out
    }

    /// The Cast devices' DIAL answers, the other DIAL devices and the DIAL searches, when there
    /// are any.
    static func dialSections(_ r: AnalysisReport) -> String {
        var out = ""
        let cast = DIALTables.castDevices(r)
        func fields(_ d: DIALInfo) -> [String] {
            [d.location ?? "-", d.server ?? "-", d.usn ?? "-", d.deviceDescription.map(DIALTables.description) ?? "-"]
        }
        if !cast.isEmpty {
            out += "\n### DIAL answers of Cast devices\n\n"
            out += table(
                ["Device", "Address", "LOCATION", "SERVER", "USN", "Device description"],
                cast.map { [AnalysisTables.deviceName($0), $0.dial!.address.description] + fields($0.dial!) })
        }
        if !r.otherDevices.isEmpty {
            out += "\n### Other DIAL devices (not Cast devices)\n\n"
            out += table(
                DIALTables.otherHeader + ["LOCATION", "SERVER", "USN", "Device description"],
                zip(DIALTables.otherRows(r), r.otherDevices).map { $0 + fields($1) })
        }
        let searchers = r.clients.filter { $0.dialSearches > 0 }
        if !searchers.isEmpty {
            out += "\n### DIAL searches\n\n"
            out += table(
                ["Client", "M-SEARCHes", "Answered", "USER-AGENT"],
                searchers.map {
                    [
                        $0.address.description, String($0.dialSearches), String($0.dialSearchesAnswered),
                        $0.dialUserAgent ?? "-",
                    ]
                })
        }
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
