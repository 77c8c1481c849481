import Foundation
import Testing
import WireFormat

@testable import CastDiscovery

private typealias S = DiagnosisSupport

// One finding per code: the rules' per-subject findings of one code and severity become one
// finding naming every subject, with each subject's line and frames as its evidence.
@Suite("One finding per code")
struct FindingMergeTests {
    static func context() throws -> DiagnosisContext {
        DiagnosisContext(try S.report("healthy-ipv4.pcap"), inputs: DiagnosisInputs())
    }

    static func finding(
        _ code: String, client: String, detail: String, advice: String = "Fix it.", frames: [Int],
        severity: Severity = .warning
    ) -> Finding {
        Finding(
            code: FindingCode(rawValue: code), severity: severity, title: "\(client) did a new thing", detail: detail,
            advice: advice, frames: frames.map { FrameRef(capture: 0, frame: $0) },
            subjects: FindingSubjects(clients: [client]))
    }

    @Test("a code no merge knows: the generic title, the common sentences, each subject's evidence")
    func unknownCode() throws {
        let findings = [
            Self.finding("NEW_CODE", client: "a", detail: "It did it 3 times. That is bad. Fix A.", frames: [1, 2]),
            Self.finding("NEW_CODE", client: "b", detail: "It did it 5 times. That is bad.", frames: [3]),
            Self.finding("NEW_CODE", client: "c", detail: "It did it once. That is bad.", frames: [4, 5]),
        ]
        let (merged, notListed) = Diagnosis.merged(findings, try Self.context())
        #expect(notListed.isEmpty)
        let f = try #require(merged.first)
        #expect(merged.count == 1)
        #expect(f.title == "a did a new thing, and the same for 2 more clients: b and c")
        #expect(f.detail == "That is bad.")
        #expect(f.advice == "Fix it.")
        #expect(f.subjects.clients == ["a", "b", "c"])
        #expect(f.frames.map(\.frame) == [1, 3, 4, 2, 5])
        #expect(f.evidence.map(\.subject) == ["a", "b", "c"])
        #expect(f.evidence.map(\.detail) == ["a did a new thing", "b did a new thing", "c did a new thing"])
        #expect(f.evidence.map { $0.frames.map(\.frame) } == [[1, 2], [3], [4, 5]])
        #expect(f.evidence.allSatisfy { $0.kind == .client })
    }

    @Test("a known code gets its plural title; different advice is given per subject")
    func pluralTitle() throws {
        let findings = [
            Self.finding("DIAL_ONLY", client: "a", detail: "x", advice: "Open the Cast dialog.", frames: [1]),
            Self.finding("DIAL_ONLY", client: "b", detail: "x", advice: "Update the app.", frames: [2]),
            Self.finding("DIAL_ONLY", client: "c", detail: "x", advice: "Open the Cast dialog.", frames: [3]),
        ]
        let f = try #require(Diagnosis.merged(findings, try Self.context()).findings.first)
        #expect(f.title == "3 clients searched only with SSDP/DIAL, never with mDNS: a, b and c")
        #expect(f.detail == "x")
        #expect(f.advice == "For a and c: Open the Cast dialog. For b: Update the app.")
    }

    @Test("one subject reads as the rule wrote it, with one evidence entry")
    func single() throws {
        let one = Self.finding("NEW_CODE", client: "a", detail: "It did it. Bad.", frames: [7])
        let (merged, _) = Diagnosis.merged([one], try Self.context())
        var expected = one
        expected.evidence = [FindingEvidence(kind: .client, subject: "a", detail: one.title, frames: one.frames)]
        #expect(merged == [expected])
    }

    @Test("one code with two severities is two findings, each in its place")
    func severitiesApart() throws {
        let findings = [
            Self.finding("NEW_CODE", client: "a", detail: "d", frames: [1], severity: .error),
            Self.finding("OTHER", client: "a", detail: "d", frames: [1]),
            Self.finding("NEW_CODE", client: "b", detail: "d", frames: [2], severity: .info),
            Self.finding("NEW_CODE", client: "c", detail: "d", frames: [3], severity: .error),
        ]
        let merged = Diagnosis.merged(findings, try Self.context()).findings
        #expect(merged.map(\.code.rawValue) == ["NEW_CODE", "OTHER", "NEW_CODE"])
        #expect(merged.map(\.evidence.count) == [2, 1, 1])
    }

    @Test("at most maximumFindingsPerCode subjects are listed; the rest are counted")
    func cap() throws {
        let n = Diagnosis.maximumFindingsPerCode + 5
        let findings = (0..<n).map { Self.finding("NEW_CODE", client: "c\($0)", detail: "d", frames: [$0 + 1]) }
        let (merged, notListed) = Diagnosis.merged(findings, try Self.context())
        #expect(merged.count == 1 && merged[0].evidence.count == Diagnosis.maximumFindingsPerCode)
        #expect(notListed == [FindingCode(rawValue: "NEW_CODE"): 5])
        #expect(merged[0].frames.count == Diagnosis.maximumFindingsPerCode)
        // The title counts every subject, not only those listed.
        #expect(
            merged[0].title.hasSuffix(
                "the same for \(n - 1) more clients: c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12 and 12 more"))
    }

    @Test("devices are named by their friendly names; sentences split at a full stop and a capital")
    func labels() throws {
        let context = try Self.context()
        let device = try #require(context.mdnsDevices.first)
        let findings = [
            Finding(
                code: .deviceLeft, severity: .info, title: "t1", detail: "d", advice: "a",
                subjects: FindingSubjects(devices: [device.id])),
            Finding(
                code: .deviceLeft, severity: .info, title: "t2", detail: "d", advice: "a",
                subjects: FindingSubjects(devices: ["other-id"])),
        ]
        let f = try #require(Diagnosis.merged(findings, context).findings.first)
        #expect(f.evidence.map(\.subject) == [device.friendlyName ?? device.id, "other-id"])
        #expect(f.evidence.map(\.kind) == [.device, .device])
        #expect(f.title == "2 devices said goodbye: \(device.friendlyName ?? device.id) and other-id")
        #expect(
            Diagnosis.sentences("At 1.5 s. Then RFC 6762 §6. done. Last") == [
                "At 1.5 s.", "Then RFC 6762 §6. done.", "Last",
            ])
    }

    @Test("ipfixprobe/ssdp.pcap: one finding naming the 9 searchers, not 9 blocks")
    func ssdp() throws {
        // tshark -r ipfixprobe/ssdp.pcap -Y 'http.request.method == "M-SEARCH" && udp contains "dial-multiscreen"'
        //   -T fields -e ip.src | sort -u: 9 addresses search for DIAL
        let r = try S.report(paths: [S.external.appendingPathComponent("ipfixprobe/ssdp.pcap").path])
        let codes = r.findings.map(\.code)
        #expect(Set(codes).count == codes.count, "one finding per code: \(codes)")
        let widest = try #require(r.findings.max { $0.evidence.count < $1.evidence.count })
        #expect(widest.subjects.clients.count == 9 && widest.evidence.count == 9)
        #expect(widest.title.hasPrefix("9 clients "))
    }
}
