import CastDiscovery
import PcapCapture
import Pipeline
import Reports
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope live`: capture on interfaces, print discovery events as they happen, then the
/// full analysis.
enum LiveCommand {
    enum Format: String, CaseIterable {
        case text, jsonl
    }

    struct Options {
        var interfaces: [String] = []
        var listInterfaces = false
        var format = Format.text
        var durationSeconds: Double?
        var count: Int?
        var write: String?
        var filter: String?
        var live = LiveOptions()
        var user = "nobody"
        var analysis = AnalysisOptions()
        var failOn: Severity?
        /// `--color`: whether the text analysis at the end is coloured.
        var color = ColorChoice.auto
        /// `--metrics`, `--metrics-window`, `--metrics-forget` (nil: not given).
        var metrics: MetricsEndpoint?
        var metricsWindowSeconds: Double?
        var metricsForgetSeconds: Double?
        /// Whether `--buffer-size` was given (else --metrics takes a larger default).
        var bufferSizeGiven = false
    }

    /// The kernel buffer with `--metrics`: in immediate mode each frame takes a 9472-byte slot,
    /// so 4 MiB holds about 440 frames, and a window's report holds the loop for tens of
    /// milliseconds (up to 200 ms in the soak test, at 3,400 frames a second).
    static let metricsBufferSize: Int32 = 16 << 20

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        if o.listInterfaces { return listInterfaces() }
        var session = LiveSession.Options()
        session.interfaces = o.interfaces
        session.durationSeconds = o.durationSeconds
        session.count = o.count
        session.write = o.write
        session.filter = o.filter
        session.live = o.live
        session.user = o.user
        session.analysis = o.analysis
        session.metrics = o.metrics
        if o.metrics != nil, !o.bufferSizeGiven { session.live.bufferSize = LiveCommand.metricsBufferSize }
        if let s = o.metricsWindowSeconds { session.metricsWindowSeconds = s }
        if let s = o.metricsForgetSeconds { session.metricsForgetSeconds = s }
        switch LiveSession.open(session, notices: printNotice) {
        case .success(let live): return capture(live, options: o)
        case .failure(let e): return e.status
        }
    }

    /// Runs the session, printing its events as they happen, then the stop line and the
    /// analysis.
    static func capture(_ session: LiveSession, options o: Options) -> ExitStatus {
        let out = Output.standardOutput
        let captures = session.captures
        if o.format == .jsonl {
            var w = JSONWriter()
            w.beginObject()
            w.string("started", "event")
            w.string(TimeFormat.rfc3339Micro(LiveSession.now()), "time")
            w.beginArray("interfaces")
            for c in captures {
                w.beginObject()
                w.string(c.interface, "name")
                w.string(c.linkTypeName, "linkType")
                w.endObject()
            }
            w.endArray()
            w.string(session.filterDescription, "filter")
            w.string(session.metricsServer.map { "http://\($0.endpoint)/metrics" }, "metrics")
            w.endObject()
            out.write(w.output + "\n")
        } else {
            out.write(
                "castscope live on \(captures.map { "\($0.interface) (\($0.linkTypeName))" }.joined(separator: ", ")); "
                    + "Ctrl-C stops and prints the analysis\n"
                    + (session.metricsServer.map {
                        "metrics at http://\($0.endpoint)/metrics (window \(Wording.duration(milliseconds: session.options.metricsWindowSeconds * 1000)))\n"
                    } ?? ""))
        }
        out.flush()

        let outcome = session.run(
            events: { events in
                for e in events {
                    out.write((o.format == .jsonl ? LiveEvents.json(e) : LiveEvents.text(e)) + "\n")
                }
                out.flush()
            },
            exposition: { MetricsExposition.render($0, version: version) })
        if let error = outcome.error { printError(error) }
        let report = outcome.report
        if o.format == .jsonl {
            var w = JSONWriter()
            w.beginObject()
            w.string("stopped", "event")
            w.string(TimeFormat.rfc3339Micro(LiveSession.now()), "time")
            w.string(outcome.reason.rawValue, "reason")
            w.int(outcome.frames, "packets")
            w.int(outcome.discoveryPackets, "discoveryPackets")
            w.int(outcome.dropped, "dropped")
            w.int(outcome.interfaceDropped, "interfaceDropped")
            w.string(o.write, "written")
            w.endObject()
            out.write(w.output + "\n")
            out.write("{\"event\":\"analysis\",\"analysis\":" + AnalysisJSON.compact(report) + "}\n")
        } else {
            out.write(
                "\nstopped (\(outcome.reason.rawValue)): \(outcome.frames) packets captured, "
                    + "\(outcome.discoveryPackets) discovery, \(outcome.dropped) dropped by the kernel, "
                    + "\(outcome.interfaceDropped) by the interface" + (o.write.map { "; written to \($0)" } ?? "")
                    + "\n\n")
            out.write(
                AnalysisText.render(
                    report, style: TextStyle(colored: o.color.enabled(writingTo: nil)), width: .forOutput(nil)))
        }
        out.flush()
        if outcome.reason == .error { return .ioError }
        return FailOn.status(.success, findings: report.findings, threshold: o.failOn)
    }

    static func listInterfaces() -> ExitStatus {
        let all: [CaptureInterface]
        switch LiveSession.interfaces(notices: printNotice) {
        case .success(let list): all = list
        case .failure(let e): return e.status
        }
        let out = Output.standardOutput
        for i in all {
            var flags: [String] = []
            flags.append(i.isUp ? "up" : "down")
            if i.isRunning { flags.append("running") }
            if i.isLoopback { flags.append("loopback") }
            var line = "\(i.name)  [\(flags.joined(separator: ", "))]"
            if !i.addresses.isEmpty { line += "  " + i.addresses.joined(separator: " ") }
            if let d = i.description { line += "  (\(d))" }
            out.write(TerminalText.sanitize(line) + "\n")
        }
        return .success
    }
}
