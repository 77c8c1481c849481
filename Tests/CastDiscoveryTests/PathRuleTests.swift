import Foundation
import Testing
import WireFormat

@testable import CastDiscovery

// The path and conformance rules (PathRules.swift, ConformanceRules.swift) on real captures:
// the public ones in ../shared/captures/external, the namespace ones in captures/, and copies
// of healthy-ipv4.pcap with one IP TTL changed.

private typealias S = DiagnosisSupport

private let externalPresent = FileManager.default.fileExists(atPath: S.external.path)

private func external(_ name: String) throws -> AnalysisReport {
    try S.report(paths: [S.external.appendingPathComponent(name).path])
}

/// healthy-ipv4.pcap with the IPv4 TTL of every packet from `source` to `destination` set to
/// `ttl` (Ethernet + IPv4 without options; castscope does not check the header checksum).
private func healthyWithTTL(_ ttl: UInt8, source: [UInt8], destination: [UInt8]) throws -> AnalysisReport {
    var data = try Data(contentsOf: URL(fileURLWithPath: S.path("healthy-ipv4.pcap")))
    var changed = 0
    for (offset, length) in S.records(data) where length > 34 {
        let ip = data.startIndex + offset + 14
        guard data[ip - 2] == 0x08, data[ip - 1] == 0x00, data[ip + 9] == 17,
            [UInt8](data[(ip + 12)..<(ip + 16)]) == source, [UInt8](data[(ip + 16)..<(ip + 20)]) == destination
        else { continue }
        data[ip + 8] = ttl
        changed += 1
    }
    #expect(changed > 0)
    return try S.report(paths: [try S.temporary(data, name: "ttl-\(ttl)-\(source[3])-\(destination[3]).pcap")])
}

private let device: [UInt8] = [192, 0, 2, 21]
private let sender: [UInt8] = [192, 0, 2, 10]
private let mdnsGroup: [UInt8] = [224, 0, 0, 251]

@Suite("Path rules: relays only on evidence")
struct PathRuleTests {
    @Test(
        "senders' TTL-1 queries and non-Cast TTL-1 answers raise no path or conformance finding",
        .enabled(if: externalPresent, "../shared is absent"),
        arguments: [
            "ndpi/wechat.pcap", "ndpi/iphone.pcap", "ndpi/telegram.pcap", "ndpi/gnutella.pcap",
            "suricata-verify/base64-decode-5885/input.pcap", "ipfixprobe/dnssd.pcap",
        ])
    func noRelayInRealCaptures(name: String) throws {
        let r = try external(name)
        let path: Set<String> = [
            "REFLECTED_TRAFFIC", "CROSS_SUBNET", "RESPONSE_TTL_NOT_255", "ADVERTISED_ADDRESS_UNREACHABLE",
            "RELAYED_QUERIES_IGNORED",
        ]
        #expect(Set(S.codes(r)).isDisjoint(with: path), "\(S.codes(r))")
        #expect(r.reflectedCount == 0)
    }

    @Test("wechat: the 116 TTL-1 packets are the clients' own _googlecast queries", .enabled(if: externalPresent))
    func wechatQueries() throws {
        let r = try external("ndpi/wechat.pcap")
        #expect(r.devices.isEmpty)
        #expect(r.clients.reduce(0) { $0 + $1.queries } == 116)
        #expect(!S.codes(r).contains("REFLECTED_TRAFFIC"))
    }

    @Test("an IPv6-only device heard over IPv4 is not called cross-subnet", .enabled(if: externalPresent))
    func ipv6OnlyDevice() throws {
        let r = try external("derived-from-source-hex/aosp_mdns_response_decoder_cast.pcap")
        let attic = try #require(r.devices.first { $0.friendlyName == "Attic speaker" })
        #expect(attic.addresses.allSatisfy { !$0.isV4 })
        #expect(attic.senders.map(\.address) == [IPAddress("192.168.1.10")!])
        #expect(!S.codes(r).contains("CROSS_SUBNET"))
        #expect(DevicePath(attic).relayed.isEmpty)
    }

    @Test("reflector.pcap: avahi's reflector (TTL 255, its own address) is CROSS_SUBNET, not a misplaced address")
    func reflector() throws {
        let r = try S.report("reflector.pcap")
        #expect(S.codes(r) == ["CROSS_SUBNET"])
        let path = DevicePath(try #require(r.devices.first))
        #expect(path.relayed.map(\.evidence) == [.otherAddress])
        #expect(path.misplaced.isEmpty)
    }

    @Test("repeater.pcap: a copy from another host's MAC and address, not a non-conforming responder")
    func repeater() throws {
        let r = try S.report("repeater.pcap")
        #expect(S.codes(r) == ["REFLECTED_TRAFFIC"])
        let path = DevicePath(try #require(r.devices.first))
        #expect(path.heardDirectly)
        let copy = try #require(path.relayed.first)
        #expect(copy.sender.address == IPAddress("192.0.2.40") && copy.sender.ipTTL == 1)
        #expect(copy.evidence == .otherMAC)
        let f = try #require(r.findings.first { $0.code == .reflectedTraffic })
        #expect(f.frames == [copy.sender.frame])
        #expect(f.detail.contains("again from 192.0.2.40 (MAC 02:ca:57:00:00:40, IP TTL 1)"))
    }

    @Test("a Cast device's own multicast answers with TTL 1: RESPONSE_TTL_NOT_255 (info), not a reflector")
    func ownLowTTL() throws {
        let r = try healthyWithTTL(1, source: device, destination: mdnsGroup)
        #expect(S.codes(r) == ["RESPONSE_TTL_NOT_255"])
        let f = try #require(r.findings.first)
        #expect(f.severity == .info)
        #expect(f.subjects.devices == [r.devices[0].id])
    }

    @Test("a decremented TTL (254) on the device's multicast answer: REFLECTED_TRAFFIC")
    func routedCopy() throws {
        let r = try healthyWithTTL(254, source: device, destination: mdnsGroup)
        #expect(r.reflectedCount > 0 && r.reflectedTTLs == [254])
        #expect(S.codes(r).contains("REFLECTED_TRAFFIC"))
        #expect(!S.codes(r).contains("RESPONSE_TTL_NOT_255"))
    }

    @Test("the sender's queries with TTL 1 (as Chrome sends them) raise nothing")
    func queryTTL1() throws {
        let r = try healthyWithTTL(1, source: sender, destination: mdnsGroup)
        #expect(S.codes(r) == [])
        #expect(r.reflectedCount == 0)
    }

    @Test("advertised-address.pcap: Docker address only is an error, an extra link-local one a warning")
    func advertisedAddress() throws {
        let r = try S.report("advertised-address.pcap")
        let found = r.findings.filter { $0.code == .advertisedAddressUnreachable }
        let tv = try #require(found.first { $0.title.hasPrefix("Living Room TV") })
        #expect(tv.severity == .error)
        #expect(tv.detail.contains("172.17.0.2 (a Docker bridge range"))
        let speaker = try #require(found.first { $0.title.hasPrefix("Kitchen Speaker") })
        #expect(speaker.severity == .warning)
        #expect(speaker.detail.contains("169.254.23.1 (link-local"))
        #expect(found.count == 2)
        #expect(!S.codes(r).contains("CROSS_SUBNET") && !S.codes(r).contains("REFLECTED_TRAFFIC"))
    }

    @Test("relayed-queries.pcap: relayed off-subnet queriers are named, the on-link one is not")
    func relayedQueries() throws {
        let r = try S.report("relayed-queries.pcap")
        let found = r.findings.filter { $0.code == .relayedQueriesIgnored }
        // One finding naming both relayed queriers, each with its own evidence.
        #expect(Set(found.flatMap(\.subjects.clients)) == ["192.0.2.10", "192.0.2.11"])
        #expect(found.count == 1 && found.allSatisfy { $0.severity == .error && $0.evidence.count == 2 })
        #expect(S.codes(r, [.error, .warning]) == ["RELAYED_QUERIES_IGNORED"])
        // The relayed queries are the evidence: all from the relay's MAC.
        let relayed = Set(r.queries.filter { $0.client.description != "192.0.2.140" }.map(\.frame))
        #expect(Set(found.flatMap(\.frames)) == relayed)
    }

    @Test(
        "what an advertised IPv4 address says next to the packet's source",
        arguments: [
            ("172.17.0.2", "192.168.1.20", false, DevicePath.Misplacement.dockerBridge),
            ("172.18.0.5", "10.0.0.7", false, .dockerBridge),
            ("169.254.3.4", "192.168.1.20", false, .linkLocal),
            ("8.8.8.8", "192.168.1.20", false, .publicAddress),
            ("127.0.0.1", "192.168.1.20", false, .special),
            ("10.8.0.2", "192.168.1.20", true, .otherNetwork),
        ])
    func misplaced(address: String, source: String, direct: Bool, reason: DevicePath.Misplacement) {
        #expect(
            DevicePath.misplacement(of: IPAddress(address)!, from: IPAddress(source)!, heardDirectly: direct) == reason)
    }

    @Test(
        "addresses a capture cannot call misplaced",
        arguments: [
            ("172.17.0.2", "172.20.1.5", true),  // a LAN in 172.16/12
            ("169.254.3.4", "169.254.9.9", true),  // both link-local: same link
            ("147.229.1.2", "147.229.1.3", true),  // a public LAN
            ("10.0.1.5", "192.168.1.1", false),  // a reflector from another private subnet: CROSS_SUBNET
            ("192.0.2.150", "192.0.2.1", true),  // one block: the prefix is not on the wire
            ("203.0.113.7", "192.168.1.20", false),  // documentation counts as a LAN, not public
        ])
    func notMisplaced(address: String, source: String, direct: Bool) {
        #expect(
            DevicePath.misplacement(of: IPAddress(address)!, from: IPAddress(source)!, heardDirectly: direct) == nil)
    }

    @Test("decremented TTLs are a few hops below 255, 128 or 64; 1 and 32 are initial values")
    func decremented() {
        #expect([254, 250, 127, 63, 60].allSatisfy { IPTTL.isDecremented(UInt8($0)) })
        #expect([255, 128, 64, 1, 2, 32, 100, 200].allSatisfy { !IPTTL.isDecremented(UInt8($0)) })
    }
}
