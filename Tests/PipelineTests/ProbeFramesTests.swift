import CastDiscovery
import Testing
import WireFormat

@testable import Pipeline

#if canImport(Glibc)
    import Glibc
#endif

// The frames `probe` makes from its sockets when it cannot capture, read back by the decoder
// analyze uses; and the control messages its sockets read the destination and TTL from.

@Suite struct ProbeFramesTests {
    static let mac = MACAddress(rawValue: 0x0200_0000_0002)
    static let own4 = IPAddress.v4(IPv4Address(192, 0, 2, 10))
    static let tv4 = IPAddress.v4(IPv4Address(192, 0, 2, 21))

    static func decode(_ frame: [UInt8]) -> DiscoveryPacket? {
        var decoder = DiscoveryDecoder(linkType: .linuxSLL)
        return frame.withUnsafeBytes {
            decoder.decode(
                frame: 1, timestamp: Timestamp(seconds: 0, nanoseconds: 0), bytes: $0, originalLength: $0.count)
        }
    }

    @Test func aSentQueryCarriesThisHostsMACAndDecodesAsTheQuery() throws {
        var query = DNSMessage()
        query.questions = [DNSQuestion(name: CastName.serviceTypeName, type: .ptr, unicastResponse: true)]
        let ip = ProbeFrames.udp(
            source: Self.own4, destination: .v4(.mdnsGroup), sourcePort: 5353, destinationPort: 5353, hopLimit: 255,
            payload: query.wireFormat())
        let p = try #require(Self.decode(ProbeFrames.cooked(ip, sentFrom: Self.mac)))
        #expect(p.sourceMAC == Self.mac)
        #expect(p.source == Self.own4 && p.destination == .v4(.mdnsGroup))
        #expect(p.sourcePort == 5353 && p.destinationPort == 5353 && p.ttl == 255)
        #expect(p.error == nil)
        guard case .mdns(let m?) = p.payload else {
            Issue.record("not decoded as mDNS: \(p.payload)")
            return
        }
        #expect(m.questions == query.questions)
    }

    @Test func aReceivedIPv6AnswerHasNoMACAndKeepsItsHopLimit() throws {
        var answer = DNSMessage(flags: 0x8400)
        answer.answers = [
            DNSResourceRecord(
                name: CastName.serviceTypeName, type: .ptr, ttl: 120, data: .name(DNSName("TV._googlecast._tcp.local")))
        ]
        let source = IPAddress.v6(IPv6Address("2001:db8::21")!)
        let ip = ProbeFrames.udp(
            source: source, destination: .v6(.mdnsGroup), sourcePort: 5353, destinationPort: 5353, hopLimit: 254,
            payload: answer.wireFormat())
        let p = try #require(Self.decode(ProbeFrames.cooked(ip, sentFrom: nil)))
        #expect(p.sourceMAC == nil)
        #expect(p.ipVersion == 6 && p.source == source && p.ttl == 254)
        guard case .mdns(let m?) = p.payload else {
            Issue.record("not decoded as mDNS")
            return
        }
        #expect(m.answers.map(\.data) == answer.answers.map(\.data))
    }

    @Test(arguments: [(UInt8(0x02), "SYN"), (0x12, "SYN-ACK"), (0x14, "RST"), (0x11, "FIN")])
    func connectionSegmentsAreKept(flags: UInt8, name: String) throws {
        let ip = ProbeFrames.tcp(
            source: Self.own4, destination: Self.tv4, sourcePort: 49152, destinationPort: 8009, flags: flags,
            sequence: 1000, acknowledgment: 0)
        let p = try #require(Self.decode(ProbeFrames.cooked(ip, sentFrom: Self.mac)), "\(name) not kept")
        #expect(p.tcp?.flags.rawValue == flags)
        #expect(p.destinationPort == 8009)
    }

    @Test(arguments: [UInt8(1), 2])
    func tlsHellosAreRecognised(type: UInt8) throws {
        let ip = ProbeFrames.tcp(
            source: Self.tv4, destination: Self.own4, sourcePort: 8009, destinationPort: 49152, flags: 0x18,
            sequence: 2000, acknowledgment: 1, payload: ProbeFrames.tlsHello(type))
        let p = try #require(Self.decode(ProbeFrames.cooked(ip, sentFrom: nil)))
        #expect(p.tcp?.hello?.rawValue == type)
    }

    @Test func theIPv4HeaderChecksumIsRight() {
        let ip = ProbeFrames.udp(
            source: Self.own4, destination: .v4(.ssdpGroup), sourcePort: 40000, destinationPort: 1900, hopLimit: 2,
            payload: [1, 2, 3])
        var sum: UInt32 = 0
        for k in stride(from: 0, to: 20, by: 2) { sum += UInt32(ip[k]) << 8 | UInt32(ip[k + 1]) }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        #expect(sum == 0xFFFF)
    }

    /// Control messages as Linux lays them out: IP_PKTINFO (destination at data + 8), then IP_TTL.
    @Test func controlMessagesGiveTheDestinationAndTTL() {
        let word = MemoryLayout<Int>.size
        func message(level: Int32, type: Int32, data: [UInt8]) -> [UInt8] {
            var out = withUnsafeBytes(of: MemoryLayout<cmsghdr>.size + data.count) { Array($0) }
            out += withUnsafeBytes(of: level) { Array($0) } + withUnsafeBytes(of: type) { Array($0) }
            out += data
            while out.count % word != 0 { out.append(0) }
            return out
        }
        let pktinfo = [UInt8](repeating: 0, count: 4) + [192, 0, 2, 10] + [224, 0, 0, 251]
        let ttl = withUnsafeBytes(of: Int32(254)) { Array($0) }
        let control =
            message(level: Int32(IPPROTO_IP), type: IP_PKTINFO, data: pktinfo)
            + message(level: Int32(IPPROTO_IP), type: IP_TTL, data: ttl)
        var d = ReceivedDatagram(
            bytes: [], source: Self.tv4, sourcePort: 5353, destination: nil, hopLimit: nil,
            time: Timestamp(seconds: 0, nanoseconds: 0))
        ProbeSocket.readControl(control[...], into: &d)
        #expect(d.destination == .v4(.mdnsGroup))
        #expect(d.hopLimit == 254)
        // A truncated buffer gives what is whole and nothing else.
        var e = d
        e.destination = nil
        e.hopLimit = nil
        ProbeSocket.readControl(control[..<(control.count - 8)], into: &e)
        #expect(e.destination == .v4(.mdnsGroup) && e.hopLimit == nil)
    }
}
