import WireFormat

/// How numbers, lists, times and option names are written in English text, in one place for
/// the findings and the reports so that they always agree (no Foundation: no locale).
public enum Wording {
    // MARK: Counts

    /// `1 query`, `2 queries`: the number and the noun (the plural is `singular + "s"`
    /// unless given).
    public static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) " + noun(n, singular, plural)
    }

    /// `query` for one, `queries` otherwise (the plural is `singular + "s"` unless given).
    public static func noun(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        n == 1 ? singular : plural ?? singular + "s"
    }

    // MARK: Lists

    /// `a`, `a and b`, `a, b and c`; `ifEmpty` for no items.
    public static func list(_ items: [String], ifEmpty: String = "") -> String {
        switch items.count {
        case 0: ifEmpty
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
        }
    }

    /// `a, b, c`, at most `maximum` items, the rest counted: `a, b and 3 more`.
    public static func capped(_ items: [String], maximum: Int) -> String {
        guard items.count > maximum else { return items.joined(separator: ", ") }
        return items.prefix(maximum).joined(separator: ", ") + " and \(items.count - maximum) more"
    }

    /// ``list(_:ifEmpty:)`` for at most `maximum` items, ``capped(_:maximum:)`` beyond (a flood
    /// of fake names must not make one sentence megabytes long).
    public static func cappedList(_ items: [String], maximum: Int, ifEmpty: String = "") -> String {
        items.count > maximum ? capped(items, maximum: maximum) : list(items, ifEmpty: ifEmpty)
    }

    // MARK: Numbers and durations

    /// `v` with `places` decimals (half away from zero), no exponent, no minus sign on a zero;
    /// `0` when not finite, and clamped to ±9·10¹⁷ units of the last place.
    public static func decimal(_ v: Double, places: Int) -> String {
        guard v.isFinite else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let n = Int64(Swift.min(abs(v) * Double(scale), 9e17).rounded())
        let sign = v < 0 && n != 0 ? "-" : ""
        if places == 0 { return sign + String(n) }
        let fraction = String(n % scale)
        return sign + "\(n / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `once`, `twice`, `3 times`: how often something happened.
    public static func times(_ n: Int) -> String {
        switch n {
        case 1: "once"
        case 2: "twice"
        default: "\(n) times"
        }
    }

    /// A duration for people, from milliseconds: `0.9 ms`, `104 ms`, `1.25 s`, `12.5 s` below a
    /// minute; then whole units, largest first: `1 min 05 s`, `1 h 05 min 54 s`, `45 days`,
    /// `2 days 03 h` (a capture's length; latencies are written in ms by the tables).
    public static func duration(milliseconds ms: Double) -> String {
        guard ms.isFinite else { return "0 ms" }
        let sign = ms < 0 ? "-" : ""
        let ms = abs(ms)
        if ms < 10 { return sign + decimal(ms, places: 1) + " ms" }
        if ms < 1000 { return sign + decimal(ms, places: 0) + " ms" }
        if ms < 59_950 { return sign + decimal(ms / 1000, places: ms < 10_000 ? 2 : 1) + " s" }
        let total = Int64(Swift.min(ms / 1000, 9e15).rounded())
        let (days, hours, minutes, seconds) = (total / 86400, total / 3600 % 24, total / 60 % 60, total % 60)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : String(v) }
        if days > 0 { return sign + count(Int(days), "day") + (hours > 0 ? " \(two(hours)) h" : "") }
        if hours > 0 { return sign + "\(hours) h \(two(minutes)) min \(two(seconds)) s" }
        return sign + "\(minutes) min \(two(seconds)) s"
    }

    // MARK: Times

    /// The time of day in UTC to the millisecond, `23:40:01.123` (milliseconds truncated).
    public static func clock(_ t: Timestamp) -> String {
        // Bytes, not interpolation: reports write one clock time per latency row.
        let second = ((t.seconds % 86400) + 86400) % 86400
        let millis = Int64(Swift.min(Swift.max(t.nanoseconds, 0), 999_999_999)) / 1_000_000
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        func digits(_ v: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(0x30 + v / divisor % 10))
                divisor /= 10
            }
        }
        digits(second / 3600, 2)
        bytes.append(0x3A)
        digits(second / 60 % 60, 2)
        bytes.append(0x3A)
        digits(second % 60, 2)
        bytes.append(0x2E)
        digits(millis, 3)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``clock(_:)`` of a time in seconds since the epoch.
    public static func clock(epochSeconds t: Double) -> String { clock(Timestamp(epochSeconds: t)) }

    // MARK: Options

    /// How the command line spells the option of a setting: `--max-devices` for
    /// `max-devices`. Text that points the user to an option names it through this.
    public static func option(_ name: String) -> String { "--" + name }
}
