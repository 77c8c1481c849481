import CastDiscovery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading an iOS app's Info.plist from a file or standard input, for `check-plist` and
/// `analyze --plist`.
public enum InfoPlistFile {
    /// The largest file read (an Info.plist is a few KB).
    public static let maximumBytes = 16 << 20

    /// Reads and parses an Info.plist (`-` is standard input).
    /// - Returns: the parsed file, or the exit status after sending the error to `notices`:
    ///   66 when it cannot be read, 65 when it is too large to be one.
    public static func load(_ path: String, notices: NoticeSink) -> Result<InfoPlist, ExitStatusError> {
        let shown = path == "-" ? "standard input" : path
        func fail(_ message: String, _ status: ExitStatus) -> Result<InfoPlist, ExitStatusError> {
            notices(.error(message))
            return .failure(ExitStatusError(status: status))
        }
        let f: UnsafeMutablePointer<FILE>
        if path == "-" {
            guard let input = fdopen(0, "rb") else {
                return fail("open standard input: \(String(cString: strerror(errno)))", .noInput)
            }
            f = input
        } else {
            var info = stat()
            if stat(path, &info) != 0 { return fail("open \(shown): \(String(cString: strerror(errno)))", .noInput) }
            if (info.st_mode & S_IFMT) == S_IFDIR { return fail("open \(shown): is a directory", .noInput) }
            guard let opened = fopen(path, "rb") else {
                return fail("open \(shown): \(String(cString: strerror(errno)))", .noInput)
            }
            f = opened
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { bytes += chunk[0..<n] }
            if bytes.count > maximumBytes {
                return fail("\(shown): larger than \(maximumBytes >> 20) MiB, not an Info.plist", .dataError)
            }
            if n < chunk.count {
                if ferror(f) != 0 { return fail("read \(shown): \(String(cString: strerror(errno)))", .noInput) }
                break
            }
        }
        return .success(InfoPlist(data: bytes))
    }
}
