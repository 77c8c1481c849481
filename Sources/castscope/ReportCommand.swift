import CastDiscovery
import Pipeline
import Reports

/// `castscope report`: a report to share, as one self-contained HTML page or as Markdown.
///
/// The analysis options (`--session-gap`, `--client`, `--merge`, `--no-filter`, files) are
/// `analyze`'s (ReportSpec.swift lifts `analyze`'s option groups); this command adds only
/// `--format` and `-o`, and runs the same pipeline, ``AnalyzeCommand/analyze(_:options:merge:prefilter:)``.
enum ReportCommand {
    enum Format: String, CaseIterable {
        case html, markdown
    }

    struct Options {
        var format = Format.html
        var output: String?
        var analysis = AnalyzeCommand.Options()
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
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
