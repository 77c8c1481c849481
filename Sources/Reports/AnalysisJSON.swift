// Reports: renderers only. Text, JSON, Markdown and the HTML+SVG report of an analysis, and the
// text and JSON lines of `dump` and `live`; they take finished values and decide nothing.

import CastDiscovery
import WireFormat

/// The `castscope analyze --format json` document, schema version 1 (docs/json-schema.md).
///
/// Times are RFC 3339 UTC strings with microseconds, durations are milliseconds (3 decimals),
/// evidence frames are `{"capture": index into captures, "frame": Wireshark frame number}`.
public enum AnalysisJSON {
    /// Renders the whole report as pretty-printed JSON (2-space indent, stable key order),
    /// ending with a newline.
    public static func render(_ r: AnalysisReport) -> String {
        String(decoding: renderUTF8(r), as: UTF8.self)
    }

    /// ``render(_:)`` as UTF-8 bytes, for writing out without making a `String` first.
    public static func renderUTF8(_ r: AnalysisReport) -> [UInt8] {
        var w = write(r, pretty: true)
        w.appendNewline()
        return w.bytes
    }

    /// Calls `body` with ``renderUTF8(_:)``'s bytes, not copied out of the writer (valid only
    /// during the call).
    public static func withRenderedUTF8<R>(_ r: AnalysisReport, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows
        -> R
    {
        var w = write(r, pretty: true)
        w.appendNewline()
        return try w.withUTF8(body)
    }

    /// The same document on one line, without a newline (for JSON lines).
    public static func compact(_ r: AnalysisReport) -> String {
        write(r, pretty: false).output
    }

    static func write(_ r: AnalysisReport, pretty: Bool) -> JSONWriter {
        var w = JSONWriter(pretty: pretty)
        write(r, key: nil, into: &w)
        return w
    }

    /// Writes the document as a value (under `key` inside an object, e.g. `probe`'s `analysis`).
    static func write(_ r: AnalysisReport, key: String?, into w: inout JSONWriter) {
        w.beginObject(key)
        w.int(AnalysisReport.schemaVersion, "schemaVersion")
        w.string("castscope", "generator")
        w.milliseconds(r.sessionGapSeconds * 1000, "sessionGapMs")
        w.bool(r.merged, "merged")
        verdict(Verdict(r), r.findings, &w)
        w.beginArray("captures")
        for c in r.captures {
            w.beginObject()
            w.string(c.file, "file")
            w.string(c.linkType, "linkType")
            w.int(c.packets, "packets")
            w.int(c.discoveryPackets, "discoveryPackets")
            w.int(c.malformedPackets, "malformedPackets")
            w.int(c.mdnsPackets, "mdnsPackets")
            w.int(c.ssdpPackets, "ssdpPackets")
            w.int(c.wifiDataFrames, "wifiDataFrames")
            w.int(c.protectedWiFiFrames, "protectedWiFiFrames")
            w.int(c.undecodableFrames, "undecodableFrames")
            w.bool(c.truncated, "truncated")
            w.timestamp(c.start, "start")
            w.timestamp(c.end, "end")
            captureFileFields(c, &w)
            w.endObject()
        }
        w.endArray()
        w.beginArray("unreadable")
        for u in r.unreadable {
            w.beginObject()
            w.string(u.file, "file")
            w.string(u.error, "error")
            w.endObject()
        }
        w.endArray()
        w.beginArray("devices")
        for d in r.devices { device(d, &w) }
        w.endArray()
        w.beginArray("otherDevices")
        for o in r.otherDevices {
            w.beginObject()
            w.string(o.id, "id")
            dialFields(o, &w)
            w.endObject()
        }
        w.endArray()
        w.beginArray("clients")
        for c in r.clients { client(c, &w) }
        w.endArray()
        w.beginArray("latency")
        for l in r.latency { latency(l, &w) }
        w.endArray()
        w.beginArray("responses")
        for s in r.responses {
            w.beginObject()
            responseCounts(s, &w)
            summary(s.delay, "delayMs", &w)
            frames(s.missedFrames, "missedFrames", &w)
            w.endObject()
        }
        w.endArray()
        w.beginArray("queries")
        for q in r.queries {
            w.beginObject()
            w.string(q.client.description, "client")
            w.timestamp(q.time, "time")
            frame(q.frame, "frame", &w)
            strings(q.names, "names", &w)
            w.beginArray("answered")
            for a in q.answered {
                w.beginObject()
                w.string(a.deviceID, "deviceId")
                w.milliseconds(a.delayMs, "delayMs")
                frame(a.frame, "frame", &w)
                if a.unicast { w.bool(true, "unicast") }
                w.endObject()
            }
            w.endArray()
            strings(q.suppressed, "suppressed", &w)
            strings(q.missed, "missed", &w)
            if q.unicastResponse { w.bool(true, "unicastResponse") }
            w.endObject()
        }
        w.endArray()
        connections(r, &w)
        w.beginObject("summaries")
        w.beginArray("devices")
        for s in r.summaries { latencySummary(s, &w) }
        w.endArray()
        w.beginObject("overall")
        summary(r.overall.firstAnswer, "firstAnswerMs", &w)
        summary(r.overall.resolved, "resolvedMs", &w)
        summary(r.overall.responseDelay, "responseDelayMs", &w)
        summary(r.overall.dialAnswer, "dialAnswerMs", &w)
        w.endObject()
        w.endObject()
        findings(r.findings, into: &w)
        w.endObject()
    }

    /// A response row's client, device and counts (shared with ``AnalysisRows``).
    static func responseCounts(_ s: ResponseStats, _ w: inout JSONWriter) {
        w.string(s.client.description, "client")
        w.string(s.deviceID, "deviceId")
        w.int(s.expected, "expected")
        w.int(s.answered, "answered")
        w.int(s.suppressed, "suppressed")
        w.int(s.missed, "missed")
    }

    /// Writes `"verdict": {...}`: the status, the counts, and the line the text output starts with.
    static func verdict(_ v: Verdict, _ findings: [Finding], _ w: inout JSONWriter) {
        w.beginObject("verdict")
        w.string(v.status.rawValue, "status")
        w.int(v.errors, "errors")
        w.int(v.warnings, "warnings")
        w.int(v.notes, "notes")
        w.int(v.unreadable.count, "unreadable")
        w.string(v.line(findings), "headline")
        w.endObject()
    }

    /// Writes `"findings": [...]` in the shape of schema version 1 (also used by check-plist).
    /// A finding's code, severity, title, detail and advice: the members every findings list
    /// (analyze, check-app, compare) starts with.
    static func findingWords(_ f: Finding, _ w: inout JSONWriter) {
        w.string(f.code.rawValue, "code")
        w.string(f.severity.rawValue, "severity")
        w.string(f.title, "title")
        w.string(f.detail, "detail")
        w.string(f.advice, "advice")
    }

    public static func findings(_ findings: [Finding], into w: inout JSONWriter) {
        w.beginArray("findings")
        for f in findings {
            w.beginObject()
            findingWords(f, &w)
            frames(f.frames, "frames", &w)
            w.beginObject("subjects")
            strings(f.subjects.clients, "clients", &w)
            strings(f.subjects.devices, "devices", &w)
            strings(f.subjects.appIDs, "appIds", &w)
            w.endObject()
            // Per subject (one entry for a finding about one subject).
            w.beginArray("evidence")
            for e in f.evidence {
                w.beginObject()
                w.string(e.kind.rawValue, "kind")
                w.string(e.subject, "subject")
                w.string(e.detail, "detail")
                frames(e.frames, "frames", &w)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }

    static func device(_ d: Device, _ w: inout JSONWriter) {
        w.beginObject()
        w.string(d.id, "id")
        w.string(d.instance, "instance")
        strings(d.instances, "instances", &w)
        w.string(d.friendlyName, "friendlyName")
        w.string(d.model, "model")
        w.string(d.kind.rawValue, "kind")
        strings(d.capabilities, "capabilities", &w)
        deviceService(d, &w)
        strings(d.addresses.map(\.description), "addresses", &w)
        strings(d.appIDs, "appIds", &w)
        w.bool(d.mediaCriterion, "mediaCriterion")
        w.beginObject("txt")
        for (k, v) in d.txt { w.string(v, k) }
        w.endObject()
        w.timestamp(d.firstSeen, "firstSeen")
        w.timestamp(d.lastSeen, "lastSeen")
        w.timestamp(d.leftAt, "leftAt")
        strings(d.via, "via", &w)
        w.beginObject("ttls")
        for (type, values) in d.ttls {
            w.beginArray(type)
            for v in values { w.int(v) }
            w.endArray()
        }
        w.endObject()
        strings(d.sources.map(\.description), "sources", &w)
        vlans(d.vlans, &w)
        frame(d.firstFrame, "firstFrame", &w)
        frame(d.leftFrame, "leftFrame", &w)
        if let dial = d.dial {
            w.beginObject("dial")
            dialFields(dial, &w)
            w.endObject()
        } else {
            w.string(nil, "dial")
        }
        w.endObject()
    }

    /// A device's `ca` bits, TXT `st`, `rs`, `ve`, `ic` and SRV target: the members the document
    /// and the rows (``AnalysisRows``) write alike.
    static func deviceService(_ d: Device, _ w: inout JSONWriter) {
        w.int(d.capabilityBits, "capabilityBits")
        w.string(d.status, "status")
        w.string(d.runningApp, "runningApp")
        w.string(d.version, "version")
        w.string(d.icon, "icon")
        w.string(d.host, "host")
        w.int(d.port, "port")
    }

    /// The members of a `dial` object (a Cast device's, or an `otherDevices` entry's).
    static func dialFields(_ dial: DIALInfo, _ w: inout JSONWriter) {
        w.string(dial.location, "location")
        w.string(dial.usn, "usn")
        w.string(dial.server, "server")
        w.string(dial.address.description, "address")
        w.timestamp(dial.firstSeen, "firstSeen")
        w.timestamp(dial.lastSeen, "lastSeen")
        w.timestamp(dial.leftAt, "leftAt")
        frame(dial.firstFrame, "firstFrame", &w)
        w.bool(dial.hasCastLocation, "castLocation")
        w.int(dial.answers, "answers")
        strings(dial.answeredClients.map(\.description), "answeredClients", &w)
        frame(dial.firstAnswerFrame, "firstAnswerFrame", &w)
        if let d = dial.deviceDescription {
            w.beginObject("deviceDescription")
            w.string(d.client.description, "client")
            w.string(d.url, "url")
            frame(d.request.frame, "requestFrame", &w)
            w.int(d.status, "status")
            frame(d.response?.frame, "responseFrame", &w)
            w.string(d.applicationURL, "applicationUrl")
            w.string(d.friendlyName, "friendlyName")
            w.string(d.modelName, "modelName")
            w.string(d.manufacturer, "manufacturer")
            w.bool(d.complete, "complete")
            w.endObject()
        } else {
            w.string(nil, "deviceDescription")
        }
    }

    static func client(_ c: Client, _ w: inout JSONWriter) {
        w.beginObject()
        w.string(c.address.description, "address")
        strings(c.allAddresses.map(\.description), "addresses", &w)
        clientQueries(c, &w)
        strings(c.appIDsQueried, "appIdsQueried", &w)
        clientSearches(c, .reference, &w)
        w.beginArray("intervalsMs")
        for i in c.intervalsMs { w.milliseconds(i) }
        w.endArray()
        w.bool(c.followsDoubling, "followsDoubling")
        w.int(c.sessions, "sessions")
        vlans(c.vlans, &w)
        w.beginArray("localNamesOverDns")
        for q in c.localNamesOverDNS {
            w.beginObject()
            w.string(q.name, "name")
            w.string(q.type, "type")
            w.string(q.server.description, "server")
            w.timestamp(q.time, "time")
            frame(q.frame, "frame", &w)
            w.string(q.answer, "answer")
            frame(q.answerFrame, "answerFrame", &w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    /// A client's MAC, process and query counts (shared with ``AnalysisRows``).
    static func clientQueries(_ c: Client, _ w: inout JSONWriter) {
        w.string(c.mac?.description, "mac")
        w.string(c.process, "process")
        w.int(c.queries, "queries")
        w.int(c.quQuestions, "quQuestions")
        w.int(c.qmQuestions, "qmQuestions")
    }

    /// A client's media criterion, first and last query, legacy unicast and DIAL searches
    /// (shared with ``AnalysisRows``, which writes frames in `style` `.number`).
    static func clientSearches(_ c: Client, _ style: FrameStyle, _ w: inout JSONWriter) {
        w.bool(c.mediaCriterionQueried, "mediaCriterion")
        w.timestamp(c.firstQuery, "firstQuery")
        w.timestamp(c.lastQuery, "lastQuery")
        frame(c.firstQueryFrame, "firstQueryFrame", style, &w)
        w.bool(c.legacyUnicast, "legacyUnicast")
        w.int(c.dialSearches, "dialSearches")
        w.timestamp(c.firstDialSearch, "firstDialSearch")
        w.string(c.dialUserAgent, "dialUserAgent")
        w.int(c.dialSearchesAnswered, "dialSearchesAnswered")
    }

    /// `"vlans": [10]`, only on a trunk capture (tagged frames), so other documents are unchanged.
    static func vlans(_ vlans: [Int], _ w: inout JSONWriter) {
        guard !vlans.isEmpty else { return }
        w.beginArray("vlans")
        for v in vlans { w.int(v) }
        w.endArray()
    }

    static func latency(_ l: LatencyRow, _ w: inout JSONWriter) {
        w.beginObject()
        latencyMembers(l, .reference, &w)
        w.endObject()
    }

    /// A latency row's members (also a `latency` row's columns, frames in `style` `.number`).
    static func latencyMembers(_ l: LatencyRow, _ style: FrameStyle, _ w: inout JSONWriter) {
        w.string(l.client.description, "client")
        w.string(l.deviceID, "deviceId")
        w.timestamp(l.sessionStart, "sessionStart")
        frame(l.sessionStartFrame, "sessionStartFrame", style, &w)
        w.rawNumber(l.firstAnswerMs.map(milliseconds) ?? "null", "firstAnswerMs")
        frame(l.firstAnswerFrame, "firstAnswerFrame", style, &w)
        w.string(l.firstAnswerMissing, "firstAnswerMissing")
        w.rawNumber(l.resolvedMs.map(milliseconds) ?? "null", "resolvedMs")
        frame(l.resolvedFrame, "resolvedFrame", style, &w)
        w.string(l.resolvedMissing, "resolvedMissing")
        w.string(l.via.rawValue, "via")
    }

    static func latencySummary(_ s: LatencySummary, _ w: inout JSONWriter) {
        w.beginObject()
        w.string(s.deviceID, "deviceId")
        summary(s.firstAnswer, "firstAnswerMs", &w)
        summary(s.resolved, "resolvedMs", &w)
        summary(s.responseDelay, "responseDelayMs", &w)
        summary(s.dialAnswer, "dialAnswerMs", &w)
        w.endObject()
    }

    static func summary(_ s: Summary?, _ key: String, _ w: inout JSONWriter) {
        guard let s else {
            w.string(nil, key)
            return
        }
        w.beginObject(key)
        w.int(s.count, "count")
        w.milliseconds(s.min, "min")
        w.milliseconds(s.p50, "p50")
        w.milliseconds(s.p90, "p90")
        w.milliseconds(s.max, "max")
        w.endObject()
    }

    /// How a frame is written: `{"capture", "frame"}` (and `interface`) in the document, its
    /// Wireshark frame number alone in a row (``AnalysisRows``: the row names the capture).
    enum FrameStyle {
        case reference, number
    }

    /// Writes `f` in `style` (`null` when `nil`).
    static func frame(_ f: FrameRef?, _ key: String?, _ style: FrameStyle, _ w: inout JSONWriter) {
        switch style {
        case .reference: frame(f, key, &w)
        case .number: w.int(f?.frame, key)
        }
    }

    static func frame(_ f: FrameRef?, _ key: String? = nil, _ w: inout JSONWriter) {
        guard let f else {
            w.string(nil, key)
            return
        }
        w.beginObject(key)
        w.int(f.capture, "capture")
        w.int(f.frame, "frame")
        if f.interface != 0 { w.int(f.interface, "interface") }
        w.endObject()
    }

    static func frames(_ fs: [FrameRef], _ key: String, _ w: inout JSONWriter) {
        w.beginArray(key)
        for f in fs { frame(f, nil, &w) }
        w.endArray()
    }

    static func strings(_ values: [String], _ key: String, _ w: inout JSONWriter) {
        w.beginArray(key)
        for v in values { w.string(v) }
        w.endArray()
    }

    /// A millisecond value with 3 decimals (microsecond resolution), no exponent.
    public static func milliseconds(_ ms: Double) -> String {
        var bytes: [UInt8] = []
        appendMilliseconds(ms, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``milliseconds(_:)``'s text to UTF-8 `bytes`.
    static func appendMilliseconds(_ ms: Double, to bytes: inout [UInt8]) {
        // Clamped so that no value (a timestamp far off in a hostile capture) can overflow.
        let micro = Int64(Swift.min(Swift.max((ms * 1000).rounded(), -9e18), 9e18))
        if micro < 0 { bytes.append(0x2D) }
        let m = Int64(micro.magnitude)
        TimeFormat.appendDecimal(m / 1000, width: 1, to: &bytes)
        bytes.append(0x2E)
        TimeFormat.appendDecimal(m % 1000, width: 3, to: &bytes)
    }

}
