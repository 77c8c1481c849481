import CLibzip
import CastDiscovery
import Foundation
import Testing

@testable import Pipeline

/// Reading apps for check-app: the fixture projects of Tests/checkapp/fixtures, zip archives
/// written here with libzip (hostile ones included), and `analyze --app` on a bundled capture.
@Suite struct AppInputTests {
    static let fixtures = PipelineSupport.repoRoot.appendingPathComponent("Tests/checkapp/fixtures").path

    static func load(_ path: String, target: String? = nil) -> (AppInputResult?, Pipeline.ExitStatus?, [Notice]) {
        var notices: [Notice] = []
        switch AppInput.load(path, target: target, notices: { notices.append($0) }) {
        case .success(let r): return (r, nil, notices)
        case .failure(let e): return (nil, e.status, notices)
        }
    }

    /// Writes a zip of `entries` (name → bytes) with libzip; returns its path.
    static func zip(_ entries: [(String, [UInt8])], in dir: URL, name: String = "app.ipa") throws -> String {
        let path = dir.appendingPathComponent(name).path
        var code: Int32 = 0
        let z = try #require(zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code))
        for (entry, bytes) in entries {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            // freep = 1: libzip frees the buffer.
            let source = try #require(zip_source_buffer(z, buffer, zip_uint64_t(bytes.count), 1))
            #expect(zip_file_add(z, entry, source, zip_flags_t(ZIP_FL_ENC_UTF_8)) >= 0)
        }
        #expect(zip_close(z) == 0)
        return path
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("castscope-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static let plist = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
        <key>CFBundleName</key><string>Zipped</string><key>CFBundleExecutable</key><string>Zipped</string>
        <key>DTXcode</key><string>1200</string><key>DTSDKName</key><string>iphoneos14.0</string>
        <key>NSBonjourServices</key><array><string>_googlecast._tcp</string></array>
        </dict></plist>
        """.utf8)

    @Test func unsafeNamesAreRecognised() {
        #expect(ZipAppFiles.unsafeName("/etc/passwd") != nil)
        #expect(ZipAppFiles.unsafeName("Payload/../../x") != nil)
        #expect(ZipAppFiles.unsafeName("Payload\\..\\x") != nil)
        #expect(ZipAppFiles.unsafeName("Payload/App.app/Info.plist") == nil)
        #expect(ZipAppFiles.unsafeName("Payload/App.app/..data/x") == nil)
    }

    @Test func pathHelpers() {
        #expect(FilePath.normalized("a/./b/../c") == "a/c")
        #expect(FilePath.relative("root/App/Info.plist", to: "root/") == "App/Info.plist")
        #expect(FilePath.relative("/x/y", to: "/z") == "/x/y")
        #expect(FilePath.parent("a/b.xcodeproj/") == "a")
        #expect(FilePath.last("a/b.xcodeproj/") == "b.xcodeproj")
    }

    @Test func aProjectFolderGivesItsAppTargetWithPathsRelativeToIt() throws {
        let (r, status, notices) = Self.load(Self.fixtures + "/projects/objc-bluetooth-bad")
        #expect(status == nil, "\(notices)")
        let result = try #require(r)
        #expect(result.kind == .project)
        let t = try #require(result.targets.first)
        #expect(result.targets.count == 1)
        #expect(t.plist != nil)
        #expect(t.sdks.map(\.name) == ["google-cast-sdk"])
        #expect(t.sdks.first?.source == "Podfile.lock")
        #expect(t.sources?.appIDs.map(\.id) == ["ABCD1234"])
        #expect(t.sources?.appIDs.first?.location.file.hasPrefix("ObjCCast/") == true)
        #expect(t.sources?.autostartDisabled?.value == true)
    }

    @Test func aFrameworkCarthageBuiltIsFoundButCarthageSourcesAreNotScanned() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let project = dir.appendingPathComponent("App")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/projects/no-sdk-bad", toPath: project.path)
        let framework = project.appendingPathComponent(
            "Carthage/Build/GoogleCast.xcframework/ios-arm64/GoogleCast.framework")
        try FileManager.default.createDirectory(at: framework, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
            <key>CFBundleShortVersionString</key><string>4.8.3</string></dict></plist>
            """.utf8
        ).write(to: framework.appendingPathComponent("Info.plist"))
        let checkout = project.appendingPathComponent("Carthage/Checkouts/Other")
        try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
        try Data("let c = GCKDiscoveryCriteria(applicationID: \"DEADBEEF\")\n".utf8)
            .write(to: checkout.appendingPathComponent("Other.swift"))
        let (r, status, notices) = Self.load(project.path)
        #expect(status == nil, "\(notices)")
        let t = try #require(r?.targets.first)
        #expect(
            t.sdks.map(\.source) == ["Carthage/Build/GoogleCast.xcframework/ios-arm64/GoogleCast.framework/Info.plist"])
        #expect(t.sdks.first?.flavour == .single)
        #expect(!(t.sources?.appIDs.contains { $0.id == "DEADBEEF" } ?? true))
    }

    @Test func anUnknownTargetIsAUsageError() {
        let (_, status, notices) = Self.load(Self.fixtures + "/projects/objc-bluetooth-bad", target: "Nope")
        #expect(status == .usage)
        #expect(notices.first?.text.contains("ObjCCast") == true)
    }

    @Test func missingAndUnreadableInputs() throws {
        #expect(Self.load("/nonexistent/app.ipa").1 == .noInput)
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(Self.load(dir.path).1 == .noInput)
        let text = dir.appendingPathComponent("fake.ipa")
        try Data("not a zip".utf8).write(to: text)
        #expect(Self.load(text.path).1 == .dataError)
    }

    @Test func anIpaIsReadInPlace() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let framework = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
            <key>CFBundleShortVersionString</key><string>4.7.1</string></dict></plist>
            """.utf8)
        let binary = [UInt8](repeating: 0, count: 3 << 20) + Array("/System/Library/Frameworks/CoreBluetooth".utf8)
        let path = try Self.zip(
            [
                ("Payload/Zipped.app/Info.plist", Self.plist),
                ("Payload/Zipped.app/Frameworks/GoogleCast.framework/Info.plist", framework),
                ("Payload/Zipped.app/Frameworks/GoogleCast.framework/GoogleCast", binary),
            ], in: dir)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let (r, status, _) = Self.load(path)
        #expect(status == nil)
        let t = try #require(r?.targets.first)
        #expect(r?.kind == .ipa)
        #expect(t.name == "Zipped")
        #expect(t.xcode == "1200")
        #expect(t.sdks.first?.version?.text == "4.7.1")
        // The needle lies past the first 1 MiB chunk: found across chunks.
        #expect(t.sdks.first?.flavour == .guestMode)
        let codes = AppCheck.check(t).map(\.code)
        #expect(codes.contains(.appBluetoothUsageMissing))
        #expect(codes.contains(.plistMissingAppID) == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == before)
    }

    @Test func hostileArchivesAreRefusedWithDataError() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let traversal = try Self.zip(
            [("Payload/Zipped.app/Info.plist", Self.plist), ("Payload/../../evil", [1])], in: dir, name: "t.ipa")
        let (_, status, notices) = Self.load(traversal)
        #expect(status == .dataError)
        #expect(notices.first?.text.contains("..") == true)
        let bomb = try Self.zip(
            [("Payload/Zipped.app/Info.plist", [UInt8](repeating: 0x20, count: AppInput.maximumPlistBytes + 1))],
            in: dir, name: "b.ipa")
        let (_, bombStatus, bombNotices) = Self.load(bomb)
        #expect(bombStatus == .dataError)
        #expect(bombNotices.first?.text.contains("expands past") == true)
        let empty = try Self.zip([("README", [1, 2, 3])], in: dir, name: "e.ipa")
        #expect(Self.load(empty).1 == .dataError)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["t.ipa", "b.ipa", "e.ipa"])
    }

    @Test func analyzeWithAnAppThatWaitsForTheFirstTapWarnsInsteadOfFailing() throws {
        let (r, _, _) = Self.load(Self.fixtures + "/projects/app-id-mismatch-good")
        let app = try #require(r?.targets.first)
        var o = AnalysisRun.Options(files: [PipelineSupport.path("no-cast-queries.pcap")])
        o.plist = app.plist
        let (plain, _, _) = PipelineSupport.run(o)
        #expect(plain?.findings.first { $0.code == .noCastQueries }?.severity == .error)
        o.app = app
        let (report, _, _) = PipelineSupport.run(o)
        let finding = try #require(report?.findings.first { $0.code == .noCastQueries })
        #expect(finding.severity == .warning)
        #expect(finding.detail.contains("startDiscoveryAfterFirstTapOnCastButton"))
    }
}
