import CastDiscovery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An app read for `castscope check-app` and `analyze --app`: what the input is, and the
/// facts of each app target in it.
public struct AppInputResult: Sendable {
    /// The path as given.
    public var input: String
    public var kind: AppInputKind
    /// One per app target (one for a built app or a single file).
    public var targets: [AppFacts]
}

/// Reads an app from what a developer has: an Xcode project folder (or the `.xcodeproj`), a
/// `Podfile.lock`, a `Package.resolved`, an `Info.plist`, or a built `.ipa` / `.app`.
///
/// Files are read with size limits, folders walked without following symbolic links and
/// with bounds on the entries visited, and archives read in place; nothing is written.
public enum AppInput {
    /// The largest Info.plist read.
    public static let maximumPlistBytes = 16 << 20
    /// The largest `project.pbxproj`, `Podfile.lock` or `Package.resolved` read.
    public static let maximumTextBytes = 64 << 20
    /// Source files larger than this are skipped (generated code, not set-up code).
    public static let maximumSourceBytes = 4 << 20
    /// The most source files scanned.
    public static let maximumSourceFiles = 20_000
    /// The most folder entries visited in one walk.
    public static let maximumWalkEntries = 200_000
    /// The largest executable searched for the Cast SDK's classes or Bluetooth.
    public static let maximumBinaryBytes = 512 << 20

    /// Reads the app at `path`.
    /// - Parameter target: keep only the app target of this name (`--target`).
    /// - Returns: the app, or the exit status after sending the error to `notices`: 64 for
    ///   an unknown target, 65 for data that is not an app or exceeds a limit, 66 for a path
    ///   that cannot be read.
    public static func load(_ path: String, target: String? = nil, notices: NoticeSink)
        -> Result<AppInputResult, ExitStatusError>
    {
        do throws(AppInputError) {
            var result = try read(path)
            if let target {
                let matching = result.targets.filter { $0.name == target }
                guard !matching.isEmpty else {
                    let names = result.targets.map(\.name)
                    throw AppInputError(
                        "--target \(target): no such app target in \(path) (app targets: "
                            + (names.isEmpty ? "none" : names.joined(separator: ", ")) + ")", .usage)
                }
                result.targets = matching
            }
            return .success(result)
        } catch {
            notices(.error(error.message))
            return .failure(ExitStatusError(status: error.status))
        }
    }

    static func read(_ path: String) throws(AppInputError) -> AppInputResult {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AppInputError("open \(path): \(String(cString: strerror(errno)))", .noInput)
        }
        let name = FilePath.last(path)
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if name.hasSuffix(".xcodeproj") {
                return AppInputResult(
                    input: path, kind: .project,
                    targets: try ProjectReader.read(projects: [path], root: FilePath.parent(path)))
            }
            if name.hasSuffix(".app") {
                let files = try FolderAppFiles(root: path)
                return AppInputResult(
                    input: path, kind: .app, targets: [try BuiltAppReader.read(files, shown: path, kind: .app)])
            }
            return try folder(path)
        }
        let head = try readHead(path, 8)
        if name.hasSuffix(".ipa") || head.starts(with: [0x50, 0x4B, 0x03, 0x04])
            || head.starts(with: [0x50, 0x4B, 0x05, 0x06])
        {
            let files = try ZipAppFiles(path: path)
            return AppInputResult(input: path, kind: .ipa, targets: [try BuiltAppReader.read(files, shown: path)])
        }
        if name == "Podfile.lock" || head.starts(with: Array("PODS:".utf8)) {
            return AppInputResult(input: path, kind: .podfileLock, targets: [try podfileLock(path)])
        }
        if name.hasSuffix(".resolved") || (head.first == UInt8(ascii: "{") && !name.hasSuffix(".plist")) {
            return AppInputResult(input: path, kind: .packageResolved, targets: [try packageResolved(path)])
        }
        let bytes = try readFile(path, limit: maximumPlistBytes)
        var facts = AppFacts(name: name, kind: .infoPlist)
        let plist = InfoPlist(data: bytes)
        facts.infoPlistPath = path
        facts.plist = plist
        facts.name = plist.strings["CFBundleName"].flatMap { $0.contains("$") ? nil : $0 } ?? name
        facts.bundleID = plist.strings["CFBundleIdentifier"]
        return AppInputResult(input: path, kind: .infoPlist, targets: [facts])
    }

    /// A folder: the Xcode projects in it (not in Pods/ and the like, at most three levels
    /// down), else a Podfile.lock in it.
    static func folder(_ path: String) throws(AppInputError) -> AppInputResult {
        var projects: [String] = []
        var walked = 0
        func look(_ dir: String, depth: Int) {
            for entry in FolderWalk.entries(dir) where entry.isDirectory {
                walked += 1
                guard walked < 10_000 else { return }
                let full = FilePath.join(dir, entry.name)
                if entry.name.hasSuffix(".xcodeproj") {
                    projects.append(full)
                } else if depth < 3, !FolderWalk.skipped(entry.name) {
                    look(full, depth: depth + 1)
                }
            }
        }
        look(path, depth: 0)
        if !projects.isEmpty {
            // The shallowest projects: a sample project deep in the tree is not the app.
            let depth = projects.map { $0.split(separator: "/").count }.min()!
            let top = projects.filter { $0.split(separator: "/").count == depth }.sorted()
            return AppInputResult(
                input: path, kind: .project, targets: try ProjectReader.read(projects: top, root: path))
        }
        let lock = FilePath.join(path, "Podfile.lock")
        if FolderWalk.isFile(lock) {
            return AppInputResult(input: path, kind: .podfileLock, targets: [try podfileLock(lock)])
        }
        throw AppInputError(
            "\(path): no Xcode project (.xcodeproj) and no Podfile.lock in this folder; give the project folder, the "
                + ".xcodeproj, a Podfile.lock, an Info.plist or an .ipa", .noInput)
    }

    static func podfileLock(_ path: String) throws(AppInputError) -> AppFacts {
        let bytes = try readFile(path, limit: maximumTextBytes)
        guard let uses = DependencyFiles.podfileLock(String(decoding: bytes, as: UTF8.self), source: path) else {
            throw AppInputError("\(path): not a Podfile.lock (no PODS: section)")
        }
        var facts = AppFacts(name: FilePath.last(path), kind: .podfileLock)
        facts.sdks = uses
        return facts
    }

    static func packageResolved(_ path: String) throws(AppInputError) -> AppFacts {
        let bytes = try readFile(path, limit: maximumTextBytes)
        guard let uses = DependencyFiles.packageResolved(bytes, source: path) else {
            throw AppInputError("\(path): not a Package.resolved (no pins), and not an Info.plist")
        }
        var facts = AppFacts(name: FilePath.last(path), kind: .packageResolved)
        facts.sdks = uses
        return facts
    }

    /// The first `count` bytes of a file (fewer when it is shorter).
    static func readHead(_ path: String, _ count: Int) throws(AppInputError) -> [UInt8] {
        guard let f = fopen(path, "rb") else {
            throw AppInputError("open \(path): \(String(cString: strerror(errno)))", .noInput)
        }
        defer { fclose(f) }
        var head = [UInt8](repeating: 0, count: count)
        let n = head.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, f) }
        return Array(head.prefix(n))
    }

    /// A whole file, failing past `limit` bytes.
    static func readFile(_ path: String, limit: Int) throws(AppInputError) -> [UInt8] {
        var info = stat()
        if stat(path, &info) != 0 { throw AppInputError("open \(path): \(String(cString: strerror(errno)))", .noInput) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw AppInputError("open \(path): is a directory", .noInput) }
        guard let f = fopen(path, "rb") else {
            throw AppInputError("open \(path): \(String(cString: strerror(errno)))", .noInput)
        }
        defer { fclose(f) }
        return try readAll(f, shown: path, limit: limit, tooLarge: "more than such a file may be")
    }

    /// The rest of an open file, failing past `limit` bytes with "SHOWN: larger than LIMIT, TOOLARGE".
    static func readAll(_ f: UnsafeMutablePointer<FILE>, shown: String, limit: Int, tooLarge: String)
        throws(AppInputError) -> [UInt8]
    {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { bytes += chunk[0..<n] }
            if bytes.count > limit {
                throw AppInputError("\(shown): larger than \(ZipAppFiles.size(limit)), \(tooLarge)")
            }
            if n < chunk.count {
                if ferror(f) != 0 {
                    throw AppInputError("read \(shown): \(String(cString: strerror(errno)))", .noInput)
                }
                return bytes
            }
        }
    }
}

/// Path text helpers (no Foundation).
enum FilePath {
    static func last(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        return String(p.split(separator: "/").last ?? p)
    }

    static func parent(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    /// `path` relative to `root` when it is inside it (for showing), else `path`.
    static func relative(_ path: String, to root: String) -> String {
        let r = normalized(root)
        let p = normalized(path)
        if r == "." { return p }
        if p == r { return "." }
        return p.hasPrefix(r + "/") ? String(p.dropFirst(r.count + 1)) : p
    }

    static func join(_ a: String, _ b: String) -> String {
        if b.hasPrefix("/") { return b }
        if a.isEmpty || a == "." { return b }
        return a.hasSuffix("/") ? a + b : a + "/" + b
    }

    /// `a/./b/../c` → `a/c` (textually; `..` past the start is kept).
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}

/// Listing folders without following symbolic links.
enum FolderWalk {
    struct Entry {
        var name: String
        var isDirectory: Bool
        var isFile: Bool
        var size: Int
    }

    /// Folders whose contents are not the app's own: dependencies, build products, VCS data.
    static func skipped(_ name: String) -> Bool {
        [
            "Pods", "Carthage", "build", "Build", "DerivedData", ".build", "node_modules", ".git", ".svn", ".hg",
            "SourcePackages", "fastlane", "vendor",
        ].contains(name) || name.hasSuffix(".xcodeproj")
            || name.hasSuffix(".xcworkspace") || name.hasSuffix(".xcassets") || name.hasSuffix(".lproj")
    }

    /// The entries of a folder (not `.` and `..`), sorted by name; empty when it cannot be read.
    static func entries(_ dir: String) -> [Entry] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [Entry] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard lstat(FilePath.join(dir, name), &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            out.append(
                Entry(name: name, isDirectory: type == S_IFDIR, isFile: type == S_IFREG, size: Int(info.st_size)))
            if out.count > AppInput.maximumWalkEntries { break }
        }
        return out.sorted { $0.name < $1.name }
    }

    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
