/// What `check-app` reads from an Xcode project's `project.pbxproj`: the app targets and the
/// build settings of the configuration that ships, and the Swift packages it references.
public struct XcodeProject: Sendable {
    /// One app target.
    public struct Target: Sendable {
        public var name: String
        /// `com.apple.product-type.application`…
        public var productType: String
        /// The configuration whose settings were read (`Release` when there is one).
        public var configuration: String?
        /// The project's settings of that configuration, then the target's over them; list
        /// values joined by spaces.
        public var settings: [String: String]

        /// A setting with `$(VAR)`/`${VAR}` references expanded from the other settings and
        /// `builtins` (`SRCROOT`, `PROJECT_DIR`…); unknown references are left as written.
        public func setting(_ key: String, builtins: [String: String] = [:]) -> String? {
            guard let raw = settings[key] else { return nil }
            return expand(raw, builtins: builtins, depth: 0)
        }

        func expand(_ text: String, builtins: [String: String], depth: Int) -> String {
            guard depth < 8, text.contains("$") else { return text }
            var out = ""
            var rest = Substring(text)
            while let dollar = rest.firstIndex(of: "$") {
                out += rest[..<dollar]
                rest = rest[rest.index(after: dollar)...]
                guard let open = rest.first, open == "(" || open == "{" else {
                    out += "$"
                    continue
                }
                let close: Character = open == "(" ? ")" : "}"
                guard let end = rest.firstIndex(of: close) else {
                    out += "$" + rest
                    rest = ""
                    break
                }
                let inner = rest[rest.index(after: rest.startIndex)..<end]
                // `$(TARGET_NAME:c99extidentifier)`: the operator is ignored.
                let name = String(inner.prefix { $0 != ":" })
                if let value = builtins[name] ?? settings[name] ?? (name == "TARGET_NAME" ? self.name : nil) {
                    out += expand(value, builtins: builtins, depth: depth + 1)
                } else {
                    out += "$" + String(open) + inner + String(close)
                }
                rest = rest[rest.index(after: end)...]
            }
            return out + rest
        }
    }

    /// A Swift package the project references (`XCRemoteSwiftPackageReference`).
    public struct PackageReference: Sendable {
        public var url: String
        /// `4.7.0 up to next major`, `exactly 4.8.3`, `branch main`…
        public var requirement: String?
        /// The version the requirement starts from or names.
        public var minimumVersion: String?
    }

    /// The project format (`objectVersion`): 54 and later are written by Xcode 12 or later.
    public var objectVersion: Int?
    /// The application targets, in the project's order.
    public var targets: [Target] = []
    /// Every target's name and product type, for messages.
    public var allTargets: [(name: String, productType: String)] = []
    public var packages: [PackageReference] = []

    /// The product types that are apps an iOS user installs.
    static let appProductTypes: Set<String> = [
        "com.apple.product-type.application", "com.apple.product-type.application.messages",
    ]

    /// Reads a `project.pbxproj`.
    public init(parsing bytes: [UInt8]) throws(OpenStepError) {
        let top = try OpenStepParser.parse(bytes)
        guard let objects = top["objects"]?.dictionary, let rootID = top["rootObject"]?.string,
            let root = objects[rootID]
        else {
            throw OpenStepError(message: "not an Xcode project: no objects or rootObject", offset: 0, line: 1)
        }
        objectVersion = top["objectVersion"]?.string.flatMap { Int($0) }

        func configurations(_ listID: String?) -> [(name: String, settings: [String: String])] {
            guard let listID, let list = objects[listID],
                let ids = list["buildConfigurations"]?.array?.compactMap(\.string)
            else { return [] }
            return ids.compactMap { id in
                guard let c = objects[id] else { return nil }
                var settings: [String: String] = [:]
                for (key, value) in c["buildSettings"]?.dictionary ?? [:] {
                    if let s = value.string {
                        settings[key] = s
                    } else if let a = value.array {
                        settings[key] = a.compactMap(\.string).joined(separator: " ")
                    }
                }
                return (c["name"]?.string ?? "", settings)
            }
        }
        func shipping(_ list: [(name: String, settings: [String: String])]) -> (
            name: String, settings: [String: String]
        )? {
            list.first { $0.name == "Release" } ?? list.first { $0.name.lowercased().contains("release") }
                ?? list.first
        }

        let projectLevel = configurations(root["buildConfigurationList"]?.string)
        for id in root["targets"]?.array?.compactMap(\.string) ?? [] {
            guard let t = objects[id], t["isa"]?.string == "PBXNativeTarget" else { continue }
            let name = t["name"]?.string ?? id
            let type = t["productType"]?.string ?? ""
            allTargets.append((name, type))
            guard Self.appProductTypes.contains(type) else { continue }
            let own = configurations(t["buildConfigurationList"]?.string)
            let chosen = shipping(own)
            // The project-level configuration of the same name is the base the target's overrides.
            var settings =
                projectLevel.first { $0.name == chosen?.name }?.settings ?? shipping(projectLevel)?.settings ?? [:]
            for (k, v) in chosen?.settings ?? [:] { settings[k] = v }
            targets.append(Target(name: name, productType: type, configuration: chosen?.name, settings: settings))
        }
        for object in objects.values where object["isa"]?.string == "XCRemoteSwiftPackageReference" {
            guard let url = object["repositoryURL"]?.string else { continue }
            let r = object["requirement"]?.dictionary ?? [:]
            let kind = r["kind"]?.string ?? ""
            var requirement: String?
            var minimum: String?
            switch kind {
            case "upToNextMajorVersion", "upToNextMinorVersion", "versionRange":
                minimum = r["minimumVersion"]?.string
                let upper =
                    kind == "upToNextMajorVersion"
                    ? "up to next major"
                    : kind == "upToNextMinorVersion"
                        ? "up to next minor" : "up to \(r["maximumVersion"]?.string ?? "?")"
                requirement = minimum.map { "\($0) \(upper)" }
            case "exactVersion":
                minimum = r["version"]?.string
                requirement = minimum.map { "exactly \($0)" }
            case "branch": requirement = r["branch"]?.string.map { "branch \($0)" }
            case "revision": requirement = r["revision"]?.string.map { "revision \($0.prefix(12))" }
            default: requirement = nil
            }
            packages.append(PackageReference(url: url, requirement: requirement, minimumVersion: minimum))
        }
        packages.sort { $0.url < $1.url }
    }
}
