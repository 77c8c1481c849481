import CastDiscovery
import Pipeline

/// `--fail-on warning|error`, shared by `analyze` and `report`: exit 1 when a finding of that
/// severity or worse exists. Without the option, findings never change the exit status.
enum FailOn {
    /// The option's help.
    static let help =
        "Exit 1 when a finding of LEVEL (warning or error) or worse exists; without it, findings do not "
        + "change the exit status."

    /// The values the option accepts.
    static let levels = ["warning", "error"]

    /// Parses the option's value: `warning` or `error`.
    static func parse(_ value: String) -> Result<Severity, UsageError> {
        switch value {
        case "error": .success(.error)
        case "warning": .success(.warning)
        default:
            .failure(
                UsageError(
                    "--fail-on needs warning or error, not '\(value)'",
                    suggestion: Suggest.closest(to: value, among: levels)))
        }
    }

    /// Whether a finding of `threshold` or worse exists.
    static func triggered(_ findings: [Finding], threshold: Severity) -> Bool {
        findings.contains { $0.severity <= threshold }
    }

    /// The exit status to return: `status` when it already reports a failure or when no
    /// threshold was set; otherwise 1 if a finding reaches the threshold, else 0.
    static func status(_ status: ExitStatus, findings: [Finding], threshold: Severity?) -> ExitStatus {
        guard status == .success, let threshold, triggered(findings, threshold: threshold) else { return status }
        return .failure
    }
}
