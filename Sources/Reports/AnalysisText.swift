import CastDiscovery
import WireFormat

/// The terminal rendering of `castscope analyze`: the verdict, the findings and the tables,
/// every network string sanitised, laid out at a ``TextWidth`` (wrapped, never cut).
public enum AnalysisText {
    /// - Parameters:
    ///   - style: ``TextStyle/plain`` (the default) or coloured for a terminal.
    ///   - width: ``TextWidth/file`` (the default: tables as wide as their cells) or a
    ///     terminal's width.
    public static func render(_ r: AnalysisReport, style: TextStyle = .plain, width: TextWidth = .file) -> String {
        let layout = TextLayout(width: width)
        let verdict = Verdict(r)
        let line = verdict.line(r.findings)
        let tag = line.prefix(while: { $0 != " " })
        var out = layout.paragraph(line, rest: String(repeating: " ", count: tag.count + 1))
            .split(separator: "\n").map { style.verdict(String($0), verdict) + "\n" }.joined()
        out += findings(r, style: style, layout: layout)
        out += "\n"
        for c in r.captures {
            out += layout.wrap(["Capture", c.file], first: "", rest: "  ")
            out += layout.paragraph(AnalysisTables.captureLine(c), first: "  ", rest: "    ")
            if let comment = CaptureFileText.sectionComment(c) {
                out += layout.paragraph("comment: " + comment, first: "  ", rest: "    ")
            }
        }
        for u in r.unreadable {
            out += layout.wrap(["Not read", u.file], first: "", rest: "  ")
            out += layout.paragraph(u.error, first: "  ", rest: "    ")
        }
        out += "\n" + layout.paragraph(AnalysisTables.countsLine(r))

        out += "\nDevices (\(r.devices.count))\n"
        out += layout.table(AnalysisTables.deviceHeader, AnalysisTables.deviceRows(r))
        for d in r.devices {
            var words = ["\(AnalysisTables.deviceName(d)):", "id", d.id]
            if let ca = d.capabilityBits { words += ["ca=\(ca)"] + d.capabilities }
            if let host = d.host { words += ["host", host] }
            if d.addresses.count > 1 { words += ["addresses"] + d.addresses.map(\.description) }
            // The App IDs column is narrow: the full list, uncut, here.
            if !d.appIDs.isEmpty || d.mediaCriterion {
                words += ["app", "IDs", AnalysisTables.appIDs(d.appIDs, media: d.mediaCriterion)]
            }
            if let vlans = AnalysisTables.vlanText(d.vlans) {
                words += ["on"] + vlans.split(separator: " ").map(String.init)
            }
            out += layout.wrap(words)
        }

        out += DIALText.sections(r, layout: layout)

        out += "\nClients (\(r.clients.count))\n"
        out += layout.table(AnalysisTables.clientHeader, AnalysisTables.clientRows(r, allAddresses: false))
        // A host's other addresses in full, below the table.
        for c in r.clients where c.allAddresses.count > 1 {
            out += layout.wrap(["\(c.address):", "addresses"] + c.allAddresses.map(\.description))
        }
        // A trunk capture's VLANs, below the table (which has no room for another column).
        for c in r.clients {
            if let vlans = AnalysisTables.vlanText(c.vlans) { out += layout.wrap(["\(c.address):", "on"] + [vlans]) }
        }

        let (rows, notes) = AnalysisTables.latencyRows(r)
        out +=
            "\n"
            + layout.paragraph(
                "Latency, ms from session start (session gap \(AnalysisTables.ms(r.sessionGapSeconds * 1000)) ms)")
        out += layout.table(AnalysisTables.latencyHeader, rows)
        for (i, n) in notes.enumerated() { out += layout.paragraph("[\(i + 1)] \(n)", first: "  ", rest: "      ") }
        out += DIALText.latency(r, layout: layout)
        if !r.connections.isEmpty {
            out += "\n" + layout.paragraph(ConnectionTables.title)
            out += layout.table(ConnectionTables.header, ConnectionTables.rows(r))
        }

        if !r.responses.isEmpty {
            out +=
                "\n" + layout.paragraph("Answers to queries (expected, answered, suppressed by known answers, missed)")
            out += layout.table(AnalysisTables.responseHeader, AnalysisTables.responseRows(r))
        }

        out += "\nSummary, ms\n"
        out += layout.table(AnalysisTables.summaryHeader, AnalysisTables.summaryRows(r))
        return out
    }

    /// Findings by severity: code and title, then the detail, advice and evidence, wrapped.
    static func findings(_ r: AnalysisReport, style: TextStyle = .plain, layout: TextLayout) -> String {
        guard !r.findings.isEmpty else { return "" }
        var out = ""
        for severity in Severity.allCases {
            let group = r.findings.filter { $0.severity == severity }
            guard !group.isEmpty else { continue }
            out += "\n" + style.heading("\(severity.rawValue.uppercased())S", severity) + "\n"
            for f in group {
                func words(_ s: String) -> [String] { s.split(separator: " ").map(String.init) }
                out += layout.wrap(["\(f.code.rawValue):"] + words(f.title), first: "  * ", rest: "    ")
                out += layout.wrap(words(f.detail), first: "    ", rest: "    ")
                out += layout.wrap(["Advice:"] + words(f.advice), first: "    ", rest: "    ")
                if f.evidence.count > 1 {
                    // One item per subject: its own line and frames (the finding's are their union).
                    for e in f.evidence {
                        out += layout.wrap(words(ReportEvidence.line(e)), first: "    - ", rest: "      ")
                        if !e.frames.isEmpty {
                            out += layout.wrap(
                                ["Frames:"] + frameList(e.frames, captures: r.captures), first: "      ", rest: "      "
                            )
                        }
                    }
                } else if !f.frames.isEmpty {
                    out += layout.wrap(
                        ["Frames:"] + frameList(f.frames, captures: r.captures), first: "    ", rest: "    ")
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
            let frame =
                captures.count > 1 && f.capture < captures.count
                ? "\(captures[f.capture].file)#\(f.frame)" : "#\(f.frame)"
            return frame + (CaptureFileText.interface(of: f, captures).map { " (\($0))" } ?? "")
        }
    }
}
