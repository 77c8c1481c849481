import Pipeline
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-o FILE` for the commands that print as they go (`dump`, `check-plist`): standard output
/// is pointed at the file, so the printing code stays the same.
enum OutputFile {
    /// Refuses an output file that is one of the inputs: opening it would empty the input
    /// before it is read.
    static func checkNotInput(_ output: String?, _ inputs: [String]) throws(UsageError) {
        guard let output, output != "-" else { return }
        var out = stat()
        guard stat(output, &out) == 0 else { return }
        for path in inputs where path != "-" {
            var input = stat()
            if stat(path, &input) == 0, input.st_dev == out.st_dev, input.st_ino == out.st_ino {
                throw UsageError("the output file \(output) is also an input")
            }
        }
    }

    /// Makes `path` (created or emptied) the standard output; `nil` or `-` leaves it alone.
    /// - Returns: `nil`, or the exit status after printing why the file cannot be written.
    static func redirectStandardOutput(to path: String?) -> ExitStatus? {
        guard let path, path != "-" else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        guard fd >= 0, dup2(fd, 1) >= 0 else {
            printError("cannot write \(path): \(String(cString: strerror(errno)))")
            return .cannotCreate
        }
        close(fd)
        return nil
    }
}
