import CastDiscovery
import WireFormat

/// The connection phase as a table, shared by the text and Markdown renderings: per client ×
/// device × address:port, the outcome and the times discovery → connect → TLS.
enum ConnectionTables {
    static let header = [
        "Client", "Device", "Address", "Outcome", "Attempts/SYNs", "After discovery", "Connect", "TLS",
    ]

    /// `refused (RST)`, `unreachable (port unreachable)`, `established, TLS stalled`.
    static func outcome(_ c: Connection) -> String {
        switch c.outcome {
        case .established: return c.tlsStalled ? "established, no ServerHello" : "established"
        case .refused: return "refused (RST)"
        case .unreachable: return "unreachable" + (c.unreachableReason.map { " (\($0))" } ?? "")
        case .timeout: return "timeout"
        case .notAttempted: return "not attempted"
        case .captureEnded: return "no answer yet at capture end"
        }
    }

    static func rows(_ r: AnalysisReport) -> [[String]] {
        let byID = AnalysisTables.devicesByID(r)
        return r.connections.map { c in
            [
                c.client.description, byID[c.deviceID].map(AnalysisTables.deviceName) ?? c.deviceID, c.endpoint,
                outcome(c), c.outcome == .notAttempted ? "-" : "\(c.attempts)/\(c.syns)",
                c.fromDiscoveryMs.map(AnalysisTables.ms) ?? "-", c.connectMs.map(AnalysisTables.ms) ?? "-",
                c.tlsMs.map(AnalysisTables.ms) ?? "-",
            ]
        }
    }

    /// The table's title line.
    static let title = "Connections, ms (discovery → first SYN, SYN → SYN-ACK, ClientHello → ServerHello)"
}
