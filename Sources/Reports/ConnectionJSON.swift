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
        connectionMembers(c, .reference, &w)
        frames(c.synFrames, "synFrames", &w)
        connectionOutcome(c, .reference, &w)
        w.endObject()
    }

    /// A connection's client, device, address, port, outcome, attempts and first SYN (shared
    /// with ``AnalysisRows``, which writes frames in `style` `.number`).
    static func connectionMembers(_ c: Connection, _ style: FrameStyle, _ w: inout JSONWriter) {
        w.string(c.client.description, "client")
        w.string(c.deviceID, "deviceId")
        w.string(c.address.description, "address")
        w.int(c.port, "port")
        w.string(c.outcome.rawValue, "outcome")
        w.int(c.attempts, "attempts")
        w.int(c.syns, "syns")
        frame(c.firstAttempt?.frame, "firstAttemptFrame", style, &w)
        if let t = c.firstAttempt?.time { w.timestamp(t, "firstAttempt") } else { w.string(nil, "firstAttempt") }
    }

    /// What answered the connection, its timings, TLS hellos and close (after `synFrames`).
    static func connectionOutcome(_ c: Connection, _ style: FrameStyle, _ w: inout JSONWriter) {
        frame(c.answer?.frame, "answerFrame", style, &w)
        w.string(c.unreachableReason, "unreachableReason")
        w.rawNumber(c.connectMs.map(milliseconds) ?? "null", "connectMs")
        w.rawNumber(c.tlsMs.map(milliseconds) ?? "null", "tlsMs")
        frame(c.clientHello?.frame, "clientHelloFrame", style, &w)
        frame(c.serverHello?.frame, "serverHelloFrame", style, &w)
        frame(c.closed?.frame, "closedFrame", style, &w)
        w.rawNumber(c.fromDiscoveryMs.map(milliseconds) ?? "null", "fromDiscoveryMs")
        w.rawNumber(c.fromSessionStartMs.map(milliseconds) ?? "null", "fromSessionStartMs")
    }
}
