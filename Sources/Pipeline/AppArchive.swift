import CLibzip

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an app's files could not be read: the message for the user and the exit status
/// (65 for data that is not what it claims or exceeds a limit, 66 for a file that cannot be read).
public struct AppInputError: Error, Sendable {
    public let message: String
    public let status: ExitStatus

    init(_ message: String, _ status: ExitStatus = .dataError) {
        self.message = message
        self.status = status
    }
}

/// The files of a built app, from an `.ipa` (a zip) or an `.app` folder, read in place:
/// nothing is extracted or written.
protocol AppFiles {
    /// Every file's path inside the container (`Payload/My.app/Info.plist`).
    var names: [String] { get }
    /// A file's bytes; fails when it expands past `limit`.
    func read(_ name: String, limit: Int) throws(AppInputError) -> [UInt8]
    /// Which of `needles` occur in a file, read in chunks; fails past `limit` bytes.
    func contains(_ name: String, _ needles: [String], limit: Int) throws(AppInputError) -> Set<String>
    /// How a file is named for the user: its path in the archive, or on disk.
    func shown(_ name: String) -> String
}

/// A search for byte strings in a file fed chunk by chunk: the tail of each chunk is kept, so
/// a string split between two chunks is found.
struct NeedleSearch {
    let needles: [String]
    let patterns: [[UInt8]]
    let keep: Int
    private var window: [UInt8] = []
    private(set) var found = Set<String>()

    init(_ needles: [String]) {
        self.needles = needles
        patterns = needles.map { Array($0.utf8) }
        keep = max(0, (patterns.map(\.count).max() ?? 1) - 1)
    }

    /// Searches the next chunk; false once every needle has been found.
    mutating func feed(_ chunk: ArraySlice<UInt8>) -> Bool {
        window += chunk
        for (i, p) in patterns.enumerated() where !found.contains(needles[i]) && window.count >= p.count {
            if window.withUnsafeBufferPointer({ w in Self.occurs(p, in: w) }) { found.insert(needles[i]) }
        }
        if window.count > keep { window.removeFirst(window.count - keep) }
        return found.count < needles.count
    }

    static func occurs(_ p: [UInt8], in w: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = p.first, w.count >= p.count else { return false }
        var i = 0
        let last = w.count - p.count
        while i <= last {
            if w[i] == first {
                var k = 1
                while k < p.count, w[i + k] == p[k] { k += 1 }
                if k == p.count { return true }
            }
            i += 1
        }
        return false
    }
}

/// An `.ipa` read with libzip. The archive is opened read-only and discarded, never written;
/// entry names that would leave the archive's folder (`..`, absolute paths) reject it, as do
/// more than ``maximumEntries`` entries and an entry that expands past its read limit.
final class ZipAppFiles: AppFiles {
    /// The most entries an archive may have (large apps have tens of thousands of files).
    static let maximumEntries = 100_000

    private let archive: OpaquePointer
    private let shown: String
    let names: [String]
    private var index: [String: UInt64] = [:]

    init(path: String) throws(AppInputError) {
        shown = path
        var code: Int32 = 0
        guard let z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            if code == ZIP_ER_OPEN || code == ZIP_ER_READ {
                throw AppInputError("open \(path): \(String(cString: strerror(errno)))", .noInput)
            }
            var e = zip_error_t()
            zip_error_init_with_code(&e, code)
            defer { zip_error_fini(&e) }
            throw AppInputError(
                "\(path): not a zip archive an .ipa can be (\(String(cString: zip_error_strerror(&e))))")
        }
        archive = z
        let count = zip_get_num_entries(z, 0)
        guard count >= 0, count <= Self.maximumEntries else {
            zip_discard(z)
            throw AppInputError(
                "\(path): the archive has \(count) entries, more than the \(Self.maximumEntries) an app archive is "
                    + "allowed here; not read")
        }
        var names: [String] = []
        names.reserveCapacity(Int(count))
        for i in 0..<UInt64(count) {
            guard let raw = zip_get_name(z, i, zip_flags_t(ZIP_FL_ENC_GUESS)) else { continue }
            let name = String(cString: raw)
            if let why = Self.unsafeName(name) {
                zip_discard(z)
                throw AppInputError("\(path): entry '\(Self.printable(name))' \(why); the archive is not read")
            }
            names.append(name)
            if index[name] == nil { index[name] = i }
        }
        self.names = names
    }

    deinit { zip_discard(archive) }

    /// Why a name is unsafe, or nil: an absolute path, a `..` component, a NUL or a backslash
    /// path (a Windows-style traversal).
    static func unsafeName(_ name: String) -> String? {
        if name.hasPrefix("/") || name.hasPrefix("\\") { return "is an absolute path" }
        let parts = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if parts.contains("..") { return "has a '..' component that leaves the archive's folder" }
        if name.utf8.contains(0) { return "holds a NUL byte" }
        return nil
    }

    static func printable(_ s: String) -> String {
        String(s.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }

    func shown(_ name: String) -> String { name }

    func read(_ name: String, limit: Int) throws(AppInputError) -> [UInt8] {
        var out: [UInt8] = []
        try stream(name, limit: limit) { chunk in
            out += chunk
            return true
        }
        return out
    }

    func contains(_ name: String, _ needles: [String], limit: Int) throws(AppInputError) -> Set<String> {
        var search = NeedleSearch(needles)
        try stream(name, limit: limit) { search.feed($0) }
        return search.found
    }

    /// Feeds an entry to `body` in chunks of 1 MiB until it ends or `body` returns false;
    /// fails when the entry is damaged or expands past `limit`.
    private func stream(_ name: String, limit: Int, _ body: (ArraySlice<UInt8>) -> Bool) throws(AppInputError) {
        guard let i = index[name] else { throw AppInputError("\(shown): no entry '\(name)'") }
        guard let file = zip_fopen_index(archive, i, 0) else {
            throw AppInputError(
                "\(shown): '\(Self.printable(name))' cannot be read (\(String(cString: zip_strerror(archive))))")
        }
        defer { zip_fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, zip_uint64_t($0.count)) }
            if n < 0 {
                throw AppInputError(
                    "\(shown): '\(Self.printable(name))' is damaged (\(String(cString: zip_file_strerror(file))))")
            }
            if n == 0 { return }
            total += Int(n)
            guard total <= limit else {
                throw AppInputError(
                    "\(shown): '\(Self.printable(name))' expands past \(Self.size(limit)), more than such a file may be "
                        + "(a zip bomb?); not read further")
            }
            if !body(buffer[0..<Int(n)]) { return }
        }
    }

    static func size(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes" }
}
