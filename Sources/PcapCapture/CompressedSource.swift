/// Chooses how to read a capture file's bytes from its first bytes: straight through, or
/// through a gzip, zstd or lz4 decompressor.
public enum CompressedSource {
    /// Looks at the first bytes of `raw` (and puts them back) and returns the source to read
    /// the capture from, with the compression found (`nil`: none).
    public static func open(_ raw: FileDescriptorSource) throws(ByteSourceError) -> (
        source: any ByteSource, compression: Compression?
    ) {
        (raw, nil)  // TODO(issue 14): gzip, zstd, lz4 by magic bytes
    }
}

/// Names what a file that is not a capture looks like, from its first bytes, for the one-line
/// error (`its first bytes look like HTML`).
public enum FileKind {
    /// A short description: `an empty file`, `gzip data`, `text`, `HTML`, `bytes 12 34 56 78`…
    public static func describe(_ prefix: [UInt8]) -> String {
        prefix.isEmpty ? "an empty file" : "bytes " + prefix.prefix(8).map { hex($0) }.joined(separator: " ")
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
