import CastDiscovery

/// `castscope analyze`'s command line.
extension AnalyzeCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "analyze",
            abstract: "Devices visible, the clients that searched, discovery latency, and findings: why discovery "
                + "failed, with evidence frames and advice.",
            discussion: """
                Builds the Cast picture of the captures: which receivers were visible (mDNS and DIAL),
                which hosts searched for them, and how fast each device answered each searcher. Several
                files are read in parallel; on a terminal a progress line shows for files that take more
                than a second.
                """,
            groups: [
                CommonOptions.input(),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(help: "Write the report to FILE instead of standard output.", \.output),
                        CommonOptions.color(\.color),
                        CommonOptions.quiet(help: "No progress line.", \.quiet),
                    ]),
                analysisGroup,
                CommonOptions.limits(\.analysis),
            ],
            operands: CommonOptions.files(),
            sections: [
                HelpSection(
                    title: "LATENCY",
                    body: """
                          firstAnswerMs  session start -> first PTR answer for the device that the client could
                                         receive (multicast, or unicast to it), under a name it asked for.
                          resolvedMs     session start -> the device's SRV, TXT and an address record all seen.
                          Missing values are null, with the reason.
                        """),
                exitStatus,
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                try CommonOptions.requireFiles(o)
                try OutputFile.checkNotInput(o.output, o.files)
            })
    }

    /// `--session-gap`, `--client`, `--merge`, `--plist`, `--fail-on` (shared with `report`).
    static var analysisGroup: OptionGroup<Options> {
        OptionGroup(
            "ANALYSIS",
            [
                CommonOptions.sessionGap(\.analysis), CommonOptions.client(\.analysis), CommonOptions.merge(\.merge),
                CommonOptions.plist(\.plist), CommonOptions.app(\.app), CommonOptions.failOn(\.failOn),
            ])
    }

    /// The exit statuses of `analyze` and `report`.
    static let exitStatus = HelpSection(
        title: "EXIT STATUS",
        body: """
              0 success (1 when --fail-on is triggered), 64 usage error, 65 a file is not a readable capture or
              has an unsupported link type, 66 a file does not exist or cannot be opened, 73 the output file
              cannot be written.
            """)
}

extension AnalyzeCommand.Options: CaptureInput {
    /// Whether the text report is coloured (`--color`, the terminal, NO_COLOR).
    var colored: Bool { color.enabled(writingTo: output) }
}

extension AnalyzeCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "Tables and findings (default): fitted to COLUMNS or the terminal, nothing cut."
        case .json: "The documented JSON contract, schema version 1 (docs/json-schema.md)."
        case .markdown: "Tables that paste well into an issue tracker."
        case .rows:
            "Newline-delimited JSON, one flat row per capture, device, client, latency row, response, "
                + "connection, finding and evidence entry, each file's rows on their own (docs/rows.md)."
        }
    }
}
