import CastDiscovery
import Foundation
import Testing
import WireFormat

// Names as real senders and receivers use them (issue 13): Google's media criterion subtype is
// not an app ID, and a `-1` instance name is not a conflict unless two names are alive at once.

private typealias S = DiagnosisSupport

private let hasExternal = FileManager.default.fileExists(atPath: S.external.path)
private func external(_ name: String) throws -> AnalysisReport {
    try S.report(paths: [S.external.appendingPathComponent(name).path])
}

@Suite("Media criterion subtype")
struct MediaCriterionTests {
    static let media = "_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp.local"

    @Test("`_%<40 hex>._sub` is the media criterion; other subtypes stay app IDs")
    func classify() {
        #expect(CastName(DNSName(Self.media)) == .mediaCriterion)
        #expect(CastName(DNSName(Self.media.lowercased())) == .mediaCriterion)
        #expect(CastName(DNSName("_%9E5E7C8F._sub._googlecast._tcp.local")) == .subtype(appID: "%9E5E7C8F"))
        #expect(
            CastName(DNSName("_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5EG._sub._googlecast._tcp.local"))
                == .subtype(appID: "%9E5E7C8F47989526C9BCD95D24084F6F0B27C5EG"))
        #expect(CastName(DNSName("_233637DE._sub._googlecast._tcp.local")) == .subtype(appID: "233637DE"))
        #expect(CastName.mediaCriterion.isBrowseName)
    }

    @Test("sming: no app-ID finding for the media criterion; 5E81F6DB is still unanswered", .enabled(if: hasExternal))
    func sming() throws {
        let r = try external("derived-from-source-hex/sming_basic_mdns_resource.pcap")
        let c = try #require(r.clients.first)
        #expect(c.appIDsQueried == ["5E81F6DB"])
        #expect(c.mediaCriterionQueried && !c.mediaCriterionAnswered)
        let app = r.findings.filter { $0.code == .appIDUnanswered }
        #expect(app.count == 1)
        #expect(app.first?.subjects.appIDs == ["5E81F6DB"])
        #expect(!r.findings.contains { $0.title.contains("%") || $0.detail.contains("%9E5E") })
    }

    @Test("static-upnp: the device's real app ID, and the media criterion as a flag", .enabled(if: hasExternal))
    func staticUPnP() throws {
        let r = try external("derived-from-source-hex/static-upnp_chromecast_2018-03.pcap")
        let d = try #require(r.devices.first)
        #expect(d.appIDs == ["233637DE"] && d.mediaCriterion)
        let c = try #require(r.clients.first)
        #expect(c.appIDsQueried == ["233637DE"] && c.mediaCriterionQueried && c.mediaCriterionAnswered)
    }
}

@Suite("DUPLICATE_NAME only for names alive at the same time")
struct DuplicateNameTests {
    typealias C = CacheScenario

    /// An announcement of instance `label` for one id, at `ms`, with PTR TTL `ttl`.
    static func announce(_ frame: Int, at ms: Int64, _ label: String, ttl: UInt32 = 120, model: String = "Chromecast")
        -> DiscoveryPacket
    {
        let name = DNSName("\(label)._googlecast._tcp.local")
        var m = DNSMessage(flags: 0x8400)
        m.answers = [DNSResourceRecord(name: C.castType, type: .ptr, ttl: ttl, data: .name(name))]
        m.additionals = [
            DNSResourceRecord(
                name: name, type: .txt, cacheFlush: true, ttl: 4500,
                data: .txt(TXTRecord(["id=0a1b2c3d4e5f", "fn=Living Room TV", "md=\(model)"]))),
            DNSResourceRecord(
                name: name, type: .srv, cacheFlush: true, ttl: 120,
                data: .srv(priority: 0, weight: 0, port: 8009, target: C.host)),
        ]
        return C.packet(frame, at: ms, from: C.device, m)
    }

    static let plain = "Chromecast-0a1b2c3d4e5f0a1b2c3d4e5f0a1b2c3d"
    static let renamed = plain + "-1"

    @Test("one instance name with a -1 suffix: no finding")
    func suffixAlone() {
        let r = C.report([Self.announce(1, at: 0, Self.renamed), Self.announce(2, at: 5_000, Self.renamed)])
        #expect(!r.findings.contains { $0.code == .duplicateName })
    }

    @Test("two instance names of one id alive together: DUPLICATE_NAME")
    func together() throws {
        let r = C.report([Self.announce(1, at: 0, Self.plain), Self.announce(2, at: 5_000, Self.renamed)])
        let f = try #require(r.findings.first { $0.code == .duplicateName })
        #expect(f.frames.map(\.frame) == [1, 2])
    }

    @Test("a rename after the old name's goodbye or expiry: no finding")
    func oneAfterTheOther() {
        let goodbye = C.report([
            Self.announce(1, at: 0, Self.plain), Self.announce(2, at: 1_000, Self.plain, ttl: 0),
            Self.announce(3, at: 2_000, Self.renamed),
        ])
        #expect(!goodbye.findings.contains { $0.code == .duplicateName })
        let expired = C.report([Self.announce(1, at: 0, Self.plain), Self.announce(2, at: 200_000, Self.renamed)])
        #expect(!expired.findings.contains { $0.code == .duplicateName })
    }

    @Test("a Cast group under two instance names (its leader moving): no finding")
    func group() {
        let r = C.report([
            Self.announce(1, at: 0, "Google-Cast-Group-0a1b", model: "Google Cast Group"),
            Self.announce(2, at: 5_000, "Google-Cast-Group-0a1b-1", model: "Google Cast Group"),
        ])
        #expect(!r.findings.contains { $0.code == .duplicateName })
    }

    @Test("static-upnp: one Chromecast-…-1 instance gives no DUPLICATE_NAME", .enabled(if: hasExternal))
    func staticUPnP() throws {
        let r = try external("derived-from-source-hex/static-upnp_chromecast_2018-03.pcap")
        #expect(S.codes(r, [.error, .warning]).isEmpty)
    }

    @Test("duplicate-name.pcap: two live devices called Living Room TV still fire")
    func twoDevices() throws {
        let r = try S.report("duplicate-name.pcap")
        let f = try #require(r.findings.first { $0.code == .duplicateName })
        #expect(f.subjects.devices.count == 2)
    }
}
