/// A release of the Google Cast iOS SDK, `4.8.3`, and the releases Google's pages name.
///
/// Versions compare part by part (`4.10.0` is after `4.8.3`); a suffix such as `-beta` is kept
/// in ``text`` and ignored when comparing.
public struct CastSDKVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Major, minor and patch (missing parts are 0).
    public let parts: [Int]
    /// The version as written.
    public let text: String

    /// Reads `4.8.3`, `v4.7.1`, `4.8`, `4.7.1-beta`; `nil` for anything else.
    public init?(_ written: String) {
        var s = Substring(written.drop { $0 == " " || $0 == "\t" })
        while s.last == " " || s.last == "\t" { s.removeLast() }
        text = String(s)
        if s.first == "v" || s.first == "V" { s = s.dropFirst() }
        let core = s.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let rest = s.dropFirst(core.count)
        guard !core.isEmpty, rest.isEmpty || rest.first == "-" || rest.first == "+" || rest.first == " " else {
            return nil
        }
        let numbers = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(numbers.count), numbers.allSatisfy({ !$0.isEmpty && $0.count <= 6 }) else { return nil }
        var p = numbers.compactMap { Int($0) }
        while p.count < 3 { p.append(0) }
        parts = p
    }

    init(_ major: Int, _ minor: Int, _ patch: Int) {
        parts = [major, minor, patch]
        text = "\(major).\(minor).\(patch)"
    }

    public var description: String { text }

    public static func < (a: Self, b: Self) -> Bool { a.parts.lexicographicallyPrecedes(b.parts) }
    public static func == (a: Self, b: Self) -> Bool { a.parts == b.parts }
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }

    /// The first release with `google-cast-sdk-no-bluetooth`, an SDK without guest mode that
    /// needs no Bluetooth permission (Google's guest mode page).
    public static let noBluetoothFlavour = CastSDKVersion(4, 4, 3)
    /// Apps built with the iOS 13 SDK need at least this release, or the Cast button may not
    /// appear when the user does not grant location permission (permissions page, iOS 13).
    public static let iOS13Minimum = CastSDKVersion(4, 4, 4)
    /// The last release that keeps working on iOS 14 only when built with Xcode 11.7 or earlier.
    public static let lastBeforeIOS14 = CastSDKVersion(4, 4, 8)
    /// The first release apps built with Xcode 12 or later need on iOS 14 (permissions page).
    public static let iOS14Minimum = CastSDKVersion(4, 6, 0)
    /// Guest mode was removed, leaving a single flavour that needs no Bluetooth permission
    /// (release notes, iOS Sender 4.8.1, April 2024).
    public static let guestModeRemoved = CastSDKVersion(4, 8, 1)
    /// The release Google's permissions page asks developers to update to and re-release with.
    public static let recommended = CastSDKVersion(4, 8, 3)
}

/// Which build of the SDK an app links: with guest mode (it uses Bluetooth), without it, or
/// the single flavour of 4.8.1 and later.
public enum CastSDKFlavour: String, Sendable, Hashable {
    /// Guest mode: the SDK scans with Bluetooth, so iOS 13+ needs NSBluetoothAlwaysUsageDescription.
    case guestMode = "guest-mode"
    /// `google-cast-sdk-no-bluetooth` (4.4.3 to 4.8.0).
    case noBluetooth = "no-bluetooth"
    /// 4.8.1 and later: one flavour, without guest mode.
    case single
    /// Not known (a package or a framework whose binary was not read).
    case unknown
}

/// One place an app gets the Cast SDK from: a pod, a Swift package, a framework in the
/// project or the app, or the SDK's resources in an app (a statically linked SDK).
public struct CastSDKUse: Sendable, Hashable {
    /// How the SDK reaches the app.
    public enum Origin: String, Sendable, Hashable {
        case cocoapods, swiftpm, framework, resources
        /// The SDK's classes found in the app's executable (linked statically).
        case executable
    }

    /// The pod or package name, or `GoogleCast.framework`.
    public var name: String
    /// The release, when known.
    public var version: CastSDKVersion?
    /// The version or requirement as written when it is not one release (`4.7.0 up to next major`).
    public var requirement: String?
    public var flavour: CastSDKFlavour
    public var origin: Origin
    /// The file that says so.
    public var source: String

    public init(
        name: String, version: CastSDKVersion?, requirement: String? = nil, flavour: CastSDKFlavour? = nil,
        origin: Origin, source: String
    ) {
        self.name = name
        self.version = version
        self.requirement = requirement
        self.origin = origin
        self.source = source
        self.flavour = flavour ?? Self.flavour(name: name, version: version, origin: origin)
    }

    /// The flavour a pod or package name and release imply: `-no-bluetooth` pods have no guest
    /// mode, 4.8.1 and later have one flavour, Google's other pods before 4.8.1 have guest mode.
    static func flavour(name: String, version: CastSDKVersion?, origin: Origin) -> CastSDKFlavour {
        let n = name.lowercased()
        if n.contains("no-bluetooth") || n.contains("nobluetooth") { return .noBluetooth }
        if let version, version >= .guestModeRemoved { return .single }
        if origin == .cocoapods, version != nil, n.hasPrefix("google-cast-sdk"), !n.contains("beta") {
            return .guestMode
        }
        return .unknown
    }

    /// `google-cast-sdk 4.7.1 (Podfile.lock)`.
    public var summary: String {
        "\(name) \(version?.text ?? requirement ?? "(version unknown)") (\(source))"
    }
}
