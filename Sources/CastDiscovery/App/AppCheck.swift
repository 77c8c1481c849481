/// The checks of `castscope check-app`: what Google's "iOS Permissions and Discovery" page
/// asks of a Cast sender app, each rule one function over ``AppFacts``.
///
/// Sources of the rules (docs/check-app.md): the permissions page (SDK 4.6.0 for Xcode 12 and
/// iOS 14, 4.4.8 and earlier only with Xcode 11.7 or earlier, 4.4.4 for the iOS 13 SDK, the
/// release to update to), the guest mode page (NSBluetoothAlwaysUsageDescription,
/// `google-cast-sdk-no-bluetooth` from 4.4.3), the iOS Sender 4.8.1 release notes (guest mode
/// removed), the setup page (NSBonjourServices, NSLocalNetworkUsageDescription) and the
/// `GCKCastOptions` reference (discovery start options).
public enum AppCheck {
    /// The findings for one app target, most severe first.
    /// - Parameter appIDs: receiver app IDs to require besides those the code uses.
    public static func check(_ app: AppFacts, appIDs: [String] = []) -> [Finding] {
        var findings: [Finding] = []
        findings += infoPlist(app, given: appIDs)
        findings += appIDMismatch(app)
        findings += sdkRelease(app)
        findings += bluetoothUsage(app)
        findings += discoveryStart(app)
        findings += ok(app, findings)
        return Diagnosis.sorted(findings)
    }

    static let pageAdvice = "Google's page: developers.google.com/cast/docs/ios_sender/permissions_and_discovery."

    // MARK: Info.plist

    /// The check-plist rules on the Info.plist the app ships, for the app IDs given and those
    /// the code uses (an ID whose type is missing while other app types are listed is
    /// APP_ID_MISMATCH instead); APP_INFO_PLIST_NOT_FOUND when a target's file is missing.
    static func infoPlist(_ app: AppFacts, given: [String]) -> [Finding] {
        guard let plist = app.plist else {
            guard let problem = app.plistProblem else { return [] }
            return [
                Finding(
                    code: .appInfoPlistNotFound, severity: .warning,
                    title: "\(app.name): the Info.plist could not be read, so its Cast keys were not checked",
                    detail: problem,
                    advice: "Point check-app at the Info.plist itself (castscope check-app path/to/Info.plist), or "
                        + "at the built .ipa, whose Info.plist is the one iOS reads.")
            ]
        }
        let declared = plist.inferredAppIDs
        let fromCode = (app.sources?.distinctAppIDs ?? []).filter { declared.isEmpty || plist.declares(appID: $0) }
        var ids: [String] = []
        for id in given + fromCode where !ids.contains(where: { InfoPlist.same($0, id) }) { ids.append(id) }
        return plist.check(appIDs: ids).filter { $0.code != .plistOK }
    }

    /// APP_ID_MISMATCH: the code passes app ID X to the SDK, and NSBonjourServices lists the
    /// types of other app IDs but not X's: iOS refuses the SDK's browse for X's type.
    static func appIDMismatch(_ app: AppFacts) -> [Finding] {
        guard let plist = app.plist, let scan = app.sources else { return [] }
        let declared = plist.declaredAppIDs
        guard !declared.isEmpty else { return [] }
        var findings: [Finding] = []
        // An ID listed in a form iOS does not match (`_<ID>._sub._googlecast._tcp`) is
        // PLIST_MISSING_APP_ID's, with the near miss named.
        let nearMisses = plist.inferredAppIDs.filter { !plist.declares(appID: $0) }
        for id in scan.distinctAppIDs
        where !plist.declares(appID: id) && !nearMisses.contains(where: { InfoPlist.same($0, id) }) {
            let uses = scan.appIDs.filter { InfoPlist.same($0.id, id) }
            let first = uses[0]
            let how: String
            switch first.how {
            case .literal: how = "\"\(id)\""
            case .constant(let name): how = "\(name) (= \"\(id)\")"
            case .defaultMediaReceiver:
                how = "kGCKDefaultMediaReceiverApplicationID (the Default Media Receiver, \(id))"
            }
            let types = declared.map(InfoPlist.serviceType(appID:))
            findings.append(
                Finding(
                    code: .appIDMismatch, severity: .error,
                    title: "The code uses app ID \(id), but NSBonjourServices lists \(Wording.list(types)) instead",
                    detail: "\(first.location) passes \(how) to \(first.call)"
                        + (uses.count > 1 ? " (and \(Wording.count(uses.count - 1, "other place")))" : "")
                        + ". The SDK then browses for \(InfoPlist.serviceType(appID: id)), which iOS 14 and later "
                        + "refuse because NSBonjourServices does not list it; it lists "
                        + Wording.list(types) + ", for app ID " + Wording.list(declared) + ". "
                        + "Devices are found only for the listed ID, or not at all.",
                    advice: "Make the two agree: add <string>\(InfoPlist.serviceType(appID: id))</string> to "
                        + "NSBonjourServices, or pass the receiver app ID the plist names. "
                        + InfoPlist.servicesXML(appIDs: [id] + declared),
                    subjects: FindingSubjects(appIDs: [id] + declared)))
        }
        return findings
    }

    // MARK: The SDK release

    /// APP_CAST_SDK_TOO_OLD, APP_CAST_SDK_UPDATE_RECOMMENDED, APP_CAST_SDK_VERSION_UNKNOWN and
    /// APP_NO_CAST_SDK, from each SDK the input shows and the Xcode that built the app.
    static func sdkRelease(_ app: AppFacts) -> [Finding] {
        guard app.kind.showsSDK else { return [] }
        if app.sdks.isEmpty {
            if let setup = app.sources?.castSetup {
                return [
                    Finding(
                        code: .appCastSDKVersionUnknown, severity: .info,
                        title: "\(app.name) uses the Cast SDK, but no Podfile.lock, Package.resolved or GoogleCast "
                            + "framework says which release",
                        detail: "\(setup) uses the Cast SDK, and none of the files that name its release was found "
                            + "beside the project, so the release rules were not checked.",
                        advice: "Run check-app on the folder that holds the Podfile.lock (CocoaPods) or the "
                            + ".xcworkspace (Swift Package Manager), or on the built .ipa.")
                ]
            }
            return [
                Finding(
                    code: .appNoCastSDK, severity: .warning,
                    title: "No Google Cast SDK found in \(app.name)",
                    detail: noSDKDetail(app),
                    advice: "Add the Cast iOS SDK \(CastSDKVersion.recommended) or later (CocoaPods: pod "
                        + "'google-cast-sdk', then pod install; or Swift Package Manager), or run check-app on the "
                        + "folder or .ipa that holds it. " + pageAdvice)
            ]
        }
        var findings: [Finding] = []
        for use in app.sdks {
            guard let version = use.version else {
                findings.append(
                    Finding(
                        code: .appCastSDKVersionUnknown, severity: .info,
                        title: "The Cast SDK's release is not known (\(use.name))",
                        detail: unknownVersionDetail(use),
                        advice: "Check the release in the project (Podfile.lock or Package.resolved) with check-app "
                            + "on the project folder; \(CastSDKVersion.iOS14Minimum) or later is needed for apps built "
                            + "with Xcode 12 or later, and \(CastSDKVersion.recommended) or later is recommended."))
                continue
            }
            if let f = releaseFinding(app, use, version) { findings.append(f) }
        }
        return findings
    }

    static func noSDKDetail(_ app: AppFacts) -> String {
        switch app.kind {
        case .podfileLock: "The Podfile.lock has no google-cast-sdk pod."
        case .packageResolved: "The Package.resolved pins no Cast SDK package."
        case .ipa:
            "The app has no GoogleCast.framework, no GoogleCast resource bundle and no Cast SDK class in its "
                + "executable."
        default:
            "No google-cast-sdk pod in a Podfile.lock, no Cast package in a Package.resolved or the project, no "
                + "GoogleCast.framework in the folder, and no source uses GCKCastContext or GCKCastOptions."
        }
    }

    static func unknownVersionDetail(_ use: CastSDKUse) -> String {
        switch use.origin {
        case .executable:
            "The app's executable (\(use.source)) holds the SDK's classes: it is linked statically, and the "
                + "executable does not record the release."
        case .resources:
            "The app holds the SDK's resources (\(use.source)), so the SDK is linked statically into the "
                + "executable, which does not record the release."
        case .swiftpm, .cocoapods:
            "\(use.source) names \(use.name) \(use.requirement ?? "without a version"), not one release, so the "
                + "release rules were not checked."
        case .framework:
            "\(use.source) has no CFBundleShortVersionString that reads as a release."
        }
    }

    /// The finding for one SDK of a known release, or nil when it is current.
    static func releaseFinding(_ app: AppFacts, _ use: CastSDKUse, _ v: CastSDKVersion) -> Finding? {
        let what = "\(use.name) \(v) (\(use.source))"
        let update =
            "Update the Cast iOS SDK to \(CastSDKVersion.recommended) or later (CocoaPods: pod update "
            + "google-cast-sdk; Swift Package Manager: update the package), then release the app again. "
            + pageAdvice
        if let xcode = app.xcodeNumber, xcode < 1200, let built = app.xcodeName {
            let sdk = app.buildSDK ?? "an iOS SDK not recorded"
            if v < .iOS13Minimum, let major = app.buildSDKVersion?.parts.first, major == 13 {
                return Finding(
                    code: .appCastSDKTooOld, severity: .error,
                    title: "Cast SDK \(v) is too old for the iOS 13 SDK the app was built with",
                    detail: "The app uses \(what) and was built with \(built) against \(sdk). Apps built with the "
                        + "iOS 13 SDK need Cast SDK \(CastSDKVersion.iOS13Minimum) or later; with an older one the "
                        + "Cast button may not appear when the user does not grant location permission.",
                    advice: update)
            }
            if v < .iOS14Minimum {
                let major = app.buildSDKVersion?.parts.first
                let older = v < .iOS13Minimum
                return Finding(
                    code: .appCastSDKUpdateRecommended, severity: .warning,
                    title: "Cast SDK \(v) works only while the app is built with Xcode 11.7 or earlier",
                    detail: "The app uses \(what) and was built with \(built) (\(sdk)). "
                        + (older
                            ? (major.map { $0 <= 12 } == true
                                ? "Built with an iOS 12 or earlier SDK, it"
                                : "If built "
                                    + "with an iOS 12 or earlier SDK, it")
                                + " still works on iOS 13 with degraded discovery "
                                + "(Google recommends \(CastSDKVersion.iOS13Minimum) or later); built with the iOS 13 "
                                + "SDK, the Cast button may not appear without location permission. "
                            : "")
                        + "Releases up to \(CastSDKVersion.lastBeforeIOS14) keep working on iOS 14 only when built "
                        + "with Xcode 11.7 or earlier; the next build with Xcode 12 or later needs "
                        + "\(CastSDKVersion.iOS14Minimum) or later, or Cast devices may not be found on iOS 14 and "
                        + "later.",
                    advice: update)
            }
        } else if v < .iOS14Minimum {
            return Finding(
                code: .appCastSDKTooOld, severity: .error,
                title: "Cast SDK \(v) is too old for iOS 14: \(CastSDKVersion.iOS14Minimum) or later is needed",
                detail: "The app uses \(what). " + builtWith(app)
                    + " Google's page: apps built with Xcode 12 or later need Cast SDK \(CastSDKVersion.iOS14Minimum) "
                    + "or later, whose discovery works with the iOS 14 Local Network permission; "
                    + "\(CastSDKVersion.lastBeforeIOS14) and earlier keep working only when built with Xcode 11.7 "
                    + "or earlier. With this SDK the app may find no Cast device on iOS 14 and later.",
                advice: update)
        }
        guard v < .recommended else { return nil }
        return Finding(
            code: .appCastSDKUpdateRecommended, severity: .info,
            title: "Cast SDK \(v) supports iOS 14; Google recommends \(CastSDKVersion.recommended) or later",
            detail: "The app uses \(what). It has the iOS 14 discovery changes (\(CastSDKVersion.iOS14Minimum) or "
                + "later), and Google's page asks developers to update to \(CastSDKVersion.recommended) and release "
                + "the app again.",
            advice: update)
    }

    /// Why Xcode 12 or later is assumed.
    static func builtWith(_ app: AppFacts) -> String {
        if let name = app.xcodeName { return "It was built with \(name)." }
        if let v = app.projectObjectVersion, v >= 54 {
            return "The project (format \(v)) was last saved by Xcode 12 or later."
        }
        return "Every Xcode the App Store accepts today is Xcode 12 or later."
    }

    // MARK: Bluetooth

    /// APP_BLUETOOTH_USAGE_MISSING: the SDK has guest mode, which uses Bluetooth, and the
    /// Info.plist has no NSBluetoothAlwaysUsageDescription (iOS 13 and later).
    static func bluetoothUsage(_ app: AppFacts) -> [Finding] {
        guard let plist = app.plist, plist.isDictionary, app.bluetoothUsage == nil,
            let use = app.sdks.first(where: { $0.flavour == .guestMode })
        else { return [] }
        let blank = plist.strings["NSBluetoothAlwaysUsageDescription"] != nil
        return [
            Finding(
                code: .appBluetoothUsageMissing, severity: .error,
                title: "The Cast SDK's guest mode uses Bluetooth, and the Info.plist has no "
                    + "NSBluetoothAlwaysUsageDescription",
                detail: "The app uses \(use.summary), the flavour with guest mode, which scans for nearby Cast "
                    + "devices with Bluetooth. From iOS 13 an app that uses Bluetooth must explain why in "
                    + "NSBluetoothAlwaysUsageDescription; "
                    + (blank ? "the key is present but blank. " : "the Info.plist does not set it. ")
                    + "iOS ends an app that touches Bluetooth without it.",
                advice: "Use the SDK without guest mode: pod 'google-cast-sdk-no-bluetooth' (from "
                    + "\(CastSDKVersion.noBluetoothFlavour)), or update to \(CastSDKVersion.guestModeRemoved) or later, "
                    + "which has no guest mode. Or keep guest mode and add <key>NSBluetoothAlwaysUsageDescription</key> "
                    + "<string>${PRODUCT_NAME} uses Bluetooth to discover nearby Cast devices.</string>")
        ]
    }

    // MARK: When discovery starts

    /// APP_DISCOVERY_AUTOSTART_DISABLED and APP_DISCOVERY_AFTER_TAP (notes): when the app's
    /// Cast queries begin, so that a capture without them can be read correctly.
    static func discoveryStart(_ app: AppFacts) -> [Finding] {
        guard app.kind.hasSources, let scan = app.sources, let setup = scan.castSetup else { return [] }
        if let off = scan.autostartDisabled, off.value {
            return [
                Finding(
                    code: .appDiscoveryAutostartDisabled, severity: .info,
                    title: "Discovery does not start by itself: the app sets disableDiscoveryAutostart",
                    detail: "\(off.location) sets GCKCastOptions.disableDiscoveryAutostart to true, so the SDK sends "
                        + "no Cast query until the app calls GCKDiscoveryManager startDiscovery. A capture of the app "
                        + "before that shows no _googlecast._tcp query, which is expected."
                        + contradiction(off),
                    advice: "Capture while the screen that starts discovery is open. castscope analyze --app takes "
                        + "this into account when the capture has no Cast query.")
            ]
        }
        if let tap = scan.afterFirstTap, !tap.value { return [] }
        if app.sdks.contains(where: { ($0.version.map { $0 < .iOS14Minimum }) ?? false }) { return [] }
        let set = scan.afterFirstTap
        return [
            Finding(
                code: .appDiscoveryAfterTap, severity: .info,
                title:
                    "Discovery starts when the Cast button is first tapped (startDiscoveryAfterFirstTapOnCastButton)",
                detail: (set.map {
                    "\($0.location) sets startDiscoveryAfterFirstTapOnCastButton to true." + contradiction($0)
                }
                    ?? "The code (Cast set up at \(setup)) leaves startDiscoveryAfterFirstTapOnCastButton at its "
                    + "default, true.")
                    + " On iOS 14 and later the SDK sends no Cast query until the user first taps the Cast button, "
                    + "unless discovery already ran in an earlier session of the app. A capture taken before the "
                    + "first tap shows no _googlecast._tcp query, which is expected.",
                advice: "Tap the Cast button during the capture. castscope analyze --app takes this into account "
                    + "when the capture has no Cast query.")
        ]
    }

    static func contradiction(_ flag: SourceFlag) -> String {
        guard let other = flag.contradicted else { return "" }
        return " \(other) sets it to \(!flag.value) as well; which one runs was not determined."
    }

    // MARK: Summary

    /// APP_OK: no error and no warning; says what was checked.
    static func ok(_ app: AppFacts, _ findings: [Finding]) -> [Finding] {
        guard !findings.contains(where: { $0.severity != .info }) else { return [] }
        var checked: [String] = []
        if let plist = app.plist {
            checked.append(
                "the Info.plist lists \(InfoPlist.castService)"
                    + (plist.inferredAppIDs.isEmpty
                        ? "" : " and " + Wording.list(plist.inferredAppIDs.map(InfoPlist.serviceType(appID:))))
                    + " and has NSLocalNetworkUsageDescription")
        }
        for use in app.sdks { checked.append("the Cast SDK is \(use.summary)") }
        if let scan = app.sources, !scan.appIDs.isEmpty {
            checked.append(
                "the code's app " + Wording.noun(scan.distinctAppIDs.count, "ID") + " "
                    + Wording.list(scan.distinctAppIDs) + " "
                    + (app.plist == nil
                        ? Wording.noun(scan.distinctAppIDs.count, "was", "were") + " found"
                        : Wording.noun(scan.distinctAppIDs.count, "is", "are") + " declared"))
        }
        if checked.isEmpty { checked.append("nothing the input holds needs changing") }
        return [
            Finding(
                code: .appOK, severity: .info,
                title: "\(app.name) has what Cast discovery needs on iOS",
                detail: "Checked: " + Wording.list(checked) + ".",
                advice: "Nothing to change. If users still see no device, capture the traffic and run castscope "
                    + "analyze --app: the user may have denied Local Network access (Settings › Privacy › Local "
                    + "Network).")
        ]
    }
}

/// `check-app`'s result: each target's facts and findings.
public struct AppCheckResult: Sendable {
    /// The path as given.
    public var input: String
    public var kind: AppInputKind
    public var targets: [AppFacts]
    /// Per target, most severe first.
    public var findings: [[Finding]]

    /// Checks every target.
    public init(input: String, kind: AppInputKind, targets: [AppFacts], appIDs: [String] = []) {
        self.input = input
        self.kind = kind
        self.targets = targets
        findings = targets.map { AppCheck.check($0, appIDs: appIDs) }
    }

    /// All findings, most severe first; with several targets each title starts with the
    /// target's name.
    public var allFindings: [Finding] {
        let several = targets.count > 1
        return Diagnosis.sorted(
            zip(targets, findings).flatMap { target, list in
                list.map { f in
                    var f = f
                    if several && !f.title.hasPrefix(target.name) { f.title = "\(target.name): " + f.title }
                    return f
                }
            })
    }
}
