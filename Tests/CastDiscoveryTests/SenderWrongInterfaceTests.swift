import CastDiscovery
import Testing
import WireFormat

// A sender that asks on the wrong interface (issue 13; DOMAIN.md §7.2 #2, §4 #6, #8, #9): its
// queries come from a subnet no device is on, while devices are heard on another.

@Suite("SENDER_WRONG_INTERFACE")
struct SenderWrongInterfaceTests {
    typealias C = CacheScenario

    /// A query from `client`, and the device announcing itself (A 192.0.2.50) to nobody in particular.
    static func run(client: IPAddress, answered: Bool = false) -> AnalysisReport {
        var packets = [
            C.packet(1, at: 0, from: C.device, C.response([C.ptr], [C.srv, C.txt, C.a()])),
            C.packet(2, at: 5_000, from: client, C.query),
        ]
        // A reflector on the sender's subnet relays the answer (reflector.pcap's case).
        if answered {
            packets.append(
                C.packet(
                    3, at: 5_050, from: .v4(IPv4Address(172, 17, 0, 1)), C.response([C.ptr], [C.srv, C.txt, C.a()])))
        }
        return C.report(packets)
    }

    @Test("a Docker-bridge sender, the device on the LAN: an error naming Docker, not CLIENT_NOT_ANSWERED")
    func docker() throws {
        let r = Self.run(client: .v4(IPv4Address(172, 17, 0, 2)))
        let f = try #require(r.findings.first { $0.code == .senderWrongInterface })
        #expect(f.severity == .error)
        #expect(f.detail.contains("Docker's default bridge") && f.detail.contains("192.0.2.0/24"))
        #expect(f.subjects.devices == ["0a1b2c3d4e5f"])
        #expect(!r.findings.contains { $0.code == .clientNotAnswered })
    }

    @Test("PCAPdroid's VPN subnet is named")
    func pcapdroid() throws {
        let r = Self.run(client: .v4(IPv4Address(10, 215, 173, 1)))
        #expect(r.findings.first { $0.code == .senderWrongInterface }?.detail.contains("PCAPdroid") == true)
    }

    @Test("same subnet, unanswered: CLIENT_NOT_ANSWERED, not a wrong interface")
    func sameSubnet() {
        let r = Self.run(client: .v4(IPv4Address(192, 0, 2, 10)))
        #expect(!r.findings.contains { $0.code == .senderWrongInterface })
        #expect(r.findings.contains { $0.code == .clientNotAnswered })
    }

    @Test("another subnet but answered (a reflector): no finding")
    func reflected() {
        let r = Self.run(client: .v4(IPv4Address(172, 17, 0, 2)), answered: true)
        #expect(!r.findings.contains { $0.code == .senderWrongInterface })
    }

    @Test("no device heard at all: QUERIES_UNANSWERED, nothing about interfaces")
    func noDevices() {
        let r = C.report([C.packet(1, at: 0, from: .v4(IPv4Address(172, 17, 0, 2)), C.query)])
        #expect(!r.findings.contains { $0.code == .senderWrongInterface })
    }

    @Test("wrong-interface.pcap (tcpdump -i any): the device's answer on eth0 does not reach the eth1 sender")
    func capture() throws {
        let r = try DiagnosisSupport.report("wrong-interface.pcap")
        #expect(DiagnosisSupport.codes(r, [.error, .warning]) == ["SENDER_WRONG_INTERFACE"])
        let f = try #require(r.findings.first { $0.code == .senderWrongInterface })
        #expect(f.subjects.clients == ["198.51.100.10"])
        // The phone on the LAN is answered.
        #expect(r.queries.contains { $0.client.description == "192.0.2.11" && !$0.answered.isEmpty })
    }
}
