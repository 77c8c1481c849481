import Pipeline
/// A command-line mistake (exit 64), or a request for help (`message == nil`, exit 0).
struct UsageError: Error {
    /// What is wrong, without the `castscope CMD:` prefix; `nil` when help was asked for.
    var message: String?
    /// A close spelling of what was mistyped, shown as `(did you mean '…'?)`.
    var suggestion: String?

    init(message: String?, suggestion: String? = nil) {
        self.message = message
        self.suggestion = suggestion
    }

    init(_ message: String, suggestion: String? = nil) {
        self.init(message: message, suggestion: suggestion)
    }

    /// `-h` or `--help`.
    static let helpRequest = UsageError(message: nil)

    /// The error's one line: `castscope analyze: unknown option '--bogus' (did you mean …?)`.
    func line(command: String?) -> String {
        let prefix = command.map { "castscope \($0): " } ?? "castscope: "
        return prefix + (message ?? "") + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
    }

    /// Prints the mistake the way every command does: its line, the usage line, and where to
    /// read more; three lines, so the line that matters stays on the screen.
    func report(command: String?, usage: String) {
        Output.standardOutput.flush()
        let help = command.map { "castscope \($0) --help" } ?? "castscope --help"
        Output.standardError.write(line(command: command) + "\n" + usage + "\nSee '\(help)'.\n")
        Output.standardError.flush()
    }
}

extension CommandSpec {
    /// The parsed options, or the exit after printing: the help on standard output for
    /// `--help` (exit 0), or the three-line usage error on standard error (exit 64).
    func parseOrExit(_ arguments: [String]) -> Result<Options, ExitStatusError> {
        switch parse(arguments) {
        case .success(let options):
            return .success(options)
        case .failure(let error) where error.message == nil:
            Output.standardOutput.write(Help.text(info))
            return .failure(ExitStatusError(status: .success))
        case .failure(let error):
            error.report(command: name, usage: Help.shortUsage(info))
            return .failure(ExitStatusError(status: .usage))
        }
    }
}
