/// The one-line verdict of an analysis: how many findings of each severity, in words. Shared
/// by the terminal, Markdown and HTML renderings so they always agree.
public struct Verdict: Hashable, Sendable {
    /// The worst severity found, or `nil` when there are no findings at all.
    public var worst: Severity?
    public var errors: Int
    public var warnings: Int
    public var notes: Int

    public init(_ findings: [Finding]) {
        errors = findings.filter { $0.severity == .error }.count
        warnings = findings.filter { $0.severity == .warning }.count
        notes = findings.filter { $0.severity == .info }.count
        worst = findings.map(\.severity).min()
    }

    /// `Discovery failed: 2 errors, 1 warning`, `Discovery works, with problems: 1 warning`
    /// or `No problems found` (with the number of notes, if any).
    public var headline: String {
        if errors > 0 {
            var s = "Discovery failed: " + Wording.count(errors, "error")
            if warnings > 0 { s += ", " + Wording.count(warnings, "warning") }
            return s
        }
        if warnings > 0 { return "Discovery works, with problems: " + Wording.count(warnings, "warning") }
        if notes > 0 { return "No problems found (" + Wording.count(notes, "note") + ")" }
        return "No problems found"
    }

    /// The verdict as one line for a terminal: `FAIL`, `WARN` or `OK`, the headline, and the
    /// title of the most severe finding.
    public func line(_ findings: [Finding]) -> String {
        let tag = errors > 0 ? "FAIL" : warnings > 0 ? "WARN" : "OK"
        guard let first = findings.min(by: { $0.severity < $1.severity }), first.severity != .info else {
            return "\(tag): \(headline)"
        }
        return "\(tag): \(headline). First: \(first.title)"
    }

    /// `error`, `warning` or `ok`: the colour of the verdict.
    public var level: String {
        if errors > 0 { return "error" }
        if warnings > 0 { return "warning" }
        return "ok"
    }
}
