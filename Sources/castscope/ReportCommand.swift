import CastDiscovery
import Pipeline
import Reports

/// `castscope report`: a report to share, as one self-contained HTML page or as Markdown.
///
/// The analysis options (`--session-gap`, `--client`, `--merge`, `--no-filter`, files) are
/// `analyze`'s, parsed by ``AnalyzeCommand/parse(_:)``; this command adds only `--format` and
/// `-o`, and runs the same pipeline, ``AnalyzeCommand/analyze(_:options:merge:prefilter:)``.
enum ReportCommand {
    enum Format: String {
        case html, markdown
    }

    struct Options {
        var format = Format.html
        var output: String?
        var analysis = AnalyzeCommand.Options()
    }

    /// `analyze`'s options that take a value (so that the value is not mistaken for ours).
    static let analyzeValueOptions: Set<String> = [
        "--session-gap", "--client", "--plist", "--fail-on", "--max-devices", "--max-clients", "--max-names",
        "--max-rows", "--max-pairs", "--max-sessions", "--max-fragments",
    ]

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = Options()
        var rest: [String] = []
        var i = 0
        while i < arguments.count {
            var a = arguments[i]
            i += 1
            if a == "--" {
                rest += arguments[(i - 1)...]
                break
            }
            if a == "-h" || a == "--help" { return .failure(UsageError(message: nil)) }
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                inline = String(a[a.index(after: eq)...])
                a = String(a[..<eq])
            }
            switch a {
            case "--format", "-f", "-o", "--output":
                let v: String
                if let inline {
                    v = inline
                } else {
                    guard i < arguments.count else { return .failure(UsageError(message: "\(a) needs a value")) }
                    v = arguments[i]
                    i += 1
                }
                if a == "-o" || a == "--output" {
                    guard !v.isEmpty else { return .failure(UsageError(message: "\(a) needs a file name")) }
                    o.output = v
                } else {
                    guard let f = Format(rawValue: v) else {
                        return .failure(UsageError(message: "unknown format '\(v)': use html or markdown"))
                    }
                    o.format = f
                }
            default:
                rest.append(arguments[i - 1])
                if analyzeValueOptions.contains(a), inline == nil, i < arguments.count {
                    rest.append(arguments[i])
                    i += 1
                }
            }
        }
        switch AnalyzeCommand.parse(rest) {
        case .failure(let e): return .failure(e)
        case .success(let parsed): o.analysis = parsed
        }
        if o.format == .html, o.output == nil {
            return .failure(UsageError(message: "HTML needs -o FILE (or -o - for standard output)"))
        }
        return .success(o)
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch parse(arguments).orUsage(command: "report", usage: reportUsage) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }

        let a = o.analysis
        let (analysis, status) = AnalyzeCommand.produce(a)
        guard let report = analysis else { return status }
        let text: String
        switch o.format {
        case .html: text = HTMLReport.render(report)
        case .markdown: text = ReportMarkdown.render(report)
        }
        if let path = o.output, path != "-" {
            guard AnalyzeCommand.writeFile(path, text) else { return .cannotCreate }
        } else {
            Output.standardOutput.write(text)
        }
        return FailOn.status(status, findings: report.findings, threshold: a.failOn)
    }
}

let reportUsage = """
    USAGE: castscope report [--format html|markdown] -o FILE [--session-gap S]
                            [--client ADDR]... [--merge] [--no-filter] [--plist Info.plist]
                            [--fail-on warning|error] FILE...

    Writes a report to share: the verdict, the findings with their evidence (Wireshark frame
    numbers) and advice, the devices and clients, and discovery latency.

    OPTIONS:
      --format html        One self-contained page (default): inline CSS and SVG, no scripts,
                           nothing loaded from anywhere. Adds a timeline per client (its queries
                           and each device's answers on one time axis) and a latency chart.
                           Needs -o.
      --format markdown    The same facts as tables that paste well into an issue tracker.
      -o, --output FILE    Write the report to FILE (`-o -`: standard output; the default for
                           Markdown).
      --session-gap S, --client ADDR, --merge, --no-filter, --plist FILE, --max-devices N,
      --max-clients N, --max-names N, --max-sessions N, --max-pairs N, --max-rows N,
      --max-fragments N
                           As for `castscope analyze`.
    \(FailOn.help)
      -h, --help           Show this help.

    EXIT STATUS: as analyze: 0 success (1 when --fail-on is triggered), 64 usage error, 65 a
    file is not a readable capture, 66 a file does not exist or cannot be opened, 73 the
    output file cannot be written.
    """
