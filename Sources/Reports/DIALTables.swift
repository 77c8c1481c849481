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
        [
            ("LOCATION", d.location), ("SERVER", d.server), ("USN", d.usn),
            ("DESCRIPTION", d.deviceDescription.map(description)),
        ]
        .compactMap { label, value in value.map { (label, $0) } }
    }

    /// What the fetch of the device description showed: `fetched by 192.0.2.10 (frame 24):
    /// 200, Application-URL http://192.0.2.21:8008/apps/, friendlyName "Living Room TV", modelName
    /// "Eureka Dongle"`.
    static func description(_ d: DIALDescription) -> String {
        var parts: [String] = []
        parts.append(d.status.map { "HTTP \($0)" } ?? "no response")
        if let a = d.applicationURL { parts.append("Application-URL \(a)") }
        if let n = d.friendlyName { parts.append("friendlyName \"\(n)\"") }
        if let m = d.modelName { parts.append("modelName \"\(m)\"") }
        if d.status != nil, !d.complete { parts.append("body incomplete in the capture") }
        return "fetched by \(d.client) (frame \(d.request.frame.frame)): " + parts.joined(separator: ", ")
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
