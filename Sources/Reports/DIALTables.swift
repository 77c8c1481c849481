import CastDiscovery
import WireFormat

/// The DIAL rows shared by the text, Markdown and HTML renderings: each Cast device's DIAL
/// answer (LOCATION, SERVER, USN, never cut), the DIAL servers that are not Cast devices, and
/// the DIAL latency rows (one per M-SEARCH and answering Cast device).
enum DIALTables {
    /// The Cast devices with DIAL details, in report order.
    static func castDevices(_ r: AnalysisReport) -> [Device] { r.devices.filter { $0.dial != nil } }

    /// `LOCATION`, `SERVER` and `USN` of a DIAL answer, those it had, as (label, value).
    static func fields(_ d: DIALInfo) -> [(label: String, value: String)] {
        [("LOCATION", d.location), ("SERVER", d.server), ("USN", d.usn)].compactMap { label, value in
            value.map { (label, $0) }
        }
    }

    static let otherHeader = ["Address", "Answers", "Clients answered", "Id"]

    static func otherRows(_ r: AnalysisReport) -> [[String]] {
        r.otherDevices.map { o in
            [
                o.address.description, String(o.answers),
                o.answeredClients.isEmpty ? "-" : o.answeredClients.map(\.description).joined(separator: ","), o.id,
            ]
        }
    }

    static let latencyHeader = ["Client", "Device", "M-SEARCH", "Answer", "Frames"]

    /// DIAL latency rows, and the distinct reasons for missing answers (numbered notes).
    static func latencyRows(_ r: AnalysisReport) -> (rows: [[String]], notes: [String]) {
        let byID = AnalysisTables.devicesByID(r)
        var notes: [String] = []
        let rows = r.latency.filter { $0.via == .dial }.map { l -> [String] in
            var answer = "-"
            if let ms = l.firstAnswerMs {
                answer = AnalysisTables.ms(ms)
            } else if let reason = l.firstAnswerMissing {
                if !notes.contains(reason) { notes.append(reason) }
                answer = "- [\(notes.firstIndex(of: reason)! + 1)]"
            }
            let frames = "#\(l.sessionStartFrame.frame)" + (l.firstAnswerFrame.map { " → #\($0.frame)" } ?? "")
            return [
                l.client.description, byID[l.deviceID].map(AnalysisTables.deviceName) ?? l.deviceID,
                TimeFormat.clock(l.sessionStart), answer, frames,
            ]
        }
        return (rows, notes)
    }

    /// Summary rows for DIAL answers: per device that has some, then all together; none when no
    /// DIAL answer was timed.
    static func summaryRows(_ r: AnalysisReport) -> [[String]] {
        guard r.overall.dialAnswer != nil else { return [] }
        let byID = AnalysisTables.devicesByID(r)
        var rows: [[String]] = r.summaries.compactMap { s in
            guard let dial = s.dialAnswer else { return nil }
            let name = s.deviceID.flatMap { byID[$0] }.map(AnalysisTables.deviceName) ?? s.deviceID ?? "-"
            return ["DIAL " + name, AnalysisTables.five(dial), "-"]
        }
        rows.append(["DIAL (all)", AnalysisTables.five(r.overall.dialAnswer), "-"])
        return rows
    }
}

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
