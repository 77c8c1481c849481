// Bytes already in memory as a ByteSource: tests and the fuzzers read captures and compressed
// streams through the same code as files, without writing them out.

/// A ``ByteSource`` over bytes in memory, returned at most `chunk` at a time (a small chunk
/// plays a pipe that delivers a few bytes per read).
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private let chunk: Int
    private var offset = 0
    public var bytesConsumed: Int64 { Int64(offset) }

    public init(_ bytes: [UInt8], chunk: Int = .max) {
        self.bytes = bytes
        self.chunk = max(1, chunk)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteSourceError) -> Int {
        let n = min(buffer.count, chunk, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
        offset += n
        return n
    }
}
