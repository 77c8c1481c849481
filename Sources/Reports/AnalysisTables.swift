import CastDiscovery
import WireFormat

/// The rows shared by the text and Markdown renderings of an analysis, as plain (not yet
/// escaped) strings.
enum AnalysisTables {
    static func deviceName(_ d: Device) -> String { d.friendlyName ?? d.instance ?? d.id }

    static func devicesByID(_ r: AnalysisReport) -> [String: Device] {
        var m: [String: Device] = [:]
        for d in r.devices { m[d.id] = d }
        return m
    }

    /// The App IDs cell: the app IDs, then `media` for the media criterion subtype (not an app
    /// ID, so it comes last and never hides one).
    static func appIDs(_ ids: [String], media: Bool) -> String {
        let all = ids + (media ? [mediaCriterionLabel] : [])
        return all.isEmpty ? "-" : all.joined(separator: ",")
    }

    /// How tables name the media criterion subtype (``CastName/mediaCriterion``).
    static let mediaCriterionLabel = "media"

    static let deviceHeader = ["Name", "Model", "Kind", "Address", "Port", "Status", "Via", "App IDs"]

    static func deviceRows(_ r: AnalysisReport) -> [[String]] {
        r.devices.map { d in
            var status = d.status ?? "-"
            if d.leftAt != nil { status = "left" }
            return [
                deviceName(d), d.model ?? "-", d.kind.rawValue,
                d.addresses.first(where: { if case .v4 = $0 { return true } else { return false } })?.description
                    ?? d.addresses.first?.description ?? "-",
                d.port.map(String.init) ?? "-", status, d.via.joined(separator: "+"),
                appIDs(d.appIDs, media: d.mediaCriterion),
            ]
        }
    }

    static let clientHeader = ["Client", "Queries", "QU/QM", "Sessions", "App IDs", "Doubling", "Legacy", "DIAL"]

    /// One row per client (host); `allAddresses` puts every address of the host in its first
    /// cell (Markdown), else only the primary one (text lists the others below the table).
    static func clientRows(_ r: AnalysisReport, allAddresses: Bool = true) -> [[String]] {
        r.clients.map { c in
            [
                (allAddresses ? c.allAddresses : [c.address]).map(\.description).joined(separator: " ")
                    + (c.process.map { " (\($0))" } ?? ""), String(c.queries),
                "\(c.quQuestions)/\(c.qmQuestions)", String(c.sessions),
                appIDs(c.appIDsQueried, media: c.mediaCriterionQueried),
                c.followsDoubling.map { $0 ? "yes" : "no" } ?? "-", c.legacyUnicast ? "yes" : "no",
                String(c.dialSearches),
            ]
        }
    }

    /// `VLAN 10`, `VLANs 10, 20`: the 802.1Q VLANs of a trunk capture; `nil` for none.
    static func vlanText(_ vlans: [Int]) -> String? {
        guard !vlans.isEmpty else { return nil }
        return (vlans.count == 1 ? "VLAN " : "VLANs ") + vlans.map(String.init).joined(separator: ", ")
    }

    /// The table with a last column `VLAN` when a row has VLANs (`vlans`: one list per row);
    /// as it is otherwise, so that untagged captures look as they always did.
    static func addingVLANs(_ header: [String], _ rows: [[String]], _ vlans: [[Int]]) -> ([String], [[String]]) {
        guard vlans.contains(where: { !$0.isEmpty }) else { return (header, rows) }
        let cells = vlans.map { $0.isEmpty ? "-" : $0.map(String.init).joined(separator: ", ") }
        return (header + ["VLAN"], zip(rows, cells).map { $0 + [$1] })
    }

    static let latencyHeader = ["Client", "Device", "Session start", "First answer", "Resolved"]

    /// Latency rows, and the distinct reasons for missing values (numbered notes).
    static func latencyRows(_ r: AnalysisReport) -> (rows: [[String]], notes: [String]) {
        let byID = devicesByID(r)
        var notes: [String] = []
        func note(_ reason: String?) -> String {
            guard let reason else { return "-" }
            if let i = notes.firstIndex(of: reason) { return "- [\(i + 1)]" }
            notes.append(reason)
            return "- [\(notes.count)]"
        }
        let rows = r.latency.filter { $0.via == .mdns }.map { l in
            [
                l.client.description, byID[l.deviceID].map(deviceName) ?? l.deviceID,
                TimeFormat.clock(l.sessionStart),
                l.firstAnswerMs.map { ms($0) } ?? note(l.firstAnswerMissing),
                l.resolvedMs.map { ms($0) } ?? note(l.resolvedMissing),
            ]
        }
        return (rows, notes)
    }

    static let responseHeader = [
        "Client", "Device", "Exp.", "Ans.", "Sup.", "Miss", "Delay p50/p90/max, ms",
    ]

    static func responseRows(_ r: AnalysisReport) -> [[String]] {
        let byID = devicesByID(r)
        return r.responses.map { s in
            [
                s.client.description, byID[s.deviceID].map(deviceName) ?? s.deviceID, String(s.expected),
                String(s.answered), String(s.suppressed), String(s.missed),
                s.delay.map { "\(ms($0.p50))/\(ms($0.p90))/\(ms($0.max))" } ?? "-",
            ]
        }
    }

    static let summaryHeader = ["Device", "First answer n/min/p50/p90/max", "Resolved n/min/p50/p90/max"]

    static func summaryRows(_ r: AnalysisReport) -> [[String]] {
        let byID = devicesByID(r)
        // mDNS devices here; DIAL answers in rows of their own.
        let mdns = r.summaries.filter { s in s.deviceID.flatMap { byID[$0] }?.via.contains("mdns") ?? true }
        var rows = mdns.map { s in
            [
                s.deviceID.flatMap { byID[$0] }.map(deviceName) ?? s.deviceID ?? "-", five(s.firstAnswer),
                five(s.resolved),
            ]
        }
        rows.append(["(all)", five(r.overall.firstAnswer), five(r.overall.resolved)])
        return rows + DIALTables.summaryRows(r)
    }

    static func five(_ s: Summary?) -> String {
        guard let s else { return "-" }
        return "\(s.count) / \(ms(s.min)) / \(ms(s.p50)) / \(ms(s.p90)) / \(ms(s.max))"
    }

    /// Milliseconds with one decimal.
    static func ms(_ v: Double) -> String { Wording.decimal(v, places: 1) }

    static func countsLine(_ r: AnalysisReport) -> String {
        var kinds: [String] = []
        for k in DeviceKind.allCases {
            let n = r.devices.filter { $0.kind == k }.count
            if n > 0 { kinds.append("\(n) \(k.rawValue)") }
        }
        let sessions = r.clients.reduce(0) { $0 + $1.sessions }
        let queries = r.clients.reduce(0) { $0 + $1.queries }
        let left = r.devices.filter { $0.leftAt != nil }.count
        var s = Wording.count(r.devices.count, "device")
        if !kinds.isEmpty { s += " (" + kinds.joined(separator: ", ") + ")" }
        s += ", " + Wording.count(r.clients.count, "client") + ", " + Wording.count(sessions, "discovery session")
        s += ", " + Wording.count(queries, "Cast query", "Cast queries")
        if left > 0 { s += ", \(left) left with a goodbye" }
        return s
    }

    static func captureLine(_ c: CaptureInfo) -> String {
        var s =
            "\(CaptureFileText.linkTypes(c)), " + Wording.count(c.packets, "frame") + ", "
            + Wording.count(c.discoveryPackets, "discovery packet") + ", \(c.malformedPackets) malformed"
        if let start = c.start, let end = c.end {
            s +=
                ", \(TimeFormat.readable(start).prefix(23)) UTC, "
                + Wording.duration(milliseconds: Double(end.nanoseconds(since: start)) / 1e6)
        }
        if c.undecodableFrames > 0 { s += ", \(c.undecodableFrames) with undecodable headers" }
        if c.truncated { s += ", cut off mid-record" + (c.truncatedAtByte.map { " at byte \($0)" } ?? "") }
        for note in CaptureFileText.notes(c) { s += ", " + note }
        return s
    }
}

extension TimeFormat {
    /// `23:40:01.123` (UTC).
    public static func clock(_ t: Timestamp) -> String { Wording.clock(t) }
}
