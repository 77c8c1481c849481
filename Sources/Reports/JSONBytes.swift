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
        state.initialize(to: State(base: .allocate(capacity: capacity), count: 0, capacity: capacity))
    }

    deinit {
        state.pointee.base.deallocate()
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

    private func grow(_ n: Int) {
        let capacity = Swift.max(state.pointee.capacity * 2, state.pointee.count + n)
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        base.update(from: state.pointee.base, count: state.pointee.count)
        state.pointee.base.deallocate()
        state.pointee.base = base
        state.pointee.capacity = capacity
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
}
