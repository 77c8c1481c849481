import CastDiscovery
import PcapCapture
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

/// A live capture on one or more interfaces (`castscope live`): discovery events as they
/// happen, then the same analysis as for a file.
///
/// ``open(_:notices:)`` does everything that needs privileges (the interfaces, the output
/// file) and then gives up root, like `tcpdump -Z`; ``run(events:)`` captures until the
/// duration, the packet count, SIGINT or SIGTERM stops it.
public final class LiveSession {
    /// What to capture and for how long.
    public struct Options {
        public var interfaces: [String] = []
        /// Stop after this many seconds.
        public var durationSeconds: Double?
        /// Stop after this many packets.
        public var count: Int?
        /// Keep the captured packets in this pcap.
        public var write: String?
        /// A BPF expression that narrows the discovery filter.
        public var filter: String?
        public var live = LiveOptions()
        /// The user to become once everything privileged is open (`root` keeps root).
        public var user = "nobody"
        public var analysis = AnalysisOptions()
        /// Serve Prometheus metrics here (`--metrics`), with this analysis window
        /// (`--metrics-window`) and forgetting (`--metrics-forget`).
        public var metrics: MetricsEndpoint?
        public var metricsWindowSeconds = 600.0
        public var metricsForgetSeconds = 3600.0
        public init() {}
    }

    /// Why capturing stopped.
    public enum StopReason: String, Sendable {
        case signal, duration, count, error
    }

    /// A finished live capture.
    public struct Outcome {
        public var report: AnalysisReport
        public var reason: StopReason
        public var frames: Int
        public var discoveryPackets: Int
        /// Packets the kernel and the interface dropped (pcap_stats).
        public var dropped: UInt64
        public var interfaceDropped: UInt64
        /// The capture error, when `reason` is `.error`.
        public var error: String?
    }

    /// The kernel filter for an interface's link type: the prefilter analyze uses
    /// (``DiscoveryFilter``: discovery ports, unicast SSDP answers, fragments, and the
    /// connection phase's SYN, RST, FIN, TLS hellos and ICMP unreachables); `nil` where no filter
    /// is safe (802.11, PKTAP).
    public static func kernelFilter(for linkType: LinkType) -> String? {
        DiscoveryFilter.expression(for: linkType)
    }

    public let options: Options
    /// The open interfaces, in the order given.
    public let captures: [LiveCapture]
    let writer: CaptureWriter?
    /// The `--metrics` server, listening since ``open(_:notices:)``.
    public let metricsServer: MetricsServer?

    /// The filter in force, as shown to the user.
    public var filterDescription: String {
        let base = captures.first.flatMap { Self.kernelFilter(for: $0.linkType) }
        return options.filter.map { f in base.map { "(\($0)) and (\(f))" } ?? f } ?? base ?? "none"
    }

    init(options: Options, captures: [LiveCapture], writer: CaptureWriter?, metricsServer: MetricsServer?) {
        self.options = options
        self.captures = captures
        self.writer = writer
        self.metricsServer = metricsServer
    }

    /// Opens every interface and the output file, installs the filters, then drops root.
    /// - Returns: the session, or the exit status after sending the error to `notices`.
    public static func open(_ o: Options, notices: NoticeSink) -> Result<LiveSession, ExitStatusError> {
        func fail(_ status: ExitStatus, _ message: String) -> Result<LiveSession, ExitStatusError> {
            notices(.error(message))
            return .failure(ExitStatusError(status: status))
        }
        var captures: [LiveCapture] = []
        for name in o.interfaces {
            switch openCapture(name, options: o.live, filter: o.filter) {
            case .success(let c): captures.append(c)
            case .failure(let e): return fail(e.status, e.message)
            }
        }
        var writer: CaptureWriter?
        if let path = o.write {
            guard Set(captures.map(\.linkType)).count == 1 else {
                return fail(
                    .usage,
                    "--write needs interfaces of one link type (these have "
                        + captures.map { "\($0.interface): \($0.linkTypeName)" }.joined(separator: ", ")
                        + "); capture on -i any instead")
            }
            do throws(PcapError) {
                writer = try CaptureWriter(path: path, linkType: captures[0].linkType)
            } catch {
                return fail(.cannotCreate, error.description)
            }
        }
        var server: MetricsServer?
        if let endpoint = o.metrics {
            switch MetricsServer.open(endpoint) {
            case .success(let s): server = s
            case .failure(let e): return fail(e.status, e.message)
            }
        }
        // Like tcpdump -Z: everything privileged is open; give up root now.
        if getuid() == 0, o.user != "root" {
            do throws(PcapError) {
                _ = try PrivilegeDrop.drop(to: o.user)
            } catch {
                return fail(.noPermission, "cannot drop privileges to '\(o.user)': \(error.description)")
            }
        }
        return .success(LiveSession(options: o, captures: captures, writer: writer, metricsServer: server))
    }

    /// Opens one interface for discovery: checks that castscope decodes its link type and
    /// installs the kernel filter (narrowed by `filter`; widened by `also`, which comes first
    /// because a `vlan` term in the discovery filter shifts the offsets of what follows it).
    static func openCapture(
        _ name: String, options: LiveOptions, filter: String?, also: String? = nil
    ) -> Result<LiveCapture, CaptureOpenError> {
        do throws(PcapError) {
            let c = try LiveCapture(interface: name, options: options)
            guard c.linkType.isSupported else {
                return .failure(
                    CaptureOpenError(
                        status: .dataError,
                        message: "\(name): link type \(c.linkTypeName) carries nothing castscope can decode (Ethernet, "
                            + "Linux cooked, raw IP, loopback, PKTAP and 802.11 are supported)"))
            }
            let base = kernelFilter(for: c.linkType).map { f in also.map { "(\($0)) or (\(f))" } ?? f }
            if let expression = filter.map({ f in base.map { "(\($0)) and (\(f))" } ?? f }) ?? base {
                do throws(PcapError) {
                    try c.setFilter(expression)
                } catch {
                    return .failure(CaptureOpenError(status: .usage, message: "bad --filter: \(error.message)"))
                }
            }
            return .success(c)
        } catch {
            let (status, message) = openFailure(error, interface: name)
            return .failure(CaptureOpenError(status: status, message: message))
        }
    }

    /// Captures until a stop condition, handing the tracker's events to `events` as they
    /// happen (at least every 100 ms), then diagnoses what was captured. With a metrics server,
    /// `exposition` renders what a scrape of `/metrics` returns, and the analysis is of the
    /// last window (``LiveWatch``).
    public func run(events: ([TrackerEvent]) -> Void, exposition: ((LiveMetrics) -> String)? = nil) -> Outcome {
        let o = options
        var analysis = o.analysis
        analysis.collectEvents = true
        var ingest = LiveIngest(linkTypes: captures.map(\.linkType), analysis: analysis, writer: writer)
        let name = "live: " + captures.map(\.interface).joined(separator: ", ")

        liveStopSignal.pointee = 0
        signal(SIGINT) { _ in liveStopSignal.pointee = 1 }
        signal(SIGTERM) { _ in liveStopSignal.pointee = 2 }
        signal(SIGPIPE, SIG_IGN)

        let started = Self.now()
        var watch = metricsServer.map { _ in
            var settings = DiscoveryWatch.Settings()
            settings.forgetSeconds = o.metricsForgetSeconds
            settings.maximumDevices = o.analysis.capacity.devices
            settings.maximumClients = o.analysis.capacity.clients
            settings.sessionGapSeconds = Double(o.analysis.sessionGapNanoseconds) / 1e9
            return LiveWatch(
                windowSeconds: o.metricsWindowSeconds, settings: settings, linkTypeName: captures[0].linkTypeName,
                now: started)
        }
        var reason = StopReason.signal
        var failure: String?
        let captureFDs = captures.map { pollfd(fd: $0.selectableDescriptor, events: Int16(POLLIN), revents: 0) }
        loop: while true {
            if liveStopSignal.pointee != 0 {
                reason = .signal
                break
            }
            if let d = o.durationSeconds, Self.now().seconds(since: started) >= d {
                reason = .duration
                break
            }
            if let n = o.count, ingest.frames >= n {
                reason = .count
                break
            }
            var fds = captureFDs + (metricsServer?.pollDescriptors ?? [])
            _ = poll(&fds, nfds_t(fds.count), 100)
            for (index, c) in captures.enumerated() {
                let limit = o.count.map { Int32(Swift.max($0 - ingest.frames, 0)) } ?? 1000
                if limit == 0 { break }
                let handled = c.dispatch(limit: limit) { header, bytes in
                    ingest.ingest(
                        index, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
                }
                if handled == nil {
                    failure = "capture on \(c.interface) failed: \(c.lastError ?? "unknown error")"
                    reason = .error
                    break loop
                }
            }
            writer?.flush()
            let now = Self.now()
            ingest.advance(to: now)
            let happened = ingest.tracker.drainEvents()
            _ = ingest.younger?.drainEvents()
            events(happened)
            if watch != nil, let server = metricsServer {
                watch!.tick(&ingest, events: happened, now: now, dropped: dropCounts())
                server.service(now: MetricsServer.monotonicSeconds()) { method, path in
                    respond(method: method, path: path) {
                        exposition?(watch!.metrics(ingest, now: Self.now(), dropped: dropCounts())) ?? ""
                    }
                }
            }
        }

        let (dropped, interfaceDropped) = dropCounts()
        let report: AnalysisReport
        if let w = watch {
            // A watch reports on its last window, as its findings did.
            ingest.writer?.flush()
            var tracker = ingest.tracker
            report =
                w.report(of: &tracker, from: w.current, ingest: ingest, dropped: (dropped, interfaceDropped)).report
            events(tracker.drainEvents())
        } else {
            report = ingest.finish(
                name: name, linkTypeName: captures[0].linkTypeName,
                dropped: (kernel: dropped, interface: interfaceDropped))
            events(ingest.tracker.drainEvents())
        }
        return Outcome(
            report: report, reason: reason, frames: ingest.frames, discoveryPackets: ingest.statistics.discoveryPackets,
            dropped: dropped, interfaceDropped: interfaceDropped, error: failure)
    }

    /// What the kernel and the interfaces dropped so far, all interfaces together.
    func dropCounts() -> (kernel: UInt64, interface: UInt64) {
        var dropped: UInt64 = 0
        var interfaceDropped: UInt64 = 0
        for c in captures {
            if let s = c.statistics() {
                dropped += UInt64(s.dropped)
                interfaceDropped += UInt64(s.interfaceDropped)
            }
        }
        return (dropped, interfaceDropped)
    }

    /// The response to a request for `path`: the exposition (made by `metrics` only when asked
    /// for), the health check, or 404.
    func respond(method: String, path: String, metrics: () -> String) -> [UInt8] {
        let head = method == "HEAD"
        switch path {
        case "/metrics":
            return MetricsHTTP.response(
                status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics(),
                includeBody: !head)
        case "/healthz":
            return MetricsHTTP.response(status: 200, body: "ok\n", includeBody: !head)
        case "/":
            return MetricsHTTP.response(
                status: 200, body: "castscope live: /metrics (Prometheus), /healthz\n", includeBody: !head)
        default:
            return MetricsHTTP.response(status: 404, body: "not found: /metrics or /healthz\n", includeBody: !head)
        }
    }

    /// Wall-clock time as a capture timestamp.
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), nanoseconds: Int64(ts.tv_nsec))
    }

    /// The status and message for an interface that cannot be opened.
    static func openFailure(_ error: PcapError, interface: String) -> (ExitStatus, String) {
        switch error.kind {
        case .permissionDenied:
            return (
                .noPermission,
                "\(error.description)\nhint: live capture needs root, or CAP_NET_RAW and CAP_NET_ADMIN "
                    + "(sudo setcap cap_net_raw,cap_net_admin=eip $(command -v castscope))"
            )
        case .noSuchInterface:
            let names = (try? CaptureInterface.all().map(\.name)) ?? []
            return (
                .noInput,
                "no such interface '\(interface)'"
                    + (names.isEmpty ? "" : "; interfaces: " + names.joined(separator: ", "))
            )
        case .interfaceDown:
            return (.unavailable, "interface '\(interface)' is down (ip link set \(interface) up)")
        default:
            if error.message.lowercased().contains("permission") || error.message.contains("Operation not permitted") {
                return (
                    .noPermission,
                    "\(error.description)\nhint: live capture needs root, or CAP_NET_RAW and CAP_NET_ADMIN"
                )
            }
            return (.ioError, error.description)
        }
    }

    /// Why an interface could not be opened: the exit status and the message.
    struct CaptureOpenError: Error {
        var status: ExitStatus
        var message: String
    }

    /// The interfaces libpcap can capture on.
    public static func interfaces(notices: NoticeSink) -> Result<[CaptureInterface], ExitStatusError> {
        do throws(PcapError) {
            return .success(try CaptureInterface.all())
        } catch {
            notices(.error(error.description))
            return .failure(ExitStatusError(status: error.message.contains("ermission") ? .noPermission : .ioError))
        }
    }
}
