import CastDiscovery

/// Plain or coloured (ANSI SGR) terminal text: the colours `castscope analyze --color` puts on
/// the verdict line and the severity headings. Plain is the default, and adds nothing.
public struct TextStyle: Hashable, Sendable {
    /// Whether escape sequences are written.
    public var colored: Bool

    public init(colored: Bool) { self.colored = colored }

    /// No escape sequences: files, pipes, golden outputs.
    public static let plain = TextStyle(colored: false)

    /// The verdict line in the colour of the worst finding (green when there is none to worry about).
    func verdict(_ line: String, _ verdict: Verdict) -> String {
        switch verdict.status {
        case .fail: paint(line, "1;31")
        case .warn: paint(line, "1;33")
        case .ok: paint(line, "1;32")
        }
    }

    /// A severity heading (`ERRORS`) in its colour.
    func heading(_ text: String, _ severity: Severity) -> String {
        switch severity {
        case .error: paint(text, "1;31")
        case .warning: paint(text, "1;33")
        case .info: paint(text, "1;36")
        }
    }

    private func paint(_ text: String, _ sgr: String) -> String {
        colored ? "\u{1B}[\(sgr)m\(text)\u{1B}[0m" : text
    }
}
