import CastDiscovery
import Pipeline
import Reports

/// `castscope probe`: discover Cast devices from this host, connect to them, and analyse the
/// exchange.
enum ProbeCommand {
    enum Format: String, CaseIterable {
        case text, json, markdown
    }

    struct Options {
        var probe = ProbeSession.Options()
        var format = Format.text
        var output: String?
        var color = ColorChoice.auto
        var failOn: Severity?
        /// How many of --ipv4 and --ipv6 were given (both is a usage error).
        var familyFlags = 0
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let session: ProbeSession
        switch ProbeSession.open(o.probe, notices: printNotice) {
        case .success(let s): session = s
        case .failure(let e): return e.status
        }
        let outcome = session.run()
        let s = outcome.summary
        let r = outcome.report
        let text: String
        switch o.format {
        case .json: text = ProbeReport.json(s, r)
        case .markdown: text = ProbeReport.markdown(s) + AnalysisMarkdown.render(r)
        case .text:
            let width = TextWidth.forOutput(o.output)
            text =
                ProbeReport.text(s, width: width)
                + AnalysisText.render(r, style: TextStyle(colored: o.color.enabled(writingTo: o.output)), width: width)
        }
        guard AnalyzeCommand.emit(text, to: o.output) else { return .cannotCreate }
        if !s.answered { return .unavailable }
        if !s.allReachable { return .failure }
        return FailOn.status(.success, findings: r.findings, threshold: o.failOn)
    }
}
