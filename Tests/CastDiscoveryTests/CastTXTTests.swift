import Testing
import WireFormat

@testable import CastDiscovery

@Suite("Cast TXT, capabilities and names")
struct CastTXTTests {
    @Test("a real Google Home Mini TXT record (home-assistant/core#33860)")
    func homeMini() {
        let txt = CastTXT(
            TXTRecord([
                "id=a96373438460a25e5b41cda821c59d55", "cd=F018236FEDDCDBF696703D8EDB59D648", "rm=B7CF142A57406CB1",
                "ve=05", "md=Google Home Mini", "ic=/setup/icon.png", "fn=Bedroom Speaker", "ca=198660", "st=0",
                "bs=FA8FCA6D68FF", "nf=2", "rs=",
            ]))
        #expect(txt.id == "a96373438460a25e5b41cda821c59d55")
        #expect(txt.friendlyName == "Bedroom Speaker")
        #expect(txt.model == "Google Home Mini")
        #expect(txt.version == "05")
        #expect(txt.statusText == "idle")
        #expect(txt.runningApp == "")
        #expect(txt.capabilityBits == 198660)
        #expect(txt.entries.map(\.key) == ["id", "cd", "rm", "ve", "md", "ic", "fn", "ca", "st", "bs", "nf", "rs"])
        let caps = CastCapabilities(rawValue: 198660)
        #expect(caps.list == ["audioOut", "masterOrFixedVolume", "bit16", "bit17"])
        #expect(DeviceKind(capabilities: caps, model: txt.model) == .audio)
    }

    @Test(
        "kinds from real ca values (DOMAIN.md §1.3)",
        arguments: [
            (5, "Chromecast", DeviceKind.video), (4101, "Chromecast", .video), (2052, "Google Home", .audio),
            (2084, "Google Cast Group", .group), (198692, "Google Cast Group", .group),
            (462853, "SHIELD Android TV", .video), (0, "Google Cast Group", .group), (0, "Mystery", .unknown),
        ])
    func kinds(ca: Int, model: String, kind: DeviceKind) {
        #expect(DeviceKind(capabilities: CastCapabilities(rawValue: ca), model: model) == kind)
    }

    @Test("465413 decodes every documented and undocumented bit")
    func bravia() {
        #expect(
            CastCapabilities(rawValue: 465413).list == [
                "videoOut", "audioOut", "bit9", "masterOrFixedVolume", "attenuationOrFixedVolume", "bit16", "bit17",
                "bit18",
            ])
    }

    @Test("Cast names: type, subtype, instance, case-insensitive")
    func names() {
        #expect(CastName(DNSName("_googlecast._tcp.local")) == .serviceType)
        #expect(CastName(DNSName("_GoogleCast._TCP.Local")) == .serviceType)
        #expect(CastName(DNSName("_CC1AD845._sub._googlecast._tcp.local")) == .subtype(appID: "CC1AD845"))
        #expect(CastName(DNSName("_233637DE._SUB._googlecast._tcp.local")) == .subtype(appID: "233637DE"))
        #expect(
            CastName(DNSName("Chromecast-3f5d._googlecast._tcp.local")) == .instance(label: "Chromecast-3f5d"))
        #expect(CastName(DNSName("_airplay._tcp.local")) == nil)
        #expect(CastName(DNSName("a.b._googlecast._tcp.local.extra")) == nil)
    }
}
