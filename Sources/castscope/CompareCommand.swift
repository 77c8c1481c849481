import CastDiscovery
import Pipeline
import Reports

/// `castscope compare A B`: where do the packets die? Lines up two captures taken at the same
/// time (the sender's side and the devices' side) by their messages' content, or compares two
/// captures of different times as before and after (issue 18).
enum CompareCommand {
    enum Format: String, CaseIterable {
        case text, json, markdown, html
    }

    struct Options {
        var format = Format.text
        var files: [String] = []
        var sender: String?
        var device: String?
        var beforeAfter = false
        var sameTime = false
        var mode: CompareMode { beforeAfter ? .beforeAfter : sameTime ? .twoPoints : .automatic }
        /// `--window`: the largest one-way delay of a pair, in seconds.
        var window = 0.5
        var output: String?
        var quiet = false
        var failOn: Severity?
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        var options = CaptureComparison.Options()
        options.window = o.window
        options.sender = o.sender
        options.device = o.device
        let outcome: CompareOutcome
        switch CompareRun.run(o.files[0], o.files[1], options: options, mode: o.mode, notices: printNotice)
        {
        case .success(let c): outcome = c
        case .failure(.status(let status)): return status
        case .failure(.refused(let refusal)):
            UsageError(message(refusal)).report(command: spec.name, usage: Help.shortUsage(spec.info))
            return .usage
        }
        if let failed = OutputFile.redirectStandardOutput(to: o.quiet ? nil : o.output) { return failed }
        let threshold = o.failOn ?? .error
        switch outcome {
        case .twoPoints(let c):
            if !o.quiet {
                switch o.format {
                case .text: Output.standardOutput.write(CompareReport.text(c))
                case .json: Output.standardOutput.write(CompareReport.json(c))
                case .markdown: Output.standardOutput.write(CompareReport.markdown(c))
                case .html: Output.standardOutput.write(CompareHTML.render(c))
                }
            }
            return FailOn.triggered(c.findings.map(\.finding), threshold: threshold) ? .failure : .success
        case .beforeAfter(let c):
            if !o.quiet {
                switch o.format {
                case .text: Output.standardOutput.write(CompareReport.text(c))
                case .json: Output.standardOutput.write(CompareReport.json(c))
                case .markdown: Output.standardOutput.write(CompareReport.markdown(c))
                case .html: Output.standardOutput.write(CompareHTML.render(c))
                }
            }
            // A regression: a finding at the threshold that the first capture did not have.
            return c.findingsAppeared.contains { $0.severity <= threshold } ? .failure : .success
        }
    }

    static func message(_ refusal: CaptureComparison.Refusal) -> String {
        switch refusal {
        case .noSuchSender(let name, let known):
            "no sender '\(name)' in the first capture; "
                + (known.isEmpty
                    ? "it holds no Cast query from a sender"
                    : "its senders are " + Wording.cappedList(known, maximum: 10))
        case .noSuchDevice(let name, let known):
            "no device '\(name)' in the second capture; "
                + (known.isEmpty
                    ? "it holds no Cast response" : "its devices are " + Wording.cappedList(known, maximum: 10))
        }
    }
}
