/// Discovery latencies in fixed buckets, as a Prometheus histogram counts them: from 5 ms (a
/// device on the same switch) to 10 s (a sender gives up long before), so a p90 can be read
/// off by `histogram_quantile` across any number of devices and hosts.
public struct LatencyHistogram: Hashable, Sendable {
    /// Upper bounds of the buckets, in seconds (`le`); a last bucket, `+Inf`, takes the rest.
    public static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Observations per bucket, not cumulative; the last one is `+Inf` alone.
    public private(set) var buckets = [Int](repeating: 0, count: LatencyHistogram.bounds.count + 1)
    /// Sum of every observation, in seconds.
    public private(set) var sum = 0.0
    public private(set) var count = 0

    public init() {}

    /// Counts one latency (seconds); a negative one (clocks) counts as 0.
    public mutating func observe(_ seconds: Double) {
        let value = Swift.max(seconds, 0)
        let index = Self.bounds.firstIndex { value <= $0 } ?? Self.bounds.count
        buckets[index] += 1
        sum += value
        count += 1
    }

    /// Observations at or below each bound, then the total (`+Inf`): what `_bucket` exposes.
    public var cumulative: [Int] {
        var running = 0
        return buckets.map {
            running += $0
            return running
        }
    }
}
