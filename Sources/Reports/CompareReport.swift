import CastDiscovery

/// `castscope compare`'s text, Markdown and JSON (docs/compare.md): two captures lined up
/// (two points), or compared as before and after.
public enum CompareReport {
    // MARK: Verdict

    /// `FAIL: <first error>`, `WARN: <first warning>` or `OK: …` for two points.
    public static func verdict(_ c: CaptureComparison) -> String {
        let findings = c.findings.map(\.finding)
        if let e = findings.first(where: { $0.severity == .error }) { return "FAIL: " + e.title }
        if let w = findings.first(where: { $0.severity == .warning }) { return "WARN: " + w.title }
        if findings.contains(where: { $0.code == .compareOK }) {
            return "OK: every Cast message of the sender and the devices reached the other point"
        }
        let lost = c.queries.lost + c.answers.lost
        if lost > 0 {
            return "OK: the Cast messages reach the other point (\(Wording.count(lost, "message")) not seen there; "
                + "see the notes)"
        }
        return "OK: no Cast message was lost between the two points"
    }

    /// `Before: …; after: …; 1 device appeared, 2 findings resolved`.
    public static func verdict(_ c: BeforeAfterComparison) -> String {
        var changes: [String] = []
        if !c.appeared.isEmpty { changes.append("\(Wording.count(c.appeared.count, "device")) appeared") }
        if !c.disappeared.isEmpty { changes.append("\(Wording.count(c.disappeared.count, "device")) disappeared") }
        if !c.findingsAppeared.isEmpty {
            changes.append("\(Wording.count(c.findingsAppeared.count, "finding")) appeared")
        }
        if !c.findingsResolved.isEmpty {
            changes.append("\(Wording.count(c.findingsResolved.count, "finding")) resolved")
        }
        return "Before: \(c.verdictBefore.headline). After: \(c.verdictAfter.headline). "
            + (changes.isEmpty ? "Nothing changed." : Wording.list(changes).capitalizedFirst + ".")
    }

    // MARK: Text

    public static func text(_ c: CaptureComparison) -> String {
        var out = TerminalText.sanitize(verdict(c)) + "\n\n"
        out += "A  " + sideLine(c.a, role: "sender side") + "\n"
        out += "B  " + sideLine(c.b, role: "device side") + "\n"
        out += clockLine(c) + "\n\n"
        out += directionLine("Queries", "sender → devices", c.queries, from: "A") + "\n"
        out += directionLine("Answers", "devices → sender", c.answers, from: "B") + "\n"
        if c.queries.changed + c.answers.changed > 0 { out += "  " + changedLine(c) + "\n" }
        out += hostsText("Senders (capture A)", c.senders, other: c.otherSenders)
        out += hostsText("Devices (capture B)", c.devices, other: c.otherDevices)
        out += findingsText(c.findings)
        return out
    }

    public static func text(_ c: BeforeAfterComparison) -> String {
        var out = TerminalText.sanitize(verdict(c)) + "\n\n"
        if c.reason == .noOverlap {
            out += AppCheckReport.wrap(noOverlapWords, indent: "") + "\n"
        }
        out += "Before  " + TerminalText.sanitize(infoLine(c.before)) + "\n"
        out += "After   " + TerminalText.sanitize(infoLine(c.after)) + "\n"
        for (title, list) in [("Appeared", c.appeared), ("Disappeared", c.disappeared), ("In both", c.kept)]
        where !list.isEmpty {
            out += "\nDevices \(title.lowercased())\n"
            for d in list { out += "  " + TerminalText.sanitize(deviceLabel(d)) + "\n" }
        }
        if !c.latency.isEmpty || c.overallBefore != nil || c.overallAfter != nil {
            out += "\nFirst answer (p50 / p90)   before              after\n"
            for l in c.latency {
                out +=
                    pad("  " + TerminalText.sanitize(l.name ?? l.id), 27) + pad(latency(l.before), 20)
                    + latency(l.after) + "\n"
            }
            out += pad("  all devices", 27) + pad(latency(c.overallBefore), 20) + latency(c.overallAfter) + "\n"
        }
        for (title, list) in [
            ("Findings that appeared", c.findingsAppeared), ("Findings resolved", c.findingsResolved),
            ("Findings in both", c.findingsKept),
        ] where !list.isEmpty {
            out += "\n\(title)\n"
            for f in list {
                out += AppCheckReport.wrap("  \(f.severity.rawValue) \(f.code.rawValue): \(f.title)", indent: "      ")
            }
        }
        return out
    }

    /// Why two captures were compared as before and after without being asked.
    static let noOverlapWords =
        "The two captures do not overlap in time, so they are compared as before and after. If they were "
        + "taken at the same time by clocks that disagree, use --same-time."

    static func sideLine(_ s: CompareSide, role: String) -> String {
        let queries = s.kinds.filter { $0 == .query }.count
        var line =
            "\(s.shownName) (\(role)): \(Wording.count(s.records, "record")), "
            + "\(Wording.count(queries, "Cast query", "Cast queries")), "
            + "\(Wording.count(s.kinds.count - queries, "Cast response"))"
        if let start = s.start, let end = s.end { line += ", \(clock(start))–\(clock(end))" }
        return TerminalText.sanitize(line)
    }

    static func clockLine(_ c: CaptureComparison) -> String {
        guard let o = c.offset else {
            return "Clock: no message of one capture is in the other; the two clocks are taken to agree"
        }
        let ahead = o.median >= 0 ? "ahead of" : "behind"
        let basis =
            c.offsetBasis == .bothDirections
            ? "both directions, so the delays below are one-way"
            : "one direction only, so the delays below are relative to their median"
        return "Clock: B is \(Wording.duration(milliseconds: abs(o.median) * 1000)) \(ahead) A "
            + "(±\(Wording.duration(milliseconds: o.spread * 1000))), from \(Wording.count(o.pairs, "matched pair")) "
            + "in \(basis)"
    }

    static func directionLine(_ name: String, _ arrow: String, _ t: DirectionTraffic, from side: String) -> String {
        var s = "\(name)  \(arrow): "
        guard t.seen > 0 else {
            return s + "none seen" + (t.outsideOverlap > 0 ? " (\(t.outsideOverlap) outside the other capture)" : "")
        }
        s += "\(t.arrived) of \(t.seen) arrived, \(t.lost) lost (\(Wording.decimal(t.lossPercent, places: 1)) %)"
        if let d = t.delay {
            s +=
                "; delay p50 \(Wording.duration(milliseconds: d.p50 * 1000)), "
                + "p90 \(Wording.duration(milliseconds: d.p90 * 1000)), max \(Wording.duration(milliseconds: d.max * 1000))"
        }
        if let first = t.firstLost { s += "; first lost: \(side) frame \(first.frame)" }
        if t.outsideOverlap > 0 { s += "; \(t.outsideOverlap) outside the other capture, not counted" }
        return s
    }

    static func changedLine(_ c: CaptureComparison) -> String {
        let q = c.queries
        let a = c.answers
        return "Changed on the way: \(q.changed) queries, \(a.changed) answers "
            + "(\(q.sourceChanged + a.sourceChanged) other source, \(q.ttlChanged + a.ttlChanged) other TTL, "
            + "\(q.reencoded + a.reencoded) rebuilt)"
    }

    static func hostsText(_ title: String, _ hosts: [HostTraffic], other: [String]) -> String {
        guard !hosts.isEmpty || !other.isEmpty else { return "" }
        var out = "\n\(title)\n"
        for h in hosts {
            out +=
                pad("  " + TerminalText.sanitize(h.label), 44)
                + "\(h.seen) seen, \(h.arrived) arrived, \(h.lost) lost\n"
        }
        if !other.isEmpty {
            out += AppCheckReport.wrap(
                "  Left out: " + Wording.cappedList(other, maximum: 10), indent: "    ")
        }
        return out
    }

    static func findingsText(_ findings: [CompareFinding]) -> String {
        var out = ""
        for severity in Severity.allCases {
            let group = findings.filter { $0.finding.severity == severity }
            guard !group.isEmpty else { continue }
            out += "\n" + (severity == .info ? "NOTES" : severity.rawValue.uppercased() + "S") + "\n"
            for cf in group {
                let f = cf.finding
                out += AppCheckReport.wrap("* \(f.code.rawValue): \(f.title)", indent: "    ")
                out += AppCheckReport.wrap("    \(f.detail)", indent: "    ")
                out += AppCheckReport.wrap("    Advice: \(f.advice)", indent: "    ")
                if let frames = framesWords(cf) { out += AppCheckReport.wrap("    Frames: \(frames)", indent: "    ") }
            }
        }
        return out
    }

    static func framesWords(_ cf: CompareFinding) -> String? {
        var parts: [String] = []
        if !cf.framesA.isEmpty { parts.append("A " + Wording.capped(cf.framesA.map(String.init), maximum: 10)) }
        if !cf.framesB.isEmpty { parts.append("B " + Wording.capped(cf.framesB.map(String.init), maximum: 10)) }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    static func infoLine(_ i: CaptureInfo) -> String {
        var s = "\(i.file): \(Wording.count(i.packets, "record"))"
        if let start = i.start { s += ", " + TimeFormat.readable(start) }
        return s
    }

    static func deviceLabel(_ d: BeforeAfterComparison.DeviceEntry) -> String {
        var s = d.name ?? d.id
        if let m = d.model { s += " (\(m))" }
        if !d.addresses.isEmpty { s += " at " + d.addresses.joined(separator: ", ") }
        return s
    }

    static func latency(_ s: Summary?) -> String {
        guard let s else { return "–" }
        return "\(Wording.duration(milliseconds: s.p50)) / \(Wording.duration(milliseconds: s.p90))"
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }

    static func clock(_ t: Double) -> String { Wording.clock(epochSeconds: t) }
}

extension String {
    /// The first character upper-cased.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
