// pcapng timestamps: a 64-bit count of units whose size each interface chooses (`if_tsresol`:
// a negative power of 10 or of 2 of a second), plus a whole-second offset (`if_tsoffset`).

import WireFormat

/// How one interface's raw pcapng timestamps become ``Timestamp`` values.
struct TimestampScale: Hashable {
    /// Units per second: 10^k or 2^k.
    let unitsPerSecond: UInt64
    /// Nanoseconds per unit when a unit is a whole number of nanoseconds (10^k, k ≤ 9), else 0.
    let nanosecondsPerUnit: UInt64
    /// `if_tsoffset`: seconds added to every timestamp.
    var offsetSeconds: Int64 = 0

    /// The default resolution, microseconds (no `if_tsresol`).
    static let microseconds = TimestampScale(unitsPerSecond: 1_000_000)
    /// Classic nanosecond pcap.
    static let nanoseconds = TimestampScale(unitsPerSecond: 1_000_000_000)

    init(unitsPerSecond: UInt64) {
        self.unitsPerSecond = unitsPerSecond
        nanosecondsPerUnit =
            unitsPerSecond <= 1_000_000_000 && 1_000_000_000 % unitsPerSecond == 0 ? 1_000_000_000 / unitsPerSecond : 0
    }

    /// The scale an `if_tsresol` byte gives: the top bit chooses base 2, the rest is the
    /// exponent. `nil` past 2^-63 or 10^-19, whose units per second do not fit in 64 bits
    /// (Wireshark rejects those too: "IDB power-of-2 time stamp resolution %u > 63").
    init?(resolution byte: UInt8) {
        let exponent = Int(byte & 0x7F)
        if byte & 0x80 != 0 {
            guard exponent <= 63 else { return nil }
            self.init(unitsPerSecond: UInt64(1) << UInt64(exponent))
        } else {
            guard exponent <= 19 else { return nil }
            var units: UInt64 = 1
            for _ in 0..<exponent { units &*= 10 }
            self.init(unitsPerSecond: units)
        }
    }

    /// `raw` units after the epoch (and the offset), truncated to the nanosecond as Wireshark
    /// does; seconds that do not fit are clamped rather than trapping.
    @inline(__always)
    func timestamp(_ raw: UInt64) -> Timestamp {
        let seconds = raw / unitsPerSecond
        let remainder = raw % unitsPerSecond
        let nanoseconds: UInt64
        if nanosecondsPerUnit != 0 {
            nanoseconds = remainder &* nanosecondsPerUnit
        } else {
            // remainder < unitsPerSecond, so the quotient is below 10^9: no overflow, no trap.
            let product = remainder.multipliedFullWidth(by: 1_000_000_000)
            nanoseconds = unitsPerSecond.dividingFullWidth(product).quotient
        }
        let (shifted, overflow) = Int64(clamping: seconds).addingReportingOverflow(offsetSeconds)
        let wholeSeconds = overflow ? (offsetSeconds < 0 ? Int64.min / 2 : Int64.max / 2) : shifted
        return Timestamp(seconds: wholeSeconds, nanoseconds: Int64(nanoseconds))
    }
}
