import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Growable UTF-8 bytes for ``JSONWriter``: appends are a bounds check and a store or a copy.
///
/// Its state sits behind a pointer rather than in stored `var`s of the class, which Swift
/// would check for exclusive access on every append. The writer copies it before writing when
/// another writer shares it, so writers stay values.
final class JSONBytes {
    private struct State {
        var base: UnsafeMutablePointer<UInt8>
        var count: Int
        var capacity: Int
    }

    private let state: UnsafeMutablePointer<State>

    init(capacity: Int = 4096) {
        state = .allocate(capacity: 1)
        let capacity = Swift.max(capacity, 1)
        state.initialize(to: State(base: Self.reallocate(nil, capacity), count: 0, capacity: capacity))
    }

    deinit {
        free(state.pointee.base)
        state.deallocate()
    }

    /// The bytes written so far.
    var array: [UInt8] { Array(UnsafeBufferPointer(start: state.pointee.base, count: state.pointee.count)) }

    /// A copy with the same bytes.
    func copy() -> JSONBytes {
        let c = JSONBytes(capacity: Swift.max(state.pointee.capacity, 1))
        c.append(UnsafeRawBufferPointer(start: state.pointee.base, count: state.pointee.count))
        return c
    }

    /// Room for `n` more bytes, the pointer to write them at.
    @inline(__always)
    private func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if state.pointee.count + n > state.pointee.capacity { grow(n) }
        return state.pointee.base + state.pointee.count
    }

    // realloc, not allocate-copy-free: a report of megabytes grows by doubling, and the C
    // allocator moves a large block by remapping its pages instead of copying them.
    private func grow(_ n: Int) {
        let capacity = Swift.max(state.pointee.capacity * 2, state.pointee.count + n)
        state.pointee.base = Self.reallocate(state.pointee.base, capacity)
        state.pointee.capacity = capacity
    }

    private static func reallocate(_ base: UnsafeMutablePointer<UInt8>?, _ capacity: Int) -> UnsafeMutablePointer<UInt8>
    {
        guard let grown = realloc(base, capacity) else { fatalError("out of memory for \(capacity) bytes of JSON") }
        return grown.assumingMemoryBound(to: UInt8.self)
    }

    /// Calls `body` with the bytes written so far (valid only during the call).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: state.pointee.base, count: state.pointee.count))
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        state.pointee.count += 1
    }

    /// `byte` `count` times (indentation).
    @inline(__always)
    func append(_ byte: UInt8, count: Int) {
        guard count > 0 else { return }
        reserve(count).update(repeating: byte, count: count)
        state.pointee.count += count
    }

    /// Two bytes (`": "` after a key).
    @inline(__always)
    func append(_ a: UInt8, _ b: UInt8) {
        let p = reserve(2)
        p[0] = a
        p[1] = b
        state.pointee.count += 2
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0 else { return }
        UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: from, byteCount: bytes.count)
        state.pointee.count += bytes.count
    }

    @inline(__always)
    func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// `v` in decimal (as ``TimeFormat/appendDecimal(_:width:to:)`` writes it with width 1).
    @inline(__always)
    func appendDecimal(_ v: Int64) {
        var magnitude = v.magnitude
        let length = TimeFormat.digitCount(magnitude) + (v < 0 ? 1 : 0)
        let p = reserve(length)
        if v < 0 { p.pointee = 0x2D }
        var i = length - 1
        repeat {
            p[i] = UInt8(0x30 + magnitude % 10)
            magnitude /= 10
            i -= 1
        } while magnitude > 0
        state.pointee.count += length
    }

    /// `t` as a JSON string, as ``TimeFormat/appendRFC3339Micro(_:to:)`` writes it between
    /// quotes: 29 bytes written in place for a year of four digits (the report has one per
    /// query), the general formatter for any other.
    func appendQuotedRFC3339Micro(_ t: Timestamp) {
        let days = t.seconds >= 0 ? t.seconds / 86400 : (t.seconds - 86399) / 86400
        let secondOfDay = t.seconds - days * 86400
        let (y, m, d) = TimeFormat.civil(days)
        let micro = Int64(t.nanoseconds) / 1000
        guard (0...9999).contains(y), (0...999_999).contains(micro) else {
            var text: [UInt8] = [0x22]
            TimeFormat.appendRFC3339Micro(t, to: &text)
            text.append(0x22)
            return append(text)
        }
        let p = reserve(29)
        @inline(__always) func digits(_ v: Int64, at end: Int, count: Int) {
            var v = v
            var i = end
            for _ in 0..<count {
                p[i] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                v /= 10
                i -= 1
            }
        }
        p[0] = 0x22
        digits(y, at: 4, count: 4)
        p[5] = 0x2D
        digits(Int64(m), at: 7, count: 2)
        p[8] = 0x2D
        digits(Int64(d), at: 10, count: 2)
        p[11] = 0x54
        digits(secondOfDay / 3600, at: 13, count: 2)
        p[14] = 0x3A
        digits(secondOfDay / 60 % 60, at: 16, count: 2)
        p[17] = 0x3A
        digits(secondOfDay % 60, at: 19, count: 2)
        p[20] = 0x2E
        digits(micro, at: 26, count: 6)
        p[27] = 0x5A
        p[28] = 0x22
        state.pointee.count += 29
    }

    /// `ms` as ``AnalysisJSON/appendMilliseconds(_:to:)`` writes it: microseconds rounded,
    /// three decimals.
    func appendMilliseconds(_ ms: Double) {
        // Clamped so that no value (a timestamp far off in a hostile capture) can overflow.
        let micro = Int64(Swift.min(Swift.max((ms * 1000).rounded(), -9e18), 9e18))
        if micro < 0 { append(0x2D) }
        let m = Int64(micro.magnitude)
        appendDecimal(m / 1000)
        let fraction = m % 1000
        let p = reserve(4)
        p[0] = 0x2E
        p[1] = UInt8(truncatingIfNeeded: 0x30 + fraction / 100)
        p[2] = UInt8(truncatingIfNeeded: 0x30 + fraction / 10 % 10)
        p[3] = UInt8(truncatingIfNeeded: 0x30 + fraction % 10)
        state.pointee.count += 4
    }
}
