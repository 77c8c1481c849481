import CastDiscovery
import Testing
import WireFormat

// A sender that asks its DNS server (port 53) for a `.local` name (issue 13, DOMAIN.md §7.2 #11):
// the decoder keeps such messages and nothing else on port 53; the rule names the sender.

@Suite("LOCAL_NAME_OVER_DNS")
struct LocalNameOverDNSTests {
    typealias C = CacheScenario
    static let server = IPAddress.v4(IPv4Address(192, 0, 2, 53))

    /// A UDP DNS query for `name` from 192.0.2.10:40000 to the server's port 53, as a frame.
    static func frame(_ name: String, response: Bool = false) -> [UInt8] {
        var m = DNSMessage(id: 0x1234, flags: response ? 0x8183 : 0x0100)
        m.questions = [DNSQuestion(name: DNSName(name), type: .a)]
        let dns = Frames.mdns(m)
        let ports = response ? (53, 40000) : (40000, 53)
        let udp = Frames.udpHeader(source: ports.0, destination: ports.1, length: 8 + dns.count) + dns
        let (a, b) = (IPv4Address(192, 0, 2, 10), IPv4Address(192, 0, 2, 53))
        return Frames.ethernetIPv4(
            source: response ? b : a, destination: response ? a : b, identification: 1, moreFragments: false,
            payload: udp)
    }

    static func decode(_ bytes: [UInt8]) -> DiscoveryPacket? {
        var decoder = DiscoveryDecoder(linkType: .ethernet)
        return bytes.withUnsafeBytes {
            decoder.decode(
                frame: 1, timestamp: Timestamp(seconds: 1, nanoseconds: 0), bytes: $0, originalLength: $0.count)
        }
    }

    @Test("port 53 is kept only for .local questions, and counted apart from mDNS")
    func decoder() throws {
        let kept = try #require(Self.decode(Self.frame("3f5d6b2a-8c91.local")))
        #expect(kept.isUnicastDNS && !kept.legacyUnicast)
        #expect(Self.decode(Self.frame("3F5D.LOCAL", response: true))?.isUnicastDNS == true)
        #expect(Self.decode(Self.frame("example.com")) == nil)
        #expect(Self.decode(Self.frame("local.example.com")) == nil)
        #expect(Self.decode(Self.frame("notlocal")) == nil)
        // anyconnect-vpn.pcap frame 93: `local` SOA, a resolver asking whether a unicast local
        // domain exists, not a lookup of an mDNS host.
        #expect(Self.decode(Self.frame("local")) == nil)
        var decoder = DiscoveryDecoder(linkType: .ethernet)
        let bytes = Self.frame("x.local")
        _ = bytes.withUnsafeBytes {
            decoder.decode(
                frame: 1, timestamp: Timestamp(seconds: 1, nanoseconds: 0), bytes: $0, originalLength: $0.count)
        }
        #expect(decoder.statistics.unicastDNSPackets == 1 && decoder.statistics.mdnsPackets == 0)
    }

    static func dnsPacket(_ frame: Int, at ms: Int64, name: String, response: Bool) -> DiscoveryPacket {
        var m = DNSMessage(id: 7, flags: response ? 0x8183 : 0x0100)
        m.questions = [DNSQuestion(name: DNSName(name), type: .a)]
        return DiscoveryPacket(
            frame: frame, timestamp: Timestamp(seconds: 1_800_000_000, nanoseconds: ms * 1_000_000), ipVersion: 4,
            source: response ? server : C.client, destination: response ? C.client : server, ttl: 64,
            sourcePort: response ? 53 : 40000, destinationPort: response ? 40000 : 53, payload: .mdns(m))
    }

    static var resolved: [DiscoveryPacket] {
        [
            C.packet(1, at: 0, from: C.client, C.query),
            C.packet(2, at: 100, from: C.device, C.response([C.ptr], [C.srv, C.txt, C.a()])),
        ]
    }

    @Test("the SRV target asked over DNS after the mDNS answer: a warning naming the device and NXDOMAIN")
    func fires() throws {
        let r = C.report(
            Self.resolved + [
                Self.dnsPacket(3, at: 200, name: "0a1b2c.local", response: false),
                Self.dnsPacket(4, at: 201, name: "0a1b2c.local", response: true),
            ])
        let f = try #require(r.findings.first { $0.code == .localNameOverDNS })
        #expect(f.severity == .warning)
        #expect(f.frames.map(\.frame) == [3, 4])
        #expect(f.subjects.clients == ["192.0.2.10"] && f.subjects.devices == ["0a1b2c3d4e5f"])
        #expect(f.detail.contains("NXDOMAIN") && f.detail.contains("SRV target of Living Room TV"))
        let q = try #require(r.clients.first?.localNamesOverDNS.first)
        #expect(q.answer == "NXDOMAIN" && q.server == Self.server && q.name == "0a1b2c.local")
    }

    @Test("a .local lookup before any Cast query, or from a host that never browsed Cast: no finding")
    func notACastSender() {
        let before = C.report([
            Self.dnsPacket(1, at: 0, name: "printer.local", response: false),
            C.packet(2, at: 500, from: C.client, C.query),
            C.packet(3, at: 600, from: C.device, C.response([C.ptr], [C.srv, C.txt, C.a()])),
        ])
        #expect(!before.findings.contains { $0.code == .localNameOverDNS })
        #expect(before.clients.first?.localNamesOverDNS.count == 1)
        let noCast = C.report([Self.dnsPacket(1, at: 0, name: "printer.local", response: false)])
        #expect(!noCast.findings.contains { $0.code == .localNameOverDNS })
    }

    @Test("local-name-dns.pcap: LOCAL_NAME_OVER_DNS only, with the query and the NXDOMAIN as evidence")
    func capture() throws {
        let r = try DiagnosisSupport.report("local-name-dns.pcap")
        #expect(DiagnosisSupport.codes(r, [.error, .warning]) == ["LOCAL_NAME_OVER_DNS"])
        let f = try #require(r.findings.first { $0.code == .localNameOverDNS })
        #expect(f.frames.map(\.frame) == [7, 8])
        #expect(r.captures[0].mdnsPackets == 4)
    }
}
