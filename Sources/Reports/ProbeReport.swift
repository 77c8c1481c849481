import CastDiscovery
import WireFormat

/// `castscope probe`'s output: what the probe did and found (``ProbeSummary``), then the
/// analysis of its capture as `analyze` renders it.
public enum ProbeReport {
    // MARK: JSON

    /// `{"probe": {...}, "analysis": {...}}` (docs/probe.md; `analysis` is the document
    /// `analyze --format json` writes), pretty-printed, ending with a newline.
    public static func json(_ s: ProbeSummary, _ r: AnalysisReport) -> String {
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.beginObject("probe")
        w.string(s.interface, "interface")
        strings(s.addresses.map(\.description), "addresses", &w)
        strings(s.families, "families", &w)
        strings(s.appIDs, "appIDs", &w)
        w.milliseconds(s.durationSeconds * 1000, "durationMs")
        w.timestamp(s.started, "started")
        w.bool(s.captured, "captured")
        w.string(s.captureNote, "captureNote")
        w.string(s.written, "written")
        w.bool(s.interrupted, "interrupted")
        w.beginArray("queries")
        for q in s.queries {
            w.beginObject()
            w.timestamp(q.time, "time")
            w.string(q.family, "family")
            w.bool(q.unicastResponse, "unicastResponse")
            strings(q.questions, "questions", &w)
            w.int(q.knownAnswers, "knownAnswers")
            w.bool(q.truncated, "truncated")
            w.endObject()
        }
        w.endArray()
        w.int(s.mSearches, "mSearches")
        w.int(s.ssdpAnswers, "ssdpAnswers")
        w.beginArray("devices")
        for d in s.devices {
            w.beginObject()
            w.string(d.name, "name")
            w.string(d.instance, "instance")
            w.string(d.id, "id")
            w.string(d.model, "model")
            strings(d.addresses.map(\.description), "addresses", &w)
            w.int(d.port, "port")
            w.bool(d.resolved, "resolved")
            optionalMilliseconds(d.firstAnswerMs, "firstAnswerMs", &w)
            w.bool(d.announcedBeforeQuery, "announcedBeforeQuery")
            strings(d.foundUnder, "foundUnder", &w)
            if let c = d.connect {
                w.beginObject("connect")
                w.string(c.address?.description, "address")
                w.int(c.port, "port")
                w.string(c.outcome.rawValue, "outcome")
                optionalMilliseconds(c.connectMs, "connectMs", &w)
                optionalMilliseconds(c.tlsMs, "tlsMs", &w)
                w.string(c.tlsVersion, "tlsVersion")
                w.string(c.cipher, "cipher")
                w.string(c.error, "error")
                w.endObject()
            } else {
                w.string(nil, "connect")
            }
            w.endObject()
        }
        w.endArray()
        w.bool(s.answered, "answered")
        w.bool(s.allReachable, "allReachable")
        w.endObject()
        AnalysisJSON.write(r, key: "analysis", into: &w)
        w.endObject()
        w.appendNewline()
        return w.output
    }

    static func strings(_ values: [String], _ key: String, _ w: inout JSONWriter) {
        w.beginArray(key)
        for v in values { w.string(v) }
        w.endArray()
    }

    static func optionalMilliseconds(_ ms: Double?, _ key: String, _ w: inout JSONWriter) {
        if let ms { w.milliseconds(ms, key) } else { w.string(nil, key) }
    }

    // MARK: text and Markdown

    /// The probe's own part as text: one line of what it did, and a table of the devices.
    public static func text(_ s: ProbeSummary, width: TextWidth = .file) -> String {
        var out = headline(s) + "\n"
        if let note = s.captureNote { out += "note: " + TerminalText.sanitize(note) + "\n" }
        out += "\n"
        guard s.answered else {
            return out + "Nothing answered: no Cast device sent an mDNS answer or a DIAL response on \(s.interface) "
                + "within \(Wording.duration(milliseconds: s.durationSeconds * 1000)).\n\n"
        }
        out += "Devices found by the probe (\(s.devices.count)):\n"
        out += TextLayout(width: width).table(["Device", "Model", "Address", "First answer", "Connection"], rows(s))
        return out + "\n"
    }

    /// The same as Markdown: a paragraph and a table.
    public static func markdown(_ s: ProbeSummary) -> String {
        var out = "# castscope probe\n\n" + AnalysisMarkdown.escape(headline(s)) + "\n\n"
        if let note = s.captureNote { out += "> " + AnalysisMarkdown.escape(note) + "\n\n" }
        guard s.answered else {
            return out + "**Nothing answered**: no Cast device sent an mDNS answer or a DIAL response.\n\n"
        }
        out += "| Device | Model | Address | First answer | Connection |\n|---|---|---|---|---|\n"
        for row in rows(s) { out += "| " + row.map(AnalysisMarkdown.escape).joined(separator: " | ") + " |\n" }
        return out + "\n"
    }

    /// `probe on eth0 (192.0.2.10, fe80::1) for 5 s: 3 queries over IPv4 and IPv6, …`.
    static func headline(_ s: ProbeSummary) -> String {
        let scheduled = s.queries.filter { $0.questions.contains { $0.hasPrefix("_googlecast._tcp.local ") } }
        let perFamily = s.families.isEmpty ? 0 : scheduled.count / s.families.count
        var line =
            "castscope probe on \(s.interface) (\(s.addresses.map(\.description).joined(separator: ", "))) for "
            + Wording.duration(milliseconds: s.durationSeconds * 1000) + ": "
            + "\(Wording.count(perFamily, "query", "queries")) over "
            + s.families.map { $0 == "ipv4" ? "IPv4" : "IPv6" }.joined(separator: " and ")
            + (s.families.count > 1 ? " each" : "")
        let followUps = s.queries.count - scheduled.count
        if followUps > 0 { line += " and \(Wording.count(followUps, "follow-up question packet"))" }
        line += ", \(Wording.count(s.mSearches, "DIAL M-SEARCH", "DIAL M-SEARCHes")); "
        line += s.captured ? "captured" : "not captured (from the probe's sockets)"
        if let w = s.written { line += ", written to \(w)" }
        if s.interrupted { line += "; interrupted" }
        return line
    }

    static func rows(_ s: ProbeSummary) -> [[String]] {
        s.devices.map { d in
            let address =
                d.addresses.first.map { a in
                    d.port.map { a.isIPv4 ? "\(a):\($0)" : "[\(a)]:\($0)" } ?? a.description
                } ?? "unresolved"
            return [
                d.name ?? d.instance, d.model ?? "", address,
                d.firstAnswerMs.map { Wording.duration(milliseconds: $0) }
                    ?? (d.announcedBeforeQuery ? "announced" : ""),
                connection(d.connect),
            ]
        }
    }

    /// `established: TCP 0.4 ms, TLSv1.3 5.2 ms`, `refused (Connection refused)`.
    static func connection(_ c: ProbeConnectResult?) -> String {
        guard let c else { return "not tried (--no-connect)" }
        switch c.outcome {
        case .established:
            return "established: TCP " + (c.connectMs.map { Wording.duration(milliseconds: $0) } ?? "?") + ", "
                + (c.tlsVersion ?? "TLS") + " " + (c.tlsMs.map { Wording.duration(milliseconds: $0) } ?? "?")
        default:
            return c.outcome.rawValue + (c.error.map { " (\($0))" } ?? "")
        }
    }
}
