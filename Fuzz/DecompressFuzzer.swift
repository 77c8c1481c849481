// libFuzzer harness for the gzip, zstd and lz4 decompressors (issue 14): mutated compressed
// streams through `CompressedSource.decompressing` (DecompressingSource and the zlib, libzstd
// and liblz4 decoders), the way a compressed capture is read.
// Built by scripts/fuzz (swiftc -sanitize=fuzzer,address); not part of the Swift package.
//
// Input: the first byte picks the format (bits 0-1: gzip, zstd, lz4, or as
// `CompressedSource.detect` finds it) and how the compressed bytes arrive (bits 2-3: 1, 7 or
// 4096 bytes per read, or all at once); the rest is the stream. The stream is decompressed
// twice, once all at once, once in those pieces: both must end well (with the same output) or
// both fail (one output the start of the other), unless the limit stopped either; the output
// must stay within the limit.

import PcapCapture

/// Small, so a bomb stops within milliseconds: past 1 MiB, at most 300 times the input.
let limit = DecompressionLimit(ratio: 300, minimumOutput: 1 << 20)
let formats: [Compression] = [.gzip, .zstd, .lz4]
let pieces = [1, 7, 4096, Int.max]

/// Everything `stream` decompresses to, read 4 KiB at a time, and the error that ended it.
func decompress(_ stream: [UInt8], as format: Compression, chunk: Int) -> (
    bytes: [UInt8], error: String?, limitReached: Bool
) {
    var out: [UInt8] = []
    do {
        let source = try CompressedSource.decompressing(MemorySource(stream, chunk: chunk), as: format, limit: limit)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return (out, nil, false) }
            precondition(n > 0 && n <= buffer.count, "read returned \(n)")
            out += buffer[0..<n]
        }
    } catch let error as ByteSourceError {
        return (out, "\(error.message) endedEarly=\(error.endedEarly)", error.limitReached)
    } catch {
        preconditionFailure("not a ByteSourceError: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let selector = Int(data[0])
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let format: Compression
    if selector & 3 < 3 {
        format = formats[selector & 3]
    } else {
        guard let found = CompressedSource.detect(Array(stream.prefix(4))) else { return 0 }
        format = found
    }
    // Debian's libzstd is built with legacy support: it also decodes the v0.5-v0.7 formats
    // (magic 0xFD2FB525-27), whose streaming path ends differently from a one-call decode
    // (found by this harness: Fuzz/regressions/decompress/zstd-legacy-v06-magic). castscope never
    // hands it one: a file is zstd only by the v1 magic (CompressedSource.detect), and every
    // later frame must start with it too (frameStart). Only a forced format reaches this.
    if format == .zstd, stream.count >= 4, stream[1] == 0xB5, stream[2] == 0x2F, stream[3] == 0xFD,
        (0x20...0x27).contains(stream[0])
    {
        return 0
    }
    let whole = decompress(stream, as: format, chunk: .max)
    precondition(
        whole.bytes.count <= max(Int(limit.minimumOutput), Int(limit.ratio) * stream.count) + (1 << 20),
        "\(whole.bytes.count) bytes from \(stream.count): past the limit")
    let chunk = pieces[(selector >> 2) & 3]
    if chunk != .max {
        let pieced = decompress(stream, as: format, chunk: chunk)
        // Where (and whether) the limit stops a stream depends on how much input was decoded
        // by then, which the pieces change.
        if whole.limitReached || pieced.limitReached { return 0 }
        // A good stream is good in any pieces, with the same bytes. A damaged one fails both
        // ways, but how much of a damaged block comes out first depends on the pieces: the
        // shorter output is then the start of the longer.
        // libzstd checks a frame's declared content size when it decodes the frame in one
        // call, but its streaming path skips the check when the last block is empty: the same
        // frame fails whole and passes in pieces, which then go on to the frames after it
        // (found by this harness, Fuzz/regressions/decompress/zstd-empty-last-block*; libzstd
        // 1.5.4). What came out whole must still be the start of what came out in pieces.
        if format == .zstd, whole.error?.contains("Data corruption") == true, pieced.error == nil,
            pieced.bytes.starts(with: whole.bytes)
        {
            return 0
        }
        precondition(
            (pieced.error == nil) == (whole.error == nil),
            "\(format) ends differently read \(chunk) bytes at a time: "
                + "\(whole.error ?? "end") vs \(pieced.error ?? "end")")
        if whole.error == nil {
            precondition(pieced.bytes == whole.bytes, "\(format) output differs read \(chunk) bytes at a time")
        } else {
            let n = min(pieced.bytes.count, whole.bytes.count)
            precondition(pieced.bytes[..<n] == whole.bytes[..<n], "\(format) damaged output differs in pieces")
        }
    }
    return 0
}
