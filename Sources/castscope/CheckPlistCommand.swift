/// `castscope check-plist` (being written; see issue 4).
enum CheckPlistCommand {
    static func run(_ arguments: [String]) -> ExitStatus {
        printError("check-plist: not available yet")
        return .software
    }
}
