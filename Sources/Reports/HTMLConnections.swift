// The connection phase in the HTML report: a table per client × device × address:port, and the
// marks each client's timeline gets for its connections (SYN → answer → TLS).

import CastDiscovery
import WireFormat

enum HTMLConnections {
    /// The "Connections" section; empty when there is nothing to say.
    static func section(_ r: AnalysisReport) -> String {
        guard !r.connections.isEmpty else { return "" }
        let e = HTMLText.escape
        var out = "<section id=\"connections\">\n<h2>Connections (\(r.connections.count))</h2>\n"
        out += "<p class=\"muted\">After discovery a sender opens TCP to the address and port the device "
        out += "advertised, then TLS on the Cast port; Chrome lists a device only once that connection opens. "
        out += "Times in ms: from the client’s discovery of the device to its first SYN, SYN to SYN-ACK, "
        out += "ClientHello to ServerHello.</p>\n"
        let byID = AnalysisTables.devicesByID(r)
        let rows = r.connections.map { c -> [String] in
            let failed = c.outcome != .established || c.tlsStalled
            let outcome = e(ConnectionTables.outcome(c))
            var frames: [String] = []
            if let f = c.firstAttempt?.frame { frames.append("SYN #\(f.frame)") }
            if let f = c.answer?.frame { frames.append("answer #\(f.frame)") }
            if let f = c.serverHello?.frame { frames.append("ServerHello #\(f.frame)") }
            return [
                "<bdi class=\"name\">\(e(c.client.description))</bdi>",
                e(byID[c.deviceID].map(AnalysisTables.deviceName) ?? c.deviceID),
                "<bdi class=\"name\">\(e(c.endpoint))</bdi>",
                failed && c.outcome != .notAttempted ? "<span class=\"bad\">\(outcome)</span>" : outcome,
                c.outcome == .notAttempted ? "-" : "\(c.attempts)/\(c.syns)",
                c.fromDiscoveryMs.map(AnalysisTables.ms) ?? "-", c.connectMs.map(AnalysisTables.ms) ?? "-",
                c.tlsMs.map(AnalysisTables.ms) ?? "-", e(frames.joined(separator: ", ")),
            ]
        }
        out += HTMLReport.table(
            [
                "Client", "Device", "Address", "Outcome", "Attempts/SYNs", "After discovery", "Connect", "TLS",
                "Frames",
            ], rows, numeric: [4, 5, 6, 7], caption: nil)
        return out + "</section>\n"
    }

    /// A client's connections drawn on its timeline: a triangle at the first SYN on the device's
    /// row (green: established, red: failed), a line to what answered, a tick at the ServerHello.
    static func timelineMarks(
        _ r: AnalysisReport, client: IPAddress, window: HTMLCharts.Window, x: (Timestamp) -> Double,
        row: (String) -> Double?, relative: (Timestamp) -> String
    ) -> String {
        let e = HTMLText.escape
        let c = HTMLFormat.c
        var out = ""
        for conn in r.connections where conn.client == client {
            guard let first = conn.firstAttempt, window.contains(first.time), let y = row(conn.deviceID) else {
                continue
            }
            let ok = conn.outcome == .established && !conn.tlsStalled
            let colour = ok ? HTMLCharts.green : HTMLCharts.red
            let sx = x(first.time)
            var tip = "Connection to \(conn.endpoint) at \(relative(first.time)), "
            tip += "frame #\(first.frame.frame): \(ConnectionTables.outcome(conn))"
            if let ms = conn.connectMs { tip += " after \(HTMLFormat.milliseconds(ms))" }
            if let ms = conn.tlsMs { tip += "; TLS \(HTMLFormat.milliseconds(ms))" }
            if conn.syns > 1 { tip += "; \(conn.syns) SYNs" }
            if let answer = conn.answer, window.contains(answer.time) {
                out += "<line x1=\"\(c(sx))\" y1=\"\(c(y + 6))\" x2=\"\(c(Swift.max(x(answer.time), sx + 1)))\" "
                out += "y2=\"\(c(y + 6))\" stroke=\"\(colour)\" stroke-width=\"2\" />\n"
            }
            out += "<path d=\"M\(c(sx - 5)) \(c(y + 11))L\(c(sx)) \(c(y + 3))L\(c(sx + 5)) \(c(y + 11))Z\" "
            out += "fill=\"\(colour)\"><title>\(e(tip))</title></path>\n"
            if let hello = conn.serverHello, window.contains(hello.time) {
                let hx = x(hello.time)
                out += "<line x1=\"\(c(hx))\" y1=\"\(c(y + 2))\" x2=\"\(c(hx))\" y2=\"\(c(y + 11))\" "
                out += "stroke=\"\(colour)\" stroke-width=\"2\"><title>"
                out += e("TLS ServerHello from \(conn.endpoint), frame #\(hello.frame.frame)")
                out += "</title></line>\n"
            }
        }
        return out
    }
}
