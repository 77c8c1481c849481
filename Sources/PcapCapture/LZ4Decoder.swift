// The LZ4 frame format through liblz4's lz4frame: frames one after another, skippable frames
// skipped (lz4frame does both); bytes after the last frame that are no frame are an error, as
// with the lz4 command. The legacy format (`lz4 -l`) is not the frame format and not read.

import CLZ4

/// Decodes LZ4 frames with liblz4.
final class LZ4Decoder: StreamDecoder {
    static let format = Compression.lz4
    private let context: OpaquePointer

    init() throws(ByteSourceError) {
        var context: OpaquePointer?
        let result = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        guard LZ4F_isError(result) == 0, let context else {
            throw ByteSourceError(
                message: "lz4: liblz4 could not start (\(String(cString: LZ4F_getErrorName(result))))")
        }
        self.context = context
    }

    deinit { LZ4F_freeDecompressionContext(context) }

    func decode(
        _ input: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, capacity: Int
    ) -> DecodeStep {
        var consumed = count
        var produced = capacity
        let result = LZ4F_decompress(context, output, &produced, input, &consumed, nil)
        var step = DecodeStep(consumed: consumed, produced: produced, frameEnded: false)
        if LZ4F_isError(result) != 0 {
            step.error = ByteSourceError(message: "lz4 data is corrupt: \(String(cString: LZ4F_getErrorName(result)))")
        } else {
            // 0: the frame is decoded and flushed; the context is ready for the next one.
            step.frameEnded = result == 0
        }
        return step
    }

    func startNextFrame(_ next: UnsafeRawPointer, count: Int, ended: Bool) -> NextFrame {
        frameStart(next, count: count, ended: ended, magic: [0x04, 0x22, 0x4D, 0x18])
    }
}
