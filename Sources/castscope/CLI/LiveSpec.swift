import CastDiscovery
import Pipeline

/// `castscope live`'s command line.
extension LiveCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "live",
            abstract: "Capture on interfaces (as root) and show discovery events as they happen.",
            otherSynopses: ["--list-interfaces"],
            discussion: """
                Captures Cast discovery on live interfaces (like `tcpdump -i` that understands Cast), prints
                events as they happen (a client starts a discovery session; a device appears, changes,
                leaves or expires; a query goes unanswered), and when it stops (--duration, --count,
                Ctrl-C or SIGTERM) prints the same analysis and findings as `castscope analyze`.
                """,
            groups: [
                OptionGroup(
                    "CAPTURE",
                    [
                        .value(
                            "--interface", short: "-i", name: "IFACE",
                            help: "Interface to capture on (repeatable; `any` for all on Linux).",
                            completion: .interface, repeatable: true, required: true
                        ) { o, v in o.interfaces.append(v) },
                        .flag(
                            "--list-interfaces", short: "-D",
                            help: "List interfaces with their addresses and state, and exit."
                        ) { $0.listInterfaces = true },
                        .value(
                            "--filter", name: "EXPR",
                            help: "A BPF expression that narrows the discovery filter further."
                        ) { o, v in o.filter = v },
                        .flag("--promisc", help: "Promiscuous mode (off by default).") { $0.live.promiscuous = true },
                        .value(
                            "--buffer-size", name: "BYTES",
                            help: "Kernel capture buffer (default 4 MiB; 16 MiB with --metrics, whose window reports "
                                + "hold the loop for tens of milliseconds)."
                        ) {
                            o, v throws(UsageError) in
                            guard let n = Int32(v), n >= 65536 else {
                                throw UsageError("--buffer-size needs a number of bytes ≥ 65536, not '\(v)'")
                            }
                            o.live.bufferSize = n
                            o.bufferSizeGiven = true
                        },
                        .value(
                            "--user", short: "-Z", name: "NAME",
                            help: "SECURITY: after the interfaces and the output file are open, root privileges "
                                + "are dropped to NAME (default nobody) with setgroups, setgid and setuid, and the "
                                + "drop is verified, like tcpdump -Z. --user root keeps root."
                        ) { o, v in o.user = v },
                    ]),
                OptionGroup(
                    "STOP",
                    [
                        .value("--duration", name: "S", help: "Stop after S seconds.") { o, v throws(UsageError) in
                            guard let s = Double(v), s > 0 else {
                                throw UsageError("--duration needs a positive number of seconds, not '\(v)'")
                            }
                            o.durationSeconds = s
                        },
                        .value("--count", short: "-c", name: "N", help: "Stop after N packets, as tcpdump -c does.") {
                            o, v throws(UsageError) in
                            o.count = try CommonOptions.positiveCount("--count", v)
                        },
                    ]),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.color(\.color),
                        .value(
                            "--write", short: "-w", name: "FILE",
                            help: "Keep the captured packets in this pcap, as tcpdump -w does (frame numbers match "
                                + "the events); flushed continuously and on exit, so nothing is lost on a signal.",
                            completion: .file
                        ) { o, v in o.write = v },
                    ]),
                OptionGroup(
                    "METRICS",
                    [
                        .value(
                            "--metrics", name: "[ADDR:]PORT",
                            help: "Serve Prometheus metrics at http://ADDR:PORT/metrics, and /healthz, while "
                                + "capturing (all addresses when ADDR is left out; [IPv6]:PORT). See docs/metrics.md."
                        ) { o, v throws(UsageError) in
                            guard let endpoint = MetricsEndpoint(v) else {
                                throw UsageError(
                                    "--metrics needs [ADDR:]PORT (9150, 192.0.2.5:9150, [::1]:9150), not '\(v)'")
                            }
                            o.metrics = endpoint
                        },
                        .value(
                            "--metrics-window", name: "S",
                            help: "The analysis window behind the active findings (default 600): a finding clears "
                                + "between S/2 and S seconds after its cause ended."
                        ) { o, v throws(UsageError) in
                            guard let s = Double(v), s >= 10, s <= 86400 else {
                                throw UsageError("--metrics-window needs seconds from 10 to 86400, not '\(v)'")
                            }
                            o.metricsWindowSeconds = s
                        },
                        .value(
                            "--metrics-forget", name: "S",
                            help: "A device gone, a client silent or a finding cleared for longer than S seconds "
                                + "leaves the metrics (default 3600)."
                        ) { o, v throws(UsageError) in
                            guard let s = Double(v), s > 0 else {
                                throw UsageError("--metrics-forget needs a positive number of seconds, not '\(v)'")
                            }
                            o.metricsForgetSeconds = s
                        },
                    ]),
                OptionGroup(
                    "ANALYSIS",
                    [
                        CommonOptions.sessionGap(\.analysis), CommonOptions.client(\.analysis),
                        CommonOptions.failOn(\.failOn),
                    ]),
                CommonOptions.limits(\.analysis),
            ],
            sections: [
                HelpSection(
                    title: "PRIVILEGES",
                    body: """
                          Capturing needs root, or the CAP_NET_RAW and CAP_NET_ADMIN capabilities. The kernel
                          filter keeps UDP 5353 and 1900, unicast SSDP answers from any port, IP fragments, and
                          the connection phase (TCP SYN, RST, FIN, TLS hellos, ICMP unreachables).
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 stopped normally (1 with --fail-on), 64 usage or bad filter, 65 unsupported link type,
                          66 no such interface, 69 interface down, 73 cannot create the output file, 74 capture
                          error, 77 not permitted.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                if !o.listInterfaces, o.interfaces.isEmpty {
                    throw UsageError("name an interface with -i (see --list-interfaces)")
                }
                if o.metrics == nil, o.metricsWindowSeconds != nil || o.metricsForgetSeconds != nil {
                    throw UsageError("--metrics-window and --metrics-forget need --metrics")
                }
                let gap = Double(o.analysis.sessionGapNanoseconds) / 1e9
                if o.metrics != nil, (o.metricsWindowSeconds ?? 600) < 2 * gap {
                    throw UsageError(
                        "--metrics-window must be at least twice --session-gap (\(Wording.duration(milliseconds: gap * 1000))): a window's "
                            + "discovery sessions are told apart by it")
                }
            })
    }
}

extension LiveCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "Events as text lines (default)."
        case .jsonl: "Events as JSON lines, then the analysis as a last {\"event\":\"analysis\"} line."
        }
    }
}
