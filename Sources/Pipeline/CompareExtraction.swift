import CastDiscovery

/// One capture's Cast queries and responses, in capture order, for `castscope compare`
/// (issue 18): the messages ``MessageMatcher`` pairs, and what each is.
public struct CompareSide: Sendable {
    /// The file's name as shown to the user.
    public var shownName: String
    public var messages: [ObservedMessage] = []
    /// The kind of each message, index for index.
    public var kinds: [CastMessageKind] = []
    /// Records read.
    public var records = 0
}

/// Reading a capture for `compare`.
public enum CompareExtraction {
    /// Reads `path` (`-` is standard input) and keeps its Cast queries and responses.
    /// - Returns: the side, or the exit status after sending the error to `notices`.
    public static func read(_ path: String, notices: NoticeSink) -> Result<CompareSide, ExitStatusError> {
        switch CaptureRun.open(path, notices: notices) {
        case .failure(let e): return .failure(e)
        case .success(var run):
            var side = CompareSide(shownName: run.shownName)
            let (records, _, notes) = run.forEachPacket { packet in
                guard let kind = CastMessageKind(packet), let message = ObservedMessage(packet) else { return }
                side.messages.append(message)
                side.kinds.append(kind)
            }
            for note in notes { notices(.warning("\(run.shownName): \(note)")) }
            side.records = records
            return .success(side)
        }
    }
}
