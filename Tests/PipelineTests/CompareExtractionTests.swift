import CastDiscovery
import Testing

@testable import Pipeline

/// `compare`'s reading of a capture (issue 18): Cast queries and responses with their bytes.
@Suite struct CompareExtractionTests {
    static func side(_ name: String) throws -> CompareSide {
        var notices: [Notice] = []
        let result = CompareExtraction.read(PipelineSupport.path(name), notices: { notices.append($0) })
        #expect(notices.isEmpty)
        return try result.get()
    }

    @Test func queriesAndResponsesAreKeptWithTheirBytes() throws {
        let s = try Self.side("healthy-ipv4.pcap")
        #expect(s.messages.count == s.kinds.count)
        // As tshark counts them: `mdns && dns.flags.response==0 && dns.qry.name contains
        // "_googlecast._tcp.local"` gives 3, and responses with such a record name 1.
        #expect(s.kinds.filter { $0 == .query }.count == 3)
        #expect(s.kinds.filter { $0 == .response }.count == 1)
        // The bytes are the DNS message itself: QR and the flags agree with the kind.
        for (m, kind) in zip(s.messages, s.kinds) {
            #expect(m.content.count >= 12)
            #expect((m.content[2] & 0x80 != 0) == (kind == .response))
        }
    }

    @Test func aCaptureComparedWithItselfPairsEverythingWithNoOffset() throws {
        let s = try Self.side("multi-device.pcap")
        let r = MessageMatcher.match(s.messages, s.messages)
        #expect(r.pairs.count == s.messages.count)
        #expect(r.unmatchedA.isEmpty && r.unmatchedB.isEmpty)
        #expect(r.offset?.median == 0)
        let identical = r.pairs.filter { $0.a == $0.b && !$0.changed }.count
        #expect(identical == s.messages.count)
    }

    @Test func classificationLeavesOutOtherServicesAndProbes() throws {
        // no-cast-queries.pcap: a printer browse (_ipp._tcp) and a Chromecast's announcements.
        let s = try Self.side("no-cast-queries.pcap")
        #expect(!s.kinds.contains(.query))
        #expect(s.kinds.contains(.response))
    }
}

/// `compare`'s choice of mode and the before-and-after comparison on the project's captures.
@Suite struct CompareRunTests {
    static func run(_ a: String, _ b: String, mode: CompareMode = .automatic) -> Result<
        CompareOutcome, CompareRunError
    > {
        CompareRun.run(
            PipelineSupport.path(a), PipelineSupport.path(b), options: CaptureComparison.Options(), mode: mode,
            notices: { _ in })
    }

    @Test func capturesOfDifferentTimesAreComparedAsBeforeAndAfter() throws {
        // healthy-ipv4 (23:42) and no-cast-queries (00:18 the next day) do not overlap.
        guard case .beforeAfter(let c) = try Self.run("healthy-ipv4.pcap", "no-cast-queries.pcap").get() else {
            Issue.record("expected before and after")
            return
        }
        #expect(c.reason == .noOverlap)
        // The same Chromecast is in both; nobody searched in the second, so NO_CAST_QUERIES appeared.
        #expect(c.kept.map(\.name) == ["Living Room TV"])
        #expect(c.appeared.isEmpty && c.disappeared.isEmpty)
        #expect(c.findingsAppeared.map(\.code) == [.noCastQueries])
        #expect(c.findingsResolved.isEmpty)
        let latency = try #require(c.latency.first)
        #expect(latency.before != nil && latency.after == nil)
        #expect(c.verdictBefore.worst == nil && c.verdictAfter.worst == .warning)
    }

    @Test func devicesThatAppearAndDisappearAreListed() throws {
        guard case .beforeAfter(let c) = try Self.run("healthy-ipv4.pcap", "multi-device.pcap").get() else {
            Issue.record("expected before and after")
            return
        }
        func ids(_ name: String) throws -> [String] {
            try #require(PipelineSupport.run(AnalysisRun.Options(files: [PipelineSupport.path(name)])).0).devices.map(
                \.id)
        }
        let before = try ids("healthy-ipv4.pcap")
        let after = try ids("multi-device.pcap")
        #expect(Set(c.disappeared.map(\.id)) == Set(before).subtracting(after))
        #expect(Set(c.appeared.map(\.id)) == Set(after).subtracting(before))
        #expect(!c.appeared.isEmpty)
    }

    @Test func aCaptureWithItselfIsTwoPointsAndAskedModesWin() throws {
        guard case .twoPoints(let same) = try Self.run("multi-device.pcap", "multi-device.pcap").get() else {
            Issue.record("a capture overlaps itself")
            return
        }
        #expect(same.queries.lost == 0 && same.answers.lost == 0 && same.offsetBasis == .bothDirections)
        guard
            case .beforeAfter(let asked) = try Self.run("multi-device.pcap", "multi-device.pcap", mode: .beforeAfter)
                .get()
        else {
            Issue.record("--before-after is obeyed")
            return
        }
        #expect(asked.reason == .asked && asked.findingsAppeared.isEmpty && asked.appeared.isEmpty)
        guard
            case .twoPoints(let forced) = try Self.run("healthy-ipv4.pcap", "no-cast-queries.pcap", mode: .twoPoints)
                .get()
        else {
            Issue.record("--same-time is obeyed")
            return
        }
        #expect(forced.offset != nil || forced.offsetBasis == .assumed)
    }

    @Test func anUnreadableFileGivesItsStatus() {
        guard case .failure(.status(let status)) = Self.run("healthy-ipv4.pcap", "does-not-exist.pcap") else {
            Issue.record("a missing file fails")
            return
        }
        #expect(status == .noInput)
    }
}
