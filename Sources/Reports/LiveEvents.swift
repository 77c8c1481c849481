import CastDiscovery
import WireFormat

/// Renders `castscope live` events: one line of text, or one JSON object, per event.
public enum LiveEvents {
    /// `23:44:37.494  #12  appeared   Living Room TV (Chromecast, video) 192.0.2.21:8009 …`
    public static func text(_ e: TrackerEvent) -> String {
        let clock = TimeFormat.clock(e.time)
        func frame(_ f: FrameRef) -> String { "#\(f.frame)" }
        func device(_ d: DeviceSnapshot) -> String {
            var s = d.name
            var details: [String] = []
            if let m = d.model { details.append(m) }
            details.append(d.kind.rawValue)
            s += " (" + details.joined(separator: ", ") + ")"
            if let a = d.addresses.first { s += " " + address(a, d.port) }
            return s
        }
        let line: String
        switch e {
        case .sessionStarted(let client, _, let f, let names):
            line = "\(frame(f))  session    \(client) started a discovery session for \(names.joined(separator: ", "))"
        case .deviceAppeared(let d, _, let f, let client, let after):
            var s = "\(frame(f))  appeared   \(device(d))"
            if let client, let after { s += ", seen by \(client) after \(AnalysisTables.ms(after)) ms" }
            line = s
        case .deviceChanged(let d, _, let f, let changes):
            line = "\(frame(f))  changed    \(d.name): " + changes.joined(separator: "; ")
        case .deviceLeft(let d, _, let f):
            line = "\(frame(f))  left       \(d.name) said goodbye"
        case .deviceExpired(let d, _, let last, let ttl):
            line = "expired    \(d.name): nothing heard since \(TimeFormat.clock(last)), past its \(ttl) s TTL"
        case .queryUnanswered(let client, _, let f, let devices):
            line =
                "\(frame(f))  unanswered \(client)'s query got no answer within 1 s from "
                + devices.map(\.name).joined(separator: ", ")
        case .connection(let client, let a, let port, let outcome, _, let f, let after, let d):
            var s = "\(frame(f))  connect    \(client) → \((d?.name).map { "\($0) " } ?? "")\(address(a, Int(port))): "
            switch outcome {
            case .established: s += "established" + (after.map { " in \(AnalysisTables.ms($0)) ms" } ?? "")
            case .refused: s += "refused (RST)"
            case .unreachable: s += "unreachable (ICMP)"
            case .timeout: s += "no answer (timeout)"
            case .notAttempted, .captureEnded: s += outcome.rawValue
            }
            line = s
        }
        return TerminalText.sanitize(clock + "  " + line)
    }

    static func address(_ a: IPAddress, _ port: Int?) -> String {
        let text: String
        switch a {
        case .v4: text = a.description
        case .v6: text = port == nil ? a.description : "[\(a)]"
        }
        return port.map { "\(text):\($0)" } ?? text
    }

    /// One JSON object (no newline).
    public static func json(_ e: TrackerEvent) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.string(e.name, "event")
        w.string(TimeFormat.rfc3339Micro(e.time), "time")
        switch e {
        case .sessionStarted(let client, _, let f, let names):
            w.int(f.frame, "frame")
            w.string(client.description, "client")
            w.beginArray("names")
            for n in names { w.string(n) }
            w.endArray()
        case .deviceAppeared(let d, _, let f, let client, let after):
            w.int(f.frame, "frame")
            device(d, &w)
            w.string(client?.description, "client")
            w.rawNumber(after.map(AnalysisJSON.milliseconds) ?? "null", "afterMs")
        case .deviceChanged(let d, _, let f, let changes):
            w.int(f.frame, "frame")
            device(d, &w)
            w.beginArray("changes")
            for c in changes { w.string(c) }
            w.endArray()
        case .deviceLeft(let d, _, let f):
            w.int(f.frame, "frame")
            device(d, &w)
        case .deviceExpired(let d, _, let last, let ttl):
            device(d, &w)
            w.string(TimeFormat.rfc3339Micro(last), "lastSeen")
            w.int(ttl, "ttl")
        case .queryUnanswered(let client, _, let f, let devices):
            w.int(f.frame, "frame")
            w.string(client.description, "client")
            w.beginArray("devices")
            for d in devices {
                w.beginObject()
                deviceFields(d, &w)
                w.endObject()
            }
            w.endArray()
        case .connection(let client, let a, let port, let outcome, _, let f, let after, let d):
            w.int(f.frame, "frame")
            w.string(client.description, "client")
            w.string(a.description, "address")
            w.int(port, "port")
            w.string(outcome.rawValue, "outcome")
            w.rawNumber(after.map(AnalysisJSON.milliseconds) ?? "null", "connectMs")
            if let d { device(d, &w) } else { w.string(nil, "device") }
        }
        w.endObject()
        return w.output
    }

    static func device(_ d: DeviceSnapshot, _ w: inout JSONWriter) {
        w.beginObject("device")
        deviceFields(d, &w)
        w.endObject()
    }

    static func deviceFields(_ d: DeviceSnapshot, _ w: inout JSONWriter) {
        w.string(d.id, "id")
        w.string(d.instance, "instance")
        w.string(d.friendlyName, "friendlyName")
        w.string(d.model, "model")
        w.string(d.kind.rawValue, "kind")
        w.string(d.status, "status")
        w.string(d.runningApp, "runningApp")
        w.beginArray("addresses")
        for a in d.addresses { w.string(a.description) }
        w.endArray()
        w.int(d.port, "port")
    }
}
