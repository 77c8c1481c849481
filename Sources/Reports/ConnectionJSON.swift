import CastDiscovery
import WireFormat

extension AnalysisJSON {
    /// The top-level `connections` array (docs/json-schema.md): one object per client × device ×
    /// address:port, and `connectionPhaseSeen`.
    static func connections(_ r: AnalysisReport, _ w: inout JSONWriter) {
        w.bool(r.connectionPhaseSeen, "connectionPhaseSeen")
        w.beginArray("connections")
        for c in r.connections { connection(c, &w) }
        w.endArray()
    }

    static func connection(_ c: Connection, _ w: inout JSONWriter) {
        w.beginObject()
        w.string(c.client.description, "client")
        w.string(c.deviceID, "deviceId")
        w.string(c.address.description, "address")
        w.int(c.port, "port")
        w.string(c.outcome.rawValue, "outcome")
        w.int(c.attempts, "attempts")
        w.int(c.syns, "syns")
        frame(c.firstAttempt?.frame, "firstAttemptFrame", &w)
        if let t = c.firstAttempt?.time { w.timestamp(t, "firstAttempt") } else { w.string(nil, "firstAttempt") }
        frames(c.synFrames, "synFrames", &w)
        frame(c.answer?.frame, "answerFrame", &w)
        w.string(c.unreachableReason, "unreachableReason")
        w.rawNumber(c.connectMs.map(milliseconds) ?? "null", "connectMs")
        w.rawNumber(c.tlsMs.map(milliseconds) ?? "null", "tlsMs")
        frame(c.clientHello?.frame, "clientHelloFrame", &w)
        frame(c.serverHello?.frame, "serverHelloFrame", &w)
        frame(c.closed?.frame, "closedFrame", &w)
        w.rawNumber(c.fromDiscoveryMs.map(milliseconds) ?? "null", "fromDiscoveryMs")
        w.rawNumber(c.fromSessionStartMs.map(milliseconds) ?? "null", "fromSessionStartMs")
        w.endObject()
    }
}
