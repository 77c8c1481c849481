import CastDiscovery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a built app (the `Payload/<Name>.app` of an `.ipa`, or an `.app` folder): its
/// Info.plist with what Xcode recorded about the build, and the Cast SDK it carries.
enum BuiltAppReader {
    static func read(_ files: some AppFiles, shown: String, kind: AppInputKind = .ipa) throws(AppInputError) -> AppFacts
    {
        let plists = files.names.filter { name in
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 3 && parts[0] == "Payload" && parts[1].hasSuffix(".app") && parts[2] == "Info.plist"
        }.sorted()
        guard let plistName = plists.first else {
            throw AppInputError("\(shown): no Payload/<Name>.app/Info.plist, so this is not an iOS app archive")
        }
        let app = String(plistName.dropLast("Info.plist".count))
        let plist = InfoPlist(data: try files.read(plistName, limit: AppInput.maximumPlistBytes))
        var appName = String(app.dropFirst("Payload/".count).dropLast(".app/".count))
        if let name = plist.strings["CFBundleName"], !name.isEmpty, !name.contains("$") { appName = name }
        var facts = AppFacts(name: appName, kind: kind)
        facts.infoPlistPath = files.shown(plistName)
        facts.plist = plist
        facts.bundleID = plist.strings["CFBundleIdentifier"]
        facts.deploymentTarget = plist.strings["MinimumOSVersion"]
        facts.xcode = plist.strings["DTXcode"]
        facts.buildSDK = plist.strings["DTSDKName"]
        if plists.count > 1 {
            facts.notes.append("The archive holds \(plists.count) apps; \(app) was read.")
        }
        let names = Set(files.names)
        let framework = app + "Frameworks/GoogleCast.framework/"
        if names.contains(framework + "Info.plist") {
            let fp = InfoPlist(data: try files.read(framework + "Info.plist", limit: AppInput.maximumPlistBytes))
            let written = fp.strings["CFBundleShortVersionString"]
            let version = written.flatMap(CastSDKVersion.init)
            var flavour = CastSDKFlavour.unknown
            if let version, version >= .guestModeRemoved {
                flavour = .single
            } else if names.contains(framework + "GoogleCast") {
                let found = try files.contains(
                    framework + "GoogleCast", ["CoreBluetooth"], limit: AppInput.maximumBinaryBytes)
                flavour = found.isEmpty ? .noBluetooth : .guestMode
            }
            facts.sdks.append(
                CastSDKUse(
                    name: "GoogleCast.framework", version: version,
                    requirement: version == nil ? written.map { "version '\($0)'" } : nil, flavour: flavour,
                    origin: .framework, source: files.shown(framework + "Info.plist")))
        } else if let bundle = ["GoogleCastCoreResources.bundle/", "GoogleCastUIResources.bundle/"].first(where: { b in
            files.names.contains { $0.hasPrefix(app + b) }
        }) {
            facts.sdks.append(
                CastSDKUse(
                    name: "GoogleCast (static)", version: nil, flavour: .unknown, origin: .resources,
                    source: files.shown(app + String(bundle.dropLast()))))
        } else if let executable = plist.strings["CFBundleExecutable"], names.contains(app + executable) {
            let found = try files.contains(app + executable, ["GCKCastContext"], limit: AppInput.maximumBinaryBytes)
            if !found.isEmpty {
                facts.sdks.append(
                    CastSDKUse(
                        name: "GoogleCast (static)", version: nil, flavour: .unknown, origin: .executable,
                        source: files.shown(app + executable)))
            }
        }
        return facts
    }
}

/// An `.app` folder as ``AppFiles``: its files named as in an `.ipa`
/// (`Payload/<Name>.app/…`), symbolic links not followed.
final class FolderAppFiles: AppFiles {
    let root: String
    let prefix: String
    let names: [String]

    init(root: String) throws(AppInputError) {
        self.root = root
        prefix = "Payload/" + FilePath.last(root) + "/"
        var names: [String] = []
        var count = 0
        func walk(_ dir: String, _ relative: String, depth: Int) {
            guard depth < 32 else { return }
            for entry in FolderWalk.entries(dir) {
                count += 1
                guard count <= ZipAppFiles.maximumEntries else { return }
                if entry.isDirectory {
                    walk(FilePath.join(dir, entry.name), relative + entry.name + "/", depth: depth + 1)
                } else if entry.isFile {
                    names.append(relative + entry.name)
                }
            }
        }
        walk(root, prefix, depth: 0)
        guard count <= ZipAppFiles.maximumEntries else {
            throw AppInputError("\(root): more than \(ZipAppFiles.maximumEntries) files; not read")
        }
        self.names = names
    }

    func path(_ name: String) -> String { FilePath.join(root, String(name.dropFirst(prefix.count))) }

    func shown(_ name: String) -> String { path(name) }

    func read(_ name: String, limit: Int) throws(AppInputError) -> [UInt8] {
        try AppInput.readFile(path(name), limit: limit)
    }

    func contains(_ name: String, _ needles: [String], limit: Int) throws(AppInputError) -> Set<String> {
        try Self.search(file: path(name), needles, limit: limit)
    }

    /// Which of `needles` a file holds, read in chunks of 1 MiB.
    static func search(file: String, _ needles: [String], limit: Int) throws(AppInputError) -> Set<String> {
        guard let f = fopen(file, "rb") else {
            throw AppInputError("open \(file): \(String(cString: strerror(errno)))", .noInput)
        }
        defer { fclose(f) }
        var search = NeedleSearch(needles)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            total += n
            guard total <= limit else {
                throw AppInputError("\(file): larger than \(ZipAppFiles.size(limit)); not searched further")
            }
            guard n > 0, search.feed(buffer[0..<n]) else { return search.found }
        }
    }
}
