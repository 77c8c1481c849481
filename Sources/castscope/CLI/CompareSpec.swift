import CastDiscovery

/// `castscope compare`'s command line.
extension CompareCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "compare",
            abstract: "Line up two captures: where do the Cast packets die between sender and device?",
            discussion: """
                Give a capture taken on the sender's side first (the phone, its access point, its switch port)
                and one taken at the same time on the devices' side second. The same mDNS message seen at both
                points has the same bytes, so compare pairs them by content and time, finds how far the two
                clocks differ, and reports per direction which of the sender's Cast queries reached the device
                side and which of the devices' answers came back, with the one-way delays, the copies a relay
                changed on the way, and the frames of the lost ones. Findings name where the packets die:
                  - queries lost on the way to the devices                          (COMPARE_QUERIES_LOST)
                  - answers lost on the way back                                     (COMPARE_ANSWERS_LOST)
                  - a reflector or relay between the two points                          (COMPARE_REFLECTOR)
                  - large one-way delay                                                 (COMPARE_LARGE_DELAY)
                Two captures of different times (before and after a change) are compared as such: devices
                that appeared or disappeared, first-answer latency, findings that appeared or were resolved.
                That happens with --before-after, or by itself when the two captures' times do not overlap.
                """,
            groups: [
                OptionGroup(
                    "COMPARE",
                    [
                        .value(
                            "--sender", name: "HOST",
                            help: "Count only this sender's queries: an IP or link-layer address seen in the first "
                                + "capture (default: every host that sent Cast queries and no Cast response)."
                        ) { o, v throws(UsageError) in o.sender = v },
                        .value(
                            "--device", name: "HOST",
                            help: "Count only this device's answers: its IP or link-layer address or friendly name "
                                + "(default: every host that sent Cast responses in the second capture)."
                        ) { o, v throws(UsageError) in o.device = v },
                        .flag(
                            "--before-after",
                            help: "Compare the two captures as before and after (taken at different times), even "
                                + "if their times overlap."
                        ) { o in o.beforeAfter = true },
                        .flag(
                            "--same-time",
                            help: "The captures were taken at the same time even if their timestamps do not overlap "
                                + "(a clock far off): line them up (clock offsets up to 10 minutes are found)."
                        ) { o in o.sameTime = true },
                        .value(
                            "--window", name: "SECONDS",
                            help: "The longest one-way delay a message may take between the two points and still "
                                + "be paired (default 0.5, up to 10)."
                        ) { o, v throws(UsageError) in
                            guard let s = Double(v), s > 0, s <= 10 else {
                                throw UsageError("--window needs a number of seconds above 0 and up to 10, not '\(v)'")
                            }
                            o.window = s
                        },
                    ]),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(help: "Write to FILE instead of standard output.", \.output),
                        CommonOptions.quiet(help: "Print nothing; the exit status tells (as grep -q).", \.quiet),
                        .value(
                            "--fail-on", name: "LEVEL",
                            help: "Exit 1 when a finding of LEVEL (warning or error) or worse exists (default: "
                                + "error); before and after, when such a finding appeared.",
                            completion: .choices(FailOn.levels)
                        ) { o, v throws(UsageError) in o.failOn = try FailOn.parse(v).get() },
                    ]),
            ],
            operands: OperandSpec(
                name: "A B",
                help: "Two captures: the sender's side (or before) first, the devices' side (or after) second.",
                repeating: true
            ) { o, v throws(UsageError) in
                guard o.files.count < 2 else { throw UsageError("compare takes two captures ('\(v)' is a third)") }
                o.files.append(v)
            },
            sections: [
                HelpSection(
                    title: "EXAMPLES",
                    body: """
                          castscope compare phone.pcapng tv-port.pcap
                          castscope compare --format html -o where.html phone.pcapng router.pcap
                          castscope compare --before-after monday.pcap friday.pcap
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 no error found (or none at --fail-on's level), 1 an error finding (or one at --fail-on's
                          level; before and after: one that appeared), 64 usage error (also a --sender or --device
                          that is not in the capture), 65 a file is not a capture, 66 a file cannot be read,
                          73 the output file cannot be written.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                guard o.files.count == 2 else {
                    throw UsageError(
                        o.files.isEmpty
                            ? "compare needs two captures (sender side, then device side)"
                            : "compare needs a second capture")
                }
                guard !(o.beforeAfter && o.sameTime) else {
                    throw UsageError("--before-after and --same-time contradict each other")
                }
                guard o.files[0] != "-" || o.files[1] != "-" else {
                    throw UsageError("only one of the two captures can be standard input")
                }
                try OutputFile.checkNotInput(o.output, o.files)
            })
    }
}

extension CompareCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "The verdict, both captures, each direction's counts and delays, the hosts, the findings (default)."
        case .json:
            "One object: {\"schemaVersion\":1,\"mode\":\"two-points\",\"queries\":{…},\"answers\":{…},…} "
                + "(docs/compare.md)."
        case .markdown: "The same as the text, in Markdown tables."
        case .html: "A self-contained page with the two timelines side by side and lines between matched packets."
        }
    }
}
