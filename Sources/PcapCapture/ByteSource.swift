// Where a capture's bytes come from: a file descriptor, or a decompressor over one. The reader
// (CaptureFile) pulls bytes into one large buffer it reuses, so every source fills the
// caller's memory rather than handing out its own.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stream of capture bytes read into the caller's buffer.
public protocol ByteSource: AnyObject {
    /// Fills the start of `buffer` with the next bytes of the stream.
    /// - Returns: how many bytes were written: at least one unless the stream has ended (0).
    /// - Throws: ``ByteSourceError`` when the underlying file cannot be read or a compressed
    ///   stream is damaged or expands past the decompression limit.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteSourceError) -> Int
    /// Bytes taken from the underlying file so far (compressed bytes for a compressed file):
    /// progress against the file's size.
    var bytesConsumed: Int64 { get }
}

/// Why a ``ByteSource`` could not go on.
public struct ByteSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in words for the user (`gzip data is corrupt: invalid distance`).
    public var message: String
    /// Whether the stream was stopped by the decompression limit rather than by damage.
    public var limitReached: Bool
    /// Whether a compressed stream simply stops early (a capture piped through gzip and
    /// killed): the reader reports the file as cut off, not as damaged.
    public var endedEarly: Bool

    public init(message: String, limitReached: Bool = false, endedEarly: Bool = false) {
        self.message = message
        self.limitReached = limitReached
        self.endedEarly = endedEarly
    }

    public var description: String { message }
}

/// A compression format recognised by its magic bytes.
public enum Compression: String, Hashable, Sendable, CaseIterable {
    /// gzip (RFC 1952), several members in a row included (`tcpdump -z gzip`, `gzip -c a b`).
    case gzip
    /// Zstandard frames (RFC 8878), skippable frames included.
    case zstd
    /// LZ4 frame format.
    case lz4
}

/// Reads a file descriptor with `read(2)`, after handing back bytes already read from it (the
/// magic bytes looked at to choose a decompressor or a format; standard input cannot seek).
public final class FileDescriptorSource: ByteSource {
    /// The descriptor read.
    public let descriptor: Int32
    private let closesDescriptor: Bool
    private var pending: [UInt8]
    private var pendingOffset = 0
    public private(set) var bytesConsumed: Int64 = 0

    /// - Parameters:
    ///   - descriptor: an open descriptor.
    ///   - closes: whether to close it when the source goes away.
    ///   - prefix: bytes already read from it, returned first.
    public init(descriptor: Int32, closes: Bool, prefix: [UInt8] = []) {
        self.descriptor = descriptor
        closesDescriptor = closes
        pending = prefix
        bytesConsumed = Int64(prefix.count)
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// Puts bytes back in front of the stream (the reader's look at the magic number).
    public func unread(_ bytes: [UInt8]) {
        pending = bytes + pending[pendingOffset...]
        pendingOffset = 0
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteSourceError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if pendingOffset < pending.count {
            let n = min(buffer.count, pending.count - pendingOffset)
            pending.withUnsafeBytes { p in
                base.copyMemory(from: p.baseAddress! + pendingOffset, byteCount: n)
            }
            pendingOffset += n
            if pendingOffset == pending.count {
                pending = []
                pendingOffset = 0
            }
            return n
        }
        while true {
            let n = Glibc.read(descriptor, base, buffer.count)
            if n >= 0 {
                bytesConsumed += Int64(n)
                return n
            }
            if errno == EINTR { continue }
            throw ByteSourceError(message: String(cString: strerror(errno)))
        }
    }
}
