import Pipeline

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The progress line on standard error: bytes read of the total, packets, rate and ETA.
///
/// Drawn only when standard error is a terminal, not with `--quiet`, and only once reading
/// has taken more than a second; erased when reading ends.
struct ProgressLine {
    let enabled: Bool
    let started = ProgressLine.seconds()
    var drawn = false
    var lastDraw = 0.0

    /// Seconds before the line first appears (`CASTSCOPE_PROGRESS_AFTER` overrides it, for tests).
    let delay: Double

    init(quiet: Bool) {
        enabled = !quiet && isatty(2) == 1
        delay = environmentValue("CASTSCOPE_PROGRESS_AFTER").flatMap(Double.init) ?? 1
    }

    static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Redraws the line if it is due (at most 5 times a second).
    mutating func update(_ parts: [ReadProgress]) {
        guard enabled else { return }
        let now = Self.seconds()
        let elapsed = now - started
        guard elapsed > delay, now - lastDraw >= 0.2 else { return }
        lastDraw = now
        let bytes = parts.reduce(Int64(0)) { $0 + $1.bytes.load(ordering: .relaxed) }
        let packets = parts.reduce(0) { $0 + $1.packets.load(ordering: .relaxed) }
        let totals = parts.map(\.total)
        var line = "castscope: "
        if !totals.contains(where: { $0 == nil }) {
            let total = totals.reduce(Int64(0)) { $0 + $1! }
            let fraction = total > 0 ? Double(bytes) / Double(total) : 0
            line += "\(Int(fraction * 100))% \(Self.megabytes(bytes)) of \(Self.megabytes(total)) MB, "
            if fraction > 0.01 {
                line += "ETA \(Int((elapsed / fraction - elapsed).rounded())) s, "
            }
        } else {
            line += "\(Self.megabytes(bytes)) MB, "
        }
        line += "\(packets) packets, \(Int(Double(packets) / elapsed / 1000))k packets/s"
        let text = "\r" + line + "\u{1B}[K"
        _ = text.withCString { write(2, $0, strlen($0)) }
        drawn = true
    }

    /// Erases the line.
    mutating func finish() {
        guard drawn else { return }
        let clear = "\r\u{1B}[K"
        _ = clear.withCString { write(2, $0, strlen($0)) }
        drawn = false
    }

    static func megabytes(_ b: Int64) -> String {
        let tenths = b * 10 / 1_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// An environment variable's value, or `nil`.
func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
