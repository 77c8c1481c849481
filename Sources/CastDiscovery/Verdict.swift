/// The one-line verdict of an analysis: how many findings of each severity, in words, and the
/// files that could not be read. Shared by the terminal, JSON, Markdown and HTML renderings so
/// they always agree.
public struct Verdict: Hashable, Sendable {
    /// The worst severity found, or `nil` when there are no findings at all.
    public var worst: Severity?
    public var errors: Int
    public var warnings: Int
    public var notes: Int
    /// The capture files given that could not be read (as the rendering names them).
    public var unreadable: [String]
    /// Whether every error is about the connection phase: the devices were found, and the
    /// sender could not connect to them.
    public var connectionErrorsOnly = false

    /// - Parameter unreadable: the files that could not be read, named as the rendering shows
    ///   them (the HTML report shows file names without their directories).
    public init(_ findings: [Finding], unreadable: [String] = []) {
        errors = findings.filter { $0.severity == .error }.count
        warnings = findings.filter { $0.severity == .warning }.count
        notes = findings.filter { $0.severity == .info }.count
        worst = findings.map(\.severity).min()
        connectionErrorsOnly =
            errors > 0 && findings.allSatisfy { $0.severity != .error || Diagnosis.connectionCodes.contains($0.code) }
        self.unreadable = unreadable
    }

    /// The verdict of a whole report: its findings and its unreadable files.
    public init(_ report: AnalysisReport) {
        self.init(report.findings, unreadable: report.unreadable.map(\.file))
    }

    /// How the analysis came out, as the JSON's `verdict.status` writes it.
    public enum Status: String, Hashable, Sendable {
        /// No error, no warning, every file read.
        case ok
        /// Warnings, or a file that could not be read (the analysis covers less than asked).
        case warn
        /// At least one error.
        case fail
    }

    public var status: Status {
        if errors > 0 { return .fail }
        if warnings > 0 || !unreadable.isEmpty { return .warn }
        return .ok
    }

    /// `Discovery failed: 2 errors, 1 warning` (`Found, but could not connect: 1 error` when
    /// every error is about the connection phase), `Discovery works, with problems: 1 warning`
    /// or `No problems found` (with the number of notes, if any); then, when a file could not
    /// be read, `; 1 capture not read: missing.pcap`.
    public var headline: String {
        var s: String
        if errors > 0 {
            s =
                (connectionErrorsOnly ? "Found, but could not connect: " : "Discovery failed: ")
                + Wording.count(errors, "error")
            if warnings > 0 { s += ", " + Wording.count(warnings, "warning") }
        } else if warnings > 0 {
            s = "Discovery works, with problems: " + Wording.count(warnings, "warning")
        } else if notes > 0 {
            s = "No problems found (" + Wording.count(notes, "note") + ")"
        } else {
            s = "No problems found"
        }
        if !unreadable.isEmpty {
            s +=
                "; " + Wording.count(unreadable.count, "capture") + " not read: "
                + Wording.cappedList(unreadable, maximum: 10)
        }
        return s
    }

    /// The verdict as one line for a terminal: `FAIL`, `WARN` or `OK`, the headline, and the
    /// title of the most severe finding.
    public func line(_ findings: [Finding]) -> String {
        let tag = status.tag
        guard let first = findings.min(by: { $0.severity < $1.severity }) else { return "\(tag): \(headline)" }
        // A note still says what it is: "no problems" alone would hide "no Cast traffic at all".
        return "\(tag): \(headline). \(first.severity == .info ? "Note" : "First"): \(first.title)"
    }

    /// `error`, `warning` or `ok`: the colour of the verdict.
    public var level: String {
        switch status {
        case .fail: "error"
        case .warn: "warning"
        case .ok: "ok"
        }
    }
}

extension Verdict.Status {
    /// `FAIL`, `WARN` or `OK`: how the terminal's verdict line starts.
    public var tag: String {
        switch self {
        case .fail: "FAIL"
        case .warn: "WARN"
        case .ok: "OK"
        }
    }
}
