import CastDiscovery
import WireFormat

/// `castscope compare --format json` and `--format markdown` (docs/compare.md,
/// docs/compare.schema.json).
extension CompareReport {
    // MARK: JSON

    public static func json(_ c: CaptureComparison) -> String {
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.int(1, "schemaVersion")
        w.string("two-points", "mode")
        w.string(verdict(c), "verdict")
        side(c.a, "a", &w)
        side(c.b, "b", &w)
        if let o = c.offset {
            w.milliseconds(o.median * 1000, "clockOffsetMs")
            w.milliseconds(o.spread * 1000, "clockOffsetSpreadMs")
        } else {
            w.string(nil, "clockOffsetMs")
            w.string(nil, "clockOffsetSpreadMs")
        }
        w.string(c.offsetBasis.rawValue, "clockOffsetBasis")
        w.int(c.match.pairs.count, "matchedPairs")
        direction(c.queries, "queries", &w)
        direction(c.answers, "answers", &w)
        hosts(c.senders, "senders", &w)
        hosts(c.devices, "devices", &w)
        strings(c.otherSenders, "otherSenders", &w)
        strings(c.otherDevices, "otherDevices", &w)
        w.beginArray("changedCopies")
        for copy in c.changedCopies {
            w.beginObject()
            w.string(copy.kind == .query ? "query" : "answer", "kind")
            w.int(copy.frameA, "frameA")
            w.int(copy.frameB, "frameB")
            w.string(copy.sourceA, "sourceA")
            w.string(copy.sourceB, "sourceB")
            w.int(copy.ttlA, "ttlA")
            w.int(copy.ttlB, "ttlB")
            w.bool(copy.reencoded, "reencoded")
            w.endObject()
        }
        w.endArray()
        w.beginArray("findings")
        for cf in c.findings {
            let f = cf.finding
            w.beginObject()
            AnalysisJSON.findingWords(f, &w)
            ints(cf.framesA, "framesA", &w)
            ints(cf.framesB, "framesB", &w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.output + "\n"
    }

    public static func json(_ c: BeforeAfterComparison) -> String {
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.int(1, "schemaVersion")
        w.string("before-after", "mode")
        w.string(c.reason.rawValue, "reason")
        w.string(verdict(c), "verdict")
        for (key, info, v) in [("a", c.before, c.verdictBefore), ("b", c.after, c.verdictAfter)] {
            w.beginObject(key)
            w.string(info.file, "file")
            w.int(info.packets, "records")
            w.timestamp(info.start, "start")
            w.timestamp(info.end, "end")
            w.string(v.status.rawValue, "status")
            w.string(v.headline, "verdict")
            w.endObject()
        }
        w.beginObject("devices")
        for (key, list) in [("appeared", c.appeared), ("disappeared", c.disappeared), ("kept", c.kept)] {
            w.beginArray(key)
            for d in list {
                w.beginObject()
                w.string(d.id, "id")
                w.string(d.name, "name")
                w.string(d.model, "model")
                strings(d.addresses, "addresses", &w)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        w.beginArray("latency")
        for l in c.latency {
            w.beginObject()
            w.string(l.id, "id")
            w.string(l.name, "name")
            AnalysisJSON.summary(l.before, "beforeMs", &w)
            AnalysisJSON.summary(l.after, "afterMs", &w)
            w.endObject()
        }
        w.endArray()
        w.beginObject("overall")
        AnalysisJSON.summary(c.overallBefore, "beforeMs", &w)
        AnalysisJSON.summary(c.overallAfter, "afterMs", &w)
        w.endObject()
        w.beginObject("findings")
        for (key, list) in [
            ("appeared", c.findingsAppeared), ("resolved", c.findingsResolved), ("kept", c.findingsKept),
        ] {
            w.beginArray(key)
            for f in list {
                w.beginObject()
                w.string(f.code.rawValue, "code")
                w.string(f.severity.rawValue, "severity")
                w.string(f.title, "title")
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        w.endObject()
        return w.output + "\n"
    }

    static func side(_ s: CompareSide, _ key: String, _ w: inout JSONWriter) {
        let queries = s.kinds.filter { $0 == .query }.count
        w.beginObject(key)
        w.string(s.shownName, "file")
        w.int(s.records, "records")
        w.int(queries, "queries")
        w.int(s.kinds.count - queries, "responses")
        w.timestamp(s.start.map { Timestamp(epochSeconds: $0) }, "start")
        w.timestamp(s.end.map { Timestamp(epochSeconds: $0) }, "end")
        w.endObject()
    }

    static func direction(_ t: DirectionTraffic, _ key: String, _ w: inout JSONWriter) {
        w.beginObject(key)
        w.int(t.seen, "seen")
        w.int(t.arrived, "arrived")
        w.int(t.lost, "lost")
        w.rawNumber(Wording.decimal(t.lossPercent, places: 1), "lossPercent")
        w.int(t.outsideOverlap, "outsideOverlap")
        w.beginObject("multicast")
        w.int(t.multicastSeen, "seen")
        w.int(t.multicastArrived, "arrived")
        w.endObject()
        w.beginObject("unicast")
        w.int(t.unicastSeen, "seen")
        w.int(t.unicastArrived, "arrived")
        w.endObject()
        ints(t.lostFrames, "lostFrames", &w)
        if let first = t.firstLost {
            w.beginObject("firstLost")
            w.int(first.frame, "frame")
            w.timestamp(Timestamp(epochSeconds: first.time), "time")
            w.int(first.nearFrame, "nearFrame")
            w.endObject()
        } else {
            w.string(nil, "firstLost")
        }
        AnalysisJSON.summary(t.delay.map(milliseconds), "delayMs", &w)
        w.int(t.lostAfterLastArrival, "lostAfterLastArrival")
        w.int(t.changed, "changed")
        w.int(t.sourceChanged, "sourceChanged")
        w.int(t.ttlChanged, "ttlChanged")
        w.int(t.reencoded, "reencoded")
        w.int(t.knownAnswersAdded, "knownAnswersAdded")
        w.endObject()
    }

    /// A summary in seconds as one in milliseconds.
    static func milliseconds(_ s: Summary) -> Summary {
        var m = s
        m.min *= 1000
        m.p50 *= 1000
        m.p90 *= 1000
        m.max *= 1000
        return m
    }

    static func hosts(_ list: [HostTraffic], _ key: String, _ w: inout JSONWriter) {
        w.beginArray(key)
        for h in list {
            w.beginObject()
            w.string(h.host, "host")
            strings(h.addresses, "addresses", &w)
            w.string(h.name, "name")
            w.int(h.seen, "seen")
            w.int(h.arrived, "arrived")
            w.int(h.lost, "lost")
            w.endObject()
        }
        w.endArray()
    }

    static func strings(_ list: [String], _ key: String, _ w: inout JSONWriter) {
        AnalysisJSON.strings(list, key, &w)
    }

    static func ints(_ list: [Int], _ key: String, _ w: inout JSONWriter) {
        w.beginArray(key)
        for i in list { w.int(i) }
        w.endArray()
    }

    // MARK: Markdown

    public static func markdown(_ c: CaptureComparison) -> String {
        let e = AnalysisMarkdown.escape
        var out = "# Where do the packets die?\n\n**\(e(verdict(c)))**\n\n"
        out += AnalysisMarkdown.table(
            ["", "Capture", "Records", "Cast queries", "Cast responses"],
            [("A (sender side)", c.a), ("B (device side)", c.b)].map { role, s in
                let q = s.kinds.filter { $0 == .query }.count
                return [role, s.shownName, String(s.records), String(q), String(s.kinds.count - q)]
            })
        out += "\n" + e(clockLine(c)) + ".\n\n"
        let directions: [(String, DirectionTraffic, String)] = [
            ("Queries: sender → devices", c.queries, "A"), ("Answers: devices → sender", c.answers, "B"),
        ]
        var rows: [[String]] = []
        for (name, t, side) in directions {
            let p50: String = t.delay.map { Wording.duration(milliseconds: $0.p50 * 1000) } ?? "–"
            let p90: String = t.delay.map { Wording.duration(milliseconds: $0.p90 * 1000) } ?? "–"
            let first: String = t.firstLost.map { "\(side) frame \($0.frame)" } ?? "–"
            let loss = Wording.decimal(t.lossPercent, places: 1) + " %"
            rows.append([
                name, String(t.seen), String(t.arrived), String(t.lost), loss, p50, p90, String(t.changed), first,
            ])
        }
        out += AnalysisMarkdown.table(
            ["Direction", "Seen", "Arrived", "Lost", "Loss", "Delay p50", "Delay p90", "Changed", "First lost"], rows)
        for (title, list) in [("Senders (capture A)", c.senders), ("Devices (capture B)", c.devices)]
        where !list.isEmpty {
            out += "\n## \(title)\n\n"
            out += AnalysisMarkdown.table(
                ["Host", "Seen", "Arrived", "Lost"],
                list.map { [$0.label, String($0.seen), String($0.arrived), String($0.lost)] })
        }
        if !c.findings.isEmpty {
            out += "\n## Findings\n\n"
            out += AnalysisMarkdown.table(
                ["Severity", "Code", "Finding", "Advice", "Frames"],
                c.findings.map { cf in
                    [
                        cf.finding.severity.rawValue, cf.finding.code.rawValue,
                        cf.finding.title + ". " + cf.finding.detail, cf.finding.advice, framesWords(cf) ?? "",
                    ]
                })
        }
        return out
    }

    public static func markdown(_ c: BeforeAfterComparison) -> String {
        let e = AnalysisMarkdown.escape
        var out = "# Before and after\n\n**\(e(verdict(c)))**\n\n"
        out += AnalysisMarkdown.table(
            ["", "Capture", "Records", "Verdict"],
            [
                ["Before", c.before.file, String(c.before.packets), c.verdictBefore.headline],
                ["After", c.after.file, String(c.after.packets), c.verdictAfter.headline],
            ])
        out += "\n## Devices\n\n"
        let rows =
            c.appeared.map { ["appeared", deviceLabel($0)] } + c.disappeared.map { ["disappeared", deviceLabel($0)] }
            + c.kept.map { ["in both", deviceLabel($0)] }
        out +=
            rows.isEmpty ? "No Cast device in either capture.\n" : AnalysisMarkdown.table(["Change", "Device"], rows)
        if !c.latency.isEmpty {
            out += "\n## First answer (p50 / p90)\n\n"
            out += AnalysisMarkdown.table(
                ["Device", "Before", "After"],
                c.latency.map { [$0.name ?? $0.id, latency($0.before), latency($0.after)] }
                    + [["all devices", latency(c.overallBefore), latency(c.overallAfter)]])
        }
        out += "\n## Findings\n\n"
        let findings =
            c.findingsAppeared.map { ["appeared", $0.severity.rawValue, $0.code.rawValue, $0.title] }
            + c.findingsResolved.map { ["resolved", $0.severity.rawValue, $0.code.rawValue, $0.title] }
            + c.findingsKept.map { ["in both", $0.severity.rawValue, $0.code.rawValue, $0.title] }
        out +=
            findings.isEmpty
            ? "No finding in either capture.\n"
            : AnalysisMarkdown.table(["Change", "Severity", "Code", "Finding"], findings)
        return out
    }
}
