import CastDiscovery
import Pipeline
import Reports

/// `castscope check-app`: does an iOS app have what Google's Cast iOS permissions page asks
/// for? Reads a project folder, an `.xcodeproj`, a Podfile.lock, a Package.resolved, an
/// Info.plist or a built `.ipa`/`.app`.
enum CheckAppCommand {
    enum Format: String, CaseIterable {
        case text, json, markdown
    }

    struct Options {
        var format = Format.text
        var appIDs: [String] = []
        var target: String?
        var path: String?
        /// `-o FILE`: standard output goes to FILE.
        var output: String?
        /// `-q`: print nothing; the exit status tells.
        var quiet = false
        /// `--fail-on`: exit 1 from this severity on (errors by default).
        var failOn: Severity?
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let app: AppInputResult
        switch AppInput.load(o.path!, target: o.target, notices: printNotice) {
        case .success(let a): app = a
        case .failure(let e): return e.status
        }
        let result = AppCheckResult(input: o.path!, kind: app.kind, targets: app.targets, appIDs: o.appIDs)
        if let failed = OutputFile.redirectStandardOutput(to: o.quiet ? nil : o.output) { return failed }
        switch o.format {
        case _ where o.quiet: break
        case .text: Output.standardOutput.write(AppCheckReport.text(result))
        case .json: Output.standardOutput.write(AppCheckReport.json(result))
        case .markdown: Output.standardOutput.write(AppCheckReport.markdown(result))
        }
        return FailOn.triggered(result.allFindings, threshold: o.failOn ?? .error) ? .failure : .success
    }
}
