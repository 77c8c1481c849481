import CastDiscovery
import PcapCapture
import Reports
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Set by SIGINT/SIGTERM; read by the capture loop. Allocated before the handlers are
/// installed, so the handler only stores through an existing pointer (async-signal-safe).
nonisolated(unsafe) let liveStopSignal: UnsafeMutablePointer<Int32> = {
    let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    p.pointee = 0
    return p
}()

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

    /// The kernel filter: discovery ports, unicast SSDP answers from any port (their UDP
    /// payload starts with "HTTP"), and IP fragments (which carry no UDP header).
    static let kernelFilter =
        "udp port 5353 or udp port 1900 or (ip and udp and udp[8:4] = 0x48545450) "
        + "or (ip6 and ip6[6] = 17 and ip6[48:4] = 0x48545450) or (ip and ip[6:2] & 0x1fff != 0) "
        + "or (ip6 and ip6[6] = 44)"

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

        // Open every interface first: errors before anything is printed.
        var captures: [LiveCapture] = []
        for name in o.interfaces {
            do throws(PcapError) {
                let c = try LiveCapture(interface: name, options: o.live)
                guard c.linkType.isSupported else {
                    printError(
                        "\(name): link type \(c.linkTypeName) carries nothing castscope can decode (Ethernet, "
                            + "Linux cooked, raw IP, loopback, PKTAP and 802.11 are supported)")
                    return .dataError
                }
                let expression = o.filter.map { "(\(kernelFilter)) and (\($0))" } ?? kernelFilter
                do throws(PcapError) {
                    try c.setFilter(expression)
                } catch {
                    printError("bad --filter: \(error.message)")
                    return .usage
                }
                captures.append(c)
            } catch {
                return openFailure(error, interface: name)
            }
        }
        let linkTypes = Set(captures.map(\.linkType))
        var writer: CaptureWriter?
        if let path = o.write {
            guard linkTypes.count == 1 else {
                printError(
                    "--write needs interfaces of one link type (these have "
                        + captures.map { "\($0.interface): \($0.linkTypeName)" }.joined(separator: ", ")
                        + "); capture on -i any instead")
                return .usage
            }
            do throws(PcapError) {
                writer = try CaptureWriter(path: path, linkType: captures[0].linkType)
            } catch {
                printError(error.description)
                return .cannotCreate
            }
        }
        // Like tcpdump -Z: everything privileged is open; give up root now.
        if getuid() == 0, o.user != "root" {
            do throws(PcapError) {
                _ = try PrivilegeDrop.drop(to: o.user)
            } catch {
                printError("cannot drop privileges to '\(o.user)': \(error.description)")
                return .noPermission
            }
        }
        return capture(captures, writer: writer, options: o)
    }

    static func capture(_ captures: [LiveCapture], writer: CaptureWriter?, options o: Options) -> ExitStatus {
        let out = Output.standardOutput
        var analysis = o.analysis
        analysis.collectEvents = true
        var tracker = DiscoveryTracker(options: analysis)
        var decoders = captures.map { DiscoveryDecoder(linkType: $0.linkType) }
        let name = "live: " + captures.map(\.interface).joined(separator: ", ")
        var frames = 0
        var first: Timestamp?
        var last: Timestamp?

        liveStopSignal.pointee = 0
        signal(SIGINT) { _ in liveStopSignal.pointee = 1 }
        signal(SIGTERM) { _ in liveStopSignal.pointee = 2 }
        signal(SIGPIPE, SIG_IGN)

        let started = now()
        if o.format == .jsonl {
            var w = JSONWriter()
            w.beginObject()
            w.string("started", "event")
            w.string(TimeFormat.rfc3339Micro(started), "time")
            w.beginArray("interfaces")
            for c in captures {
                w.beginObject()
                w.string(c.interface, "name")
                w.string(c.linkTypeName, "linkType")
                w.endObject()
            }
            w.endArray()
            w.string(kernelFilter + (o.filter.map { " and (\($0))" } ?? ""), "filter")
            w.endObject()
            out.write(w.output + "\n")
        } else {
            out.write(
                "castscope live on \(captures.map { "\($0.interface) (\($0.linkTypeName))" }.joined(separator: ", ")); "
                    + "Ctrl-C stops and prints the analysis\n")
        }
        out.flush()

        func emit() {
            for e in tracker.drainEvents() {
                out.write((o.format == .jsonl ? LiveEvents.json(e) : LiveEvents.text(e)) + "\n")
            }
            out.flush()
        }

        var reason = "signal"
        var fds = captures.map { pollfd(fd: $0.selectableDescriptor, events: Int16(POLLIN), revents: 0) }
        loop: while true {
            if liveStopSignal.pointee != 0 {
                reason = "signal"
                break
            }
            if let d = o.durationSeconds, now().seconds(since: started) >= d {
                reason = "duration"
                break
            }
            if let n = o.count, frames >= n {
                reason = "count"
                break
            }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for (index, c) in captures.enumerated() {
                let limit = o.count.map { Int32(Swift.max($0 - frames, 0)) } ?? 1000
                if limit == 0 { break }
                let handled = c.dispatch(limit: limit) { header, bytes in
                    frames += 1
                    if first == nil { first = header.timestamp }
                    last = header.timestamp
                    writer?.write(bytes, timestamp: header.timestamp, originalLength: header.originalLength)
                    if let packet = decoders[index].decode(
                        frame: frames, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
                    {
                        tracker.ingest(packet, capture: 0)
                    }
                    tracker.advance(to: header.timestamp)
                }
                if handled == nil {
                    printError("capture on \(c.interface) failed: \(c.lastError ?? "unknown error")")
                    reason = "error"
                    break loop
                }
            }
            writer?.flush()
            tracker.advance(to: now())
            emit()
        }
        writer?.flush()

        // The drop counters, then the same analysis as `castscope analyze`.
        var dropped: UInt64 = 0
        var interfaceDropped: UInt64 = 0
        for c in captures {
            if let s = c.statistics() {
                dropped += UInt64(s.dropped)
                interfaceDropped += UInt64(s.interfaceDropped)
            }
        }
        let timeline = tracker.finish()
        emit()
        var stats = DecodeStatistics()
        for d in decoders { stats += d.statistics }
        let info = CaptureInfo(
            file: name, linkType: captures[0].linkTypeName, packets: frames, statistics: stats, start: first, end: last)
        var report = AnalysisReport(captures: [info], timelines: [timeline], options: analysis, merged: false)
        report.findings = Diagnosis.diagnose(
            report, inputs: DiagnosisInputs(packetsDropped: (kernel: dropped, interface: interfaceDropped)))

        if o.format == .jsonl {
            var w = JSONWriter()
            w.beginObject()
            w.string("stopped", "event")
            w.string(TimeFormat.rfc3339Micro(now()), "time")
            w.string(reason, "reason")
            w.int(frames, "packets")
            w.int(stats.discoveryPackets, "discoveryPackets")
            w.int(dropped, "dropped")
            w.int(interfaceDropped, "interfaceDropped")
            w.string(o.write, "written")
            w.endObject()
            out.write(w.output + "\n")
            out.write("{\"event\":\"analysis\",\"analysis\":" + AnalysisJSON.compact(report) + "}\n")
        } else {
            out.write(
                "\nstopped (\(reason)): \(frames) packets captured, \(stats.discoveryPackets) discovery, "
                    + "\(dropped) dropped by the kernel, \(interfaceDropped) by the interface"
                    + (o.write.map { "; written to \($0)" } ?? "") + "\n\n")
            out.write(AnalysisText.render(report))
        }
        out.flush()
        if reason == "error" { return .ioError }
        return FailOn.status(.success, findings: report.findings, threshold: o.failOn)
    }

    /// Wall-clock time as a capture timestamp.
    static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), nanoseconds: Int64(ts.tv_nsec))
    }

    static func openFailure(_ error: PcapError, interface: String) -> ExitStatus {
        switch error.kind {
        case .permissionDenied:
            printError(
                "\(error.description)\nhint: live capture needs root, or CAP_NET_RAW and CAP_NET_ADMIN "
                    + "(sudo setcap cap_net_raw,cap_net_admin=eip $(command -v castscope))")
            return .noPermission
        case .noSuchInterface:
            let names = (try? CaptureInterface.all().map(\.name)) ?? []
            printError(
                "no such interface '\(interface)'"
                    + (names.isEmpty ? "" : "; interfaces: " + names.joined(separator: ", ")))
            return .noInput
        case .interfaceDown:
            printError("interface '\(interface)' is down (ip link set \(interface) up)")
            return .unavailable
        default:
            if error.message.lowercased().contains("permission") || error.message.contains("Operation not permitted") {
                printError(
                    "\(error.description)\nhint: live capture needs root, or CAP_NET_RAW and CAP_NET_ADMIN")
                return .noPermission
            }
            printError(error.description)
            return .ioError
        }
    }

    static func listInterfaces() -> ExitStatus {
        let all: [CaptureInterface]
        do throws(PcapError) {
            all = try CaptureInterface.all()
        } catch {
            printError(error.description)
            return error.message.contains("ermission") ? .noPermission : .ioError
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
