import Foundation
import PcapCapture
import Testing

// Compressed data for the decompression tests, made with the gzip, zstd and lz4 commands (so the
// tests read what users have, not what our own encoder would write), and ways to read it back.

enum CompressionSupport {
    /// The command that compresses to `format` on standard output (level and options after).
    static func command(_ format: Compression) -> [String] {
        switch format {
        case .gzip: ["gzip", "-c"]
        case .zstd: ["zstd", "-q", "-c"]
        case .lz4: ["lz4", "-q", "-c"]
        }
    }

    /// Runs `arguments` with `input` on standard input; returns standard output (and, with
    /// `allowFailure`, whatever it wrote before failing).
    static func run(_ arguments: [String], input: [UInt8] = [], allowFailure: Bool = false) throws -> [UInt8] {
        try CaptureTestSupport.withTemporaryDirectory { dir in
            let inURL = dir.appendingPathComponent("in")
            let outURL = dir.appendingPathComponent("out")
            try Data(input).write(to: inURL)
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.standardInput = try FileHandle(forReadingFrom: inURL)
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            if !allowFailure && process.terminationStatus != 0 {
                throw ProcessFailure(arguments: arguments, status: process.terminationStatus)
            }
            return Array(try Data(contentsOf: outURL))
        }
    }

    struct ProcessFailure: Error, CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var description: String { "\(arguments.joined(separator: " ")) exited \(status)" }
    }

    static func compress(_ bytes: [UInt8], _ format: Compression, options: [String] = []) throws -> [UInt8] {
        try run(command(format) + options, input: bytes)
    }

    /// What the format's own command decompresses from `bytes`, even when it then fails.
    static func reference(_ bytes: [UInt8], _ format: Compression) throws -> [UInt8] {
        let name = command(format)[0]
        return try run([name, "-dc"] + (format == .gzip ? [] : ["-q"]), input: bytes, allowFailure: true)
    }

    /// `count` deterministic bytes that compress like captures (headers repeating, payloads not).
    static func captureLike(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed
        var out: [UInt8] = []
        out.reserveCapacity(count)
        let header: [UInt8] = Array("\u{1}\0^\0\0\u{fb}\u{2}\0\0\0\u{c0}\u{1}\u{8}\0E\0\0\u{9c}".utf8)
        while out.count < count {
            out += header
            for _ in 0..<(40 + Int(state % 200)) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                out.append(UInt8(truncatingIfNeeded: state >> 59))  // 32 values: compressible, not trivially
            }
        }
        return Array(out.prefix(count))
    }

    /// Expects two byte arrays to be equal, saying where they differ (`#expect(a == b)` on
    /// megabytes that differ would spend minutes working out and printing their difference).
    static func expectSame(
        _ got: [UInt8], _ want: [UInt8], _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let common = min(got.count, want.count)
        var first = 0
        got.withUnsafeBytes { a in
            want.withUnsafeBytes { b in
                if common > 0 && memcmp(a.baseAddress!, b.baseAddress!, common) == 0 {
                    first = common
                } else {
                    while first < common && a[first] == b[first] { first += 1 }
                }
            }
        }
        let equal = got.count == want.count && first == common
        #expect(
            equal, "\(comment) got \(got.count) bytes, want \(want.count); first difference at \(first)",
            sourceLocation: sourceLocation)
    }

    /// Reads `source` to its end or its first error, `bufferSize` bytes at a time.
    static func drain(_ source: any ByteSource, bufferSize: Int = 1 << 20) -> (bytes: [UInt8], error: ByteSourceError?)
    {
        var out: [UInt8] = []
        let error = scan(source, bufferSize: bufferSize) { out += $0 }
        return (out, error)
    }

    /// Reads `source` to its end or its first error, handing each read's bytes to `body`.
    static func scan(_ source: any ByteSource, bufferSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void)
        -> ByteSourceError?
    {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            do {
                let n = try source.read(into: buffer)
                if n == 0 { return nil }
                #expect(n <= bufferSize)
                body(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            } catch {
                return error
            }
        }
    }

    /// A FileDescriptorSource over a file holding `bytes` (removed once open).
    static func fileSource(_ bytes: [UInt8]) throws -> FileDescriptorSource {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castscope-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        unlink(path)
        #expect(fd >= 0)
        return FileDescriptorSource(descriptor: fd, closes: true)
    }

    /// A FileDescriptorSource over the read end of a pipe that a thread fills with `bytes`,
    /// `chunk` bytes per write (1: the magic number arrives a byte at a time).
    static func pipeSource(_ bytes: [UInt8], chunk: Int) -> FileDescriptorSource {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writeEnd = fds[1]
        let thread = Thread {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset..<min(bytes.count, offset + chunk)].withUnsafeBytes {
                    write(writeEnd, $0.baseAddress!, $0.count)
                }
                if n <= 0 { break }
                offset += n
            }
            close(writeEnd)
        }
        thread.start()
        return FileDescriptorSource(descriptor: fds[0], closes: true)
    }
}
