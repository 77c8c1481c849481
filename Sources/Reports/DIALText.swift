import CastDiscovery

/// The DIAL sections of the terminal rendering.
enum DIALText {
    /// The DIAL answer of each Cast device, the other DIAL devices, and the clients' DIAL
    /// searches with their `USER-AGENT`; empty without DIAL.
    static func sections(_ r: AnalysisReport) -> String {
        var out = ""
        let cast = DIALTables.castDevices(r)
        if !cast.isEmpty {
            out += "\nDIAL answers of Cast devices (\(cast.count))\n"
            for d in cast {
                out += AnalysisText.wrap(["\(AnalysisTables.deviceName(d))", "at", d.dial!.address.description + ":"])
                out += fieldLines(d.dial!)
            }
        }
        if !r.otherDevices.isEmpty {
            out += "\nOther DIAL devices (\(r.otherDevices.count)): DIAL servers that are not Cast devices\n"
            out += AnalysisText.table(DIALTables.otherHeader, DIALTables.otherRows(r), widths: [15, 7, 28, 36])
            for o in r.otherDevices {
                out += AnalysisText.wrap(["\(o.address):"])
                out += fieldLines(o)
            }
        }
        let searchers = r.clients.filter { $0.dialSearches > 0 }
        if !searchers.isEmpty {
            out += "\nDIAL searches (\(searchers.count))\n"
            for c in searchers {
                var words = ["\(c.address):", Wording.count(c.dialSearches, "M-SEARCH", "M-SEARCHes") + ","]
                words += ["\(c.dialSearchesAnswered)", "answered,"]
                words +=
                    c.dialUserAgent.map { ["USER-AGENT"] + $0.split(separator: " ").map(String.init) }
                    ?? ["no", "USER-AGENT"]
                out += AnalysisText.wrap(words)
            }
        }
        return out
    }

    /// The DIAL latency table (one row per M-SEARCH and answering Cast device); empty when no
    /// Cast device answered a DIAL search.
    static func latency(_ r: AnalysisReport) -> String {
        var out = ""
        let (rows, notes) = DIALTables.latencyRows(r)
        if !rows.isEmpty {
            out += "\nDIAL latency, ms from M-SEARCH to 200 OK\n"
            out += AnalysisText.table(DIALTables.latencyHeader, rows, widths: [28, 24, 13, 10, 15])
            for (i, n) in notes.enumerated() { out += AnalysisText.clip("  [\(i + 1)] \(n)") + "\n" }
        }
        return out
    }

    /// `LOCATION …`, `SERVER …`, `USN …` lines, wrapped and never cut: a word longer than a line
    /// continues on the next.
    static func fieldLines(_ d: DIALInfo) -> String {
        var out = ""
        let indent = "      "
        for (label, value) in DIALTables.fields(d) {
            let words = TerminalText.sanitize(value).split(separator: " ").flatMap { word in
                chunks(String(word), size: AnalysisText.width - indent.count)
            }
            out += AnalysisText.wrap([label] + words, first: "    ", rest: indent)
        }
        return out
    }

    /// `s` in pieces of at most `size` characters.
    static func chunks(_ s: String, size: Int) -> [String] {
        var out: [String] = []
        var rest = Substring(s)
        while rest.count > size {
            out.append(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        out.append(String(rest))
        return out
    }
}
