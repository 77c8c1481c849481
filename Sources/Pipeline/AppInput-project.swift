import CastDiscovery

/// Reading Xcode projects: the app targets of each `project.pbxproj`, their Info.plists, the
/// Cast SDK from the dependency files beside them, and the Cast facts of the sources.
enum ProjectReader {
    /// The facts of every iOS app target of `projects`; `root` is the folder the user gave,
    /// whose sources and vendored frameworks are read.
    static func read(projects: [String], root: String) throws(AppInputError) -> [AppFacts] {
        var shared = Shared(root: root)
        shared.walk()
        var targets: [AppFacts] = []
        var others: [String] = []
        for path in projects {
            let pbx = FilePath.join(path, "project.pbxproj")
            let bytes = try AppInput.readFile(pbx, limit: AppInput.maximumTextBytes)
            let project: XcodeProject
            do throws(OpenStepError) {
                project = try XcodeProject(parsing: bytes)
            } catch {
                throw AppInputError("\(pbx): \(error)")
            }
            let dir = FilePath.parent(path)
            let sdks = sdkUses(project: project, path: path, dir: dir, root: root, shared: shared)
            for target in project.targets {
                guard isIOS(target) else {
                    others.append("\(target.name) (not an iOS app)")
                    continue
                }
                targets.append(
                    facts(target, project: project, path: path, dir: dir, root: root, sdks: sdks, shared: shared))
            }
            others += project.allTargets.filter { t in !project.targets.contains { $0.name == t.name } }
                .map { "\($0.name) (\($0.productType.split(separator: ".").last ?? "no product type"))" }
        }
        guard !targets.isEmpty else {
            throw AppInputError(
                "\(projects.joined(separator: ", ")): no iOS app target (targets: "
                    + (others.isEmpty ? "none" : others.joined(separator: ", ")) + ")")
        }
        return targets
    }

    static func isIOS(_ target: XcodeProject.Target) -> Bool {
        let sdk = target.settings["SDKROOT"] ?? "iphoneos"
        return sdk == "iphoneos" || sdk == "auto" || (target.settings["SUPPORTED_PLATFORMS"] ?? "").contains("iphoneos")
    }

    /// One target's facts.
    static func facts(
        _ target: XcodeProject.Target, project: XcodeProject, path: String, dir: String, root: String,
        sdks: [CastSDKUse], shared: Shared
    ) -> AppFacts {
        var facts = AppFacts(name: target.name, kind: .project)
        facts.projectObjectVersion = project.objectVersion
        var projectName = FilePath.last(path)
        projectName.removeLast(".xcodeproj".count)
        // Paths in settings are relative to the project's folder; $(SRCROOT) is that folder.
        let builtins = ["SRCROOT": ".", "PROJECT_DIR": ".", "SOURCE_ROOT": ".", "PROJECT_NAME": projectName]
        func setting(_ key: String) -> String? {
            target.setting(key, builtins: builtins).flatMap { $0.isEmpty ? nil : $0 }
        }
        facts.bundleID = setting("PRODUCT_BUNDLE_IDENTIFIER")
        facts.deploymentTarget = setting("IPHONEOS_DEPLOYMENT_TARGET")
        let generate = setting("GENERATE_INFOPLIST_FILE")?.uppercased() == "YES"
        var generated: [String: String] = [:]
        if generate {
            for key in target.settings.keys where key.hasPrefix("INFOPLIST_KEY_") {
                generated[String(key.dropFirst("INFOPLIST_KEY_".count))] = setting(key) ?? ""
            }
        }
        let configuration = target.configuration.map { " (\($0) configuration)" } ?? ""
        if let file = setting("INFOPLIST_FILE") {
            let full = FilePath.normalized(FilePath.join(dir, file))
            facts.infoPlistPath = FilePath.relative(full, to: root)
            if file.contains("$(") || file.contains("${") {
                facts.plistProblem =
                    "INFOPLIST_FILE\(configuration) is \(file), which names a build setting "
                    + "castscope cannot expand."
            } else {
                do throws(AppInputError) {
                    var plist = InfoPlist(data: try AppInput.readFile(full, limit: AppInput.maximumPlistBytes))
                    plist.merge(generated: generated)
                    facts.plist = plist
                } catch {
                    facts.plistProblem =
                        "Target \(target.name)'s INFOPLIST_FILE\(configuration) is \(file); "
                        + error.message + "."
                }
            }
        } else if generate {
            facts.infoPlistPath = "generated from build settings"
            facts.plist = InfoPlist(generated: generated)
        } else {
            facts.plistProblem =
                "Target \(target.name) names no INFOPLIST_FILE\(configuration) and does not "
                + "generate one (GENERATE_INFOPLIST_FILE)."
        }
        facts.sdks = sdks
        facts.sources = shared.scan
        facts.notes = shared.notes
        return facts
    }

    /// The Cast SDK uses of a project: its Podfile.lock, its Package.resolved pins (or, without
    /// one, the package requirements in the project), and GoogleCast frameworks in the folder.
    static func sdkUses(project: XcodeProject, path: String, dir: String, root: String, shared: Shared)
        -> [CastSDKUse]
    {
        var uses: [CastSDKUse] = []
        var locks: [String] = [FilePath.join(dir, "Podfile.lock")]
        if FilePath.normalized(root) != FilePath.normalized(dir) { locks.append(FilePath.join(root, "Podfile.lock")) }
        for lock in locks where FolderWalk.isFile(lock) {
            if let bytes = try? AppInput.readFile(lock, limit: AppInput.maximumTextBytes),
                let found = DependencyFiles.podfileLock(
                    String(decoding: bytes, as: UTF8.self), source: FilePath.relative(lock, to: root))
            {
                uses += found
                break
            }
        }
        var resolved = [FilePath.join(path, "project.xcworkspace/xcshareddata/swiftpm/Package.resolved")]
        for entry in FolderWalk.entries(dir) where entry.isDirectory && entry.name.hasSuffix(".xcworkspace") {
            resolved.append(FilePath.join(dir, entry.name + "/xcshareddata/swiftpm/Package.resolved"))
        }
        var pinned = false
        for file in resolved where FolderWalk.isFile(file) {
            if let bytes = try? AppInput.readFile(file, limit: AppInput.maximumTextBytes),
                let found = DependencyFiles.packageResolved(bytes, source: FilePath.relative(file, to: root))
            {
                pinned = pinned || !found.isEmpty
                for use in found where !uses.contains(where: { $0.name == use.name && $0.origin == .swiftpm }) {
                    uses.append(use)
                }
            }
        }
        if !pinned {
            for package in project.packages {
                let repository = DependencyFiles.repositoryName(package.url)
                guard DependencyFiles.isCastSDK(repository) else { continue }
                uses.append(
                    CastSDKUse(
                        name: repository, version: nil,
                        requirement: package.requirement.map { "\($0), not resolved" },
                        origin: .swiftpm, source: FilePath.relative(FilePath.join(path, "project.pbxproj"), to: root)))
            }
        }
        return uses + shared.frameworks
    }

    /// What every target of the folder shares: the sources' scan and vendored frameworks.
    struct Shared {
        let root: String
        var scan = SourceScan()
        var frameworks: [CastSDKUse] = []
        var notes: [String] = []
        var visited = 0
        var sourceFiles = 0
        var skippedLarge = 0

        init(root: String) { self.root = root }

        mutating func walk() {
            visit(root, depth: 0, sources: true)
            scan.finish()
            if visited >= AppInput.maximumWalkEntries {
                notes.append("The folder has more than \(AppInput.maximumWalkEntries) entries; the rest was not read.")
            }
            if sourceFiles >= AppInput.maximumSourceFiles {
                notes.append("Only the first \(AppInput.maximumSourceFiles) source files were scanned.")
            }
            if skippedLarge > 0 {
                notes.append(
                    "\(skippedLarge) source file\(skippedLarge == 1 ? " is" : "s are") larger than "
                        + "\(AppInput.maximumSourceBytes >> 20) MiB and \(skippedLarge == 1 ? "was" : "were") not scanned."
                )
            }
        }

        /// Folders whose frameworks are the app's (Carthage's builds, vendored copies) although
        /// their sources are not.
        static let frameworksOnly: Set<String> = ["Carthage", "vendor", "Vendor"]

        mutating func visit(_ dir: String, depth: Int, sources: Bool) {
            guard depth < 24 else { return }
            for entry in FolderWalk.entries(dir) {
                visited += 1
                guard visited < AppInput.maximumWalkEntries else { return }
                let full = FilePath.join(dir, entry.name)
                if entry.isDirectory {
                    if entry.name == "GoogleCast.framework" {
                        framework(full)
                    } else if entry.name.hasSuffix(".xcframework") {
                        // One slice says the release: the first that has GoogleCast.framework.
                        for slice in FolderWalk.entries(full) where slice.isDirectory {
                            let candidate = FilePath.join(full, slice.name + "/GoogleCast.framework")
                            if FolderWalk.isDirectory(candidate) {
                                framework(candidate)
                                break
                            }
                        }
                    } else if entry.name.hasSuffix(".framework") || entry.name.hasSuffix(".bundle") {
                        continue
                    } else if !FolderWalk.skipped(entry.name) {
                        visit(full, depth: depth + 1, sources: sources && !Self.frameworksOnly.contains(entry.name))
                    } else if Self.frameworksOnly.contains(entry.name)
                        || (!sources && entry.name.lowercased() == "build")
                    {
                        // Carthage/Build holds the frameworks Carthage built.
                        visit(full, depth: depth + 1, sources: false)
                    }
                } else if sources, entry.isFile, let dot = entry.name.lastIndex(of: "."),
                    ["swift", "m", "mm", "h"].contains(entry.name[entry.name.index(after: dot)...])
                {
                    guard sourceFiles < AppInput.maximumSourceFiles else { continue }
                    guard entry.size <= AppInput.maximumSourceBytes else {
                        skippedLarge += 1
                        continue
                    }
                    if let bytes = try? AppInput.readFile(full, limit: AppInput.maximumSourceBytes) {
                        sourceFiles += 1
                        scan.scan(String(decoding: bytes, as: UTF8.self), file: FilePath.relative(full, to: root))
                    }
                }
            }
        }

        /// A GoogleCast.framework in the folder: its release, and whether its binary uses Bluetooth.
        mutating func framework(_ path: String) {
            let plistPath = FilePath.join(path, "Info.plist")
            let shown = FilePath.relative(plistPath, to: root)
            guard !frameworks.contains(where: { $0.source == shown }) else { return }
            let plist = (try? AppInput.readFile(plistPath, limit: AppInput.maximumPlistBytes)).map {
                InfoPlist(data: $0)
            }
            let written = plist?.strings["CFBundleShortVersionString"]
            let version = written.flatMap(CastSDKVersion.init)
            let binary = FilePath.join(path, "GoogleCast")
            var flavour: CastSDKFlavour?
            if let version, version >= .guestModeRemoved {
                flavour = .single
            } else if FolderWalk.isFile(binary),
                let found = try? FolderAppFiles.search(
                    file: binary, ["CoreBluetooth"], limit: AppInput.maximumBinaryBytes)
            {
                flavour = found.isEmpty ? .noBluetooth : .guestMode
            }
            frameworks.append(
                CastSDKUse(
                    name: "GoogleCast.framework", version: version,
                    requirement: version == nil ? written.map { "version '\($0)'" } : nil, flavour: flavour ?? .unknown,
                    origin: .framework, source: shown))
        }
    }
}
