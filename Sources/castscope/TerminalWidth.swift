import Reports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TextWidth {
    /// The layout for text written to `path` (`nil` or `-`: standard output). A file gets
    /// ``TextWidth/file``. Standard output gets the width in `COLUMNS` when it holds a number
    /// (so a pipe can ask for a width too), else the terminal's width (`TIOCGWINSZ`) when it
    /// is a terminal, else 80 columns for a terminal that does not say; a pipe without
    /// `COLUMNS` gets ``TextWidth/file``: tables as wide as their cells, nothing wrapped in them.
    static func forOutput(_ path: String?) -> TextWidth {
        guard path == nil || path == "-" else { return .file }
        if let text = environmentValue("COLUMNS"), let columns = Int(text), columns > 0 {
            return .terminal(columns)
        }
        guard isatty(1) != 0 else { return .file }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return .terminal(Int(size.ws_col)) }
        return .terminal(80)
    }
}
