import WireFormat

/// Formats capture timestamps without Foundation (no locale, no time zone database: UTC only).
public enum TimeFormat {
    /// Converts days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    static func civil(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? y + 1 : y, m, d)
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// `2026-11-29T23:40:01.123456789Z` (RFC 3339, 9 fractional digits).
    public static func rfc3339(_ t: Timestamp) -> String {
        let (date, time) = parts(t)
        return "\(date)T\(time)Z"
    }

    /// `2026-11-29T23:40:01.123456Z` (RFC 3339, microseconds: the analysis JSON contract).
    public static func rfc3339Micro(_ t: Timestamp) -> String {
        var bytes: [UInt8] = []
        appendRFC3339Micro(t, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``rfc3339Micro(_:)``'s text to UTF-8 `bytes` (the JSON report writes one per
    /// query: made as a `String` it cost about ten times as much).
    static func appendRFC3339Micro(_ t: Timestamp, to bytes: inout [UInt8]) {
        let days = t.seconds >= 0 ? t.seconds / 86400 : (t.seconds - 86399) / 86400
        let secondOfDay = t.seconds - days * 86400
        let (y, m, d) = civil(days)
        appendDecimal(y, width: 4, to: &bytes)
        bytes.append(0x2D)
        appendDecimal(Int64(m), width: 2, to: &bytes)
        bytes.append(0x2D)
        appendDecimal(Int64(d), width: 2, to: &bytes)
        bytes.append(0x54)
        appendDecimal(secondOfDay / 3600, width: 2, to: &bytes)
        bytes.append(0x3A)
        appendDecimal(secondOfDay / 60 % 60, width: 2, to: &bytes)
        bytes.append(0x3A)
        appendDecimal(secondOfDay % 60, width: 2, to: &bytes)
        bytes.append(0x2E)
        // Microseconds: the nanoseconds' first six of nine digits (cut, not rounded).
        appendDecimal(Int64(t.nanoseconds) / 1000, width: 6, to: &bytes)
        bytes.append(0x5A)
    }

    /// `2026-11-29 23:40:01.123456789` (UTC).
    public static func readable(_ t: Timestamp) -> String {
        let (date, time) = parts(t)
        return "\(date) \(time)"
    }

    static func parts(_ t: Timestamp) -> (String, String) {
        let days = t.seconds >= 0 ? t.seconds / 86400 : (t.seconds - 86399) / 86400
        let secondOfDay = t.seconds - days * 86400
        let (y, m, d) = civil(days)
        // Digits written as bytes (reports format one timestamp per query; interpolating and
        // padding strings cost about ten times as much).
        var date = Digits()
        date.append(y, width: 4)
        date.append(0x2D)
        date.append(Int64(m), width: 2)
        date.append(0x2D)
        date.append(Int64(d), width: 2)
        var time = Digits()
        time.append(secondOfDay / 3600, width: 2)
        time.append(0x3A)
        time.append(secondOfDay / 60 % 60, width: 2)
        time.append(0x3A)
        time.append(secondOfDay % 60, width: 2)
        time.append(0x2E)
        time.append(Int64(t.nanoseconds), width: 9)
        return (date.string, time.string)
    }

    /// Decimal text built byte by byte.
    struct Digits {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(24) }

        mutating func append(_ byte: UInt8) { bytes.append(byte) }

        /// `v` in decimal, zero-padded to `width` digits (``TimeFormat/appendDecimal(_:width:to:)``).
        mutating func append(_ v: Int64, width: Int) { TimeFormat.appendDecimal(v, width: width, to: &bytes) }

        var string: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Appends `v` in decimal to UTF-8 `bytes`, zero-padded to `width` digits (a minus sign
    /// first when negative, as ``pad(_:_:)`` writes it: zeros, then the sign, which counts
    /// towards the width). The one digit writer of the reports (timestamps, JSON numbers).
    /// How many decimal digits `magnitude` has (1 for 0): shared by both digit writers.
    @inline(__always)
    static func digitCount(_ magnitude: UInt64) -> Int {
        var count = 0
        var rest = magnitude
        repeat {
            count += 1
            rest /= 10
        } while rest > 0
        return count
    }

    static func appendDecimal(_ v: Int64, width: Int = 1, to bytes: inout [UInt8]) {
        var magnitude = v.magnitude
        let length = TimeFormat.digitCount(magnitude) + (v < 0 ? 1 : 0)
        for _ in length..<Swift.max(width, length) { bytes.append(0x30) }
        if v < 0 { bytes.append(0x2D) }
        let start = bytes.count
        repeat {
            bytes.append(UInt8(0x30 + magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// Seconds since the epoch with 9 decimals: `1764459601.123456789`.
    public static func epoch(_ t: Timestamp) -> String {
        if t.seconds < 0 {
            let total = -t.totalNanoseconds
            return "-\(total / 1_000_000_000).\(pad(total % 1_000_000_000, 9))"
        }
        return "\(t.seconds).\(pad(Int64(t.nanoseconds), 9))"
    }

    /// A signed interval in seconds with 9 decimals: `+0.512345678`, `-1.000000000`.
    public static func relative(_ nanoseconds: Int64, sign: Bool = true) -> String {
        let negative = nanoseconds < 0
        let magnitude = negative ? -nanoseconds : nanoseconds
        let text = "\(magnitude / 1_000_000_000).\(pad(magnitude % 1_000_000_000, 9))"
        return negative ? "-" + text : (sign ? "+" + text : text)
    }
}
