#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input copied to a private temporary file, for a command that must read a capture
/// twice (`compare` reads it once to line it up, and again to analyse it as before and after).
/// The file is created with `mkstemp` (mode 0600) in `$TMPDIR` or `/tmp` and removed by
/// ``remove()``.
public struct StandardInputSpool {
    public let path: String

    /// Copies standard input to the file.
    /// - Returns: the spool, or the exit status after sending the error to `notices` (73 when
    ///   no temporary file can be made, 74 on a read or write error).
    public static func make(notices: NoticeSink) -> Result<StandardInputSpool, ExitStatusError> {
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/castscope-stdin.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            notices(.error("cannot make a temporary file in \(directory) for standard input"))
            return .failure(ExitStatusError(status: .cannotCreate))
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                unlink(path)
                notices(.error("standard input: read error"))
                return .failure(ExitStatusError(status: .ioError))
            }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, n - written) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else {
                    unlink(path)
                    notices(.error("cannot write standard input to \(path)"))
                    return .failure(ExitStatusError(status: .ioError))
                }
                written += w
            }
        }
        return .success(StandardInputSpool(path: path))
    }

    /// Removes the file.
    public func remove() { unlink(path) }
}
