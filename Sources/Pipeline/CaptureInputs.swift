#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The capture files named on the command line, with directories opened: a directory stands
/// for the capture files in it (`tcpdump -C N -W K` or `-G secs` rotation writes one), each
/// regular file whose first bytes are a pcap, pcapng, gzip, zstd or lz4 magic, in name order.
public enum CaptureInputs {
    /// The operands with every directory replaced by the capture files in it, in name order
    /// (digit runs compared as numbers: `cap2` before `cap10`). Files that are not captures
    /// are skipped with a warning; hidden files (`.name`) silently.
    /// - Returns: the paths, or the exit status after the error when a directory cannot be
    ///   listed or holds no capture file (66: there is no input).
    public static func expand(_ operands: [String], notices: NoticeSink) -> Result<[String], ExitStatusError> {
        var paths: [String] = []
        for operand in operands {
            guard operand != "-", isDirectory(operand) else {
                paths.append(operand)
                continue
            }
            guard let names = list(operand) else {
                notices(.error("\(operand): cannot list the directory: \(String(cString: strerror(errno)))"))
                return .failure(ExitStatusError(status: .noInput))
            }
            let directory = operand.hasSuffix("/") ? operand : operand + "/"
            var found = 0
            for name in names.sorted(by: naturalOrder) where !name.hasPrefix(".") {
                let path = directory + name
                switch kind(path) {
                case .capture:
                    paths.append(path)
                    found += 1
                case .directory:
                    notices(.warning("\(path): skipped: a directory (directories are not read recursively)"))
                case .other(let why):
                    notices(.warning("\(path): skipped: \(why)"))
                }
            }
            if found == 0 {
                notices(.error("\(operand): no capture file in the directory (pcap, pcapng, gzip, zstd or lz4)"))
                return .failure(ExitStatusError(status: .noInput))
            }
        }
        return .success(paths)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in a directory (`nil` when it cannot be read).
    static func list(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    enum Kind: Equatable {
        case capture, directory
        case other(String)
    }

    /// The magic numbers a capture file (or a compressed one) starts with, as its first 4 bytes
    /// in file order: pcap (µs and ns, both byte orders), pcapng's Section Header Block, zstd, lz4.
    static let magics: [[UInt8]] = [
        [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D],
        [0x0A, 0x0D, 0x0D, 0x0A], [0x28, 0xB5, 0x2F, 0xFD], [0x04, 0x22, 0x4D, 0x18],
    ]

    /// What a directory entry is, from its type and first bytes.
    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .other(String(cString: strerror(errno))) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return .directory }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .other("not a regular file") }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return .other(String(cString: strerror(errno))) }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 4)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4) }
        if n <= 0 { return .other("empty (0 bytes)") }
        // gzip: 1f 8b; everything else by its first four bytes.
        if n >= 2, head[0] == 0x1F, head[1] == 0x8B { return .capture }
        if n == 4, magics.contains(head) { return .capture }
        return .other("not a capture file (no pcap, pcapng, gzip, zstd or lz4 magic)")
    }

    /// Name order with digit runs compared as numbers (`cap2` < `cap10`), then byte order.
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var i = 0
        var j = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                var ei = i
                var ej = j
                while ei < x.count, isDigit(x[ei]) { ei += 1 }
                while ej < y.count, isDigit(y[ej]) { ej += 1 }
                // Compare the runs as numbers: without leading zeros, longer is larger.
                let ri = x[i..<ei].drop { $0 == 0x30 }
                let rj = y[j..<ej].drop { $0 == 0x30 }
                if ri.count != rj.count { return ri.count < rj.count }
                if !ri.elementsEqual(rj) { return ri.lexicographicallyPrecedes(rj) }
                i = ei
                j = ej
            } else {
                if x[i] != y[j] { return x[i] < y[j] }
                i += 1
                j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
