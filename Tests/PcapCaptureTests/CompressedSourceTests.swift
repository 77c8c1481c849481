import Foundation
import PcapCapture
import Testing

// gzip, zstd and lz4 through CompressedSource: exact bytes, several frames, pipes, buffers of
// every size, damage, streams that stop, bombs.

typealias CS = CompressionSupport

@Suite("Compressed sources")
struct CompressedSourceTests {
    static let formats = Compression.allCases

    /// Every capture of the project, compressed by the format's own command, opened by magic
    /// bytes from a file, gives back exactly its bytes.
    @Test(arguments: formats)
    func everyCaptureDecompressesToItsBytes(_ format: Compression) throws {
        let files = CaptureTestSupport.captureFiles()
        #expect(files.count > 30)
        do {
            for file in files {
                let original = Array(try Data(contentsOf: URL(fileURLWithPath: CaptureTestSupport.path(file))))
                let compressed = try CS.compress(original, format, options: ["-9"])
                let (source, found) = try CompressedSource.open(try CS.fileSource(compressed))
                #expect(found == format, "\(file)")
                let (bytes, error) = CS.drain(source)
                #expect(error == nil, "\(file): \(error?.message ?? "")")
                CS.expectSame(bytes, original, file)
                #expect(source.bytesConsumed == Int64(compressed.count), "\(file)")
            }
        }
    }

    /// 12 MiB of capture-like bytes (several input buffers and zstd windows), compressed once.
    static let big = CS.captureLike(12 << 20)
    static let bigCompressed = Dictionary(
        uniqueKeysWithValues: formats.map { ($0, try! CS.compress(big, $0)) })
    static let medium = Array(big.prefix(3 << 20))
    static let mediumCompressed = Dictionary(
        uniqueKeysWithValues: formats.map { ($0, try! CS.compress(medium, $0)) })
    static let small = Array(big.prefix(300_000))
    static let smallCompressed = Dictionary(
        uniqueKeysWithValues: formats.map { ($0, try! CS.compress(small, $0)) })

    /// Read with buffers from 1 byte to 64 MiB.
    @Test(arguments: formats, [1, 3, 4096, 65_537, 4 << 20, 64 << 20])
    func anyBufferSize(_ format: Compression, bufferSize: Int) throws {
        let original = bufferSize < 4096 ? Self.small : Self.big
        let compressed = (bufferSize < 4096 ? Self.smallCompressed : Self.bigCompressed)[format]!
        let (source, found) = try CompressedSource.open(CS.fileSource(compressed))
        #expect(found == format)
        let (bytes, error) = CS.drain(source, bufferSize: bufferSize)
        #expect(error == nil)
        #expect(bytes.count == original.count)
        CS.expectSame(bytes, original)
    }

    /// `cat a.gz b.gz` (and two zstd or lz4 frames, skippable frames between and in front) is
    /// one stream: both parts, in order.
    @Test(arguments: formats)
    func severalFramesInARow(_ format: Compression) throws {
        let a = CS.captureLike(700_000, seed: 2)
        let b = CS.captureLike(300_000, seed: 3)
        var compressed = try CS.compress(a, format) + CS.compress(b, format)
        if format != .gzip {
            let skippable: [UInt8] = [0x5A, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5]
            compressed = skippable + compressed + skippable + (try CS.compress([], format))
        }
        let source = try CompressedSource.open(CS.fileSource(compressed))
        #expect(source.compression == format)
        let (bytes, error) = CS.drain(source.source, bufferSize: 65_536)
        #expect(error == nil)
        CS.expectSame(bytes, a + b)
    }

    /// A skippable frame in front of lz4 data is looked past: lz4, not zstd.
    @Test func skippableFrameBeforeLZ4() throws {
        let data = CS.captureLike(10_000)
        let compressed = [0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 9, 9, 9] + (try CS.compress(data, .lz4))
        let source = try CompressedSource.open(CS.fileSource(compressed))
        #expect(source.compression == .lz4)
        CS.expectSame(CS.drain(source.source).bytes, data)
    }

    /// Standard input is a pipe: the magic bytes come one at a time, and are chosen on anyway.
    @Test(arguments: formats, [1, 4096])
    func fromAPipe(_ format: Compression, chunk: Int) throws {
        let original = chunk == 1 ? Self.small : Self.big
        let compressed = (chunk == 1 ? Self.smallCompressed : Self.bigCompressed)[format]!
        let (source, found) = try CompressedSource.open(CS.pipeSource(compressed, chunk: chunk))
        #expect(found == format)
        let (bytes, error) = CS.drain(source)
        #expect(error == nil)
        CS.expectSame(bytes, original)
    }

    /// Bytes that are not compressed go through untouched, from a pipe too; the empty input too.
    @Test(arguments: [[], [0xD4, 0xC3], Array(CS.captureLike(100_000))])
    func uncompressedPassesThrough(_ original: [UInt8]) throws {
        let (source, found) = try CompressedSource.open(CS.pipeSource(original, chunk: 1))
        #expect(found == nil)
        CS.expectSame(CS.drain(source).bytes, original)
    }

    /// Damage in the middle of the stream: an error naming the format and the library's words,
    /// neither "ended early" nor the limit, after the bytes before the damage.
    @Test(arguments: formats)
    func damagedData(_ format: Compression) throws {
        let original = CS.captureLike(1 << 20, seed: 5)
        var compressed = try CS.compress(original, format)
        for k in 0..<64 { compressed[compressed.count / 2 + k] ^= 0x5A }
        let (bytes, error) = CS.drain(
            try CompressedSource.decompressing(MemorySource(compressed), as: format), bufferSize: 4096)
        let e = try #require(error)
        #expect(e.message.hasPrefix("\(format.rawValue) data is corrupt: "), "\(e.message)")
        #expect(!e.endedEarly && !e.limitReached)
        #expect(original.starts(with: bytes.prefix(original.count / 4)))
    }

    /// Read into one large buffer, a stream damaged three quarters in still gives the bytes
    /// before the damage first (zlib reports the damage in the call that wrote them).
    @Test(arguments: formats)
    func bytesBeforeTheDamageComeFirst(_ format: Compression) throws {
        var compressed = Self.bigCompressed[format]!
        for k in 0..<32 { compressed[compressed.count * 3 / 4 + k] ^= 0x5A }
        let source = try CompressedSource.decompressing(MemorySource(compressed), as: format)
        let (bytes, error) = CS.drain(source, bufferSize: 64 << 20)
        #expect(error != nil)
        #expect(bytes.count >= Self.big.count / 2, "\(bytes.count) bytes before \(error?.message ?? "")")
        CS.expectSame(Array(bytes.prefix(Self.big.count / 2)), Array(Self.big.prefix(Self.big.count / 2)))
    }

    /// zlib reports damage in the same call that wrote the bytes before it: in a small file all
    /// of them. They are handed over before the error.
    @Test func gzipBytesBeforeTheDamageInTheSameCall() throws {
        let original = Array(
            try Data(contentsOf: URL(fileURLWithPath: CaptureTestSupport.path("captures/fragmented.pcap"))))
        var compressed = try CS.compress(original, .gzip)
        #expect(compressed.count < 64 << 10)  // one read of compressed input, one call of inflate
        for k in 0..<32 { compressed[compressed.count * 3 / 4 + k] ^= 0x5A }
        let (bytes, error) = CS.drain(
            try CompressedSource.decompressing(MemorySource(compressed), as: .gzip), bufferSize: 4 << 20)
        #expect(error?.message.hasPrefix("gzip data is corrupt") == true)
        #expect(bytes.count >= original.count / 2)
        CS.expectSame(Array(bytes.prefix(original.count / 2)), Array(original.prefix(original.count / 2)))
    }

    /// A stream that simply stops (a killed `tcpdump -w - | gzip`): every byte the format's own
    /// command gets out of it is delivered, then `endedEarly`.
    @Test(arguments: formats, [0.3, 0.999])
    func streamEndsEarly(_ format: Compression, kept: Double) throws {
        let original = Self.medium
        let compressed = Self.mediumCompressed[format]!
        let cut = Array(compressed.prefix(Int(Double(compressed.count) * kept)))
        let (bytes, error) = CS.drain(try CompressedSource.open(CS.pipeSource(cut, chunk: 65_536)).source)
        let e = try #require(error)
        #expect(e.endedEarly, "\(e.message)")
        #expect(e.message == "\(format.rawValue) data ends early (the file is cut off)")
        #expect(original.starts(with: bytes))
        let reference = try CS.reference(cut, format)
        #expect(bytes.count >= reference.count, "\(bytes.count) bytes delivered, \(reference.count) by the command")
        // Only the cut's last, unfinished part (a zstd or lz4 block at most) is missing.
        #expect(bytes.count >= Int(Double(original.count) * kept) - (4 << 20))
    }

    /// The gzip member's trailer cut off: all the data is there, and yet it ended early.
    @Test func gzipTrailerCut() throws {
        let original = CS.captureLike(100_000)
        let compressed = try CS.compress(original, .gzip)
        let (bytes, error) = CS.drain(
            try CompressedSource.decompressing(MemorySource(Array(compressed.dropLast(3))), as: .gzip))
        CS.expectSame(bytes, original)
        #expect(error?.endedEarly == true)
    }

    /// After a complete gzip member, bytes that start no other member are ignored, as gzip and
    /// zcat do; zstd and lz4 report them after the data, as their commands do.
    @Test(arguments: formats, [[0, 0, 0, 0], Array("garbage!".utf8), [0x1F]])
    func trailingBytes(_ format: Compression, trailer: [UInt8]) throws {
        let original = CS.captureLike(50_000)
        let compressed = try CS.compress(original, format) + trailer
        let (bytes, error) = CS.drain(try CompressedSource.decompressing(MemorySource(compressed), as: format))
        CS.expectSame(bytes, original)
        if format == .gzip {
            #expect(error == nil)
        } else {
            #expect(error?.message.hasPrefix("\(format.rawValue) data is corrupt") == true)
        }
    }

    /// A second gzip member that starts with the magic number but is damaged is an error (gzip:
    /// "unknown method"), not trailing bytes.
    @Test func damagedSecondMember() throws {
        let original = CS.captureLike(50_000)
        let compressed = try CS.compress(original, .gzip) + [0x1F, 0x8B, 0x77, 0, 0, 0, 0, 0, 0, 3]
        let (bytes, error) = CS.drain(try CompressedSource.decompressing(MemorySource(compressed), as: .gzip))
        CS.expectSame(bytes, original)
        #expect(error?.message == "gzip data is corrupt: unknown compression method")
    }

    /// Zeros expand 255 (lz4), 1,030 (gzip) and 30,000 times (zstd): the standard limit stops
    /// them after 64 MiB, saying so.
    @Test(arguments: formats)
    func decompressionBomb(_ format: Compression) throws {
        // 200 MiB: lz4's 255 times pass its limit (220) only past 64 MiB of output.
        let compressed = try CS.run([
            "sh", "-c", "head -c 200M /dev/zero | " + CS.command(format).joined(separator: " "),
        ])
        var count = 0
        var zeros = true
        let zero = [UInt8](repeating: 0, count: 1 << 20)
        let error = CS.scan(try CompressedSource.decompressing(MemorySource(compressed), as: format)) { chunk in
            count += chunk.count
            zeros = zeros && memcmp(chunk.baseAddress!, zero, chunk.count) == 0
        }
        let e = try #require(error)
        #expect(e.limitReached)
        #expect(!e.endedEarly)
        #expect(
            e.message.contains(
                "\(format.rawValue) data expands more than \(DecompressionLimit.standard(for: format).ratio) times"),
            "\(e.message)")
        #expect(e.message.contains("decompression bomb") && e.message.contains("decompress it first"))
        #expect(count > 64 << 20 && count < 80 << 20)
        #expect(zeros)
    }

    /// A broadcast storm (one 1514-byte frame looped, 80 MiB) is the most repetitive capture
    /// people have: it expands 140 to 540 times, and reads to its end.
    @Test(arguments: formats)
    func aStormIsNoBomb(_ format: Compression) throws {
        let storm = """
            import random, struct, sys
            random.seed(1)
            frame = bytes(random.getrandbits(8) for _ in range(1514))
            out = sys.stdout.buffer
            out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
            t = 1_800_000_000_000_000
            for i in range(55000):
                t += 13 + (i * 7919) % 97
                out.write(struct.pack('<IIII', t // 1000000, t % 1000000, 1514, 1514) + frame)
            """
        let compressed = try CS.run(
            ["sh", "-c", "python3 -c \"$0\" | " + CS.command(format).joined(separator: " "), storm])
        var count = 0
        let error = CS.scan(try CompressedSource.decompressing(MemorySource(compressed), as: format)) {
            count += $0.count
        }
        #expect(error == nil, "\(error?.message ?? "")")
        #expect(count == 24 + 55000 * 1530)
        #expect(count / compressed.count > 100)
    }

    /// A limit of its own: stops just past the ratio, once the minimum output is written.
    @Test func limitIsTheRatioPastTheMinimum() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let compressed = try CS.compress(zeros, .gzip)
        let limit = DecompressionLimit(ratio: 10, minimumOutput: 1 << 20)
        let (bytes, error) = CS.drain(
            try CompressedSource.decompressing(MemorySource(compressed), as: .gzip, limit: limit), bufferSize: 4096)
        #expect(error?.limitReached == true)
        #expect(bytes.count > 1 << 20 && bytes.count <= (1 << 20) + 8192)
        // Generous enough, the same stream reads to its end.
        let generous = DecompressionLimit(ratio: 2000, minimumOutput: 1 << 20)
        let whole = CS.drain(try CompressedSource.decompressing(MemorySource(compressed), as: .gzip, limit: generous))
        #expect(whole.error == nil && whole.bytes.count == zeros.count)
    }

    /// zstd frames that want a window over 8 MiB (`--long`) are refused with advice, not read
    /// with 128 MiB of memory.
    @Test func zstdLongWindowRefused() throws {
        let data = CS.captureLike(1 << 20)
        // From standard input the size is unknown, so the frame keeps its 128 MiB window.
        let compressed = try CS.run(["zstd", "-q", "-c", "--long=27"], input: data)
        let (_, error) = CS.drain(try CompressedSource.decompressing(MemorySource(compressed), as: .zstd))
        let e = try #require(error)
        #expect(e.message.hasPrefix("zstd data needs a window larger than 8 MiB"), "\(e.message)")
        #expect(e.message.contains("decompress it first"))
        // What zstd -19 writes is read.
        let nineteen = try CS.run(["zstd", "-q", "-c", "-19"], input: data)
        CS.expectSame(CS.drain(try CompressedSource.decompressing(MemorySource(nineteen), as: .zstd)).bytes, data)
    }

    /// After an error every further read throws it again, and nothing more comes out.
    @Test func errorsStay() throws {
        let compressed = Array(try CS.compress(CS.captureLike(100_000), .zstd).prefix(5000))
        let source = try CompressedSource.decompressing(MemorySource(compressed), as: .zstd)
        let first = CS.drain(source)
        #expect(first.error?.endedEarly == true)
        let again = CS.drain(source)
        #expect(again.bytes.isEmpty && again.error == first.error)
    }

    /// One layer is read: a gzip'd gzip file decompresses to gzip data.
    @Test func oneLayerOnly() throws {
        let inner = try CS.compress(CS.captureLike(10_000), .gzip)
        let outer = try CS.compress(inner, .zstd)
        let (source, found) = try CompressedSource.open(CS.fileSource(outer))
        #expect(found == .zstd)
        let bytes = CS.drain(source).bytes
        CS.expectSame(bytes, inner)
        #expect(FileKind.describe(Array(bytes.prefix(64))).hasPrefix("gzip data inside another compressed layer"))
    }

    @Test func detect() {
        #expect(CompressedSource.detect([0x1F, 0x8B, 8]) == .gzip)
        #expect(CompressedSource.detect([0x28, 0xB5, 0x2F, 0xFD]) == .zstd)
        #expect(CompressedSource.detect([0x5F, 0x2A, 0x4D, 0x18]) == .zstd)
        #expect(CompressedSource.detect([0x04, 0x22, 0x4D, 0x18]) == .lz4)
        #expect(CompressedSource.detect([0xD4, 0xC3, 0xB2, 0xA1]) == nil)
        #expect(CompressedSource.detect([0x1F]) == nil)
        #expect(CompressedSource.detect([]) == nil)
    }
}
