import CastDiscovery
import WireFormat

/// `castscope analyze --format rows`: the analysis as newline-delimited JSON, one flat object
/// per line, for loading the results of many captures into one table (DuckDB, ClickHouse,
/// BigQuery). docs/rows.md lists every column; docs/rows.schema.json is the same list as a
/// JSON Schema.
///
/// Every line starts with `"type"` (``RowType``), then `"capture"` (the timeline's file name as
/// given) and `"captureStart"` (RFC 3339 UTC with microseconds, as the JSON document writes
/// times), then the columns of its type. Within a type every row has the same keys in the same
/// order, a value that does not apply is `null` (never a missing key), and a key means the same
/// JSON type in every type it appears in, so that one table can hold all of them.
///
/// The values are those of ``AnalysisJSON``'s document, read from the same report and, where
/// the document has the same scalar members, written by the same functions (a latency row's,
/// a connection's, a client's counts), with a frame as its Wireshark frame number
/// (``AnalysisJSON/FrameStyle/number``); a list of values castscope formats itself (addresses,
/// capabilities) is joined by a space, and a list of objects (the evidence frames, say) is
/// its length (`…Count`) and first member.
public enum AnalysisRows {
    /// What a line describes: its `type` column, in the order the lines come.
    public enum RowType: String, CaseIterable, Sendable {
        /// One per timeline: the verdict and the counts of everything below (and one per file
        /// that could not be read, with `error`).
        case capture
        /// One per Cast device (the JSON's `devices[]`).
        case device
        /// One per client host (`clients[]`).
        case client
        /// One per discovery session × device, or DIAL M-SEARCH × device (`latency[]`).
        case latency
        /// One per client × device: how its queries were answered (`responses[]`).
        case response
        /// One per client × device × address:port of the connection phase (`connections[]`).
        case connection
        /// One per finding (`findings[]`).
        case finding
        /// One per subject of a finding (`findings[].evidence[]`), after its finding.
        case evidence
    }

    /// Renders the rows of each report (a file analysed on its own, or one merged timeline),
    /// in order, then a `capture` row for each file of `unreadable`; every line ends with a
    /// newline.
    public static func render(_ reports: [AnalysisReport], unreadable: [UnreadableCapture] = []) -> String {
        withRenderedUTF8(reports, unreadable: unreadable) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with ``render(_:unreadable:)``'s UTF-8, not copied out of the writer
    /// (valid only during the call).
    public static func withRenderedUTF8<R>(
        _ reports: [AnalysisReport], unreadable: [UnreadableCapture] = [], _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        var w = JSONWriter()
        for r in reports { write(r, into: &w) }
        for u in unreadable { write(u, into: &w) }
        return try w.withUTF8(body)
    }

    /// Writes the rows of one report, and a `capture` row for each of its unreadable files.
    static func write(_ r: AnalysisReport, into w: inout JSONWriter) {
        let t = Timeline(r)
        capture(r, t, &w)
        for d in r.devices { device(d, t, &w) }
        for c in r.clients { client(c, t, &w) }
        for l in r.latency { latency(l, t, &w) }
        for s in r.responses { response(s, t, &w) }
        for c in r.connections { connection(c, t, &w) }
        for f in r.findings {
            finding(f, t, &w)
            for e in f.evidence { evidence(e, of: f, t, &w) }
        }
        for u in r.unreadable { write(u, into: &w) }
    }

    /// The `capture` row of a file that could not be read: its name, `error`, and `null` for
    /// everything that would have come from reading it.
    static func write(_ u: UnreadableCapture, into w: inout JSONWriter) {
        begin(.capture, Timeline(name: u.file, start: nil, end: nil), &w)
        w.int(1, "files")
        w.string(nil, "captureEnd")
        w.string(u.error, "error")
        for key in captureStrings { w.string(nil, key) }
        for key in captureCounts { w.int(Int?.none, key) }
        w.bool(nil, "truncated")
        w.milliseconds(nil, "sessionGapMs")
        w.bool(nil, "connectionPhaseSeen")
        end(&w)
    }

    /// The name and span of the rows' timeline: one file, or the files `--merge` made one.
    struct Timeline {
        /// The file as given on the command line; with `--merge`, the files joined by ` + `.
        var name: String
        /// The first frame's time (of any file), `nil` without frames.
        var start: Timestamp?
        /// The last frame's time.
        var end: Timestamp?

        init(name: String, start: Timestamp?, end: Timestamp?) {
            self.name = name
            self.start = start
            self.end = end
        }

        init(_ r: AnalysisReport) {
            self.init(
                name: r.captures.map(\.file).joined(separator: " + "), start: r.captures.compactMap(\.start).min(),
                end: r.captures.compactMap(\.end).max())
        }
    }

    // MARK: - Rows

    /// The string columns of a `capture` row after `error`, in order (`null` when unreadable).
    static let captureStrings = ["linkType", "verdict", "headline"]
    /// Its integer columns after those, in order.
    static let captureCounts = [
        "packets", "discoveryPackets", "malformedPackets", "mdnsPackets", "ssdpPackets", "undecodableFrames",
        "errors", "warnings", "notes", "deviceCount", "otherDeviceCount", "clientCount", "latencyCount",
        "responseCount", "connectionCount", "findingCount",
    ]

    static func capture(_ r: AnalysisReport, _ t: Timeline, _ w: inout JSONWriter) {
        let c = r.captures
        let verdict = Verdict(r)
        begin(.capture, t, &w)
        w.int(c.count, "files")
        w.timestamp(t.end, "captureEnd")
        w.string(nil, "error")
        // Each link type once, in order (a merged timeline's files may share them).
        var linkTypes: [Substring] = []
        for name in c.flatMap({ $0.linkType.split(separator: ", ") }) where !linkTypes.contains(name) {
            linkTypes.append(name)
        }
        let strings = [linkTypes.joined(separator: ", "), verdict.status.rawValue, verdict.line(r.findings)]
        for (key, value) in zip(captureStrings, strings) { w.string(value, key) }
        let counts = [
            c.reduce(0) { $0 + $1.packets }, c.reduce(0) { $0 + $1.discoveryPackets },
            c.reduce(0) { $0 + $1.malformedPackets }, c.reduce(0) { $0 + $1.mdnsPackets },
            c.reduce(0) { $0 + $1.ssdpPackets }, c.reduce(0) { $0 + $1.undecodableFrames }, verdict.errors,
            verdict.warnings, verdict.notes, r.devices.count, r.otherDevices.count, r.clients.count, r.latency.count,
            r.responses.count, r.connections.count, r.findings.count,
        ]
        for (key, value) in zip(captureCounts, counts) { w.int(value, key) }
        w.bool(c.contains(where: \.truncated), "truncated")
        w.milliseconds(r.sessionGapSeconds * 1000, "sessionGapMs")
        w.bool(r.connectionPhaseSeen, "connectionPhaseSeen")
        end(&w)
    }

    static func device(_ d: Device, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.device, t, &w)
        w.string(d.id, "id")
        w.string(d.instance, "instance")
        w.int(d.instances.count, "instanceCount")
        w.string(d.friendlyName, "friendlyName")
        w.string(d.model, "model")
        w.string(d.kind.rawValue, "kind")
        w.string(d.capabilities.joined(separator: " "), "capabilities")
        AnalysisJSON.deviceService(d, &w)
        addresses(d.addresses, "addresses", &w)
        w.int(d.appIDs.count, "appIdCount")
        w.string(d.appIDs.joined(separator: " "), "appIds")
        w.bool(d.mediaCriterion, "mediaCriterion")
        w.timestamp(d.firstSeen, "firstSeen")
        w.timestamp(d.lastSeen, "lastSeen")
        w.timestamp(d.leftAt, "leftAt")
        w.string(d.via.joined(separator: " "), "via")
        w.int(d.sources.count, "sourceCount")
        frame(d.firstFrame, "firstFrame", &w)
        frame(d.leftFrame, "leftFrame", &w)
        w.string(d.dial?.location, "dialLocation")
        w.string(d.dial?.server, "dialServer")
        end(&w)
    }

    static func client(_ c: Client, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.client, t, &w)
        w.string(c.address.description, "address")
        addresses(c.allAddresses, "addresses", &w)
        AnalysisJSON.clientQueries(c, &w)
        w.int(c.appIDsQueried.count, "appIdCount")
        w.string(c.appIDsQueried.joined(separator: " "), "appIds")
        AnalysisJSON.clientSearches(c, .number, &w)
        w.int(c.intervalsMs.count, "intervalCount")
        w.bool(c.followsDoubling, "followsDoubling")
        w.int(c.sessions, "sessions")
        w.int(c.localNamesOverDNS.count, "localNamesOverDnsCount")
        end(&w)
    }

    static func latency(_ l: LatencyRow, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.latency, t, &w)
        AnalysisJSON.latencyMembers(l, .number, &w)
        end(&w)
    }

    static func response(_ s: ResponseStats, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.response, t, &w)
        AnalysisJSON.responseCounts(s, &w)
        w.milliseconds(s.delay?.min, "delayMinMs")
        w.milliseconds(s.delay?.p50, "delayP50Ms")
        w.milliseconds(s.delay?.p90, "delayP90Ms")
        w.milliseconds(s.delay?.max, "delayMaxMs")
        w.int(s.missedFrames.count, "missedFrameCount")
        frame(s.missedFrames.first, "firstMissedFrame", &w)
        end(&w)
    }

    static func connection(_ c: Connection, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.connection, t, &w)
        AnalysisJSON.connectionMembers(c, .number, &w)
        AnalysisJSON.connectionOutcome(c, .number, &w)
        end(&w)
    }

    static func finding(_ f: Finding, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.finding, t, &w)
        AnalysisJSON.findingWords(f, &w)
        w.int(f.frames.count, "frameCount")
        frame(f.frames.first, "firstFrame", &w)
        w.int(f.subjects.clients.count, "clientSubjects")
        w.int(f.subjects.devices.count, "deviceSubjects")
        w.int(f.subjects.appIDs.count, "appIdSubjects")
        w.int(f.evidence.count, "evidenceCount")
        end(&w)
    }

    /// One subject of finding `f`, which its `code` and `severity` name (a capture has one
    /// finding of each code and severity).
    static func evidence(_ e: FindingEvidence, of f: Finding, _ t: Timeline, _ w: inout JSONWriter) {
        begin(.evidence, t, &w)
        w.string(f.code.rawValue, "code")
        w.string(f.severity.rawValue, "severity")
        w.string(e.kind.rawValue, "kind")
        w.string(e.subject, "subject")
        w.string(e.detail, "detail")
        w.int(e.frames.count, "frameCount")
        frame(e.frames.first, "firstFrame", &w)
        end(&w)
    }

    // MARK: - Columns

    /// Starts a line: `type`, `capture`, `captureStart`.
    static func begin(_ type: RowType, _ t: Timeline, _ w: inout JSONWriter) {
        w.beginObject()
        w.string(type.rawValue, "type")
        w.string(t.name, "capture")
        w.timestamp(t.start, "captureStart")
    }

    static func end(_ w: inout JSONWriter) {
        w.endObject()
        w.endLine()
    }

    /// A frame as its Wireshark frame number (the capture is the row's; with `--merge`, the
    /// file the frame is in is not said).
    static func frame(_ f: FrameRef?, _ key: String, _ w: inout JSONWriter) {
        AnalysisJSON.frame(f, key, .number, &w)
    }

    /// Addresses joined by a space (they hold none).
    static func addresses(_ list: [IPAddress], _ key: String, _ w: inout JSONWriter) {
        w.string(list.map(\.description).joined(separator: " "), key)
    }
}
