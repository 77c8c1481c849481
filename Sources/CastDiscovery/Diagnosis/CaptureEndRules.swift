import WireFormat

// A query the capture ends right after proves nothing about the network.
extension Diagnosis {
    /// How long a capture must go on after a query for its silence to count as unanswered:
    /// answers come within 20–120 ms, 400–500 ms after a query with TC (RFC 6762 §6), so one
    /// second leaves room for a slow responder and a loaded network.
    public static let answerWaitSeconds = 1.0

    /// Whether the capture that holds `query` goes on for ``answerWaitSeconds`` after it.
    static func captureGoesOn(after query: QueryOutcome, _ context: DiagnosisContext) -> Bool {
        let captures = context.report.captures
        guard query.frame.capture < captures.count, let end = captures[query.frame.capture].end else { return true }
        return end.seconds(since: query.time) >= answerWaitSeconds
    }

    /// QUERY_AT_CAPTURE_END (note), instead of QUERIES_UNANSWERED or CLIENT_NOT_ANSWERED: every
    /// Cast query the client sent came less than ``answerWaitSeconds`` before the capture
    /// ended (zeek's home-multicast-short.pcap: the query is the last frame), so the capture
    /// cannot show whether a device would have answered.
    static func queriedAtCaptureEnd(_ context: DiagnosisContext, _ c: ClientContext) -> Finding? {
        guard !c.queries.isEmpty, !c.queries.contains(where: { captureGoesOn(after: $0, context) }) else { return nil }
        let last = c.queries.max { $0.time < $1.time }!
        let captures = context.report.captures
        let left =
            last.frame.capture < captures.count ? captures[last.frame.capture].end?.seconds(since: last.time) : nil
        let when = left.map { "\(Wording.duration(milliseconds: $0 * 1000)) after" } ?? "right after"
        return Finding(
            code: .queryAtCaptureEnd, severity: .info,
            title: "The capture ends \(when) \(c.address)'s Cast "
                + (c.queryCount == 1 ? "query" : "queries") + ": too soon to tell whether a device answers",
            detail: "\(c.address) asked for Cast devices \(Wording.times(c.queryCount)), the last time "
                + "\(when) the end of the capture. Devices answer within about 120 ms, but the capture does "
                + "not show the next \(Wording.duration(milliseconds: answerWaitSeconds * 1000)), so the "
                + "silence proves nothing.",
            advice: "Capture for a few seconds more after pressing the Cast button (a sender asks again "
                + "after 1 and 3 s).",
            frames: c.queryFrames, subjects: c.subject)
    }
}
