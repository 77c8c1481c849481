import Foundation
import Testing
import WireFormat

@testable import CastDiscovery

private typealias S = DiagnosisSupport

// Clients are hosts: the addresses one MAC queried from are one client (DOMAIN.md §7.1), but a
// MAC that sends from several IPv4 addresses (a router, a reflector) joins nothing.
@Suite("Hosts, not addresses")
struct HostTests {
    static func client(_ address: String, mac: UInt64?, queries: Int = 1) -> Client {
        Client(
            address: IPAddress(address)!, mac: mac.map(MACAddress.init(rawValue:)), process: nil, queries: queries,
            quQuestions: 0, qmQuestions: queries, appIDsQueried: [], firstQuery: nil, lastQuery: nil,
            firstQueryFrame: nil, legacyUnicast: false, firstLegacyFrame: nil, dialSearches: 0, firstDialSearch: nil,
            firstDialSearchFrame: nil, fastIntervals: 0, appIDsAnswered: [], serviceTypeAnswered: false,
            intervalsMs: [], followsDoubling: nil, sessions: 1)
    }

    static func external(_ name: String) throws -> AnalysisReport {
        try S.report(paths: [S.external.appendingPathComponent(name).path])
    }

    @Test("one MAC's IPv4 and IPv6 link-local address are one host, the IPv4 address primary")
    func joinsByMAC() {
        let clients = [
            Self.client("fe80::1", mac: 0xa), Self.client("192.0.2.1", mac: 0xa), Self.client("192.0.2.2", mac: 0xb),
            Self.client("2001:db8::1", mac: nil),
        ]
        let g = HostGrouping(clients)
        #expect(g.hosts == [[1, 0], [2], [3]])
        #expect(g.primary(of: IPAddress("fe80::1")!) == IPAddress("192.0.2.1")!)
        #expect(g.primary(of: IPAddress("192.0.2.2")!) == IPAddress("192.0.2.2")!)
        let host = Client(host: g.hosts[0].map { clients[$0] })
        #expect(host.address == IPAddress("192.0.2.1")!)
        #expect(host.addresses == [IPAddress("192.0.2.1")!, IPAddress("fe80::1")!])
        #expect(host.queries == 2)
    }

    @Test(
        "a MAC with several addresses of one kind (a router or reflector) joins nothing",
        arguments: [
            ["192.0.2.1", "192.0.2.2", "fe80::1"], ["192.0.2.1", "fe80::1", "fe80::2"],
            ["2001:db8::1", "2001:db8::2"],
        ])
    func routerMACJoinsNothing(addresses: [String]) {
        let g = HostGrouping(addresses.map { Self.client($0, mac: 0xa) })
        #expect(g.hosts == addresses.indices.map { [$0] })
        #expect(g.primary.isEmpty)
    }

    @Test("one burst sent over IPv4 and IPv6 is one query; the answers timed from the first")
    func queriesJoin() {
        let a = IPAddress("192.0.2.1")!
        let b = IPAddress("fe80::1")!
        func q(_ ms: Int64, _ frame: Int, answered: [(String, Double)] = [], missed: [String] = []) -> QueryOutcome {
            QueryOutcome(
                client: a, time: Timestamp(seconds: 0, nanoseconds: ms * 1_000_000),
                frame: FrameRef(capture: 0, frame: frame), names: ["_googlecast._tcp.local"],
                answered: answered.map {
                    QueryOutcome.Answer(deviceID: $0.0, delayMs: $0.1, frame: FrameRef(capture: 0, frame: 99))
                }, suppressed: [], missed: missed)
        }
        let joined = QueryOutcome.joined(
            [q(0, 1, missed: ["D"]), q(5, 2, answered: [("D", 10)]), q(1000, 3), q(1002, 4), q(1004, 5)],
            sources: [a, b, a, b, a], window: 250_000_000)
        #expect(joined.map(\.frame.frame) == [1, 3, 5])
        #expect(joined[0].answered.map(\.deviceID) == ["D"] && joined[0].answered[0].delayMs == 15)
        #expect(joined[0].missed.isEmpty)
        let stats = ResponseStats.counted(joined, client: a)
        #expect(stats.map(\.stats.expected) == [1] && stats[0].stats.answered == 1 && stats[0].delays == [15])
    }

    @Test("wechat.pcap: two hosts (IPv4 + fe80:: of one MAC each), not four clients")
    func wechat() throws {
        let r = try Self.external("ndpi/wechat.pcap")
        #expect(
            r.clients.map(\.allAddresses.description).sorted() == [
                "[192.168.1.100, fe80::91f9:3df3:7436:6cd6]", "[192.168.1.103, fe80::7a92:9cff:fe0f:a88e]",
            ])
        let unanswered = r.findings.filter { $0.code == .queriesUnanswered }
        #expect(unanswered.flatMap(\.subjects.clients).sorted() == ["192.168.1.100", "192.168.1.103"])
        // Query outcomes are the host's: every pair (IPv4 and IPv6) is one query.
        #expect(Set(r.queries.map(\.client.description)) == ["192.168.1.100", "192.168.1.103"])
        // 44 packets from each address, in 33 bursts each (Chrome's 0, +1, +3 s), sent as pairs
        // 0.1 ms apart: 33 queries of the host, no two within one burst window.
        let times = r.queries.filter { $0.client.description == "192.168.1.103" }.map(\.time)
        #expect(times.count == 33)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1.nanoseconds(since: $0) > 250_000_000 })
    }

    @Test("iphone.pcap: 192.168.2.1 and fe80::c42c:3ff:fe60:6a64 are one host; 169.254.225.216 another")
    func iphone() throws {
        let r = try Self.external("ndpi/iphone.pcap")
        #expect(
            r.clients.map(\.allAddresses.description) == [
                "[192.168.2.1, fe80::c42c:3ff:fe60:6a64]", "[169.254.225.216]",
            ])
    }

    @Test(
        "the reflector's and repeater's MACs join no other host's addresses",
        arguments: ["reflector.pcap", "repeater.pcap"])
    func reflector(name: String) throws {
        let r = try S.report(name)
        #expect(r.clients.allSatisfy { $0.addresses.count == 1 })
    }

    @Test("one host's IPv4 and IPv6 sessions are one latency row per device")
    func latencyPerHost() throws {
        let r = try S.report("fragmented.pcap")
        #expect(r.clients.count == 1 && r.clients[0].addresses.count == 2)
        #expect(r.latency.count == 1 && r.latency[0].client == r.clients[0].address)
        #expect(r.responses.count == 1 && r.responses[0].expected == r.queries.count)
    }
}
