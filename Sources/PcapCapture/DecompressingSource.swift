// The loop every decompressor shares: compressed bytes from the inner source into a buffer of
// its own, decoded straight into the caller's buffer; several frames (gzip members) in a row;
// a stream that stops early; the decompression limit. The formats themselves (zlib, zstd, lz4)
// are behind `StreamDecoder`, one file each.

/// What one call of a decoder did.
struct DecodeStep {
    /// Compressed bytes taken.
    var consumed: Int
    /// Decompressed bytes written.
    var produced: Int
    /// Whether a frame (a gzip member) ended with this call, its output all written.
    var frameEnded: Bool
    /// What the library found wrong, after taking and writing the bytes above (zlib writes
    /// what it decoded before the damage in the same call that reports it).
    var error: ByteSourceError? = nil
}

/// What the bytes after a finished frame are.
enum NextFrame {
    /// Another frame starts there; the decoder is ready for it.
    case frame
    /// Not a frame: the stream ends, the rest is ignored (gzip's "trailing garbage ignored").
    case trailingBytes
    /// Not a frame, and an error (the zstd and lz4 commands fail on it).
    case notAFrame
    /// Too few bytes to tell (and the stream has not ended).
    case needMoreBytes
}

/// One compression format's decoder, stepped by ``DecompressingSource``.
protocol StreamDecoder: AnyObject {
    /// The format, for messages.
    static var format: Compression { get }
    /// Decodes from `input` into `output` (`capacity` > 0); `count` may be 0 to drain output
    /// the decoder holds. A damaged stream gives a step whose error names the format and the
    /// library's words.
    func decode(
        _ input: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, capacity: Int
    ) -> DecodeStep
    /// After a frame ended: whether `count` bytes at `next` start another one (`ended`: no more
    /// bytes will come), readying the decoder for it if so.
    func startNextFrame(_ next: UnsafeRawPointer, count: Int, ended: Bool) -> NextFrame
}

/// How far a compressed stream may expand before it is taken for a decompression bomb: past
/// ``minimumOutput`` bytes, the output may be at most ``ratio`` times the compressed bytes
/// decoded, so reading a compressed file costs at most `ratio` times its size.
///
/// Measured (docs/fuzzing.md, "Compressed captures"): the project's captures, the external ones
/// and the benchmark captures expand at most 26 times under gzip -9, zstd -19 or lz4 -9; a
/// broadcast storm (one 1514-byte frame repeated, timestamps varying) 145, 537 and 142 times,
/// with 9014-byte frames 140, 1751 and 150 times; a bomb (zeros) 1,030 times in gzip, 255 in
/// lz4 (the format's most) and over 30,000 in zstd. Each format's ``standard(for:)`` limit
/// lies between the storms and the bombs.
public struct DecompressionLimit: Hashable, Sendable {
    /// The most output per compressed byte, once ``minimumOutput`` bytes were written.
    public var ratio: Int64
    /// Output below which the ratio is not checked (small, very repetitive captures).
    public var minimumOutput: Int64

    public init(ratio: Int64, minimumOutput: Int64) {
        self.ratio = ratio
        self.minimumOutput = minimumOutput
    }

    /// The limit a compressed capture is read with: 500 times for gzip, 220 for lz4, 4,000
    /// for zstd, past 64 MiB.
    public static func standard(for format: Compression) -> DecompressionLimit {
        let ratio: Int64 =
            switch format {
            case .gzip: 500
            case .lz4: 220
            case .zstd: 4000
            }
        return DecompressionLimit(ratio: ratio, minimumOutput: 64 << 20)
    }
}

/// A decompressed view of an inner ``ByteSource``.
final class DecompressingSource<Decoder: StreamDecoder>: ByteSource {
    private let inner: any ByteSource
    private let decoder: Decoder
    private let limit: DecompressionLimit
    /// The compressed bytes read from `inner`, `start..<end` not yet decoded.
    private let input: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var innerEnded = false
    /// A frame has ended and nothing of a next one has been decoded.
    private var atFrameBoundary = false
    /// The last decode filled the output: the decoder may hold more before needing input.
    private var decoderMayHoldOutput = false
    private var finished = false
    /// An error met after some output of a read: that output is returned first.
    private var pendingError: ByteSourceError?
    private var compressedDecoded: Int64 = 0
    private var decompressed: Int64 = 0

    /// The output between two checks of the limit: a bomb stops 4 KiB past the minimum output.
    static var limitCheckInterval: Int { 4096 }

    /// Compressed bytes read from the file, less those read ahead and not yet decoded.
    var bytesConsumed: Int64 { inner.bytesConsumed - Int64(end - start) }

    /// - Parameter inputSize: the compressed bytes read from `inner` at a time.
    init(_ inner: any ByteSource, decoder: Decoder, limit: DecompressionLimit, inputSize: Int) {
        self.inner = inner
        self.decoder = decoder
        self.limit = limit
        input = .allocate(byteCount: inputSize, alignment: 16)
    }

    deinit { input.deallocate() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteSourceError) -> Int {
        if let pendingError { throw pendingError }
        guard let output = buffer.baseAddress, buffer.count > 0, !finished else { return 0 }
        var produced = 0
        do throws(ByteSourceError) {
            fill: while produced < buffer.count {
                if start == end && !decoderMayHoldOutput {
                    if innerEnded {
                        if atFrameBoundary {
                            finished = true
                            break fill
                        }
                        throw ByteSourceError(
                            message: "\(Decoder.format.rawValue) data ends early (the file is cut off)",
                            endedEarly: true)
                    }
                    // Give what is decoded before waiting for more (a pipe may be slow).
                    if produced > 0 { break fill }
                    try refill()
                    continue
                }
                if atFrameBoundary && start < end {
                    switch decoder.startNextFrame(input.baseAddress! + start, count: end - start, ended: innerEnded) {
                    case .frame:
                        atFrameBoundary = false
                    case .trailingBytes:
                        finished = true
                        break fill
                    case .notAFrame:
                        let name = Decoder.format.rawValue
                        throw ByteSourceError(
                            message: "\(name) data is corrupt: the bytes after its last frame are no \(name) frame")
                    case .needMoreBytes:
                        if produced > 0 { break fill }
                        try refill()
                        continue
                    }
                }
                // Past the minimum output no step crosses a multiple of ``limitCheckInterval``:
                // the limit is checked where the output reaches one, the same points however the
                // output is asked for (a read-ahead thread asks in other sizes than the reader).
                // Below it steps are not cut (a zstd block decoded whole, as before).
                var room = buffer.count - produced
                if decompressed + Int64(room) > limit.minimumOutput {
                    room = min(room, Self.limitCheckInterval - Int(decompressed % Int64(Self.limitCheckInterval)))
                }
                let step = decoder.decode(
                    input.baseAddress! + start, count: end - start, into: output + produced, capacity: room)
                start += step.consumed
                produced += step.produced
                compressedDecoded += Int64(step.consumed)
                decompressed += Int64(step.produced)
                decoderMayHoldOutput = step.produced == room && !step.frameEnded
                if let error = step.error { throw error }
                if step.frameEnded {
                    atFrameBoundary = true
                } else if step.consumed == 0 && step.produced == 0 && start < end {
                    // Every library takes input it is given when it has room to write; one that
                    // does not would spin here forever.
                    throw ByteSourceError(message: "\(Decoder.format.rawValue) decoder stopped making progress")
                }
                if decompressed % Int64(Self.limitCheckInterval) == 0, decompressed > limit.minimumOutput,
                    decompressed > limit.ratio * compressedDecoded
                {
                    throw limitError()
                }
            }
        } catch {
            guard produced > 0 else {
                pendingError = error
                throw error
            }
            pendingError = error
        }
        return produced
    }

    /// Reads more compressed bytes after those not yet decoded.
    private func refill() throws(ByteSourceError) {
        if start == end {
            start = 0
            end = 0
        } else if end == input.count {
            // Too few bytes to decide on (the start of a next frame): move them to the front.
            (input.baseAddress!).copyMemory(from: input.baseAddress! + start, byteCount: end - start)
            end -= start
            start = 0
        }
        let n = try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: input[end...]))
        if n == 0 { innerEnded = true }
        end += n
    }

    private func limitError() -> ByteSourceError {
        let name = Decoder.format.rawValue
        return ByteSourceError(
            message: "\(name) data expands more than \(limit.ratio) times (\(Self.size(decompressed)) from "
                + "\(Self.size(compressedDecoded))), which no capture does: stopped as a decompression bomb; "
                + "if it really is a capture, decompress it first (\(Self.command(Decoder.format)))",
            limitReached: true)
    }

    static func command(_ format: Compression) -> String {
        switch format {
        case .gzip: "gzip -dc FILE >FILE.pcap"
        case .zstd: "zstd -dc FILE >FILE.pcap"
        case .lz4: "lz4 -dc FILE >FILE.pcap"
        }
    }

    /// `64 MiB`, `1.2 GiB`, `812 KiB`, `40 bytes`.
    static func size(_ bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return (tenths >= 100 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + " " + units[unit]
    }
}

/// Whether `count` bytes at `next` start a frame with `magic` or a skippable frame (zstd and
/// lz4 share those), for decoders whose library would wait for a whole header to say no.
func frameStart(_ next: UnsafeRawPointer, count: Int, ended: Bool, magic: [UInt8]) -> NextFrame {
    guard count >= 4 else { return ended ? .notAFrame : .needMoreBytes }
    let bytes = (0..<4).map { next.load(fromByteOffset: $0, as: UInt8.self) }
    let skippable = bytes[0] & 0xF0 == 0x50 && bytes[1...] == [0x2A, 0x4D, 0x18]
    return bytes == magic || skippable ? .frame : .notAFrame
}
