// gzip (RFC 1952) through zlib: one member after another, as `cat a.gz b.gz` and `gzip -c a b`
// write them; after the last member, bytes that do not start another are ignored, as gzip and
// zcat do ("decompression OK, trailing garbage ignored": the data before them is whole).

import CZlib

/// Inflates gzip members with zlib.
final class GzipDecoder: StreamDecoder {
    static let format = Compression.gzip
    /// 15 (the largest window) + 16: gzip framing only, no zlib or raw deflate.
    private static let windowBits: Int32 = 15 + 16
    private let stream: UnsafeMutablePointer<z_stream>

    init() throws(ByteSourceError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = castscope_inflateInit2(stream, Self.windowBits)
        guard status == Z_OK else {
            stream.deallocate()
            throw ByteSourceError(message: "gzip: zlib could not start (\(Self.describe(status)))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    func decode(
        _ input: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, capacity: Int
    ) -> DecodeStep {
        let inCount = UInt32(clamping: count)
        let outCount = UInt32(clamping: capacity)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = inCount
        stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = outCount
        let status = inflate(stream, Z_NO_FLUSH)
        var step = DecodeStep(
            consumed: Int(inCount - stream.pointee.avail_in), produced: Int(outCount - stream.pointee.avail_out),
            frameEnded: status == Z_STREAM_END)
        switch status {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR:  // Z_BUF_ERROR: no progress possible, input wanted
            return step
        case Z_DATA_ERROR, Z_NEED_DICT:
            step.error = ByteSourceError(message: "gzip data is corrupt: \(message(status))")
        default:
            step.error = ByteSourceError(message: "gzip: zlib failed: \(message(status))")
        }
        return step
    }

    func startNextFrame(_ next: UnsafeRawPointer, count: Int, ended: Bool) -> NextFrame {
        guard count >= 2 else { return ended ? .trailingBytes : .needMoreBytes }
        guard next.load(as: UInt8.self) == 0x1F, next.load(fromByteOffset: 1, as: UInt8.self) == 0x8B else {
            return .trailingBytes
        }
        inflateReset(stream)
        return .frame
    }

    /// zlib's own words for what went wrong (`invalid distance too far back`), else its code's.
    private func message(_ status: Int32) -> String {
        if let text = stream.pointee.msg { return String(cString: text) }
        return Self.describe(status)
    }

    private static func describe(_ status: Int32) -> String {
        if let text = zError(status) { return String(cString: text) }
        return "zlib error \(status)"
    }
}
