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
    enum Format: String {
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
    }

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = Options()
        var i = 0
        while i < arguments.count {
            var a = arguments[i]
            i += 1
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                inline = String(a[a.index(after: eq)...])
                a = String(a[..<eq])
            }
            func value() -> String? {
                if let inline { return inline }
                guard i < arguments.count else { return nil }
                defer { i += 1 }
                return arguments[i]
            }
            func need(_ v: String?) -> Result<String, UsageError> {
                v.map { .success($0) } ?? .failure(UsageError(message: "\(a) needs a value"))
            }
            switch a {
            case "-h", "--help":
                return .failure(UsageError(message: nil))
            case "--list-interfaces", "-D":
                o.listInterfaces = true
            case "--promisc":
                o.live.promiscuous = true
            case "-i", "--interface", "--format", "-f", "--duration", "--count", "-c", "--write", "-w", "--filter",
                "--buffer-size", "--user", "-Z", "--session-gap", "--client", "--fail-on":
                let v: String
                switch need(value()) {
                case .failure(let e): return .failure(e)
                case .success(let s): v = s
                }
                switch a {
                case "-i", "--interface": o.interfaces.append(v)
                case "--format", "-f":
                    guard let f = Format(rawValue: v) else {
                        return .failure(UsageError(message: "unknown format '\(v)': use text or jsonl"))
                    }
                    o.format = f
                case "--duration":
                    guard let s = Double(v), s > 0 else {
                        return .failure(UsageError(message: "--duration needs a positive number of seconds"))
                    }
                    o.durationSeconds = s
                case "--count", "-c":
                    guard let n = Int(v), n > 0 else {
                        return .failure(UsageError(message: "--count needs a positive number of packets"))
                    }
                    o.count = n
                case "--write", "-w": o.write = v
                case "--filter": o.filter = v
                case "--buffer-size":
                    guard let n = Int32(v), n >= 65536 else {
                        return .failure(UsageError(message: "--buffer-size needs a number of bytes ≥ 65536"))
                    }
                    o.live.bufferSize = n
                case "--user", "-Z": o.user = v
                case "--session-gap":
                    guard let s = Double(v), s > 0, s < 1e9 else {
                        return .failure(UsageError(message: "--session-gap needs a positive number of seconds"))
                    }
                    o.analysis.sessionGapNanoseconds = Int64(s * 1e9)
                case "--client":
                    guard let address = IPAddress(v) else {
                        return .failure(UsageError(message: "--client needs an IPv4 or IPv6 address, not '\(v)'"))
                    }
                    o.analysis.clients.insert(address)
                default:
                    switch FailOn.parse(v) {
                    case .success(let s): o.failOn = s
                    case .failure(let e): return .failure(e)
                    }
                }
            default:
                return .failure(UsageError(message: "unknown option or argument '\(a)'"))
            }
        }
        if !o.listInterfaces, o.interfaces.isEmpty {
            return .failure(UsageError(message: "name an interface with -i (see --list-interfaces)"))
        }
        return .success(o)
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch parse(arguments).orUsage(command: "live", usage: liveUsage) {
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
            w.endObject()
            out.write(w.output + "\n")
        } else {
            out.write(
                "castscope live on \(captures.map { "\($0.interface) (\($0.linkTypeName))" }.joined(separator: ", ")); "
                    + "Ctrl-C stops and prints the analysis\n")
        }
        out.flush()

        let outcome = session.run { events in
            for e in events {
                out.write((o.format == .jsonl ? LiveEvents.json(e) : LiveEvents.text(e)) + "\n")
            }
            out.flush()
        }
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
            out.write(AnalysisText.render(report))
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

let liveUsage = """
    USAGE: castscope live -i IFACE [-i IFACE]... [--format text|jsonl] [--duration S] [--count N]
                          [--write FILE.pcap] [--filter EXPR] [--promisc] [--buffer-size BYTES]
                          [--user NAME] [--session-gap S] [--client ADDR]... [--fail-on warning|error]
           castscope live --list-interfaces

    Captures Cast discovery on live interfaces (like `tcpdump -i` that understands Cast), prints
    events as they happen (a client starts a discovery session; a device appears, changes,
    leaves or expires; a query goes unanswered), and when it stops (--duration, --count,
    Ctrl-C or SIGTERM) prints the same analysis and findings as `castscope analyze`.

    OPTIONS:
      -i, --interface IFACE  Interface to capture on (repeatable; `any` for all on Linux).
      --list-interfaces      List interfaces with their addresses and state, and exit.
      --format text|jsonl    Events as text lines (default) or JSON lines (then the analysis as
                             a last {"event":"analysis"} line).
      --duration S           Stop after S seconds.   --count N   Stop after N packets.
      --write FILE.pcap      Keep the captured packets (frame numbers match the events); flushed
                             continuously and on exit, so nothing is lost on a signal.
      --filter EXPR          A BPF expression that narrows the discovery filter further.
      --promisc              Promiscuous mode (off by default).
      --buffer-size BYTES    Kernel capture buffer (default 4 MiB).
      --user NAME            SECURITY: after the interfaces and the output file are open, root
                             privileges are dropped to NAME (default nobody) with setgroups,
                             setgid and setuid, and the drop is verified, like tcpdump -Z.
                             --user root keeps root.
      --session-gap S, --client ADDR, --fail-on warning|error   As for analyze.

    Capturing needs root, or the CAP_NET_RAW and CAP_NET_ADMIN capabilities. The kernel filter
    keeps UDP 5353 and 1900, unicast SSDP answers from any port, and IP fragments.

    EXIT STATUS: 0 stopped normally (1 with --fail-on), 64 usage or bad filter, 65 unsupported
    link type, 66 no such interface, 69 interface down, 73 cannot create the output file,
    74 capture error, 77 not permitted.
    """
