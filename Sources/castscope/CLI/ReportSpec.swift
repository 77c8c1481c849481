/// `castscope report`'s command line: `analyze`'s input, analysis and limits, its own formats.
extension ReportCommand {
    static var spec: CommandSpec<Options> {
        let analyze = AnalyzeCommand.spec
        return CommandSpec(
            name: "report",
            abstract: "The same as a self-contained HTML page or Markdown to share.",
            discussion: """
                Writes a report to share: the verdict, the findings with their evidence (Wireshark frame
                numbers) and advice, the devices and clients, and discovery latency.
                """,
            groups: [
                CommonOptions.input().lifted(\.analysis),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(
                            help: "Write the report to FILE (`-o -`: standard output; the default for Markdown).",
                            \.output),
                        CommonOptions.quiet(help: "No progress line.", \.analysis.quiet),
                    ]),
                AnalyzeCommand.analysisGroup.lifted(\.analysis),
                CommonOptions.limits(\.analysis.analysis),
            ],
            operands: analyze.operands.map { files in
                OperandSpec(name: files.name, help: files.help) { o, v throws(UsageError) in
                    try files.apply(&o.analysis, v)
                }
            },
            sections: [AnalyzeCommand.exitStatus],
            defaults: Options(),
            validate: { o throws(UsageError) in
                try CommonOptions.requireFiles(o.analysis)
                try OutputFile.checkNotInput(o.output, o.analysis.files)
                if o.format == .html, o.output == nil {
                    throw UsageError("HTML needs -o FILE (or -o - for standard output)")
                }
            })
    }
}

extension ReportCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .html:
            "One self-contained page (default): inline CSS and SVG, no scripts, nothing loaded from anywhere. "
                + "Adds a timeline per client (its queries and each device's answers on one time axis) and a "
                + "latency chart. Needs -o."
        case .markdown: "The same facts as tables that paste well into an issue tracker."
        }
    }
}
