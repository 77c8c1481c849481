// Pipeline: running the analysis. Opens the capture sources (files, standard input, several
// files merged by time, live interfaces), drives decode → track → diagnose, and hands back
// finished values (an AnalysisReport, the frames to extract, live events) for a front end to
// render. It prints nothing itself: errors and warnings go to the caller as Notices, and the
// outcome as an ExitStatus, so the command line, tests and fuzzers call the same entry points.

/// How a run ended, in sysexits(3) terms: what the command line exits with.
public enum ExitStatus: Int32, Sendable, Comparable {
    case success = 0
    /// A finding reached `--fail-on`, or a check failed.
    case failure = 1
    case usage = 64
    /// A file is not a readable capture, or has an unsupported link type.
    case dataError = 65
    /// A file does not exist or cannot be opened.
    case noInput = 66
    case unavailable = 69
    case software = 70
    /// An output file cannot be created or written.
    case cannotCreate = 73
    case ioError = 74
    case noPermission = 77

    public static func < (a: ExitStatus, b: ExitStatus) -> Bool { a.rawValue < b.rawValue }
}

/// A message for the user from a run: an error that stopped part of it, or a warning about
/// what was read. The text is one sentence without the program's name.
public struct Notice: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case error, warning
    }
    public var kind: Kind
    public var text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// An error notice.
    public static func error(_ text: String) -> Notice { Notice(.error, text) }
    /// A warning notice.
    public static func warning(_ text: String) -> Notice { Notice(.warning, text) }
}

/// Where a run sends its notices, as they happen (the command line prints them on standard
/// error; tests collect them).
public typealias NoticeSink = (Notice) -> Void

/// An exit status carried as an error.
public struct ExitStatusError: Error, Sendable {
    public var status: ExitStatus
    public init(status: ExitStatus) { self.status = status }
}
