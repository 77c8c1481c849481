import CastDiscovery

/// The DIAL section of the HTML report: the Cast devices' DIAL answers, the DIAL servers that
/// are not Cast devices, the clients' DIAL searches and the DIAL answer latency.
enum DIALHTML {
    /// The section, or nothing when the captures have no DIAL search and no DIAL device.
    static func section(_ r: AnalysisReport) -> String {
        let e = HTMLText.escape
        let cast = DIALTables.castDevices(r)
        let searchers = r.clients.filter { $0.dialSearches > 0 }
        guard !cast.isEmpty || !r.otherDevices.isEmpty || !searchers.isEmpty else { return "" }
        var out = "<section id=\"dial\">\n<h2>DIAL (SSDP)</h2>\n"
        out += "<p class=\"explain\">DIAL is the older Cast discovery path: a sender multicasts an SSDP "
        out += "M-SEARCH and DIAL servers answer by unicast with their LOCATION. A Cast device’s LOCATION is "
        out += "<code>http://&lt;ip&gt;:8008/ssdp/device-desc.xml</code>; other DIAL servers (a Roku, a TV’s "
        out += "own) are listed apart and are not Cast devices.</p>\n"
        func fields(_ d: DIALInfo) -> [String] {
            [d.location, d.server, d.usn].map { $0.map { "<code>\(e($0))</code>" } ?? "-" }
                + [d.deviceDescription.map { e(DIALTables.description($0)) } ?? "-"]
        }
        if !cast.isEmpty {
            out += "<h3>Cast devices’ DIAL answers (\(cast.count))</h3>\n"
            out += HTMLReport.table(
                ["Device", "Address", "LOCATION", "SERVER", "USN", "Device description"],
                cast.map { d in
                    ["<bdi class=\"name\">\(e(AnalysisTables.deviceName(d)))</bdi>", e(d.dial!.address.description)]
                        + fields(d.dial!)
                }, numeric: [], caption: nil)
        }
        if !r.otherDevices.isEmpty {
            out += "<h3>Other DIAL devices (\(r.otherDevices.count))</h3>\n"
            out += HTMLReport.table(
                ["Address", "Answers", "Clients answered", "LOCATION", "SERVER", "USN", "Device description"],
                r.otherDevices.map { o in
                    [
                        e(o.address.description), String(o.answers),
                        o.answeredClients.isEmpty
                            ? "-"
                            : o.answeredClients.map { e($0.description) }
                                .joined(separator: "<br />"),
                    ] + fields(o)
                }, numeric: [1], caption: nil)
        }
        if !searchers.isEmpty {
            out += "<h3>DIAL searches (\(searchers.count))</h3>\n"
            out += HTMLReport.table(
                ["Client", "M-SEARCHes", "Answered", "USER-AGENT"],
                searchers.map { c in
                    [
                        "<bdi class=\"name\">\(e(c.address.description))</bdi>", String(c.dialSearches),
                        String(c.dialSearchesAnswered), c.dialUserAgent.map { "<code>\(e($0))</code>" } ?? "-",
                    ]
                }, numeric: [1, 2], caption: nil)
        }
        let (rows, notes) = DIALTables.latencyRows(r)
        if !rows.isEmpty {
            out += "<h3>DIAL latency</h3>\n"
            out += HTMLReport.table(
                ["Client", "Device", "M-SEARCH (UTC)", "Answer, ms", "Frames"], rows.map { $0.map(e) },
                numeric: [3], caption: nil)
            if !notes.isEmpty {
                out += "<ol class=\"explain\">"
                for n in notes { out += "<li>\(e(n))</li>" }
                out += "</ol>\n"
            }
        }
        return out + "</section>\n"
    }
}
