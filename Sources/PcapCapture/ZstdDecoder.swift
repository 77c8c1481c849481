// Zstandard (RFC 8878) through libzstd: frames one after another, skippable frames skipped
// (libzstd does both); bytes after the last frame that are no frame are an error, as with the
// zstd command.

import CZstd

/// Decodes Zstandard frames with libzstd's streaming decoder.
final class ZstdDecoder: StreamDecoder {
    static let format = Compression.zstd
    /// The largest window accepted, 2^23 = 8 MiB: what `zstd -19` uses and below, so that the
    /// whole process stays under 32 MiB. `--long` and `--ultra` files ask for up to 128 MiB
    /// (libzstd's default limit) and are refused with advice.
    static let windowLogMax: Int32 = 23
    private let stream: OpaquePointer

    init() throws(ByteSourceError) {
        guard let stream = ZSTD_createDStream() else {
            throw ByteSourceError(message: "zstd: libzstd could not start (out of memory)")
        }
        self.stream = stream
        ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, Self.windowLogMax)
    }

    deinit { ZSTD_freeDStream(stream) }

    func decode(
        _ input: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, capacity: Int
    ) -> DecodeStep {
        var source = ZSTD_inBuffer(src: input, size: count, pos: 0)
        var destination = ZSTD_outBuffer(dst: output, size: capacity, pos: 0)
        let result = ZSTD_decompressStream(stream, &destination, &source)
        var step = DecodeStep(consumed: source.pos, produced: destination.pos, frameEnded: false)
        if ZSTD_isError(result) != 0 {
            let code = ZSTD_getErrorCode(result)
            let words = String(cString: ZSTD_getErrorName(result))
            if code == ZSTD_error_frameParameter_windowTooLarge {
                step.error = ByteSourceError(
                    message: "zstd data needs a window larger than \(1 << (Self.windowLogMax - 20)) MiB (\(words): "
                        + "made with --long or --ultra); decompress it first (zstd -dc --long=31 FILE >FILE.pcap)")
            } else {
                step.error = ByteSourceError(message: "zstd data is corrupt: \(words)")
            }
        } else {
            // 0: a frame is decoded and flushed; the next call starts the next frame.
            step.frameEnded = result == 0
        }
        return step
    }

    func startNextFrame(_ next: UnsafeRawPointer, count: Int, ended: Bool) -> NextFrame {
        frameStart(next, count: count, ended: ended, magic: [0x28, 0xB5, 0x2F, 0xFD])
    }
}
