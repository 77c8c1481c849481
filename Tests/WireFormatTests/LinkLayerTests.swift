import Testing
import WireFormat

// Link-layer decoding, one test per link type. Every frame wraps the same real mDNS payload: the
// UDP payload of frame 3 of captures/external/derived-from-source-hex/sming_basic_mdns_resource.pcap
// (a Chromecast's response: PTR _googlecast._tcp.local → Chromecast-3e21….; TXT with fn=Chromecast;
// SRV port 8009; A 192.168.1.103), extracted with `tshark -T fields -e udp.payload`.

/// 346 bytes: 0 questions, 1 answer, 0 authority, 3 additional records.
let linkTestCastResponse: [UInt8] = [
    0x00, 0x00, 0x84, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x0b, 0x5f, 0x67, 0x6f,
    0x6f, 0x67, 0x6c, 0x65, 0x63, 0x61, 0x73, 0x74, 0x04, 0x5f, 0x74, 0x63, 0x70, 0x05, 0x6c, 0x6f,
    0x63, 0x61, 0x6c, 0x00, 0x00, 0x0c, 0x00, 0x01, 0x00, 0x00, 0x00, 0x78, 0x00, 0x2e, 0x2b, 0x43,
    0x68, 0x72, 0x6f, 0x6d, 0x65, 0x63, 0x61, 0x73, 0x74, 0x2d, 0x33, 0x65, 0x32, 0x31, 0x62, 0x39,
    0x35, 0x33, 0x65, 0x63, 0x33, 0x39, 0x30, 0x38, 0x33, 0x64, 0x34, 0x33, 0x38, 0x31, 0x35, 0x61,
    0x64, 0x65, 0x36, 0x39, 0x31, 0x31, 0x32, 0x32, 0x36, 0x35, 0xc0, 0x0c, 0xc0, 0x2e, 0x00, 0x10,
    0x80, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, 0xa9, 0x23, 0x69, 0x64, 0x3d, 0x33, 0x65, 0x32, 0x31,
    0x62, 0x39, 0x35, 0x33, 0x65, 0x63, 0x33, 0x39, 0x30, 0x38, 0x33, 0x64, 0x34, 0x33, 0x38, 0x31,
    0x35, 0x61, 0x64, 0x65, 0x36, 0x39, 0x31, 0x31, 0x32, 0x32, 0x36, 0x35, 0x23, 0x63, 0x64, 0x3d,
    0x33, 0x34, 0x31, 0x32, 0x31, 0x34, 0x42, 0x39, 0x38, 0x33, 0x35, 0x41, 0x38, 0x43, 0x46, 0x31,
    0x46, 0x35, 0x33, 0x37, 0x39, 0x44, 0x43, 0x33, 0x37, 0x42, 0x39, 0x30, 0x44, 0x35, 0x46, 0x36,
    0x03, 0x72, 0x6d, 0x3d, 0x05, 0x76, 0x65, 0x3d, 0x30, 0x35, 0x0d, 0x6d, 0x64, 0x3d, 0x43, 0x68,
    0x72, 0x6f, 0x6d, 0x65, 0x63, 0x61, 0x73, 0x74, 0x12, 0x69, 0x63, 0x3d, 0x2f, 0x73, 0x65, 0x74,
    0x75, 0x70, 0x2f, 0x69, 0x63, 0x6f, 0x6e, 0x2e, 0x70, 0x6e, 0x67, 0x0d, 0x66, 0x6e, 0x3d, 0x43,
    0x68, 0x72, 0x6f, 0x6d, 0x65, 0x63, 0x61, 0x73, 0x74, 0x09, 0x63, 0x61, 0x3d, 0x32, 0x30, 0x30,
    0x37, 0x30, 0x39, 0x04, 0x73, 0x74, 0x3d, 0x30, 0x0f, 0x62, 0x73, 0x3d, 0x46, 0x41, 0x38, 0x46,
    0x43, 0x41, 0x36, 0x37, 0x32, 0x33, 0x36, 0x42, 0x04, 0x6e, 0x66, 0x3d, 0x31, 0x03, 0x72, 0x73,
    0x3d, 0xc0, 0x2e, 0x00, 0x21, 0x80, 0x01, 0x00, 0x00, 0x00, 0x78, 0x00, 0x2d, 0x00, 0x00, 0x00,
    0x00, 0x1f, 0x49, 0x24, 0x33, 0x65, 0x32, 0x31, 0x62, 0x39, 0x35, 0x33, 0x2d, 0x65, 0x63, 0x33,
    0x39, 0x2d, 0x30, 0x38, 0x33, 0x64, 0x2d, 0x34, 0x33, 0x38, 0x31, 0x2d, 0x35, 0x61, 0x64, 0x65,
    0x36, 0x39, 0x31, 0x31, 0x32, 0x32, 0x36, 0x35, 0xc0, 0x1d, 0xc1, 0x23, 0x00, 0x01, 0x80, 0x01,
    0x00, 0x00, 0x00, 0x78, 0x00, 0x04, 0xc0, 0xa8, 0x01, 0x67,
]

// MARK: - Frame builders

/// Which IP version a frame carries.
enum LinkTestIP: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case v4, v6
    var testDescription: String { "IP\(rawValue)" }
    var etherType: UInt16 { self == .v4 ? 0x0800 : 0x86DD }
    /// The flow used for this version.
    var flow: LinkTestFlow { self == .v4 ? .v4Multicast : .v6Multicast }
}

/// Addresses, ports and TTL of the synthetic IP/UDP headers around the payload.
struct LinkTestFlow: Sendable {
    var source: IPAddress
    var destination: IPAddress
    var sourcePort: UInt16 = 5353
    var destinationPort: UInt16 = 5353
    var ttl: UInt8 = 255

    static let v4Multicast = LinkTestFlow(source: .v4(IPv4Address(192, 168, 1, 103)), destination: .v4(.mdnsGroup))
    static let v6Multicast = LinkTestFlow(
        source: .v6(IPv6Address("fe80::1c2a:3bff:fe4d:5e6f")!), destination: .v6(.mdnsGroup))
    /// A legacy-unicast answer (RFC 6762 §6.7): from 5353 to the querier's ephemeral port.
    static let v4Unicast = LinkTestFlow(
        source: .v4(IPv4Address(192, 168, 1, 103)), destination: .v4(IPv4Address(192, 168, 1, 107)),
        sourcePort: 5353, destinationPort: 52_114, ttl: 64)
    static let v6Unicast = LinkTestFlow(
        source: .v6(IPv6Address("fe80::1c2a:3bff:fe4d:5e6f")!),
        destination: .v6(IPv6Address("fe80::8a1:9eff:fe10:2233")!),
        sourcePort: 5353, destinationPort: 61_000, ttl: 1)
}

enum LinkTestFrames {
    static let castMAC = MACAddress(rawValue: 0x3C28_6D1E_5F01)  // the Chromecast
    static let apMAC = MACAddress(rawValue: 0x0011_2233_4455)  // access point / BSSID
    static let ap2MAC = MACAddress(rawValue: 0x0011_2233_4466)  // second AP of a WDS link
    static let mdnsV4MAC = MACAddress(rawValue: 0x0100_5E00_00FB)
    static let mdnsV6MAC = MACAddress(rawValue: 0x3333_0000_00FB)
    static let timestamp = Timestamp(seconds: 1_795_992_591, nanoseconds: 123_456_789)

    static func groupMAC(_ ip: LinkTestIP) -> MACAddress { ip == .v4 ? mdnsV4MAC : mdnsV6MAC }

    static func bytes(_ mac: MACAddress) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: mac.rawValue >> UInt64(40 - 8 * $0)) }
    }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    static func le16(_ v: UInt16) -> [UInt8] { be16(v).reversed() }
    static func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }

    static func addressBytes(_ a: IPAddress) -> [UInt8] {
        switch a {
        case .v4(let v): return be32(v.rawValue)
        case .v6(let v):
            return (0..<8).flatMap {
                be16(UInt16(truncatingIfNeeded: (($0 < 4 ? v.high : v.low) >> UInt64(48 - 16 * ($0 % 4)))))
            }
        }
    }

    /// UDP header (checksum 0: not checked) + payload.
    static func udp(_ flow: LinkTestFlow, _ payload: [UInt8]) -> [UInt8] {
        be16(flow.sourcePort) + be16(flow.destinationPort) + be16(UInt16(8 + payload.count)) + [0, 0] + payload
    }

    /// An IPv4 or IPv6 packet carrying the UDP datagram, per the flow's address family.
    static func ip(_ flow: LinkTestFlow, _ payload: [UInt8] = linkTestCastResponse) -> [UInt8] {
        let datagram = udp(flow, payload)
        switch flow.source {
        case .v4:
            var h: [UInt8] =
                [0x45, 0x00] + be16(UInt16(20 + datagram.count)) + [0x12, 0x34, 0x00, 0x00, flow.ttl, 17, 0, 0]
            h += addressBytes(flow.source) + addressBytes(flow.destination)
            var sum: UInt32 = 0
            for i in stride(from: 0, to: 20, by: 2) { sum += UInt32(h[i]) << 8 | UInt32(h[i + 1]) }
            while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
            h[10] = UInt8((~sum >> 8) & 0xFF)
            h[11] = UInt8(~sum & 0xFF)
            return h + datagram
        case .v6:
            return [0x60, 0x00, 0x00, 0x00] + be16(UInt16(datagram.count)) + [17, flow.ttl]
                + addressBytes(flow.source) + addressBytes(flow.destination) + datagram
        }
    }

    static func ip(_ version: LinkTestIP) -> [UInt8] { ip(version.flow) }

    /// Ethernet II with optional VLAN tags (TPID, TCI), outermost first.
    static func ethernet(
        dst: MACAddress, src: MACAddress = castMAC, tags: [(UInt16, UInt16)] = [], etherType: UInt16, _ payload: [UInt8]
    ) -> [UInt8] {
        var f = bytes(dst) + bytes(src)
        for (tpid, tci) in tags { f += be16(tpid) + be16(tci) }
        return f + be16(etherType) + payload
    }

    static func ethernet(_ version: LinkTestIP, tags: [(UInt16, UInt16)] = []) -> [UInt8] {
        ethernet(dst: groupMAC(version), tags: tags, etherType: version.etherType, ip(version))
    }

    /// Linux cooked v1: packet type, ARPHRD, address length, address (8), protocol.
    static func sll(_ version: LinkTestIP, flow: LinkTestFlow? = nil) -> [UInt8] {
        be16(2) + be16(1) + be16(6) + bytes(castMAC) + [0, 0] + be16(version.etherType) + ip(flow ?? version.flow)
    }

    /// Linux cooked v2: protocol, reserved, ifindex, ARPHRD, packet type, address length, address (8).
    static func sll2(_ version: LinkTestIP, flow: LinkTestFlow? = nil) -> [UInt8] {
        be16(version.etherType) + [0, 0] + be32(3) + be16(1) + [2, 6] + bytes(castMAC) + [0, 0]
            + ip(flow ?? version.flow)
    }

    /// Apple's PKTAP header (little-endian fields).
    static func pktapHeader(
        length: Int = 108, dlt: UInt32, recordType: UInt32 = 1, ifname: String = "en0", flags: UInt32 = 1,
        family: UInt32 = 2, preLength: UInt32 = 0, pid: Int32 = 1234, comm: String = "MyCastApp",
        epid: Int32 = 1234, ecomm: String = "MyCastApp"
    ) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: length)
        func put(_ v: [UInt8], at o: Int) { for (i, b) in v.enumerated() { h[o + i] = b } }
        put(le32(UInt32(length)), at: 0)
        put(le32(recordType), at: 4)
        put(le32(dlt), at: 8)
        put(Array(ifname.utf8), at: 12)  // pth_ifname[24]
        put(le32(flags), at: 36)  // PTH_FLAG_DIR_IN = 1, PTH_FLAG_DIR_OUT = 2
        put(le32(family), at: 40)
        put(le32(preLength), at: 44)
        put(le32(UInt32(bitPattern: pid)), at: 52)
        put(Array(comm.utf8), at: 56)  // pth_comm[17]
        put(le16(6), at: 80)  // pth_iftype IFT_ETHER
        put(le32(UInt32(bitPattern: epid)), at: 84)
        put(Array(ecomm.utf8), at: 88)  // pth_ecomm[17]
        return h
    }

    static let expectedPKTAP = PKTAPInfo(
        interface: "en0", pid: 1234, process: "MyCastApp", effectivePID: 1234, effectiveProcess: "MyCastApp",
        direction: .inbound)

    /// The four 802.11 address fields for a frame from the Chromecast to `dst`, by DS bits.
    static func wifiAddresses(toDS: Bool, fromDS: Bool, dst: MACAddress) -> [MACAddress] {
        switch (toDS, fromDS) {
        case (false, false): return [dst, castMAC, apMAC]  // IBSS: DA, SA, BSSID
        case (true, false): return [apMAC, castMAC, dst]  // to the AP: BSSID, SA, DA
        case (false, true): return [dst, apMAC, castMAC]  // from the AP: DA, BSSID, SA
        case (true, true): return [ap2MAC, apMAC, dst, castMAC]  // WDS: RA, TA, DA, SA
        }
    }

    /// An 802.11 data frame (QoS data by default) whose body is `body`.
    static func wifiData(
        toDS: Bool, fromDS: Bool, protected: Bool = false, qos: Bool = true, htControl: Bool = false,
        dst: MACAddress, body: [UInt8]
    ) -> [UInt8] {
        let fc0: UInt8 = qos ? 0x88 : 0x08
        var fc1: UInt8 = (toDS ? 0x01 : 0) | (fromDS ? 0x02 : 0)
        if protected { fc1 |= 0x40 }
        if htControl { fc1 |= 0x80 }
        let addresses = wifiAddresses(toDS: toDS, fromDS: fromDS, dst: dst)
        var f: [UInt8] = [fc0, fc1, 0x2C, 0x00]
        for a in addresses.prefix(3) { f += bytes(a) }
        f += [0x30, 0x5A]  // sequence control
        if addresses.count == 4 { f += bytes(addresses[3]) }
        if qos { f += [0x00, 0x00] }
        if qos && htControl { f += [0x00, 0x00, 0x00, 0x00] }
        return f + body
    }

    static func llcSNAP(_ version: LinkTestIP, flow: LinkTestFlow? = nil) -> [UInt8] {
        [0xAA, 0xAA, 0x03, 0x00, 0x00, 0x00] + be16(version.etherType) + ip(flow ?? version.flow)
    }

    /// A BSD loopback header: the address family as a 32-bit word.
    static func loopbackHeader(family: UInt32, bigEndian: Bool) -> [UInt8] {
        bigEndian ? be32(family) : le32(family)
    }
}

/// Decodes one frame with a fresh decoder.
func decodeLinkTestFrame(
    _ linkType: LinkType, _ bytes: [UInt8], originalLength: Int? = nil
) -> (packet: DiscoveryPacket?, statistics: DecodeStatistics) {
    var decoder = DiscoveryDecoder(linkType: linkType)
    let packet = bytes.withUnsafeBytes { raw in
        decoder.decode(
            frame: 42, timestamp: LinkTestFrames.timestamp, bytes: raw, originalLength: originalLength ?? bytes.count)
    }
    return (packet, decoder.statistics)
}

/// Checks everything that must survive any link layer: IP addresses, ports, TTL and the DNS records.
@discardableResult
func expectCastResponse(
    _ packet: DiscoveryPacket?, flow: LinkTestFlow, sourceLocation: SourceLocation = #_sourceLocation
) throws -> DiscoveryPacket {
    let p = try #require(packet, "no discovery packet decoded", sourceLocation: sourceLocation)
    #expect(p.frame == 42, sourceLocation: sourceLocation)
    #expect(p.timestamp == LinkTestFrames.timestamp, sourceLocation: sourceLocation)
    if case .v4 = flow.source {
        #expect(p.ipVersion == 4, sourceLocation: sourceLocation)
    } else {
        #expect(p.ipVersion == 6, sourceLocation: sourceLocation)
    }
    #expect(p.source == flow.source, sourceLocation: sourceLocation)
    #expect(p.destination == flow.destination, sourceLocation: sourceLocation)
    #expect(p.sourcePort == flow.sourcePort, sourceLocation: sourceLocation)
    #expect(p.destinationPort == flow.destinationPort, sourceLocation: sourceLocation)
    #expect(p.ttl == flow.ttl, sourceLocation: sourceLocation)
    #expect(p.error == nil, sourceLocation: sourceLocation)
    #expect(!p.truncatedBySnapLength, sourceLocation: sourceLocation)
    #expect(p.fragmentFrames.isEmpty, sourceLocation: sourceLocation)
    #expect(p.legacyUnicast == (flow.destinationPort != 5353), sourceLocation: sourceLocation)

    let m = try #require(p.mdns, "not decoded as mDNS", sourceLocation: sourceLocation)
    #expect(m.isResponse && m.isAuthoritative, sourceLocation: sourceLocation)
    #expect(m.counts == [0, 1, 0, 3], sourceLocation: sourceLocation)
    let instance = DNSName("Chromecast-3e21b953ec39083d43815ade69112265._googlecast._tcp.local")
    let ptr = try #require(m.answers.first, sourceLocation: sourceLocation)
    #expect(ptr.name == DNSName("_googlecast._tcp.local"), sourceLocation: sourceLocation)
    #expect(ptr.type == .ptr && ptr.ttl == 120 && !ptr.cacheFlush, sourceLocation: sourceLocation)
    #expect(ptr.data == .name(instance), sourceLocation: sourceLocation)

    #expect(m.additionals.map(\.type) == [.txt, .srv, .a], sourceLocation: sourceLocation)
    guard m.additionals.count == 3 else { return p }
    let txt = m.additionals[0]
    #expect(txt.name == instance && txt.cacheFlush && txt.ttl == 4500, sourceLocation: sourceLocation)
    guard case .txt(let record) = txt.data else {
        Issue.record("TXT rdata not decoded: \(txt.data)", sourceLocation: sourceLocation)
        return p
    }
    #expect(record.string(forKey: "fn") == "Chromecast", sourceLocation: sourceLocation)
    #expect(record.string(forKey: "id") == "3e21b953ec39083d43815ade69112265", sourceLocation: sourceLocation)
    #expect(record.string(forKey: "md") == "Chromecast", sourceLocation: sourceLocation)
    #expect(record.strings.count == 12, sourceLocation: sourceLocation)
    #expect(
        m.additionals[1].data
            == .srv(priority: 0, weight: 0, port: 8009, target: DNSName("3e21b953-ec39-083d-4381-5ade69112265.local")),
        sourceLocation: sourceLocation)
    #expect(m.additionals[2].data == .a(IPv4Address(192, 168, 1, 103)), sourceLocation: sourceLocation)
    return p
}

/// A frame cut inside its link header.
struct LinkTestTruncatedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var linkType: LinkType
    var bytes: [UInt8]
    var originalLength: Int
    var testDescription: String { name }

    init(_ name: String, _ linkType: LinkType, _ frame: [UInt8], keep: Int) {
        self.name = name
        self.linkType = linkType
        self.bytes = Array(frame.prefix(keep))
        self.originalLength = frame.count
    }
}

// MARK: - Tests

@Suite("Link layers")
struct LinkLayerTests {
    typealias F = LinkTestFrames

    // MARK: Ethernet

    @Test("Ethernet II", arguments: LinkTestIP.allCases)
    func ethernet(ip: LinkTestIP) throws {
        let (packet, stats) = decodeLinkTestFrame(.ethernet, F.ethernet(ip))
        let p = try expectCastResponse(packet, flow: ip.flow)
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == F.groupMAC(ip))
        #expect(p.vlanIDs.isEmpty && p.outerVLAN == nil)
        #expect(p.pktap == nil)
        #expect(!p.rawIPInEthernet)
        #expect(stats.frames == 1 && stats.discoveryPackets == 1 && stats.mdnsPackets == 1)
        #expect(stats.rawIPInEthernetFrames == 0 && stats.undecodableFrames == 0)
    }

    @Test("Ethernet, legacy-unicast answer to an ephemeral port", arguments: [LinkTestFlow.v4Unicast, .v6Unicast])
    func ethernetUnicast(flow: LinkTestFlow) throws {
        let etherType: UInt16 = { if case .v4 = flow.source { return 0x0800 } else { return 0x86DD } }()
        let dst = MACAddress(rawValue: 0x0A1B_2C3D_4E5F)
        let frame = F.ethernet(dst: dst, etherType: etherType, F.ip(flow))
        let p = try expectCastResponse(decodeLinkTestFrame(.ethernet, frame).packet, flow: flow)
        #expect(p.legacyUnicast)
        #expect(p.destinationMAC == dst)
    }

    @Test("Ethernet + 802.1Q tag", arguments: LinkTestIP.allCases)
    func ethernetVLAN(ip: LinkTestIP) throws {
        // PCP 5 and DEI set: only the low 12 bits are the VLAN ID.
        let (packet, _) = decodeLinkTestFrame(.ethernet, F.ethernet(ip, tags: [(0x8100, 0xB02A)]))
        let p = try expectCastResponse(packet, flow: ip.flow)
        #expect(p.vlanIDs == [42])
        #expect(p.outerVLAN == 42)
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == F.groupMAC(ip))
    }

    @Test("802.1ad QinQ (two tags)", arguments: [UInt16(0x88A8), 0x9100, 0x8100])
    func qinq(outerTPID: UInt16) throws {
        let frame = F.ethernet(.v4, tags: [(outerTPID, 0x6064), (0x8100, 0x00C8)])
        let (packet, _) = decodeLinkTestFrame(.ethernet, frame)
        let p = try expectCastResponse(packet, flow: .v4Multicast)
        #expect(p.vlanIDs == [100, 200])
        #expect(p.outerVLAN == 100)  // the trunk's tag, the one the tracker keeps
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == F.mdnsV4MAC)
    }

    @Test("802.3 length field + LLC/SNAP on Ethernet")
    func ethernetSNAP() throws {
        let body = F.llcSNAP(.v4)
        let frame = F.bytes(F.mdnsV4MAC) + F.bytes(F.castMAC) + F.be16(UInt16(body.count)) + body
        let p = try expectCastResponse(decodeLinkTestFrame(.ethernet, frame).packet, flow: .v4Multicast)
        #expect(p.sourceMAC == F.castMAC)
    }

    // MARK: Linux cooked

    @Test("Linux SLL (113)", arguments: LinkTestIP.allCases)
    func linuxSLL(ip: LinkTestIP) throws {
        let p = try expectCastResponse(decodeLinkTestFrame(.linuxSLL, F.sll(ip)).packet, flow: ip.flow)
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == nil)
    }

    @Test("Linux SLL2 (276)", arguments: LinkTestIP.allCases)
    func linuxSLL2(ip: LinkTestIP) throws {
        let p = try expectCastResponse(decodeLinkTestFrame(.linuxSLL2, F.sll2(ip)).packet, flow: ip.flow)
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == nil)
    }

    @Test("Linux SLL2 with a unicast legacy answer")
    func linuxSLL2Unicast() throws {
        let p = try expectCastResponse(
            decodeLinkTestFrame(.linuxSLL2, F.sll2(.v6, flow: .v6Unicast)).packet, flow: .v6Unicast)
        #expect(p.sourceMAC == F.castMAC)
    }

    @Test("Linux SLL on a non-Ethernet device has no source MAC")
    func linuxSLLNotEthernet() throws {
        // ARPHRD_NONE (0xFFFE, tun devices): address length 0.
        let frame =
            F.be16(0) + F.be16(0xFFFE) + F.be16(0) + [UInt8](repeating: 0, count: 8) + F.be16(0x0800) + F.ip(.v4)
        let p = try expectCastResponse(decodeLinkTestFrame(.linuxSLL, frame).packet, flow: .v4Multicast)
        #expect(p.sourceMAC == nil)
    }

    // MARK: Raw IP

    @Test("Raw IP (DLT 12, 14, 101)", arguments: [LinkType.raw, .rawOpenBSD, .rawFile], LinkTestIP.allCases)
    func rawIP(linkType: LinkType, ip: LinkTestIP) throws {
        let p = try expectCastResponse(decodeLinkTestFrame(linkType, F.ip(ip)).packet, flow: ip.flow)
        #expect(p.sourceMAC == nil && p.destinationMAC == nil)
        #expect(!p.rawIPInEthernet)
    }

    @Test("DLT_IPV4 (228)")
    func dltIPv4() throws {
        let p = try expectCastResponse(decodeLinkTestFrame(.ipv4, F.ip(.v4)).packet, flow: .v4Multicast)
        #expect(p.sourceMAC == nil)
    }

    @Test("DLT_IPV6 (229)")
    func dltIPv6() throws {
        let p = try expectCastResponse(decodeLinkTestFrame(.ipv6, F.ip(.v6)).packet, flow: .v6Multicast)
        #expect(p.sourceMAC == nil)
    }

    // MARK: BSD loopback

    @Test(
        "BSD NULL (0), both byte orders",
        arguments: [
            (UInt32(2), LinkTestIP.v4), (24, .v6), (28, .v6), (30, .v6),
        ], [false, true])
    func bsdNull(family: (UInt32, LinkTestIP), bigEndian: Bool) throws {
        let frame = F.loopbackHeader(family: family.0, bigEndian: bigEndian) + F.ip(family.1)
        let p = try expectCastResponse(decodeLinkTestFrame(.null, frame).packet, flow: family.1.flow)
        #expect(p.sourceMAC == nil && p.destinationMAC == nil)
    }

    @Test("BSD NULL with an unknown address family is not decoded")
    func bsdNullUnknownFamily() {
        let (packet, stats) = decodeLinkTestFrame(.null, F.loopbackHeader(family: 7, bigEndian: false) + F.ip(.v4))
        #expect(packet == nil)
        #expect(stats.discoveryPackets == 0 && stats.undecodableFrames == 0)
    }

    @Test("LOOP (108), network byte order", arguments: [(UInt32(2), LinkTestIP.v4), (24, .v6)])
    func loop(family: (UInt32, LinkTestIP)) throws {
        let frame = F.loopbackHeader(family: family.0, bigEndian: true) + F.ip(family.1)
        try expectCastResponse(decodeLinkTestFrame(.loop, frame).packet, flow: family.1.flow)
    }

    // MARK: PKTAP

    @Test(
        "PKTAP wrapping Ethernet (258 and 149)", arguments: [LinkType.pktap, .pktapLive], [108, 156])
    func pktapEthernet(linkType: LinkType, headerLength: Int) throws {
        let frame = F.pktapHeader(length: headerLength, dlt: 1, preLength: 14) + F.ethernet(.v4)
        let p = try expectCastResponse(decodeLinkTestFrame(linkType, frame).packet, flow: .v4Multicast)
        #expect(p.pktap == F.expectedPKTAP)
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == F.mdnsV4MAC)
        #expect(!p.rawIPInEthernet)
    }

    @Test("PKTAP wrapping raw IP (258 and 149)", arguments: [LinkType.pktap, .pktapLive], LinkTestIP.allCases)
    func pktapRawIP(linkType: LinkType, ip: LinkTestIP) throws {
        // Outbound this time (PTH_FLAG_DIR_OUT).
        let frame = F.pktapHeader(dlt: 12, flags: 2, family: ip == .v4 ? 2 : 30) + F.ip(ip)
        let p = try expectCastResponse(decodeLinkTestFrame(linkType, frame).packet, flow: ip.flow)
        #expect(
            p.pktap
                == PKTAPInfo(
                    interface: "en0", pid: 1234, process: "MyCastApp", effectivePID: 1234,
                    effectiveProcess: "MyCastApp", direction: .outbound))
        #expect(p.sourceMAC == nil && p.destinationMAC == nil)
    }

    @Test("PKTAP wrapping BSD NULL (utun)")
    func pktapNull() throws {
        let frame = F.pktapHeader(dlt: 0, family: 30) + F.loopbackHeader(family: 30, bigEndian: false) + F.ip(.v6)
        let p = try expectCastResponse(decodeLinkTestFrame(.pktap, frame).packet, flow: .v6Multicast)
        #expect(p.pktap == F.expectedPKTAP)
    }

    @Test("PKTAP with a 17-character process name and no PID")
    func pktapLongComm() throws {
        let frame =
            F.pktapHeader(dlt: 1, pid: -1, comm: "com.apple.mDNSRes", epid: 88, ecomm: "mDNSResponder")
            + F.ethernet(.v4)
        let p = try expectCastResponse(decodeLinkTestFrame(.pktap, frame).packet, flow: .v4Multicast)
        let info = try #require(p.pktap)
        #expect(info.pid == -1 && info.process == "com.apple.mDNSRes")
        #expect(info.effectivePID == 88 && info.effectiveProcess == "mDNSResponder")
    }

    @Test("PKTAP record that is not a packet carries nothing")
    func pktapNotAPacket() {
        let frame = F.pktapHeader(dlt: 1, recordType: 2) + F.ethernet(.v4)
        let (packet, stats) = decodeLinkTestFrame(.pktap, frame)
        #expect(packet == nil)
        #expect(stats.undecodableFrames == 0 && stats.discoveryPackets == 0)
    }

    @Test("PKTAP header length below 108 is undecodable")
    func pktapShortHeader() {
        var frame = F.pktapHeader(dlt: 1) + F.ethernet(.v4)
        frame[0] = 60
        let (packet, stats) = decodeLinkTestFrame(.pktap, frame)
        #expect(packet == nil)
        #expect(stats.undecodableFrames == 1)
    }

    // MARK: 802.11

    @Test(
        "802.11 (105) unprotected QoS data with LLC/SNAP",
        arguments: [(false, false), (true, false), (false, true), (true, true)], LinkTestIP.allCases)
    func ieee80211(ds: (Bool, Bool), ip: LinkTestIP) throws {
        let frame = F.wifiData(toDS: ds.0, fromDS: ds.1, dst: F.groupMAC(ip), body: F.llcSNAP(ip))
        let (packet, stats) = decodeLinkTestFrame(.ieee80211, frame)
        let p = try expectCastResponse(packet, flow: ip.flow)
        #expect(p.sourceMAC == F.castMAC)
        #expect(p.destinationMAC == F.groupMAC(ip))
        #expect(stats.wifiDataFrames == 1 && stats.protectedWiFiFrames == 0)
    }

    @Test("802.11 non-QoS data and QoS data with HT control", arguments: [(false, false), (true, true)])
    func ieee80211Variants(qosHT: (Bool, Bool)) throws {
        let frame = F.wifiData(
            toDS: false, fromDS: true, qos: qosHT.0, htControl: qosHT.1, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4))
        let p = try expectCastResponse(decodeLinkTestFrame(.ieee80211, frame).packet, flow: .v4Multicast)
        #expect(p.sourceMAC == F.castMAC && p.destinationMAC == F.mdnsV4MAC)
    }

    @Test("802.11 protected data frame is counted, not decoded")
    func ieee80211Protected() {
        // CCMP header, then ciphertext and MIC: nothing readable.
        let ccmp: [UInt8] = [0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00]
        let ciphertext = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let frame = F.wifiData(toDS: false, fromDS: true, protected: true, dst: F.mdnsV4MAC, body: ccmp + ciphertext)
        let (packet, stats) = decodeLinkTestFrame(.ieee80211, frame)
        #expect(packet == nil)
        #expect(stats.protectedWiFiFrames == 1)
        #expect(stats.wifiDataFrames == 1)
        #expect(stats.undecodableFrames == 0 && stats.discoveryPackets == 0)
    }

    @Test("802.11 management frame (beacon) carries no IP")
    func ieee80211Beacon() {
        var frame: [UInt8] =
            [0x80, 0x00, 0x00, 0x00] + F.bytes(MACAddress(rawValue: 0xFFFF_FFFF_FFFF)) + F.bytes(F.apMAC)
        frame += F.bytes(F.apMAC) + [0x00, 0x00] + [UInt8](repeating: 0, count: 12) + F.llcSNAP(.v4)
        let (packet, stats) = decodeLinkTestFrame(.ieee80211, frame)
        #expect(packet == nil)
        #expect(stats.wifiDataFrames == 0 && stats.undecodableFrames == 0)
    }

    // MARK: Radiotap

    /// Radiotap header: Flags, Rate, Channel, antenna signal (present 0x2E), 15 bytes.
    static func radiotapFlagsOnly(flags: UInt8) -> [UInt8] {
        [0x00, 0x00] + F.le16(15) + F.le32(0x0000_002E) + [flags, 0x0C] + F.le16(2437) + F.le16(0x00A0) + [0xC4]
    }

    /// Radiotap header with TSFT first (present 0x2F), 23 bytes.
    static func radiotapTSFT(flags: UInt8) -> [UInt8] {
        [0x00, 0x00] + F.le16(23) + F.le32(0x0000_002F) + F.le32(0x1234_5678) + F.le32(0x0000_0001)
            + [flags, 0x0C] + F.le16(2437) + F.le16(0x00A0) + [0xC4]
    }

    /// Radiotap header with an extended presence bitmap: TSFT must be aligned from offset 12 to 16. 31 bytes.
    static func radiotapExtendedTSFT(flags: UInt8) -> [UInt8] {
        [0x00, 0x00] + F.le16(31) + F.le32(0x8000_002F) + F.le32(0x0000_0000) + [0, 0, 0, 0]
            + F.le32(0x1234_5678) + F.le32(0x0000_0001) + [flags, 0x0C] + F.le16(2437) + F.le16(0x00A0) + [0xC4]
    }

    /// The number of bytes left after the link layer for a radiotap frame, or nil if it threw.
    static func radiotapPayloadLength(_ frame: [UInt8]) -> Int? {
        frame.withUnsafeBytes { raw in
            (try? LinkLayer.decode(.radiotap, frame: ByteCursor(raw), originalLength: raw.count))?.payload.remaining
        }
    }

    @Test(
        "Radiotap (127) with FCS present: the 4 trailing bytes are dropped",
        arguments: ["flags", "tsft", "extended"], LinkTestIP.allCases)
    func radiotapFCS(layout: String, ip: LinkTestIP) throws {
        let header: [UInt8]
        switch layout {
        case "flags": header = Self.radiotapFlagsOnly(flags: 0x10)
        case "tsft": header = Self.radiotapTSFT(flags: 0x10)
        default: header = Self.radiotapExtendedTSFT(flags: 0x10)
        }
        let fcs: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
        let frame = header + F.wifiData(toDS: false, fromDS: true, dst: F.groupMAC(ip), body: F.llcSNAP(ip)) + fcs
        let (packet, stats) = decodeLinkTestFrame(.radiotap, frame)
        let p = try expectCastResponse(packet, flow: ip.flow)
        #expect(p.sourceMAC == F.castMAC && p.destinationMAC == F.groupMAC(ip))
        #expect(stats.wifiDataFrames == 1)
        #expect(Self.radiotapPayloadLength(frame) == F.ip(ip).count)
    }

    @Test("Radiotap without FCS keeps every byte", arguments: ["flags", "tsft", "extended"])
    func radiotapNoFCS(layout: String) throws {
        let header: [UInt8]
        switch layout {
        case "flags": header = Self.radiotapFlagsOnly(flags: 0x02)  // short preamble only
        case "tsft": header = Self.radiotapTSFT(flags: 0x02)
        default: header = Self.radiotapExtendedTSFT(flags: 0x02)
        }
        let frame = header + F.wifiData(toDS: true, fromDS: false, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4))
        let p = try expectCastResponse(decodeLinkTestFrame(.radiotap, frame).packet, flow: .v4Multicast)
        #expect(p.sourceMAC == F.castMAC && p.destinationMAC == F.mdnsV4MAC)
        #expect(Self.radiotapPayloadLength(frame) == F.ip(.v4).count)
    }

    @Test("Radiotap with the bad-FCS flag is not decoded")
    func radiotapBadFCS() {
        let frame =
            Self.radiotapTSFT(flags: 0x50)
            + F.wifiData(toDS: false, fromDS: true, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4)) + [1, 2, 3, 4]
        let (packet, stats) = decodeLinkTestFrame(.radiotap, frame)
        #expect(packet == nil)
        #expect(stats.discoveryPackets == 0)
    }

    @Test("Radiotap + protected 802.11 data")
    func radiotapProtected() {
        let frame =
            Self.radiotapFlagsOnly(flags: 0x00)
            + F.wifiData(
                toDS: false, fromDS: true, protected: true, dst: F.mdnsV4MAC, body: [UInt8](repeating: 0x5A, count: 120)
            )
        let (packet, stats) = decodeLinkTestFrame(.radiotap, frame)
        #expect(packet == nil)
        #expect(stats.protectedWiFiFrames == 1)
    }

    // MARK: iPhone rvictl quirk

    @Test("EN10MB frame that is really raw IP (rvictl)", arguments: LinkTestIP.allCases)
    func rvictlRawIP(ip: LinkTestIP) throws {
        let packetBytes = F.ip(ip)
        let (packet, stats) = decodeLinkTestFrame(.ethernet, packetBytes, originalLength: packetBytes.count)
        let p = try expectCastResponse(packet, flow: ip.flow)
        #expect(p.rawIPInEthernet)
        #expect(p.sourceMAC == nil && p.destinationMAC == nil)
        #expect(stats.rawIPInEthernetFrames == 1)
    }

    @Test("rvictl raw IPv4 from a source whose first octets read as EtherType 0x0800 (8.0.x.x)")
    func rvictlSourceLooksLikeEtherType() throws {
        let flow = LinkTestFlow(source: .v4(IPv4Address(8, 0, 1, 2)), destination: .v4(.mdnsGroup))
        let packetBytes = F.ip(flow)
        let (packet, stats) = decodeLinkTestFrame(.ethernet, packetBytes, originalLength: packetBytes.count)
        let p = try expectCastResponse(packet, flow: flow)
        #expect(p.rawIPInEthernet)
        #expect(stats.rawIPInEthernetFrames == 1)
    }

    @Test("A genuine Ethernet frame is not mistaken for raw IP", arguments: LinkTestIP.allCases)
    func genuineEthernetNotRawIP(ip: LinkTestIP) throws {
        // Destination MACs whose first bytes look like an IP header of exactly the frame's length.
        let payload = F.ip(ip)
        let total = 14 + payload.count
        let dst: MACAddress
        switch ip {
        case .v4:  // 45 00 <total length>
            dst = MACAddress(rawValue: 0x4500_0000_0001 | UInt64(total) << 16)
        case .v6:  // 60 00 00 00 <payload length = total - 40>
            dst = MACAddress(rawValue: 0x6000_0000_0000 | UInt64(total - 40))
        }
        let frame = F.ethernet(dst: dst, etherType: ip.etherType, payload)
        let (packet, stats) = decodeLinkTestFrame(.ethernet, frame)
        let p = try expectCastResponse(packet, flow: ip.flow)
        #expect(!p.rawIPInEthernet)
        #expect(p.destinationMAC == dst)
        #expect(p.sourceMAC == F.castMAC)
        #expect(stats.rawIPInEthernetFrames == 0)
    }

    @Test("A VLAN-tagged frame is not mistaken for raw IP")
    func taggedEthernetNotRawIP() throws {
        let payload = F.ip(.v4)
        let total = 18 + payload.count
        let dst = MACAddress(rawValue: 0x4500_0000_0001 | UInt64(total) << 16)
        let frame = F.ethernet(dst: dst, tags: [(0x8100, 7)], etherType: 0x0800, payload)
        let p = try expectCastResponse(decodeLinkTestFrame(.ethernet, frame).packet, flow: .v4Multicast)
        #expect(!p.rawIPInEthernet)
        #expect(p.vlanIDs == [7])
    }

    // MARK: Failures

    static let truncatedCases: [LinkTestTruncatedCase] = [
        .init("Ethernet, inside the source MAC", .ethernet, F.ethernet(.v4), keep: 10),
        .init("Ethernet, inside the EtherType", .ethernet, F.ethernet(.v4), keep: 13),
        .init("802.1Q, inside the tag", .ethernet, F.ethernet(.v4, tags: [(0x8100, 42)]), keep: 15),
        .init("QinQ, inside the inner tag", .ethernet, F.ethernet(.v4, tags: [(0x88A8, 1), (0x8100, 2)]), keep: 19),
        .init("SLL, inside the address", .linuxSLL, F.sll(.v4), keep: 9),
        .init("SLL, inside the protocol", .linuxSLL, F.sll(.v4), keep: 15),
        .init("SLL2, inside the address", .linuxSLL2, F.sll2(.v4), keep: 15),
        .init("NULL, inside the family", .null, F.loopbackHeader(family: 2, bigEndian: false) + F.ip(.v4), keep: 3),
        .init("LOOP, inside the family", .loop, F.loopbackHeader(family: 2, bigEndian: true) + F.ip(.v4), keep: 2),
        .init("PKTAP, inside the header", .pktap, F.pktapHeader(dlt: 1) + F.ethernet(.v4), keep: 100),
        .init("PKTAP, inside the fixed fields", .pktapLive, F.pktapHeader(dlt: 1) + F.ethernet(.v4), keep: 6),
        .init("PKTAP + Ethernet, inside the MACs", .pktap, F.pktapHeader(dlt: 1) + F.ethernet(.v4), keep: 108 + 8),
        .init(
            "802.11, inside address 2", .ieee80211,
            F.wifiData(toDS: false, fromDS: true, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4)), keep: 14),
        .init(
            "802.11, inside the SNAP header", .ieee80211,
            F.wifiData(toDS: false, fromDS: true, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4)), keep: 28),
        .init(
            "radiotap, inside the radiotap header", .radiotap,
            LinkLayerTests.radiotapTSFT(flags: 0)
                + F.wifiData(toDS: false, fromDS: true, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4)),
            keep: 12),
        .init(
            "radiotap, inside the 802.11 header", .radiotap,
            LinkLayerTests.radiotapTSFT(flags: 0)
                + F.wifiData(toDS: false, fromDS: true, dst: F.mdnsV4MAC, body: F.llcSNAP(.v4)),
            keep: 23 + 10),
    ]

    @Test("A frame cut inside its link header is undecodable", arguments: truncatedCases)
    func truncatedLinkHeader(_ c: LinkTestTruncatedCase) {
        let (packet, stats) = decodeLinkTestFrame(c.linkType, c.bytes, originalLength: c.originalLength)
        #expect(packet == nil)
        #expect(stats.frames == 1)
        #expect(stats.undecodableFrames == 1)
        #expect(stats.discoveryPackets == 0)
    }

    @Test("Unknown link type decodes nothing", arguments: [Int32(189), 147, 9999, -1])
    func unknownLinkType(raw: Int32) {
        let linkType = LinkType(rawValue: raw)
        #expect(!linkType.isSupported)
        let (packet, stats) = decodeLinkTestFrame(linkType, F.ethernet(.v4))
        #expect(packet == nil)
        #expect(stats.frames == 1 && stats.discoveryPackets == 0)
    }

    @Test("An empty frame decodes nothing", arguments: LinkType.supported)
    func emptyFrame(linkType: LinkType) {
        let (packet, stats) = decodeLinkTestFrame(linkType, [], originalLength: 0)
        #expect(packet == nil)
        #expect(stats.discoveryPackets == 0)
    }
}

@Suite("Frames cut by the snap length at every offset")
struct SnapLengthCutTests {
    typealias F = LinkTestFrames

    @Test(
        "every prefix of a real frame decodes to nothing or to a marked packet, never wrongly",
        arguments: [LinkTestIP.v4, .v6], [0, 1, 2])
    func everyPrefix(ip: LinkTestIP, vlanTags: Int) {
        let tags = Array(repeating: (UInt16(0x8100), UInt16(7)), count: vlanTags)
        let full = F.ethernet(ip, tags: tags)
        let linkLength = 14 + 4 * vlanTags
        let ipHeader = ip == .v4 ? 20 : 40
        let udpStart = linkLength + ipHeader
        for cut in 0..<full.count {
            let (packet, stats) = decodeLinkTestFrame(.ethernet, Array(full.prefix(cut)), originalLength: full.count)
            if cut < udpStart + 4 {
                // Not even the UDP ports: nothing can be said about the frame.
                #expect(packet == nil, "cut \(cut)")
                if cut < udpStart { #expect(stats.undecodableFrames == 1, "cut \(cut)") }
            } else if cut < udpStart + 8 {
                // Ports but no full UDP header: a malformed mDNS packet, located in the UDP header.
                #expect(packet?.error?.layer == .udp, "cut \(cut)")
                #expect(packet?.isMDNS == true, "cut \(cut)")
            } else {
                // The DNS message is cut: it is marked, and the fault lies at or before the cut.
                let p = packet
                #expect(p?.truncatedBySnapLength == true, "cut \(cut)")
                #expect(p?.error?.layer == .dns, "cut \(cut)")
                #expect((p?.error?.error.offset ?? Int.max) <= cut, "cut \(cut)")
                #expect(stats.malformedPackets == 1 && stats.snapLengthTruncated == 1, "cut \(cut)")
            }
        }
        // The whole frame is fine.
        let (whole, stats) = decodeLinkTestFrame(.ethernet, full)
        #expect(whole?.error == nil && whole?.truncatedBySnapLength == false)
        #expect(stats.malformedPackets == 0)
    }
}
