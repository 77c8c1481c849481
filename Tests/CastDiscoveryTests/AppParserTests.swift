import Testing

@testable import CastDiscovery

@Suite("check-app: the files an app is read from")
struct AppParserTests {
    @Test(
        "Cast SDK versions compare part by part",
        arguments: [
            ("4.5.1", "4.6.0", true), ("4.6.0", "4.6.0", false), ("4.10.0", "4.8.3", false), ("4.8", "4.8.0", false),
            ("v4.7.1", "4.8.3", true), ("4.7.1-beta", "4.7.1", false),
        ])
    func versions(_ a: String, _ b: String, _ less: Bool) throws {
        let x = try #require(CastSDKVersion(a))
        let y = try #require(CastSDKVersion(b))
        #expect((x < y) == less)
    }

    @Test("what is not a version is refused", arguments: ["", "abc", "4..1", "4.x", "1.2.3.4.5", "~> 4.7"])
    func notVersions(_ text: String) {
        #expect(CastSDKVersion(text) == nil)
    }

    @Test("Podfile.lock: the Cast pods of PODS:, a subspec once, other sections ignored")
    func podfileLock() throws {
        let lock = """
            PODS:
              - Alamofire (5.8.1)
              - google-cast-sdk-no-bluetooth (4.7.1):
                - google-cast-sdk-no-bluetooth/Core (= 4.7.1)
              - google-cast-sdk-no-bluetooth/Core (4.7.1):
                - Protobuf (~> 3.13)
              - "google-cast-sdk-dynamic-xcframework (4.8.3)"

            DEPENDENCIES:
              - google-cast-sdk (= 4.5.1)

            COCOAPODS: 1.15.2
            """
        let uses = try #require(DependencyFiles.podfileLock(lock, source: "Podfile.lock"))
        #expect(uses.map(\.name) == ["google-cast-sdk-no-bluetooth", "google-cast-sdk-dynamic-xcframework"])
        #expect(uses.map { $0.version?.text } == ["4.7.1", "4.8.3"])
        #expect(uses.map(\.flavour) == [.noBluetooth, .single])
        #expect(DependencyFiles.podfileLock("DEPENDENCIES:\n  - x\n", source: "x") == nil)
    }

    @Test("flavour: guest mode for Google's pods before 4.8.1, none from 4.8.1, no-bluetooth by name")
    func flavours() {
        func flavour(_ name: String, _ version: String?) -> CastSDKFlavour {
            CastSDKUse(name: name, version: version.flatMap(CastSDKVersion.init), origin: .cocoapods, source: "x")
                .flavour
        }
        #expect(flavour("google-cast-sdk", "4.7.1") == .guestMode)
        #expect(flavour("google-cast-sdk-dynamic-xcframework", "4.8.0") == .guestMode)
        #expect(flavour("google-cast-sdk", "4.8.1") == .single)
        #expect(flavour("google-cast-sdk-no-bluetooth", "4.4.3") == .noBluetooth)
        #expect(flavour("google-cast-sdk", nil) == .unknown)
        #expect(flavour("google-cast-sdk-dynamic-beta", "4.7.1") == .unknown)
    }

    @Test("Package.resolved formats 1 and 2: Cast pins by name or repository")
    func packageResolved() throws {
        let v2 = """
            {"pins":[{"identity":"google-cast-sdk","kind":"remoteSourceControl",
            "location":"https://github.com/SRGSSR/google-cast-sdk.git","state":{"revision":"abc","version":"4.8.3"}},
            {"identity":"swift-log","location":"https://github.com/apple/swift-log.git","state":{"version":"1.5.3"}}],
            "version":2}
            """
        let uses = try #require(DependencyFiles.packageResolved(Array(v2.utf8), source: "Package.resolved"))
        #expect(uses.map(\.name) == ["google-cast-sdk"])
        #expect(uses.first?.version?.text == "4.8.3")
        #expect(uses.first?.flavour == .single)
        let v1 = """
            {"object":{"pins":[{"package":"GoogleCast","repositoryURL":"https://example.com/x/google-cast-ios-sdk",
            "state":{"branch":"main","revision":"0123456789abcdef","version":null}}]},"version":1}
            """
        let old = try #require(DependencyFiles.packageResolved(Array(v1.utf8), source: "P"))
        #expect(old.count == 1)
        #expect(old.first?.version == nil)
        #expect(old.first?.requirement == "branch main")
        #expect(DependencyFiles.packageResolved(Array("[1,2]".utf8), source: "x") == nil)
    }

    @Test("OpenStep: comments, quoting, escapes, arrays, data; errors name the line")
    func openStep() throws {
        let text = """
            // !$*UTF8*$!
            {
                a = "x \\"q\\" \\n y"; /* comment */ b = ( 1, "two", ); c = { d = "$(SRCROOT)/Info.plist"; };
                e = <0aFF>;
            }
            """
        let v = try OpenStepParser.parse(Array(text.utf8))
        #expect(v["a"]?.string == "x \"q\" \n y")
        #expect(v["b"]?.array == [.string("1"), .string("two")])
        #expect(v["c"]?["d"]?.string == "$(SRCROOT)/Info.plist")
        #expect(v["e"] == .data([0x0A, 0xFF]))
        #expect(throws: OpenStepError.self) { try OpenStepParser.parse(Array("{\n a = b\n}".utf8)) }
        do {
            _ = try OpenStepParser.parse(Array("{\n a = b;\n c = ;\n}".utf8))
            Issue.record("no error")
        } catch {
            #expect(error.line == 3)
        }
        let deep = String(repeating: "(", count: 500) + String(repeating: ")", count: 500)
        #expect(throws: OpenStepError.self) { try OpenStepParser.parse(Array(deep.utf8)) }
    }

    @Test("Xcode project: app targets, Release settings over the project's, packages")
    func xcodeProject() throws {
        let pbx = """
            // !$*UTF8*$!
            {
              objectVersion = 56;
              rootObject = R;
              objects = {
                R = { isa = PBXProject; buildConfigurationList = PL; targets = ( T1, T2, ); };
                PL = { isa = XCConfigurationList; buildConfigurations = ( PD, PR, ); };
                PD = { isa = XCBuildConfiguration; name = Debug; buildSettings = { IPHONEOS_DEPLOYMENT_TARGET = 13.0; }; };
                PR = { isa = XCBuildConfiguration; name = Release; buildSettings = { IPHONEOS_DEPLOYMENT_TARGET = 14.0; SDKROOT = iphoneos; }; };
                T1 = { isa = PBXNativeTarget; name = "My App"; productType = "com.apple.product-type.application"; buildConfigurationList = TL; };
                TL = { isa = XCConfigurationList; buildConfigurations = ( TD, TR, ); };
                TD = { isa = XCBuildConfiguration; name = Debug; buildSettings = { INFOPLIST_FILE = "Debug.plist"; }; };
                TR = { isa = XCBuildConfiguration; name = Release; buildSettings = { INFOPLIST_FILE = "$(SRCROOT)/$(TARGET_NAME)/Info.plist"; OTHER = ( a, b ); }; };
                T2 = { isa = PBXNativeTarget; name = Kit; productType = "com.apple.product-type.framework"; };
                P = { isa = XCRemoteSwiftPackageReference; repositoryURL = "https://github.com/SRGSSR/google-cast-sdk.git";
                      requirement = { kind = upToNextMajorVersion; minimumVersion = 4.7.0; }; };
              };
            }
            """
        let p = try XcodeProject(parsing: Array(pbx.utf8))
        #expect(p.objectVersion == 56)
        #expect(p.targets.map(\.name) == ["My App"])
        #expect(p.allTargets.map(\.name) == ["My App", "Kit"])
        let t = try #require(p.targets.first)
        #expect(t.configuration == "Release")
        #expect(t.settings["IPHONEOS_DEPLOYMENT_TARGET"] == "14.0")
        #expect(t.settings["OTHER"] == "a b")
        #expect(t.setting("INFOPLIST_FILE", builtins: ["SRCROOT": "."]) == "./My App/Info.plist")
        #expect(p.packages.first?.requirement == "4.7.0 up to next major")
    }

    @Test("sources: literal, constant, ObjC constant and #define, default receiver; comments ignored")
    func sourceScan() {
        var scan = SourceScan()
        scan.scan(
            """
            import GoogleCast
            // GCKDiscoveryCriteria(applicationID: "DEADBEEF")
            /* GCKDiscoveryCriteria(applicationID: "FEEDFACE") /* nested */ still comment */
            let url = "http://example.com/x" // not a comment start inside a string
            let criteria = GCKDiscoveryCriteria(applicationID: AppConfig.receiverID)
            let options = GCKCastOptions(discoveryCriteria: criteria)
            options.startDiscoveryAfterFirstTapOnCastButton = false
            GCKCastContext.setSharedInstanceWith(options)
            """, file: "App.swift")
        scan.scan(
            """
            enum AppConfig { static let receiverID = "4F8B3483" }
            let c2 = GCKDiscoveryCriteria(applicationID: "ab12cd34")
            let c3 = GCKDiscoveryCriteria(applicationID: kGCKDefaultMediaReceiverApplicationID)
            let c4 = GCKDiscoveryCriteria(applicationID: someFunction())
            """, file: "Config.swift")
        scan.scan(
            """
            static NSString *const kReceiverAppID = @"ABCD1234";
            #define kOther @"99AA00BB"
            GCKDiscoveryCriteria *c = [[GCKDiscoveryCriteria alloc] initWithApplicationID:kReceiverAppID];
            GCKCastOptions *o = [[GCKCastOptions alloc] initWithReceiverApplicationID:kOther];
            [o setDisableDiscoveryAutostart:YES];
            """, file: "AppDelegate.m")
        scan.finish()
        #expect(scan.distinctAppIDs.sorted() == ["4F8B3483", "99AA00BB", "ABCD1234", "CC1AD845", "ab12cd34"])
        #expect(!scan.appIDs.contains { $0.id == "DEADBEEF" || $0.id == "FEEDFACE" })
        let constant = scan.appIDs.first { $0.id == "4F8B3483" }
        #expect(constant?.location == CodeLocation(file: "App.swift", line: 5))
        #expect(constant?.how == .constant("receiverID"))
        #expect(scan.appIDs.first { $0.id == "CC1AD845" }?.how == .defaultMediaReceiver)
        #expect(scan.unresolved.map(\.expression) == ["someFunction"])
        #expect(scan.afterFirstTap?.value == false)
        #expect(scan.afterFirstTap?.location == CodeLocation(file: "App.swift", line: 7))
        #expect(scan.autostartDisabled?.value == true)
        #expect(scan.castSetup == CodeLocation(file: "App.swift", line: 6))
        #expect(scan.filesScanned == 3)
    }

    @Test("sources: two assignments with different values are both reported")
    func contradiction() {
        var scan = SourceScan()
        scan.scan("o.disableDiscoveryAutostart = true\nif x { o.disableDiscoveryAutostart = false }\n", file: "A.swift")
        scan.finish()
        #expect(scan.autostartDisabled?.value == true)
        #expect(scan.autostartDisabled?.contradicted == CodeLocation(file: "A.swift", line: 2))
    }
}
