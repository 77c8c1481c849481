import Pipeline
import Reports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Buffered writing to a file descriptor (standard output or error), without Foundation's
/// per-call overhead.
final class Output: @unchecked Sendable {  // used from the main thread only
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let threshold = 1 << 16

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(threshold * 2)
    }

    /// Appends text; flushes when the buffer is large.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= threshold { flush() }
    }

    /// Appends UTF-8 bytes; flushes when the buffer is large.
    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= threshold { flush() }
    }

    /// Writes everything buffered.
    func flush() {
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    break
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    static let standardOutput = Output(descriptor: 1)
    static let standardError = Output(descriptor: 2)
}

/// Prints `castscope: message` on standard error.
func printError(_ message: String) {
    Output.standardOutput.flush()
    Output.standardError.write("castscope: \(message)\n")
    Output.standardError.flush()
}

/// Prints a pipeline notice: an error as `castscope: text`, a warning as `castscope: warning:
/// text` with anything that could drive the terminal made visible.
func printNotice(_ notice: Notice) {
    switch notice.kind {
    case .error: printError(notice.text)
    case .warning: printError("warning: " + TerminalText.sanitize(notice.text))
    }
}

/// Flushes output and exits.
func finish(_ status: ExitStatus) -> Never {
    Output.standardOutput.flush()
    Output.standardError.flush()
    exit(status.rawValue)
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#else
    private let systemWrite = Darwin.write
#endif
