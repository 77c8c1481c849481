/// `castscope report` (being written; see issue 4).
enum ReportCommand {
    static func run(_ arguments: [String]) -> ExitStatus {
        printError("report: not available yet")
        return .software
    }
}
