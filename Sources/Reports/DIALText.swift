import CastDiscovery

/// The DIAL sections of the terminal rendering.
enum DIALText {
    /// The DIAL answer of each Cast device, the other DIAL devices, and the clients' DIAL
    /// searches with their `USER-AGENT`; empty without DIAL.
    static func sections(_ r: AnalysisReport, layout: TextLayout) -> String {
        var out = ""
        let cast = DIALTables.castDevices(r)
        if !cast.isEmpty {
            out += "\nDIAL answers of Cast devices (\(cast.count))\n"
            for d in cast {
                out += layout.wrap(["\(AnalysisTables.deviceName(d))", "at", d.dial!.address.description + ":"])
                out += fieldLines(d.dial!, layout: layout)
            }
        }
        if !r.otherDevices.isEmpty {
            out += "\nOther DIAL devices (\(r.otherDevices.count)): DIAL servers that are not Cast devices\n"
            out += layout.table(DIALTables.otherHeader, DIALTables.otherRows(r))
            for o in r.otherDevices {
                out += layout.wrap(["\(o.address):"])
                out += fieldLines(o, layout: layout)
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
                out += layout.wrap(words)
            }
        }
        return out
    }

    /// The DIAL latency table (one row per M-SEARCH and answering Cast device); empty when no
    /// Cast device answered a DIAL search.
    static func latency(_ r: AnalysisReport, layout: TextLayout) -> String {
        var out = ""
        let (rows, notes) = DIALTables.latencyRows(r)
        if !rows.isEmpty {
            out += "\nDIAL latency, ms from M-SEARCH to 200 OK\n"
            out += layout.table(DIALTables.latencyHeader, rows)
            for (i, n) in notes.enumerated() { out += layout.paragraph("[\(i + 1)] \(n)", first: "  ", rest: "      ") }
        }
        return out
    }

    /// `LOCATION …`, `SERVER …`, `USN …` lines, wrapped and never cut (``TextLayout/wrap(_:first:rest:)``
    /// keeps a word longer than a line whole, or breaks it into pieces for a terminal).
    static func fieldLines(_ d: DIALInfo, layout: TextLayout) -> String {
        var out = ""
        for (label, value) in DIALTables.fields(d) {
            let words = value.split(separator: " ").map(String.init)
            out += layout.wrap([label] + words, first: "    ", rest: "      ")
        }
        return out
    }
}
