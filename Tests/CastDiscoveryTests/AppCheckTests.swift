import Testing

@testable import CastDiscovery

/// An Info.plist as XML from keys: strings and string arrays.
private func plist(_ keys: [String: Any]) -> InfoPlist {
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>"
    for (k, v) in keys.sorted(by: { $0.key < $1.key }) {
        xml += "<key>\(k)</key>"
        if let s = v as? String { xml += "<string>\(s)</string>" }
        if let a = v as? [String] { xml += "<array>" + a.map { "<string>\($0)</string>" }.joined() + "</array>" }
    }
    return InfoPlist(data: Array((xml + "</dict></plist>").utf8))
}

private var goodPlist: [String: Any] {
    [
        "NSBonjourServices": ["_googlecast._tcp", "_4F8B3483._googlecast._tcp"],
        "NSLocalNetworkUsageDescription": "Finds Cast devices",
    ]
}

private func project(
    plist keys: [String: Any]? = goodPlist, pod: String = "google-cast-sdk-no-bluetooth", version: String? = "4.8.3",
    source: String? =
        "let c = GCKDiscoveryCriteria(applicationID: \"4F8B3483\")\nGCKCastContext.setSharedInstanceWith(o)\n"
) -> AppFacts {
    var app = AppFacts(name: "App", kind: .project)
    app.plist = keys.map(plist)
    app.infoPlistPath = "App/Info.plist"
    app.sdks = [
        CastSDKUse(name: pod, version: version.flatMap(CastSDKVersion.init), origin: .cocoapods, source: "Podfile.lock")
    ]
    var scan = SourceScan()
    if let source { scan.scan(source, file: "AppDelegate.swift") }
    scan.finish()
    app.sources = scan
    return app
}

private func built(xcode: String, sdk: String, framework version: String, flavour: CastSDKFlavour = .noBluetooth)
    -> AppFacts
{
    var app = AppFacts(name: "App", kind: .ipa)
    app.plist = plist(goodPlist)
    app.xcode = xcode
    app.buildSDK = sdk
    app.sdks = [
        CastSDKUse(
            name: "GoogleCast.framework", version: CastSDKVersion(version), flavour: flavour, origin: .framework,
            source: "Payload/App.app/Frameworks/GoogleCast.framework/Info.plist")
    ]
    return app
}

private func codes(_ app: AppFacts, _ ids: [String] = []) -> [String] {
    AppCheck.check(app, appIDs: ids).map(\.code.rawValue).sorted()
}

@Suite("check-app rules: each fails its case and passes the fixed twin")
struct AppCheckTests {
    @Test("a current, complete app: APP_OK and the after-first-tap note")
    func healthy() {
        #expect(codes(project()) == ["APP_DISCOVERY_AFTER_TAP", "APP_OK"])
    }

    @Test("SDK below 4.6.0 built with Xcode 12+ (or unknown): APP_CAST_SDK_TOO_OLD; 4.6.0–4.8.2 a note")
    func release() {
        #expect(codes(project(version: "4.5.3")) == ["APP_CAST_SDK_TOO_OLD"])
        #expect(
            codes(project(version: "4.6.0")) == [
                "APP_CAST_SDK_UPDATE_RECOMMENDED", "APP_DISCOVERY_AFTER_TAP", "APP_OK",
            ])
        #expect(codes(built(xcode: "1200", sdk: "iphoneos14.0", framework: "4.5.0")) == ["APP_CAST_SDK_TOO_OLD"])
        #expect(codes(built(xcode: "1500", sdk: "iphoneos17.0", framework: "4.8.3")) == ["APP_OK"])
    }

    @Test("Xcode 11 builds: iOS 13 SDK below 4.4.4 is an error; older SDKs and 4.4.4–4.5 a warning")
    func xcode11() {
        #expect(codes(built(xcode: "1170", sdk: "iphoneos13.7", framework: "4.4.2")) == ["APP_CAST_SDK_TOO_OLD"])
        let twin = AppCheck.check(built(xcode: "1170", sdk: "iphoneos13.7", framework: "4.4.4"))
        #expect(twin.map(\.code) == [.appCastSDKUpdateRecommended])
        #expect(twin.first?.severity == .warning)
        let ios12 = AppCheck.check(built(xcode: "1020", sdk: "iphoneos12.2", framework: "4.3.0"))
        #expect(ios12.map(\.code) == [.appCastSDKUpdateRecommended])
        #expect(ios12.first?.detail.contains("degraded discovery") == true)
    }

    @Test(
        "guest mode without NSBluetoothAlwaysUsageDescription: APP_BLUETOOTH_USAGE_MISSING; the key or no-bluetooth pass"
    )
    func bluetooth() {
        #expect(codes(project(pod: "google-cast-sdk", version: "4.7.1")).contains("APP_BLUETOOTH_USAGE_MISSING"))
        var withKey = goodPlist
        withKey["NSBluetoothAlwaysUsageDescription"] = "Finds nearby Cast devices"
        #expect(
            !codes(project(plist: withKey, pod: "google-cast-sdk", version: "4.7.1")).contains(
                "APP_BLUETOOTH_USAGE_MISSING"))
        withKey["NSBluetoothAlwaysUsageDescription"] = "  "
        #expect(
            codes(project(plist: withKey, pod: "google-cast-sdk", version: "4.7.1")).contains(
                "APP_BLUETOOTH_USAGE_MISSING"))
        #expect(
            !codes(project(pod: "google-cast-sdk-no-bluetooth", version: "4.7.1")).contains(
                "APP_BLUETOOTH_USAGE_MISSING"))
        // 4.8.1 removed guest mode.
        #expect(!codes(project(pod: "google-cast-sdk", version: "4.8.1")).contains("APP_BLUETOOTH_USAGE_MISSING"))
        #expect(
            codes(built(xcode: "1500", sdk: "iphoneos17.0", framework: "4.7.1", flavour: .guestMode))
                .contains("APP_BLUETOOTH_USAGE_MISSING"))
    }

    @Test("code and plist name different app IDs: APP_ID_MISMATCH names both; none declared: PLIST_MISSING_APP_ID")
    func appIDs() {
        var other = goodPlist
        other["NSBonjourServices"] = ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"]
        let findings = AppCheck.check(project(plist: other))
        let mismatch = findings.first { $0.code == .appIDMismatch }
        #expect(mismatch?.title.contains("4F8B3483") == true)
        #expect(mismatch?.title.contains("_CC1AD845._googlecast._tcp") == true)
        #expect(mismatch?.detail.contains("AppDelegate.swift:1") == true)
        #expect(!findings.contains { $0.code == .plistMissingAppID })
        var none = goodPlist
        none["NSBonjourServices"] = ["_googlecast._tcp"]
        #expect(codes(project(plist: none)) == ["APP_DISCOVERY_AFTER_TAP", "PLIST_MISSING_APP_ID"])
        // Listed only as `_<ID>._sub…`, which iOS does not match: PLIST_MISSING_APP_ID names the near miss.
        var sub = goodPlist
        sub["NSBonjourServices"] = ["_googlecast._tcp", "_4F8B3483._sub._googlecast._tcp"]
        let subFindings = AppCheck.check(project(plist: sub))
        #expect(subFindings.map(\.code).contains(.plistMissingAppID))
        #expect(!subFindings.map(\.code).contains(.appIDMismatch))
        // --app-id adds an ID to require.
        #expect(codes(project(), ["ABCD1234"]).contains("PLIST_MISSING_APP_ID"))
    }

    @Test("the plist rules run on the shipped Info.plist, and a missing one is APP_INFO_PLIST_NOT_FOUND")
    func plistRules() {
        #expect(
            codes(project(plist: ["NSBonjourServices": ["_googlecast._tcp", "_4F8B3483._googlecast._tcp"]]))
                == ["APP_DISCOVERY_AFTER_TAP", "PLIST_MISSING_USAGE_DESCRIPTION"])
        var app = project(plist: nil)
        app.plistProblem = "INFOPLIST_FILE is Missing.plist; open Missing.plist: No such file or directory."
        #expect(codes(app) == ["APP_DISCOVERY_AFTER_TAP", "APP_INFO_PLIST_NOT_FOUND"])
        // Generated keys fill what the file lacks.
        var p = plist(["NSBonjourServices": ["_googlecast._tcp", "_4F8B3483._googlecast._tcp"]])
        p.merge(generated: ["NSLocalNetworkUsageDescription": "Finds Cast devices"])
        var generated = project()
        generated.plist = p
        #expect(codes(generated) == ["APP_DISCOVERY_AFTER_TAP", "APP_OK"])
    }

    @Test("when discovery starts: autostart disabled, after the first tap (default or set), at launch")
    func discoveryStart() {
        let setup =
            "let c = GCKDiscoveryCriteria(applicationID: \"4F8B3483\")\nlet o = GCKCastOptions(discoveryCriteria: c)\n"
        #expect(
            codes(project(source: setup + "o.disableDiscoveryAutostart = true\n")) == [
                "APP_DISCOVERY_AUTOSTART_DISABLED", "APP_OK",
            ])
        #expect(
            codes(project(source: setup + "o.startDiscoveryAfterFirstTapOnCastButton = true\n")) == [
                "APP_DISCOVERY_AFTER_TAP", "APP_OK",
            ])
        #expect(codes(project(source: setup + "o.startDiscoveryAfterFirstTapOnCastButton = false\n")) == ["APP_OK"])
        // No Cast set-up in the code, or an SDK older than the option: no note.
        #expect(codes(project(source: nil)) == ["APP_OK"])
    }

    @Test("no SDK: APP_NO_CAST_SDK; SDK present without a release: APP_CAST_SDK_VERSION_UNKNOWN")
    func sdkPresence() {
        var none = project()
        none.sdks = []
        #expect(codes(none) == ["APP_CAST_SDK_VERSION_UNKNOWN", "APP_DISCOVERY_AFTER_TAP", "APP_OK"])
        none.sources = SourceScan()
        #expect(codes(none) == ["APP_NO_CAST_SDK"])
        var statics = built(xcode: "1500", sdk: "iphoneos17.0", framework: "4.8.3")
        statics.sdks = [CastSDKUse(name: "GoogleCast (static)", version: nil, origin: .resources, source: "x.bundle")]
        #expect(codes(statics) == ["APP_CAST_SDK_VERSION_UNKNOWN", "APP_OK"])
        // An Info.plist alone says nothing about the SDK.
        var alone = AppFacts(name: "Info.plist", kind: .infoPlist)
        alone.plist = plist(goodPlist)
        #expect(codes(alone) == ["APP_OK"])
    }

    @Test("several targets: titles name the target")
    func targets() {
        var a = project()
        a.name = "Phone"
        var b = project(version: "4.5.0")
        b.name = "Tablet"
        let r = AppCheckResult(input: ".", kind: .project, targets: [a, b])
        #expect(r.allFindings.first?.title.hasPrefix("Tablet: ") == true)
        #expect(r.allFindings.first?.code == .appCastSDKTooOld)
    }
}
