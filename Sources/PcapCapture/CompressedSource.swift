// Choosing a decompressor by the first bytes of a file, never by its name (`capture.pcap.gz`
// may be plain, `-` has no name at all): gzip, zstd or lz4, one layer.

/// Chooses how to read a capture file's bytes from its first bytes: straight through, or
/// through a gzip, zstd or lz4 decompressor.
public enum CompressedSource {
    /// Compressed bytes read from the file at a time, 64 KiB (a pipe's size): 256 KiB and 1 MiB
    /// were no faster and cost their size in resident memory (docs/fuzzing.md, "Compressed
    /// captures").
    static let inputSize = 64 << 10

    /// Looks at the first bytes of `raw` (and puts them back) and returns the source to read
    /// the capture from, with the compression found (`nil`: none).
    public static func open(_ raw: FileDescriptorSource) throws(ByteSourceError) -> (
        source: any ByteSource, compression: Compression?
    ) {
        var prefix = try peek(raw, adding: 4, to: [])
        var compression = detect(prefix)
        // A skippable frame (zstd's and lz4's alike) says nothing: look past it, within 64 KiB.
        var frame = 0
        while compression == .zstd && isSkippableFrame(prefix, at: frame) {
            prefix = try peek(raw, adding: frame + 8 - prefix.count, to: prefix)
            guard prefix.count >= frame + 8 else { break }
            let size = (0..<4).reduce(0) { $0 | Int(prefix[frame + 4 + $1]) << (8 * $1) }
            let next = frame + 8 + size
            guard next + 4 <= 64 << 10 else { break }
            prefix = try peek(raw, adding: next + 4 - prefix.count, to: prefix)
            guard prefix.count >= next + 4 else { break }
            if prefix[next..<next + 4].elementsEqual([0x04, 0x22, 0x4D, 0x18]) { compression = .lz4 }
            frame = next
        }
        raw.unread(prefix)
        guard let compression else { return (raw, nil) }
        return (try decompressing(raw, as: compression), compression)
    }

    /// The compression whose magic number starts `prefix` (a skippable frame counts as zstd).
    public static func detect(_ prefix: [UInt8]) -> Compression? {
        if prefix.starts(with: [0x1F, 0x8B]) { return .gzip }
        if prefix.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) || isSkippableFrame(prefix, at: 0) { return .zstd }
        if prefix.starts(with: [0x04, 0x22, 0x4D, 0x18]) { return .lz4 }
        return nil
    }

    /// `inner`'s bytes decompressed as `compression`, expanding at most as `limit` allows
    /// (by default the format's ``DecompressionLimit/standard(for:)``).
    public static func decompressing(
        _ inner: any ByteSource, as compression: Compression, limit: DecompressionLimit? = nil
    ) throws(ByteSourceError) -> any ByteSource {
        let limit = limit ?? .standard(for: compression)
        return switch compression {
        case .gzip: DecompressingSource(inner, decoder: try GzipDecoder(), limit: limit, inputSize: inputSize)
        case .zstd: DecompressingSource(inner, decoder: try ZstdDecoder(), limit: limit, inputSize: inputSize)
        case .lz4: DecompressingSource(inner, decoder: try LZ4Decoder(), limit: limit, inputSize: inputSize)
        }
    }

    /// Magic 0x184D2A50…0x184D2A5F, little-endian.
    private static func isSkippableFrame(_ p: [UInt8], at offset: Int) -> Bool {
        p.count >= offset + 4 && p[offset] & 0xF0 == 0x50 && p[offset + 1] == 0x2A && p[offset + 2] == 0x4D
            && p[offset + 3] == 0x18
    }

    /// `bytes` and up to `count` more read from `raw` (fewer only at its end: a pipe may
    /// return them a few at a time).
    private static func peek(_ raw: FileDescriptorSource, adding count: Int, to bytes: [UInt8])
        throws(ByteSourceError) -> [UInt8]
    {
        var out = bytes
        guard count > 0 else { return out }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { chunk.deallocate() }
        var have = 0
        while have < count {
            let n = try raw.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[have...]))
            if n == 0 { break }
            have += n
        }
        out += UnsafeRawBufferPointer(rebasing: chunk[..<have])
        return out
    }
}
