/// A bounds-checked reader over borrowed bytes.
///
/// A cursor never owns memory: it reads from an `UnsafeRawBufferPointer` that the caller keeps
/// alive (usually libpcap's packet buffer, valid only for the duration of one callback). Every
/// read checks its bounds and throws a ``DecodeError`` that carries the absolute byte offset of
/// the failure, so that a report can point at the exact byte in Wireshark.
///
/// `base` is the position of `bytes[0]` within the enclosing frame; sub-cursors created with
/// ``readSlice(_:)`` inherit it, so offsets in errors are always frame-relative.
public struct ByteCursor {
    /// The borrowed bytes this cursor reads.
    public let bytes: UnsafeRawBufferPointer
    /// The read position, relative to `bytes`.
    public var offset: Int
    /// The position of `bytes[0]` within the frame, used to report frame-relative offsets.
    public let base: Int

    /// Creates a cursor over `bytes`, starting at `offset`.
    /// - Parameters:
    ///   - bytes: borrowed memory; it must outlive the cursor.
    ///   - offset: where reading starts, relative to `bytes`.
    ///   - base: the frame-relative position of `bytes[0]` (0 for a whole frame).
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, base: Int = 0) {
        self.bytes = bytes
        self.offset = offset
        self.base = base
    }

    /// The number of bytes left to read.
    @inlinable public var remaining: Int { bytes.count &- offset }
    /// Whether every byte has been read.
    @inlinable public var isAtEnd: Bool { offset >= bytes.count }
    /// The frame-relative position of the next byte to read.
    @inlinable public var position: Int { base &+ offset }
    /// The total number of bytes this cursor spans.
    @inlinable public var count: Int { bytes.count }

    @inlinable @inline(__always)
    func require(_ n: Int) throws(DecodeError) {
        guard n >= 0, n <= remaining else {
            throw .truncated(offset: position, needed: n, available: Swift.max(remaining, 0))
        }
    }

    /// Reads one byte.
    @inlinable @inline(__always)
    public mutating func readUInt8() throws(DecodeError) -> UInt8 {
        try require(1)
        defer { offset &+= 1 }
        return bytes[offset]
    }

    /// Reads a big-endian 16-bit integer.
    @inlinable @inline(__always)
    public mutating func readUInt16() throws(DecodeError) -> UInt16 {
        try require(2)
        defer { offset &+= 2 }
        return UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    /// Reads a big-endian 32-bit integer.
    @inlinable @inline(__always)
    public mutating func readUInt32() throws(DecodeError) -> UInt32 {
        try require(4)
        defer { offset &+= 4 }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Reads a big-endian 64-bit integer.
    @inlinable
    public mutating func readUInt64() throws(DecodeError) -> UInt64 {
        try require(8)
        defer { offset &+= 8 }
        return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Reads a little-endian 16-bit integer (radiotap, PKTAP).
    @inlinable
    public mutating func readUInt16LE() throws(DecodeError) -> UInt16 {
        try require(2)
        defer { offset &+= 2 }
        return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    /// Reads a little-endian 32-bit integer (radiotap, PKTAP).
    @inlinable
    public mutating func readUInt32LE() throws(DecodeError) -> UInt32 {
        try require(4)
        defer { offset &+= 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Returns the byte at `offset + ahead` without moving, or `nil` past the end.
    @inlinable
    public func peekUInt8(ahead: Int = 0) -> UInt8? {
        let at = offset &+ ahead
        guard ahead >= 0, at < bytes.count else { return nil }
        return bytes[at]
    }

    /// Returns the big-endian 16-bit integer at `offset + ahead` without moving, or `nil`.
    @inlinable
    public func peekUInt16(ahead: Int = 0) -> UInt16? {
        let at = offset &+ ahead
        guard ahead >= 0, at &+ 2 <= bytes.count else { return nil }
        return UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }

    /// Skips `n` bytes.
    @inlinable @inline(__always)
    public mutating func skip(_ n: Int) throws(DecodeError) {
        try require(n)
        offset &+= n
    }

    /// Returns a cursor over the next `n` bytes and moves past them. No bytes are copied.
    @inlinable
    public mutating func readSlice(_ n: Int) throws(DecodeError) -> ByteCursor {
        try require(n)
        defer { offset &+= n }
        return ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset &+ n)]), base: position)
    }

    /// A cursor over every byte not read yet; this cursor does not move.
    @inlinable
    public var rest: ByteCursor {
        let start = Swift.min(offset, bytes.count)
        return ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[start...]), base: base &+ start)
    }

    /// A cursor over the first `n` unread bytes (clamped to what is there); this cursor does not move.
    @inlinable
    public func prefix(_ n: Int) -> ByteCursor {
        let start = Swift.min(offset, bytes.count)
        let end = Swift.min(start &+ Swift.max(n, 0), bytes.count)
        return ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), base: base &+ start)
    }

    /// Copies the next `n` bytes into a new array and moves past them.
    @inlinable
    public mutating func readBytes(_ n: Int) throws(DecodeError) -> [UInt8] {
        try require(n)
        defer { offset &+= n }
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset &+ n)]))
    }

    /// Copies every unread byte into a new array; the cursor does not move.
    public func copyRest() -> [UInt8] {
        guard offset < bytes.count else { return [] }
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }
}

/// Runs `body` with a cursor over `array`, carrying the typed error out of the closure.
///
/// `Array.withUnsafeBytes` is `rethrows` and erases typed throws, so the error is tunnelled
/// through a `Result`.
@inlinable
public func withCursor<T>(
    over array: [UInt8], base: Int = 0, _ body: (inout ByteCursor) throws(DecodeError) -> T
) throws(DecodeError) -> T {
    let result: Result<T, DecodeError> = array.withUnsafeBytes { raw in
        var cursor = ByteCursor(raw, base: base)
        do throws(DecodeError) {
            return .success(try body(&cursor))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
