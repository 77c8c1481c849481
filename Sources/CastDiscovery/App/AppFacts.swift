/// What `check-app` reads an app from.
public enum AppInputKind: String, Sendable {
    /// An Xcode project (a folder holding one, or the `.xcodeproj`).
    case project
    case podfileLock = "podfile-lock"
    case packageResolved = "package-resolved"
    case infoPlist = "info-plist"
    /// A built app's archive.
    case ipa
    /// A built app's folder (`.app`).
    case app

    /// Whether the app's sources were read (only a project has them).
    public var hasSources: Bool { self == .project }
    /// Whether the input can say which Cast SDK the app uses.
    public var showsSDK: Bool { self != .infoPlist }
}

/// Everything `check-app` learned about one app target, from whichever files the input has.
public struct AppFacts: Sendable {
    /// The target's name (the project's target, the app's bundle name, or the file's name).
    public var name: String
    public var kind: AppInputKind
    /// The Info.plist's path, or `generated` for one Xcode generates from build settings only.
    public var infoPlistPath: String?
    /// The Info.plist as the app ships it (with `INFOPLIST_KEY_*` build settings merged).
    public var plist: InfoPlist?
    /// Why there is no Info.plist when the input should have one.
    public var plistProblem: String?
    public var bundleID: String?
    /// `IPHONEOS_DEPLOYMENT_TARGET`, or `MinimumOSVersion` of a built app.
    public var deploymentTarget: String?
    /// Where the app gets the Cast SDK from (none found: empty).
    public var sdks: [CastSDKUse] = []
    /// `DTXcode` of a built app: `1200` is Xcode 12.0.
    public var xcode: String?
    /// `DTSDKName` of a built app: `iphoneos14.0`.
    public var buildSDK: String?
    /// The project format, when read from a project (54+ is Xcode 12 or later).
    public var projectObjectVersion: Int?
    /// The sources' Cast facts, for a project.
    public var sources: SourceScan?
    /// Notes on what could not be read (a file too large, a setting not expanded…).
    public var notes: [String] = []

    public init(name: String, kind: AppInputKind) {
        self.name = name
        self.kind = kind
    }

    /// The Xcode that built the app as a number (`1200`), when a built app records it.
    public var xcodeNumber: Int? { xcode.flatMap { Int($0) } }

    /// `14.0` from `iphoneos14.0`.
    var buildSDKVersion: CastSDKVersion? {
        guard let sdk = buildSDK?.lowercased(), sdk.hasPrefix("iphoneos") else { return nil }
        return CastSDKVersion(String(sdk.dropFirst(8)))
    }

    /// `Xcode 12.0` from `1200`, `Xcode 11.7` from `1170`.
    public var xcodeName: String? {
        guard let n = xcodeNumber else { return nil }
        let minor = (n / 10) % 10
        let patch = n % 10
        return "Xcode \(n / 100).\(minor)" + (patch > 0 ? ".\(patch)" : "")
    }

    /// The Bluetooth usage text, when set and not blank.
    var bluetoothUsage: String? {
        guard let text = plist?.strings["NSBluetoothAlwaysUsageDescription"] else { return nil }
        let trimmed = InfoPlist.trimmed(text)
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension InfoPlist {
    /// An Info.plist Xcode generates from build settings alone (`GENERATE_INFOPLIST_FILE = YES`
    /// and no `INFOPLIST_FILE`).
    public init(generated keys: [String: String]) {
        self.init(
            data: [UInt8]("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict/></plist>".utf8))
        format = "generated"
        merge(generated: keys)
    }

    /// Adds the keys Xcode writes from `INFOPLIST_KEY_<key>` build settings (given without the
    /// prefix) where the file does not set them.
    public mutating func merge(generated keys: [String: String]) {
        guard isDictionary else { return }
        for (key, value) in keys {
            if key == Self.usageKey {
                if usageDescriptionKind == nil {
                    usageDescription = value
                    usageDescriptionKind = .string
                }
            } else if Self.otherKeys.contains(key), strings[key] == nil {
                strings[key] = value
            }
        }
    }
}
