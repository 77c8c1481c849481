/// `castscope extract` (being written; see issue 4).
enum ExtractCommand {
    static func run(_ arguments: [String]) -> ExitStatus {
        printError("extract: not available yet")
        return .software
    }
}
