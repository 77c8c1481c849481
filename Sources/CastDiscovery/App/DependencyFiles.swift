#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Cast SDK entries of the files dependency managers write: CocoaPods' `Podfile.lock`
/// and Swift Package Manager's `Package.resolved`.
public enum DependencyFiles {
    /// Whether a pod or package name is one of Google's Cast iOS SDK pods or a package that
    /// wraps it (`google-cast-sdk`, `google-cast-sdk-no-bluetooth`,
    /// `google-cast-sdk-dynamic-xcframework`, `google-cast-ios-sdk`…).
    public static func isCastSDK(_ name: String) -> Bool {
        let n = name.lowercased()
        return n.hasPrefix("google-cast-") && n.contains("sdk") || n == "googlecast"
    }

    /// A repository URL's last path component without `.git`: `google-cast-sdk` of
    /// `https://github.com/SRGSSR/google-cast-sdk.git`.
    public static func repositoryName(_ url: String) -> String {
        var name = Substring(url.split(separator: "/").last ?? "")
        if name.hasSuffix(".git") { name = name.dropLast(4) }
        return String(name)
    }

    /// The Cast SDK pods of a `Podfile.lock`: the top-level entries of its `PODS:` section,
    /// `- google-cast-sdk (4.7.1)` (a subspec such as `google-cast-sdk/Core` counts once).
    ///
    /// Returns `nil` when the text has no `PODS:` section (not a Podfile.lock).
    public static func podfileLock(_ text: String, source: String) -> [CastSDKUse]? {
        var inPods = false
        var sawPods = false
        var uses: [CastSDKUse] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = Substring(raw)
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPods = line == "PODS:"
                sawPods = sawPods || inPods
                continue
            }
            // Top-level entries are indented by two spaces; their dependencies by four.
            guard inPods, line.hasPrefix("  - ") else { continue }
            var entry = line.dropFirst(4)
            if entry.last == ":" { entry.removeLast() }
            if entry.first == "\"" || entry.first == "'" {
                entry = entry.dropFirst()
                if entry.last == "\"" || entry.last == "'" { entry.removeLast() }
            }
            guard let open = entry.firstIndex(of: "("), entry.last == ")" else { continue }
            var name = entry[..<open]
            while name.last == " " { name.removeLast() }
            let pod = String(name.prefix { $0 != "/" })
            guard isCastSDK(pod), !uses.contains(where: { $0.name == pod }) else { continue }
            let written = String(entry[entry.index(after: open)..<entry.index(before: entry.endIndex)])
            let version = CastSDKVersion(written)
            uses.append(
                CastSDKUse(
                    name: pod, version: version, requirement: version == nil ? written : nil, origin: .cocoapods,
                    source: source))
        }
        return sawPods ? uses : nil
    }

    /// The Cast SDK pins of a `Package.resolved` (format 1: `object.pins[].package`,
    /// `repositoryURL`; formats 2 and 3: `pins[].identity`, `location`), matched by package
    /// name or by the repository's last path component.
    ///
    /// Returns `nil` when the data is not a `Package.resolved`.
    public static func packageResolved(_ bytes: [UInt8], source: String) -> [CastSDKUse]? {
        struct State: Decodable {
            var version: String?
            var branch: String?
            var revision: String?
        }
        struct Pin: Decodable {
            var identity: String?
            var package: String?
            var location: String?
            var repositoryURL: String?
            var state: State?
        }
        struct Pins: Decodable { var pins: [Pin] }
        struct File: Decodable {
            var version: Int?
            var pins: [Pin]?
            var object: Pins?
        }
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)),
            let pins = file.pins ?? file.object?.pins
        else { return nil }
        var uses: [CastSDKUse] = []
        for pin in pins {
            let url = pin.location ?? pin.repositoryURL ?? ""
            let repository = repositoryName(url)
            let name = pin.identity ?? pin.package ?? repository
            guard isCastSDK(name) || isCastSDK(repository) else { continue }
            let written = pin.state?.version
            let version = written.flatMap(CastSDKVersion.init)
            let requirement =
                version != nil
                ? nil
                : pin.state?.branch.map { "branch \($0)" } ?? pin.state?.revision.map { "revision \($0.prefix(12))" }
            uses.append(
                CastSDKUse(name: name, version: version, requirement: requirement, origin: .swiftpm, source: source))
        }
        return uses
    }
}
