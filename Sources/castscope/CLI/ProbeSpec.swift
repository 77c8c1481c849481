import CastDiscovery

/// `castscope probe`'s command line.
extension ProbeCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "probe",
            abstract: "Discover Cast devices from this host as a Cast sender does, and say why one is missing.",
            discussion: """
                Sends what a current Cast sender sends (mDNS queries for _googlecast._tcp.local, each app ID's
                subtype and the media subtype, QU first then QM with RFC 6762 backoff and known answers, over
                IPv4 and IPv6; follow-up SRV/TXT/A/AAAA questions; a DIAL M-SEARCH), then opens a TCP
                connection and a TLS handshake to each device found and closes it. It captures its own
                exchange while it runs (as root), so the report is the analysis `castscope analyze` gives of
                that capture (devices, latency, connections, findings with frame numbers), after a table of
                what the probe found and how long connecting took (docs/probe.md).
                """,
            groups: [
                OptionGroup(
                    "PROBE",
                    [
                        .value(
                            "--interface", short: "-i", name: "IFACE",
                            help: "Interface to probe on (default: the first up, multicast-capable interface "
                                + "with an address).",
                            completion: .interface
                        ) { o, v in o.probe.interface = v },
                        .value(
                            "--app-id", name: "ID",
                            help: "Also search for this receiver app ID's subtype _<ID>._sub._googlecast._tcp "
                                + "(repeatable); a device that does not answer for it is named in APP_ID_UNANSWERED.",
                            repeatable: true
                        ) { o, v throws(UsageError) in o.probe.appIDs.append(try appID(v)) },
                        .value("--duration", name: "S", help: "Probe for S seconds (default 5).") {
                            o, v throws(UsageError) in
                            o.probe.durationSeconds = try seconds("--duration", v, maximum: 3600)
                        },
                        .value(
                            "--connect-timeout", name: "S",
                            help: "Give up a TCP connection or TLS handshake after S seconds (default 3)."
                        ) { o, v throws(UsageError) in
                            o.probe.connectTimeoutSeconds = try seconds("--connect-timeout", v, maximum: 120)
                        },
                        .flag("--no-connect", help: "Only discover: no TCP connection or TLS handshake.") {
                            $0.probe.connect = false
                        },
                        .flag("--ipv4", short: "-4", help: "IPv4 only.") {
                            $0.probe.ipv4 = true
                            $0.probe.ipv6 = false
                            $0.familyFlags += 1
                        },
                        .flag("--ipv6", short: "-6", help: "IPv6 only.") {
                            $0.probe.ipv6 = true
                            $0.probe.ipv4 = false
                            $0.familyFlags += 1
                        },
                        .value(
                            "--user", short: "-Z", name: "NAME",
                            help: "SECURITY: after the capture, the output file and the sockets are open, root "
                                + "privileges are dropped to NAME (default nobody), as live does; --user root keeps "
                                + "root."
                        ) { o, v in o.probe.user = v },
                    ]),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(help: "Write the report to FILE instead of standard output.", \.output),
                        CommonOptions.color(\.color),
                        .value(
                            "--write", short: "-w", name: "FILE",
                            help: "Keep the probe's capture in this pcap (needs capture privilege), to read with "
                                + "castscope analyze or Wireshark, or to send to someone.",
                            completion: .file
                        ) { o, v in o.probe.write = v },
                    ]),
                OptionGroup("ANALYSIS", [CommonOptions.failOn(\.failOn)]),
            ],
            sections: [
                HelpSection(
                    title: "PRIVILEGES",
                    body: """
                          Capturing needs root, or CAP_NET_RAW and CAP_NET_ADMIN. Without them the probe still
                          runs and reports from its own sockets, and says that frames are missing; --write then
                          fails with 77. The sockets share UDP 5353 with avahi-daemon or mDNSResponder.
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 devices answered and every one was reached (or --no-connect), 1 a device answered but
                          could not be reached, or a finding reached --fail-on, 64 usage error, 66 no such
                          interface, 69 nothing answered (or the interface is down or has no address), 73 cannot
                          create the output file, 77 not permitted.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                if o.familyFlags > 1 {
                    throw UsageError("--ipv4 and --ipv6 exclude each other (give neither for both)")
                }
                if let w = o.probe.write, w == o.output { throw UsageError("--write and --output name the same file") }
            })
    }

    /// A receiver app ID as a DNS label castscope will send: letters and digits (an optional
    /// leading `_` is dropped), up to 63.
    static func appID(_ v: String) throws(UsageError) -> String {
        let id = v.hasPrefix("_") ? String(v.dropFirst()) : v
        guard !id.isEmpty, id.utf8.count <= 63,
            id.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) })
        else {
            throw UsageError("--app-id needs a receiver app ID of letters and digits such as CC1AD845, not '\(v)'")
        }
        return id.uppercased()
    }

    static func seconds(_ option: String, _ v: String, maximum: Double) throws(UsageError) -> Double {
        guard let s = Double(v), s > 0, s <= maximum else {
            throw UsageError("\(option) needs a number of seconds above 0 and up to \(Int(maximum)), not '\(v)'")
        }
        return s
    }
}

extension ProbeCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "What the probe found, then the analysis as analyze prints it (default)."
        case .json: "{\"probe\": {...}, \"analysis\": {...}}: the analysis is analyze's JSON document."
        case .markdown: "The same as the text, in Markdown."
        }
    }
}
