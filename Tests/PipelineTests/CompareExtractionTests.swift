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
