/// A capture timestamp with nanosecond resolution.
///
/// libpcap is opened with nanosecond precision, so microsecond files simply have
/// `nanoseconds` that are multiples of 1000.
public struct Timestamp: Hashable, Sendable, Comparable {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Nanoseconds within the second, `0..<1_000_000_000`.
    public var nanoseconds: Int32

    /// Creates a timestamp, normalising `nanoseconds` into range.
    public init(seconds: Int64, nanoseconds: Int64) {
        let extra = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        self.seconds = seconds + extra
        self.nanoseconds = Int32(nanoseconds - extra * 1_000_000_000)
    }

    /// The timestamp `t` seconds after the epoch (nanoseconds truncated).
    public init(epochSeconds t: Double) {
        let whole = t.rounded(.down)
        self.init(seconds: Int64(whole), nanoseconds: min(Int64((t - whole) * 1e9), 999_999_999))
    }

    /// Seconds since the epoch as a floating-point number (about a microsecond's precision
    /// for today's dates: enough to line up two captures, not to store one).
    public var epochSeconds: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

    /// Nanoseconds since the epoch (overflows only past the year 2262).
    public var totalNanoseconds: Int64 { seconds &* 1_000_000_000 &+ Int64(nanoseconds) }

    /// Seconds from `earlier` to `self`, as a floating-point number.
    public func seconds(since earlier: Timestamp) -> Double {
        Double(seconds - earlier.seconds) + Double(nanoseconds - earlier.nanoseconds) / 1e9
    }

    /// Nanoseconds from `earlier` to `self`.
    public func nanoseconds(since earlier: Timestamp) -> Int64 {
        (seconds - earlier.seconds) &* 1_000_000_000 &+ Int64(nanoseconds - earlier.nanoseconds)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}
