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
        do throws(AppInputError) {
            let bytes = try AppInput.readAll(f, shown: shown, limit: maximumBytes, tooLarge: "not an Info.plist")
            return .success(InfoPlist(data: bytes))
        } catch {
            return fail(error.message, error.status)
        }
    }
}
