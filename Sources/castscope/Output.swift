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

    /// Writes `bytes`, after what is buffered; bytes of a buffer's size or more are written
    /// from where they are rather than copied in first.
    func write(raw bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= threshold else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= threshold { flush() }
            return
        }
        flush()
        writeAll(bytes)
    }

    /// Writes everything buffered.
    func flush() {
        buffer.withUnsafeBytes { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes all of `raw` to the descriptor (short writes continued, EINTR retried; another
    /// error, such as a closed pipe, ends it).
    private func writeAll(_ raw: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < raw.count {
            let n = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += n
        }
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
