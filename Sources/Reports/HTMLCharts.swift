import CastDiscovery
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SVG charts of the HTML report: a timeline per client and the latency chart.
///
/// Sizes stay bounded: a timeline has at most ``maximumDeviceRows`` device rows, the latency
/// chart at most ``maximumLatencyRows`` rows, and there are at most ``maximumTimelines``
/// timelines; whatever is left out is counted in a note.
enum HTMLCharts {
    static let width = 1100.0
    static let gutter = 210.0
    static let rightPad = 26.0
    static let rowHeight = 22.0
    static let maximumDeviceRows = 30
    static let maximumTimelines = 40
    static let maximumLatencyRows = 40

    static let blue = "#1565c0"
    static let red = "#c62828"
    static let green = "#2e7d32"
    static let grey = "#8a949e"
    static let orange = "#ef6c00"

    // MARK: - Time windows

    /// A span of time drawn on one axis: one capture, or all of them when merged.
    struct Window {
        var captures: Set<Int>
        var start: Timestamp
        var end: Timestamp
        /// The capture files, for the caption.
        var files: [String]
        var seconds: Double { Swift.max(end.seconds(since: start), 0.001) }
        func contains(_ t: Timestamp) -> Bool { t >= start && t <= end }
    }

    static func windows(_ r: AnalysisReport) -> [Window] {
        let timed = r.captures.indices.filter { r.captures[$0].start != nil && r.captures[$0].end != nil }
        if timed.isEmpty { return [] }
        if r.merged || timed.count == 1 {
            return [
                Window(
                    captures: Set(r.captures.indices), start: timed.map { r.captures[$0].start! }.min()!,
                    end: timed.map { r.captures[$0].end! }.max()!, files: r.captures.map(\.file))
            ]
        }
        return timed.map {
            Window(captures: [$0], start: r.captures[$0].start!, end: r.captures[$0].end!, files: [r.captures[$0].file])
        }
    }

    /// The capture a time belongs to and that capture's start (the origin of relative times).
    static func origin(_ r: AnalysisReport, _ t: Timestamp) -> (capture: Int, start: Timestamp) {
        let ws = windows(r)
        if let w = ws.first(where: { $0.contains(t) }) ?? ws.last(where: { $0.start <= t }) ?? ws.first {
            return (w.captures.min() ?? 0, w.start)
        }
        return (0, t)
    }

    // MARK: - Timeline

    static func timelineSection(_ r: AnalysisReport) -> String {
        var out = "<section id=\"timeline\">\n<h2>Timeline per client</h2>\n"
        out += "<p class=\"explain\">One chart per client that searched. The top row shows the client’s Cast "
        out += "queries; a dotted line runs down from each query through the device rows. A green dot is the "
        out += "device’s answer to that query (with its delay), a red square a query it should have answered "
        out += "but did not, a grey dash an answer it rightly withheld because the client already knew it. The "
        out += "grey band spans from the first to the last time the device was seen; small grey dots are its "
        out += "answers to other clients, ✕ its goodbye. A query line with no green dot on a device’s row is a "
        out += "gap. A triangle under a device’s row is the client’s TCP connection to it, green when it "
        out += "opened (a tick marks the TLS ServerHello), red when it was refused, timed out or unreachable. "
        out += "Hover a mark for its frame number.</p>\n"
        let ws = windows(r)
        if !ws.isEmpty {
            out += "<svg role=\"img\" width=\"\(Int(width))\" height=\"62\" viewBox=\"0 0 \(Int(width)) 62\" "
            out += "aria-label=\"Legend of the timelines\">\n" + legend(y: 12) + "</svg>\n"
        }
        var drawn = 0
        var skipped = 0
        for w in ws {
            let clients = r.clients.filter { c in
                ws.count == 1
                    || r.queries.contains { $0.client == c.address && w.captures.contains($0.frame.capture) }
                    || c.firstDialSearch.map(w.contains) == true
            }
            let caption = w.files.count == 1 ? w.files[0] : "\(w.files.count) captures, merged"
            if clients.isEmpty {
                if drawn >= maximumTimelines {
                    skipped += 1
                    continue
                }
                drawn += 1
                out += "<figure><figcaption>No client searched<span class=\"sub\">\(HTMLText.escape(caption))"
                out += "</span></figcaption>\n" + timelineSVG(r, w, client: nil) + "</figure>\n"
            }
            for c in clients {
                if drawn >= maximumTimelines {
                    skipped += 1
                    continue
                }
                drawn += 1
                let n = r.queries.filter { $0.client == c.address && w.captures.contains($0.frame.capture) }.count
                out += "<figure><figcaption>Client <bdi>\(HTMLText.escape(c.address.description))</bdi>"
                out +=
                    "<span class=\"sub\">\(HTMLText.escape(caption)) · \(queryCount(c, bursts: n, whole: ws.count == 1))"
                out += "</span></figcaption>\n" + timelineSVG(r, w, client: c) + "</figure>\n"
            }
        }
        if ws.isEmpty { out += "<p class=\"none\">The captures hold no packets: nothing to draw.</p>\n" }
        if skipped > 0 { out += "<p class=\"none\">\(skipped) more timelines not drawn.</p>\n" }
        return out + "</section>\n"
    }

    /// `44 queries in 33 bursts`: the query packets (as the clients table counts them) and the
    /// bursts the chart draws, one mark each; only the bursts when the chart is one of several
    /// captures (the client's packet count spans them all).
    static func queryCount(_ c: Client, bursts: Int, whole: Bool) -> String {
        guard whole else { return Wording.count(bursts, "query burst") }
        let queries = Wording.count(c.queries, "query", "queries")
        return bursts == c.queries ? queries : queries + " in " + Wording.count(bursts, "burst")
    }

    /// Nice tick spacing (1, 2 or 5 × 10ⁿ) giving at most `count` intervals over `span`.
    static func tickStep(_ span: Double, count: Double = 10) -> (step: Double, decimals: Int) {
        var decade = 0.0001
        var decimals = 4
        while true {
            for m in [1.0, 2.0, 5.0] where span / (decade * m) <= count { return (decade * m, Swift.max(0, decimals)) }
            decade *= 10
            decimals -= 1
        }
    }

    static func timelineSVG(_ r: AnalysisReport, _ w: Window, client: Client?) -> String {
        let e = HTMLText.escape
        let c = HTMLFormat.c
        func rel(_ t: Timestamp) -> String { HTMLFormat.relative(t, w.start) }
        let names = AnalysisTables.devicesByID(r)
        func name(_ id: String) -> String { names[id].map(AnalysisTables.deviceName) ?? id }

        let queries = r.queries.filter {
            $0.client == client?.address && w.captures.contains($0.frame.capture)
        }.sorted { $0.time < $1.time }
        let others = r.queries.filter { $0.client != client?.address && w.captures.contains($0.frame.capture) }

        // Rows: the devices this client's queries involved, then the others seen in the window.
        var involved: Set<String> = []
        for q in queries { involved.formUnion(q.answered.map(\.deviceID) + q.missed + q.suppressed) }
        var ids = r.devices.map(\.id).filter { involved.contains($0) }
        ids += involved.subtracting(ids).sorted()
        for d in r.devices where !involved.contains(d.id) && d.firstSeen <= w.end && (d.leftAt ?? d.lastSeen) >= w.start
        {
            ids.append(d.id)
        }
        let hidden = Swift.max(0, ids.count - maximumDeviceRows)
        ids = Array(ids.prefix(maximumDeviceRows))
        let gutter = HTMLChartLabels.gutter(ids.map(name), minimum: Self.gutter)
        let plot = width - gutter - rightPad
        func x(_ t: Timestamp) -> Double {
            gutter + Swift.min(Swift.max(t.seconds(since: w.start) / w.seconds, 0), 1) * plot
        }

        let axisY = 30.0
        let queryTop = axisY + 6
        let queryHeight = 26.0
        let rowsTop = queryTop + queryHeight + 4
        let rowsBottom = rowsTop + Double(Swift.max(ids.count, 1)) * rowHeight
        let height = rowsBottom + (hidden > 0 ? 26 : 8)

        var out = "<svg role=\"img\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        out += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" aria-label=\""
        out += e("Timeline of " + (client.map { "client \($0.address)" } ?? "the devices")) + "\">\n"

        // Row bands and labels.
        out += "<rect x=\"\(c(gutter))\" y=\"\(c(queryTop))\" width=\"\(c(plot))\" height=\"\(c(queryHeight))\" "
        out += "fill=\"#eef4fb\" />\n"
        out += "<text class=\"label\" x=\"\(c(gutter - 10))\" y=\"\(c(queryTop + 17))\" text-anchor=\"end\" "
        out += "font-weight=\"600\">"
        out += client == nil ? "No queries" : "Queries"
        out += "</text>\n"
        for (i, id) in ids.enumerated() {
            let y = rowsTop + Double(i) * rowHeight
            if i % 2 == 0 {
                out += "<rect x=\"\(c(gutter))\" y=\"\(c(y))\" width=\"\(c(plot))\" height=\"\(c(rowHeight))\" "
                out += "fill=\"#f6f8fa\" />\n"
            }
            var tip = name(id)
            if tip != id { tip += " (id \(id))" }
            if let d = names[id], !d.addresses.isEmpty {
                tip += ", " + d.addresses.map(\.description).joined(separator: ", ")
            }
            out += "<text class=\"label\" x=\"\(c(gutter - 10))\" y=\"\(c(y + 15))\" text-anchor=\"end\">"
            out += "<title>\(e(tip))</title>\(HTMLChartLabels.text(name(id), gutter: gutter))</text>\n"
        }
        if ids.isEmpty {
            out += "<text class=\"note\" x=\"\(c(gutter + 8))\" y=\"\(c(rowsTop + 15))\">No device answered or "
            out += "appeared in this capture.</text>\n"
        }

        // Time axis with ticks and grid lines.
        let (step, decimals) = tickStep(w.seconds)
        out += "<g class=\"axis\">\n"
        out +=
            "<text x=\"\(c(gutter - 22))\" y=\"\(c(axisY - 10))\" text-anchor=\"end\">seconds from capture start</text>\n"
        var t = 0.0
        while t <= w.seconds * (1 + 1e-9) {
            let tx = gutter + t / w.seconds * plot
            out += "<line x1=\"\(c(tx))\" y1=\"\(c(axisY - 4))\" x2=\"\(c(tx))\" y2=\"\(c(rowsBottom))\" "
            out += "stroke=\"#dfe3e8\" stroke-width=\"1\" />\n"
            out += "<text x=\"\(c(tx))\" y=\"\(c(axisY - 10))\" text-anchor=\"middle\">"
            out += HTMLFormat.fixed(t, decimals) + "</text>\n"
            t += step
        }
        out += "<line x1=\"\(c(gutter))\" y1=\"\(c(axisY))\" x2=\"\(c(gutter + plot))\" y2=\"\(c(axisY))\" "
        out += "stroke=\"#8a949e\" stroke-width=\"1\" />\n</g>\n"

        // Device presence: seen band, first seen, goodbye. A device's first and last times span
        // every capture; in one of several separate timelines, the band is cut to what this
        // capture shows (its answers here).
        var answerTimes: [String: [Timestamp]] = [:]
        for q in queries + others {
            for a in q.answered { answerTimes[a.deviceID, default: []].append(answerTime(q, a)) }
        }
        for (i, id) in ids.enumerated() {
            guard let d = names[id] else { continue }
            let mid = rowsTop + Double(i) * rowHeight + rowHeight / 2
            let last = d.leftAt ?? d.lastSeen
            let here = answerTimes[id] ?? []
            if d.firstSeen <= w.end, last >= w.start {
                let from = w.contains(d.firstSeen) ? d.firstSeen : (here.min() ?? w.start)
                let to = w.contains(last) ? last : (here.max() ?? w.end)
                let x1 = x(from)
                let x2 = Swift.max(x(to), x1 + 2)
                out += "<rect x=\"\(c(x1))\" y=\"\(c(mid - 3))\" width=\"\(c(x2 - x1))\" height=\"6\" rx=\"3\" "
                out += "fill=\"#d5dce3\"><title>\(e(name(id))): seen \(rel(from)) to \(rel(to))</title></rect>\n"
            }
            if w.contains(d.firstSeen) {
                out += "<circle cx=\"\(c(x(d.firstSeen)))\" cy=\"\(c(mid))\" r=\"4\" fill=\"#fff\" "
                out += "stroke=\"#607d8b\" stroke-width=\"1.5\"><title>\(e(name(id))): first seen \(rel(d.firstSeen))"
                if d.firstFrame.capture < r.captures.count, w.captures.contains(d.firstFrame.capture) {
                    out += ", frame #\(d.firstFrame.frame)"
                }
                out += "</title></circle>\n"
            }
            if let left = d.leftAt, w.contains(left) {
                let lx = x(left)
                out += "<path d=\"M\(c(lx - 4)) \(c(mid - 4))L\(c(lx + 4)) \(c(mid + 4))M\(c(lx - 4)) \(c(mid + 4))"
                out += "L\(c(lx + 4)) \(c(mid - 4))\" stroke=\"\(red)\" stroke-width=\"2.2\" fill=\"none\">"
                out += "<title>\(e(name(id))): goodbye (TTL 0) \(rel(left))"
                if let f = d.leftFrame { out += ", frame #\(f.frame)" }
                out += "</title></path>\n"
            }
        }

        // Answers to other clients: small grey dots.
        let row = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        func mid(_ id: String) -> Double? {
            row[id].map { rowsTop + Double($0) * rowHeight + rowHeight / 2 }
        }
        var otherMarks = 0
        for q in others {
            for a in q.answered {
                guard let y = mid(a.deviceID), otherMarks < 2000 else { continue }
                otherMarks += 1
                let at = answerTime(q, a)
                out += "<circle cx=\"\(c(x(at)))\" cy=\"\(c(y))\" r=\"2.5\" fill=\"\(grey)\"><title>"
                out += e(
                    "\(name(a.deviceID)) answered another client, \(q.client), \(rel(at)), frame #\(a.frame.frame)")
                out += "</title></circle>\n"
            }
        }

        // This client's queries: guides, marks, and what each device did.
        var labelEnds: [String: Double] = [:]
        for q in queries {
            let qx = x(q.time)
            let colour = !q.answered.isEmpty ? blue : (q.missed.isEmpty && !q.suppressed.isEmpty ? grey : red)
            let names = q.names.joined(separator: ", ")
            out += "<line x1=\"\(c(qx))\" y1=\"\(c(queryTop + queryHeight))\" x2=\"\(c(qx))\" y2=\"\(c(rowsBottom))\" "
            out += "stroke=\"\(colour)\" stroke-opacity=\"0.45\" stroke-width=\"1\" stroke-dasharray=\"2 3\" />\n"
            out += "<rect x=\"\(c(qx - 1.5))\" y=\"\(c(queryTop + 4))\" width=\"3\" height=\"\(c(queryHeight - 8))\" "
            out += "fill=\"\(colour)\"><title>"
            var tip = "Query \(rel(q.time)), frame #\(q.frame.frame): \(names). "
            tip +=
                "\(q.answered.count) answered, \(q.suppressed.count) withheld (known answer), \(q.missed.count) missed"
            out += e(tip) + "</title></rect>\n"
            for id in q.suppressed {
                guard let y = mid(id) else { continue }
                out += "<line x1=\"\(c(qx - 5))\" y1=\"\(c(y))\" x2=\"\(c(qx + 5))\" y2=\"\(c(y))\" stroke=\"\(grey)\" "
                out += "stroke-width=\"2.5\"><title>"
                out += e(
                    "\(name(id)) withheld its answer to the query at \(rel(q.time)): the client listed it as known")
                out += "</title></line>\n"
            }
            for id in q.missed {
                guard let y = mid(id) else { continue }
                out += "<rect x=\"\(c(qx - 4))\" y=\"\(c(y - 4))\" width=\"8\" height=\"8\" fill=\"#fff\" "
                out += "stroke=\"\(red)\" stroke-width=\"2\"><title>"
                out += e("\(name(id)) did not answer the query at \(rel(q.time)) (frame #\(q.frame.frame))")
                out += "</title></rect>\n"
            }
            for a in q.answered {
                guard let y = mid(a.deviceID) else { continue }
                let ax = x(answerTime(q, a))
                let delay = HTMLFormat.milliseconds(a.delayMs)
                out += "<circle cx=\"\(c(ax))\" cy=\"\(c(y))\" r=\"4.5\" fill=\"\(green)\"><title>"
                out += e(
                    "\(name(a.deviceID)) answered the query at \(rel(q.time)) after \(delay), frame #\(a.frame.frame)")
                out += "</title></circle>\n"
                let labelStart = ax + 7
                let labelWidth = Double(delay.count) * 5.4
                if labelStart >= (labelEnds[a.deviceID] ?? 0) + 4, labelStart + labelWidth <= width {
                    out += "<text class=\"delay\" x=\"\(c(labelStart))\" y=\"\(c(y - 4))\">\(delay)</text>\n"
                    labelEnds[a.deviceID] = labelStart + labelWidth
                }
            }
        }
        if let client {
            out += HTMLConnections.timelineMarks(
                r, client: client.address, window: w, x: x, row: { mid($0) }, relative: rel)
        }
        if let client, let dial = client.firstDialSearch, w.contains(dial) {
            let dx = x(dial)
            let my = queryTop + queryHeight / 2
            out +=
                "<path d=\"M\(c(dx)) \(c(my - 6))L\(c(dx + 6)) \(c(my))L\(c(dx)) \(c(my + 6))L\(c(dx - 6)) \(c(my))Z\" "
            out += "fill=\"#6a1b9a\"><title>First DIAL (SSDP) M-SEARCH \(rel(dial)); "
            out += "\(client.dialSearches) in all</title></path>\n"
        }

        if hidden > 0 {
            out += "<text class=\"note\" x=\"\(c(gutter + 8))\" y=\"\(c(rowsBottom + 18))\">+ \(hidden) more "
            out += "\(Wording.noun(hidden, "device")) not drawn (see the devices table)</text>\n"
        }
        return out + "</svg>\n"
    }

    /// When an answer reached the client: the query's time plus the delay.
    static func answerTime(_ q: QueryOutcome, _ a: QueryOutcome.Answer) -> Timestamp {
        Timestamp(seconds: q.time.seconds, nanoseconds: Int64(q.time.nanoseconds) + Int64((a.delayMs * 1e6).rounded()))
    }

    /// The timeline's legend: query marks on the first line, device marks on the second.
    static func legend(y: Double) -> String {
        let c = HTMLFormat.c
        var out = "<g class=\"legend\">\n"
        var lx = gutter
        var ly = y
        func item(_ mark: (Double, Double) -> String, _ label: String) {
            out += mark(lx, ly) + "<text class=\"muted\" x=\"\(c(lx + 10))\" y=\"\(c(ly + 4))\">\(label)</text>\n"
            lx += 10 + Double(label.count) * 6 + 24
        }
        func bar(_ colour: String) -> (Double, Double) -> String {
            { x, y in "<rect x=\"\(c(x - 1.5))\" y=\"\(c(y - 6))\" width=\"3\" height=\"12\" fill=\"\(colour)\" />" }
        }
        item(bar(blue), "query, answered")
        item(bar(grey), "query, every answer withheld")
        item(bar(red), "query, no answer")
        item(
            { x, y in
                "<path d=\"M\(c(x)) \(c(y - 6))L\(c(x + 6)) \(c(y))L\(c(x)) \(c(y + 6))L\(c(x - 6)) \(c(y))Z\" fill=\"#6a1b9a\" />"
            }, "DIAL search")
        lx = gutter
        ly += 18
        item({ x, y in "<circle cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"4.5\" fill=\"\(green)\" />" }, "answer (delay)")
        item(
            { x, y in
                "<rect x=\"\(c(x - 4))\" y=\"\(c(y - 4))\" width=\"8\" height=\"8\" fill=\"#fff\" stroke=\"\(red)\" "
                    + "stroke-width=\"2\" />"
            }, "missed")
        item(
            { x, y in
                "<line x1=\"\(c(x - 5))\" y1=\"\(c(y))\" x2=\"\(c(x + 5))\" y2=\"\(c(y))\" stroke=\"\(grey)\" "
                    + "stroke-width=\"2.5\" />"
            }, "withheld (known answer)")
        item(
            { x, y in "<circle cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"2.5\" fill=\"\(grey)\" />" },
            "answer to another client")
        item(
            { x, y in
                "<circle cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"4\" fill=\"#fff\" stroke=\"#607d8b\" stroke-width=\"1.5\" />"
            }, "first seen")
        item(
            { x, y in
                "<path d=\"M\(c(x - 4)) \(c(y - 4))L\(c(x + 4)) \(c(y + 4))M\(c(x - 4)) \(c(y + 4))L\(c(x + 4)) "
                    + "\(c(y - 4))\" stroke=\"\(red)\" stroke-width=\"2.2\" />"
            }, "goodbye")
        lx = gutter
        ly += 18
        item(
            { x, y in
                "<path d=\"M\(c(x - 5)) \(c(y + 4))L\(c(x)) \(c(y - 4))L\(c(x + 5)) \(c(y + 4))Z\" fill=\"\(green)\" />"
            }, "connection (red: failed)")
        return out + "</g>\n"
    }

    // MARK: - Latency

    static func latencySection(_ report: AnalysisReport) -> String {
        // The chart and table are per mDNS session; DIAL rows are in the DIAL section.
        var r = report
        r.latency = report.latency.filter { $0.via == .mdns }
        let e = HTMLText.escape
        var out = "<section id=\"latency\">\n<h2>Discovery latency</h2>\n"
        out += "<p class=\"explain\">For each discovery session of each client and each device: from the "
        out += "session’s first query to the device’s first answer the client could receive (●), and to the "
        out += "moment its SRV, TXT and address records had all arrived (◇). Logarithmic scale. RFC 6762 has "
        out += "responders answer shared records within 20–120 ms; the dashed line marks 500 ms.</p>\n"
        if r.latency.isEmpty {
            out += "<p class=\"none\">No latency measured: no device answered a client’s discovery session.</p>\n"
        } else {
            out += "<figure>" + latencySVG(r) + "</figure>\n"
        }

        let (rows, notes) = AnalysisTables.latencyRows(r)
        if !rows.isEmpty {
            out += "<h3>Per session</h3>\n"
            out += HTMLReport.table(
                ["Client", "Device", "Session start (UTC)", "First answer, ms", "Resolved, ms"],
                rows.map { $0.map(e) }, numeric: [3, 4], caption: nil)
            if !notes.isEmpty {
                out += "<ol class=\"explain\">"
                for n in notes { out += "<li>\(e(n))</li>" }
                out += "</ol>\n"
            }
        }
        if !r.responses.isEmpty {
            out += "<h3>Answers to queries</h3>\n"
            out += "<p class=\"explain\">Queries each device was expected to answer, and what it did: answered, "
            out += "withheld by known-answer suppression, or missed.</p>\n"
            out += HTMLReport.table(
                AnalysisTables.responseHeader, AnalysisTables.responseRows(r).map { $0.map(e) },
                numeric: [2, 3, 4, 5], caption: nil)
        }
        return out + "</section>\n"
    }

    static func latencySVG(_ r: AnalysisReport) -> String {
        let e = HTMLText.escape
        let c = HTMLFormat.c
        let names = AnalysisTables.devicesByID(r)
        func name(_ id: String) -> String { names[id].map(AnalysisTables.deviceName) ?? id }

        var ids = r.devices.map(\.id).filter { id in r.latency.contains { $0.deviceID == id } }
        for l in r.latency where !ids.contains(l.deviceID) { ids.append(l.deviceID) }
        let hidden = Swift.max(0, ids.count - maximumLatencyRows)
        ids = Array(ids.prefix(maximumLatencyRows))

        let values = r.latency.flatMap { [$0.firstAnswerMs, $0.resolvedMs].compactMap { $0 } }.filter { $0 > 0 }
        var lo = 0.1
        var hi = 1000.0
        if let minimum = values.min(), let maximum = values.max() {
            lo = Swift.max(0.01, pow(10, floor(log10(minimum))))
            lo = Swift.min(lo, 0.1)
            hi = Swift.max(1000, pow(10, ceil(log10(maximum))))
        }
        let labelRight = 250.0
        let gutter = HTMLChartLabels.gutter(ids.map(name), minimum: Self.gutter)
        let plot = width - gutter - labelRight
        func x(_ ms: Double) -> Double {
            let v = Swift.min(Swift.max(ms, lo), hi)
            return gutter + (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * plot
        }
        let axisY = 30.0
        let rowsTop = axisY + 6
        let rowH = 24.0
        let rowsBottom = rowsTop + Double(ids.count) * rowH
        let height = rowsBottom + (hidden > 0 ? 58 : 40)

        var out = "<svg role=\"img\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        out += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" aria-label=\"Discovery latency per device\">\n"
        for i in ids.indices where i % 2 == 0 {
            out += "<rect x=\"\(c(gutter))\" y=\"\(c(rowsTop + Double(i) * rowH))\" width=\"\(c(plot))\" "
            out += "height=\"\(c(rowH))\" fill=\"#f6f8fa\" />\n"
        }
        // Axis: decades labelled, 2–9 as minor grid lines.
        out += "<g class=\"axis\">\n"
        var decade = lo
        while decade <= hi * 1.000001 {
            let dx = x(decade)
            out += "<line x1=\"\(c(dx))\" y1=\"\(c(axisY - 4))\" x2=\"\(c(dx))\" y2=\"\(c(rowsBottom))\" "
            out += "stroke=\"#cfd6dd\" stroke-width=\"1\" />\n"
            out += "<text x=\"\(c(dx))\" y=\"\(c(axisY - 10))\" text-anchor=\"middle\">\(msLabel(decade))</text>\n"
            if decade < hi * 0.999 {
                for m in 2...9 {
                    let mx = x(decade * Double(m))
                    out += "<line x1=\"\(c(mx))\" y1=\"\(c(axisY))\" x2=\"\(c(mx))\" y2=\"\(c(rowsBottom))\" "
                    out += "stroke=\"#eceff2\" stroke-width=\"1\" />\n"
                }
            }
            decade *= 10
        }
        out += "<line x1=\"\(c(gutter))\" y1=\"\(c(axisY))\" x2=\"\(c(gutter + plot))\" y2=\"\(c(axisY))\" "
        out += "stroke=\"#8a949e\" stroke-width=\"1\" />\n"
        out += "<text x=\"\(c(gutter - 24))\" y=\"\(c(axisY - 10))\" text-anchor=\"end\">from session start</text>\n"
        out += "<text x=\"\(c(gutter + plot + 28))\" y=\"\(c(axisY - 10))\">median: first answer / resolved</text>\n"
        out += "</g>\n"
        let limit = x(500)
        out += "<line x1=\"\(c(limit))\" y1=\"\(c(axisY))\" x2=\"\(c(limit))\" y2=\"\(c(rowsBottom))\" "
        out += "stroke=\"\(orange)\" stroke-width=\"1.2\" stroke-dasharray=\"5 4\"><title>500 ms</title></line>\n"

        for (i, id) in ids.enumerated() {
            let y = rowsTop + Double(i) * rowH + rowH / 2
            let rows = r.latency.filter { $0.deviceID == id }
            out += "<text class=\"label\" x=\"\(c(gutter - 10))\" y=\"\(c(y + 4))\" text-anchor=\"end\">"
            out += "<title>\(e(name(id) == id ? id : "\(name(id)) (id \(id))"))</title>"
            out += HTMLChartLabels.text(name(id), gutter: gutter) + "</text>\n"
            for l in rows.prefix(500) {
                let session =
                    "client \(l.client), session \(HTMLFormat.relative(l.sessionStart, origin(r, l.sessionStart).start))"
                if let v = l.resolvedMs {
                    let dx = x(v)
                    out +=
                        "<path d=\"M\(c(dx)) \(c(y - 7))L\(c(dx + 7)) \(c(y))L\(c(dx)) \(c(y + 7))L\(c(dx - 7)) \(c(y))Z\" "
                    out += "fill=\"none\" stroke=\"\(orange)\" stroke-width=\"1.8\"><title>"
                    out += e("\(name(id)), \(session): resolved after \(HTMLFormat.milliseconds(v))")
                    if let f = l.resolvedFrame { out += ", frame #\(f.frame)" }
                    out += "</title></path>\n"
                }
                if let v = l.firstAnswerMs {
                    out +=
                        "<circle cx=\"\(c(x(v)))\" cy=\"\(c(y))\" r=\"4.5\" fill=\"\(blue)\" fill-opacity=\"0.8\"><title>"
                    out += e("\(name(id)), \(session): first answer after \(HTMLFormat.milliseconds(v))")
                    if let f = l.firstAnswerFrame { out += ", frame #\(f.frame)" }
                    out += "</title></circle>\n"
                }
            }
            let summary = r.summaries.first { $0.deviceID == id }
            var label = (summary?.firstAnswer).map { HTMLFormat.milliseconds($0.p50) } ?? "–"
            label += " / " + ((summary?.resolved).map { HTMLFormat.milliseconds($0.p50) } ?? "–")
            label += rows.count > 1 ? " (n=\(rows.count))" : ""
            out += "<text x=\"\(c(gutter + plot + 12))\" y=\"\(c(y + 4))\">\(e(label))"
            let missing = rows.filter { $0.firstAnswerMs == nil }.count
            if missing > 0 {
                let reasons = Set(rows.compactMap(\.firstAnswerMissing)).sorted().joined(separator: "; ")
                out += "<tspan fill=\"\(red)\" font-weight=\"600\"> · \(missing) no answer<title>\(e(reasons))</title>"
                out += "</tspan>"
            }
            out += "</text>\n"
        }
        var ly = rowsBottom + 22
        if hidden > 0 {
            out += "<text class=\"note\" x=\"\(c(gutter + 8))\" y=\"\(c(ly))\">+ \(hidden) more "
            out += "\(Wording.noun(hidden, "device")) not drawn (see the table below)</text>\n"
            ly += 18
        }
        out += "<circle cx=\"\(c(gutter + 4))\" cy=\"\(c(ly - 4))\" r=\"4.5\" fill=\"\(blue)\" />"
        out += "<text class=\"muted\" x=\"\(c(gutter + 14))\" y=\"\(c(ly))\">first answer</text>\n"
        out += "<path d=\"M\(c(gutter + 110)) \(c(ly - 11))L\(c(gutter + 117)) \(c(ly - 4))L\(c(gutter + 110)) "
        out +=
            "\(c(ly + 3))L\(c(gutter + 103)) \(c(ly - 4))Z\" fill=\"none\" stroke=\"\(orange)\" stroke-width=\"1.8\" />"
        out += "<text class=\"muted\" x=\"\(c(gutter + 124))\" y=\"\(c(ly))\">resolved (SRV + TXT + address)</text>\n"
        out += "<line x1=\"\(c(gutter + 330))\" y1=\"\(c(ly - 10))\" x2=\"\(c(gutter + 330))\" y2=\"\(c(ly + 2))\" "
        out += "stroke=\"\(orange)\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\" />"
        out += "<text class=\"muted\" x=\"\(c(gutter + 338))\" y=\"\(c(ly))\">500 ms</text>\n"
        return out + "</svg>\n"
    }

    /// `0.1 ms`, `10 ms`, `1 s`.
    static func msLabel(_ ms: Double) -> String {
        if ms >= 1000 { return HTMLFormat.fixed(ms / 1000, 0) + " s" }
        if ms >= 1 { return HTMLFormat.fixed(ms, 0) + " ms" }
        return HTMLFormat.fixed(ms, ms >= 0.1 ? 1 : 2) + " ms"
    }
}
