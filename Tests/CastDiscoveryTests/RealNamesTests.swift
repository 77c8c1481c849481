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
