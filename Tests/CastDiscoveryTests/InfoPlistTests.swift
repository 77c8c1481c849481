import Foundation
import PcapCapture
import Pipeline
import Testing
import WireFormat

@testable import CastDiscovery

// The Info.plist check (issue 4): XML plists written here, binary ones made with
// PropertyListSerialization, every PLIST_ code, and the cross-check against a real capture.

private let usage = "${PRODUCT_NAME} uses the local network to discover Cast-enabled devices on your WiFi network."
private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    """

/// An XML plist whose top-level dictionary holds `body`.
private func xml(_ body: String) -> [UInt8] {
    Array((header + "\n<plist version=\"1.0\">\n<dict>\n\(body)\n</dict>\n</plist>\n").utf8)
}

/// A binary plist of `value`.
private func binary(_ value: Any) throws -> [UInt8] {
    let data = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    #expect(data.starts(with: Array("bplist00".utf8)))
    return Array(data)
}

private func services(_ types: [String]) -> String {
    "<key>NSBonjourServices</key>\n<array>\n" + types.map { "<string>\($0)</string>" }.joined(separator: "\n")
        + "\n</array>"
}

private let usageXML = "<key>NSLocalNetworkUsageDescription</key>\n<string>\(usage)</string>"
private let goodXML = xml(
    "<key>CFBundleName</key><string>Demo</string>\n" + services(["_googlecast._tcp", "_CC1AD845._googlecast._tcp"])
        + "\n" + usageXML)
private var goodDictionary: [String: Any] {
    [
        "CFBundleName": "Demo", "NSBonjourServices": ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"],
        "NSLocalNetworkUsageDescription": usage,
    ]
}

private func codes(_ findings: [Finding]) -> [String] { findings.map(\.code.rawValue) }

private func only(_ code: String, in findings: [Finding]) throws -> Finding {
    let matching = findings.filter { $0.code.rawValue == code }
    try #require(matching.count == 1, "\(codes(findings))")
    return matching[0]
}

/// Findings must be sorted most severe first and readable.
private func wellFormed(_ findings: [Finding]) {
    let ranks = findings.map(\.severity.rank)
    #expect(ranks == ranks.sorted())
    for f in findings {
        #expect(!f.title.isEmpty && !f.detail.isEmpty && !f.advice.isEmpty)
        #expect(f.code.rawValue.hasPrefix("PLIST_"))
    }
}

@Suite("Info.plist check")
struct InfoPlistTests {
    @Test("a good XML plist: only PLIST_OK, app ID inferred")
    func goodXMLPlist() throws {
        let plist = InfoPlist(data: goodXML)
        #expect(plist.format == "xml")
        #expect(plist.bonjourServices == ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"])
        #expect(plist.usageDescription == usage)
        #expect(plist.declaredAppIDs == ["CC1AD845"])
        let findings = plist.check()
        #expect(codes(findings) == ["PLIST_OK"])
        let ok = try only("PLIST_OK", in: findings)
        #expect(ok.severity == .info)
        #expect(ok.subjects.appIDs == ["CC1AD845"])
        #expect(ok.detail.contains("_CC1AD845._googlecast._tcp"))
        #expect(ok.frames.isEmpty)
    }

    @Test("a good binary plist reads the same")
    func goodBinaryPlist() throws {
        let plist = InfoPlist(data: try binary(goodDictionary))
        #expect(plist.format == "binary")
        #expect(plist.bonjourServices == ["_googlecast._tcp", "_CC1AD845._googlecast._tcp"])
        #expect(plist.usageDescription == usage)
        #expect(codes(plist.check()) == ["PLIST_OK"])
        #expect(codes(plist.check(appIDs: ["cc1ad845"])) == ["PLIST_OK"], "app IDs compare case-insensitively")
    }

    @Test("PLIST_MISSING_SERVICE: no _googlecast._tcp, or no NSBonjourServices at all")
    func missingService() throws {
        let xmlPlist = InfoPlist(data: xml(services(["_CC1AD845._googlecast._tcp", "_http._tcp"]) + usageXML))
        let binaryPlist = InfoPlist(data: try binary(["NSLocalNetworkUsageDescription": usage]))
        for plist in [xmlPlist, binaryPlist] {
            let findings = plist.check()
            wellFormed(findings)
            let f = try only("PLIST_MISSING_SERVICE", in: findings)
            #expect(f.severity == .error)
            #expect(f.advice.contains("<key>NSBonjourServices</key> <array> <string>_googlecast._tcp</string>"))
            #expect(!codes(findings).contains("PLIST_OK"))
        }
        // Without NSBonjourServices, the app ID cannot be inferred, so PLIST_NO_APP_ID is not
        // added next to an error; with --app-id, it is also missing.
        #expect(
            codes(binaryPlist.check(appIDs: ["CC1AD845"])) == ["PLIST_MISSING_SERVICE", "PLIST_MISSING_APP_ID"])
    }

    @Test("a near miss ('_googlecast._tcp.') is still missing, and named")
    func nearMissService() throws {
        let plist = InfoPlist(data: xml(services(["_googlecast._tcp.", "_CC1AD845._googlecast._tcp"]) + usageXML))
        let f = try only("PLIST_MISSING_SERVICE", in: plist.check())
        #expect(f.detail.contains("'_googlecast._tcp.'"))
    }

    @Test("PLIST_MISSING_APP_ID for a given app ID, with subjects and the XML to add")
    func missingAppID() throws {
        let plist = InfoPlist(data: goodXML)
        let findings = plist.check(appIDs: ["0123ABCD", "CC1AD845"])
        wellFormed(findings)
        #expect(codes(findings) == ["PLIST_MISSING_APP_ID"])
        let f = findings[0]
        #expect(f.severity == .error)
        #expect(f.subjects.appIDs == ["0123ABCD"])
        #expect(f.title.contains("_0123ABCD._googlecast._tcp"))
        #expect(f.advice.contains("<string>_0123ABCD._googlecast._tcp</string>"))
        #expect(f.advice.contains("<string>_CC1AD845._googlecast._tcp</string>"))
    }

    @Test("an app ID written as a _sub type is inferred, and reported missing")
    func subtypeForm() throws {
        let plist = InfoPlist(data: xml(services(["_googlecast._tcp", "_CC1AD845._sub._googlecast._tcp"]) + usageXML))
        #expect(plist.declaredAppIDs.isEmpty)
        #expect(plist.inferredAppIDs == ["CC1AD845"])
        let f = try only("PLIST_MISSING_APP_ID", in: plist.check())
        #expect(f.detail.contains("'_CC1AD845._sub._googlecast._tcp'"))
        #expect(f.subjects.appIDs == ["CC1AD845"])
    }

    @Test("PLIST_MISSING_USAGE_DESCRIPTION: absent, empty or whitespace")
    func missingUsage() throws {
        let cases: [[UInt8]] = [
            xml(services(["_googlecast._tcp", "_CC1AD845._googlecast._tcp"])),
            xml(services(["_googlecast._tcp"]) + "<key>NSLocalNetworkUsageDescription</key><string></string>"),
            try binary([
                "NSBonjourServices": ["_googlecast._tcp"], "NSLocalNetworkUsageDescription": " \n\t\u{00A0}",
            ]),
        ]
        for data in cases {
            let findings = InfoPlist(data: data).check(appIDs: ["CC1AD845"]).filter {
                $0.code != .plistMissingAppID
            }
            wellFormed(findings)
            #expect(codes(findings) == ["PLIST_MISSING_USAGE_DESCRIPTION"])
            #expect(findings.first?.advice.contains("<key>NSLocalNetworkUsageDescription</key>") == true)
        }
    }

    @Test("PLIST_NO_APP_ID when no app ID is given or can be inferred (info; the rest is fine)")
    func noAppID() throws {
        let plist = InfoPlist(
            data: try binary(["NSBonjourServices": ["_googlecast._tcp"], "NSLocalNetworkUsageDescription": usage]))
        let findings = plist.check()
        #expect(codes(findings) == ["PLIST_NO_APP_ID", "PLIST_OK"])
        #expect(findings.allSatisfy { $0.severity == .info })
        #expect(try only("PLIST_NO_APP_ID", in: findings).advice.contains("--app-id"))
    }

    @Test(
        "PLIST_MALFORMED: not a plist, cut off, OpenStep text, JSON, not a dictionary",
        arguments: [
            "", "hello", "NSBonjourServices = (_googlecast._tcp);", "{\"NSBonjourServices\": []}",
            "bplist00 this is not binary", String(decoding: goodXML.prefix(160), as: UTF8.self),
            header + "<plist version=\"1.0\"><array><string>_googlecast._tcp</string></array></plist>",
            header + "<plist version=\"1.0\"><dict><key>a</key><string>b</strin></dict></plist>",
        ])
    func notAPlist(text: String) throws {
        let plist = InfoPlist(data: Array(text.utf8))
        let findings = plist.check(appIDs: ["CC1AD845"])
        #expect(codes(findings) == ["PLIST_MALFORMED"])
        #expect(findings[0].severity == .error)
        #expect(findings[0].advice.contains("<string>_googlecast._tcp</string>"))
        #expect(!plist.isDictionary)
    }

    @Test("PLIST_MALFORMED: a cut binary plist and a binary top-level array")
    func malformedBinary() throws {
        let good = try binary(goodDictionary)
        #expect(codes(InfoPlist(data: good.prefix(good.count - 10)).check()) == ["PLIST_MALFORMED"])
        #expect(codes(InfoPlist(data: try binary(["_googlecast._tcp"])).check()) == ["PLIST_MALFORMED"])
    }

    @Test("PLIST_MALFORMED: wrong value types (the other checks go on where they can)")
    func wrongTypes() throws {
        // NSBonjourServices as a string: the services cannot be checked.
        let asString = InfoPlist(
            data: try binary(["NSBonjourServices": "_googlecast._tcp", "NSLocalNetworkUsageDescription": usage]))
        let f1 = asString.check()
        #expect(codes(f1) == ["PLIST_MALFORMED"])
        #expect(f1[0].detail.contains("is a string"))
        // Items that are not strings: reported, and the string items are still checked.
        let mixed = InfoPlist(
            data: try binary([
                "NSBonjourServices": ["_CC1AD845._googlecast._tcp", 42, ["nested"]],
                "NSLocalNetworkUsageDescription": usage,
            ]))
        let f2 = mixed.check()
        #expect(codes(f2) == ["PLIST_MALFORMED", "PLIST_MISSING_SERVICE"])
        #expect(f2[0].detail.contains("item 1 is an integer") && f2[0].detail.contains("item 2 is an array"))
        // A usage description that is a number.
        let number = InfoPlist(
            data: xml(services(["_googlecast._tcp"]) + "<key>NSLocalNetworkUsageDescription</key><integer>7</integer>"))
        let f3 = number.check(appIDs: ["CC1AD845"])
        #expect(codes(f3) == ["PLIST_MALFORMED", "PLIST_MISSING_APP_ID"])
        #expect(f3[0].title.contains("NSLocalNetworkUsageDescription"))
    }

    @Test("a key with the wrong letter case is pointed out")
    func miscasedKey() throws {
        let plist = InfoPlist(
            data: xml("<key>NSBonjourservices</key><array><string>_googlecast._tcp</string></array>" + usageXML))
        #expect(plist.miscasedKeys == ["NSBonjourservices"])
        let f = try only("PLIST_MISSING_SERVICE", in: plist.check())
        #expect(f.detail.contains("'NSBonjourservices'") && f.detail.contains("case-sensitive"))
    }

    @Test("app IDs as users type them")
    func appIDs() {
        #expect(InfoPlist.normalizedAppID("CC1AD845") == "CC1AD845")
        #expect(InfoPlist.normalizedAppID("_cc1ad845") == "cc1ad845")
        #expect(InfoPlist.normalizedAppID("MYAPP-1") == "MYAPP-1")
        for bad in ["", "_", "a.b", "a b", "CC1AD845._googlecast._tcp", "x\u{1B}"] {
            #expect(InfoPlist.normalizedAppID(bad) == nil)
        }
        #expect(InfoPlist.serviceType(appID: "CC1AD845") == "_CC1AD845._googlecast._tcp")
    }

    @Test("merged keeps severity order, stable within a severity")
    func merged() {
        func f(_ code: String, _ s: Severity) -> Finding {
            Finding(code: FindingCode(rawValue: code), severity: s, title: code, detail: "d", advice: "a")
        }
        let all = InfoPlist.merged([f("A", .error), f("B", .warning), f("C", .info)], [f("D", .error), f("E", .info)])
        #expect(codes(all) == ["A", "D", "B", "C", "E"])
    }
}

// MARK: - Cross-check against a real capture

/// The repository root, from this file's path.
private let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// `castscope analyze` of one capture, through the Pipeline's AnalysisRun, optionally with an
/// Info.plist as `--plist` gives it.
private func report(_ name: String, plist: InfoPlist? = nil) throws -> AnalysisReport {
    var options = AnalysisRun.Options(files: [repoRoot.appendingPathComponent("captures/\(name)").path])
    options.plist = plist
    return try #require(AnalysisRun.run(options, notices: { _ in }).report)
}

@Suite("Info.plist cross-check with a capture")
struct InfoPlistCrossCheckTests {
    // multi-device.pcap: client 192.0.2.10 asks for _CC1AD845._sub._googlecast._tcp.local in
    // frame 3 (tshark -r captures/multi-device.pcap -Y 'dns.qry.name contains "_sub"' -T fields
    // -e frame.number); the speaker's and the TV's records first appear in frames 6 and 8, and
    // both answer the subtype.

    @Test("analyze --plist: the cross-check's findings are in the report the run builds")
    func throughTheRun() throws {
        let plist = InfoPlist(data: xml(services(["_googlecast._tcp"]) + usageXML))
        let r = try report("multi-device.pcap", plist: plist)
        #expect(r.findings.contains { $0.code == .plistMissingAppID })
        #expect(try report("multi-device.pcap").findings.allSatisfy { !$0.code.rawValue.hasPrefix("PLIST_") })
    }

    @Test("an app ID searched for and answered but not declared: PLIST_MISSING_APP_ID with evidence")
    func undeclared() throws {
        let r = try report("multi-device.pcap")
        let plist = InfoPlist(data: xml(services(["_googlecast._tcp"]) + usageXML))
        let findings = plist.crossCheck(r)
        wellFormed(findings)
        #expect(codes(findings) == ["PLIST_MISSING_APP_ID"], "no PLIST_NO_APP_ID or PLIST_OK beside an error")
        let f = findings[0]
        #expect(f.severity == .error)
        #expect(f.subjects.appIDs == ["CC1AD845"])
        #expect(f.subjects.clients == ["192.0.2.10"])
        #expect(Set(f.subjects.devices) == ["c8e2f7a04b154d9e8a3617f05b2c9d4e", "7a0e4c192d6b4f8395c1e8b3a2d7f604"])
        #expect(f.frames.map(\.frame) == [3, 6, 8])
        #expect(f.detail.contains("Kitchen Speaker") && f.detail.contains("Bedroom TV"))
        #expect(f.advice.contains("<string>_CC1AD845._googlecast._tcp</string>"))
    }

    @Test("declared app IDs (any letter case): PLIST_OK")
    func declared() throws {
        let r = try report("multi-device.pcap")
        let plist = InfoPlist(data: xml(services(["_googlecast._tcp", "_cc1ad845._googlecast._tcp"]) + usageXML))
        let findings = plist.crossCheck(r)
        #expect(codes(findings) == ["PLIST_OK"])
        #expect(findings[0].detail.contains("CC1AD845"))
    }

    @Test("the plist's own problems come with the cross-check, sorted")
    func ownProblems() throws {
        let r = try report("multi-device.pcap")
        let plist = InfoPlist(data: xml(services(["_http._tcp"])))
        let findings = plist.crossCheck(r)
        wellFormed(findings)
        #expect(
            Set(codes(findings)) == [
                "PLIST_MISSING_SERVICE", "PLIST_MISSING_APP_ID", "PLIST_MISSING_USAGE_DESCRIPTION",
            ])
        let all = InfoPlist.merged(
            [Finding(code: FindingCode(rawValue: "X"), severity: .info, title: "x", detail: "x", advice: "x")], findings
        )
        #expect(all.last?.code.rawValue == "X")
    }

    @Test("a capture without app IDs and a plist without one: PLIST_NO_APP_ID beside PLIST_OK")
    func noAppIDsInCapture() throws {
        let r = try report("healthy-ipv4.pcap")
        #expect(r.clients.allSatisfy { $0.appIDsQueried.isEmpty } && r.devices.allSatisfy { $0.appIDs.isEmpty })
        let plist = InfoPlist(data: xml(services(["_googlecast._tcp"]) + usageXML))
        #expect(codes(plist.crossCheck(r)) == ["PLIST_NO_APP_ID", "PLIST_OK"])
    }
}
