import Testing

@testable import WireFormat

// TCP, TLS-hello and ICMP decoding for the connection phase (issue 15): what the decoder keeps,
// and what it lets go without a packet.

@Suite("Connection-phase decoding")
struct ConnectionDecodingTests {
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xFFFF)) }

    static func ipv4(_ src: [UInt8], _ dst: [UInt8], proto: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0x45, 0] + be16(UInt16(20 + payload.count)) + [0, 1, 0, 0, 64, proto, 0, 0] + src + dst + payload
    }

    static func tcp(_ sport: UInt16, _ dport: UInt16, flags: UInt8, payload: [UInt8] = []) -> [UInt8] {
        be16(sport) + be16(dport) + be32(1000) + be32(flags & 0x10 != 0 ? 2000 : 0) + [0x50, flags] + be16(64_240)
            + [0, 0, 0, 0] + payload
    }

    static func ether(_ payload: [UInt8], type: UInt16 = 0x0800) -> [UInt8] {
        [0x02, 0xCA, 0x57, 0, 0, 0x21, 0x02, 0xCA, 0x57, 0, 0, 0x10] + be16(type) + payload
    }

    static let client: [UInt8] = [192, 0, 2, 10]
    static let device: [UInt8] = [192, 0, 2, 21]
    static let clientHello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x40, 0x01, 0x00, 0x00, 0x3C, 0x03, 0x03]

    static func decode(_ frame: [UInt8]) -> [DiscoveryPacket] {
        var decoder = DiscoveryDecoder(linkType: .ethernet)
        var out: [DiscoveryPacket] = []
        frame.withUnsafeBytes { raw in
            decoder.decodeInPlace(
                frame: 1, timestamp: Timestamp(seconds: 1, nanoseconds: 0), bytes: raw, originalLength: raw.count
            ) { packet, _ in out.append(packet) }
        }
        return out
    }

    @Test(
        "SYN, SYN-ACK, RST and FIN are kept; a pure ACK and data are not",
        arguments: [(UInt8(0x02), true), (0x12, true), (0x14, true), (0x11, true), (0x10, false), (0x18, false)])
    func flags(flags: UInt8, kept: Bool) throws {
        let packets = Self.decode(
            Self.ether(Self.ipv4(Self.client, Self.device, proto: 6, Self.tcp(40_000, 8009, flags: flags))))
        #expect(packets.count == (kept ? 1 : 0))
        guard kept else { return }
        let t = try #require(packets[0].tcp)
        #expect(t.flags.rawValue == flags && t.sequence == 1000)
        #expect(packets[0].sourcePort == 40_000 && packets[0].destinationPort == 8009)
        #expect(packets[0].isConnection && !packets[0].isMDNS)
        if case .tcp = packets[0].payload {} else { Issue.record("payload is not .tcp") }
    }

    @Test("a segment starting a TLS ClientHello is kept and says so; other TLS records are not")
    func tlsHello() throws {
        let hello = Self.decode(
            Self.ether(
                Self.ipv4(
                    Self.client, Self.device, proto: 6, Self.tcp(40_000, 8009, flags: 0x18, payload: Self.clientHello)))
        )
        #expect(try #require(hello.first?.tcp).hello == .clientHello)
        var appData = Self.clientHello
        appData[0] = 0x17
        #expect(
            Self.decode(
                Self.ether(
                    Self.ipv4(Self.client, Self.device, proto: 6, Self.tcp(40_000, 8009, flags: 0x18, payload: appData))
                )
            ).isEmpty)
        var server = Self.clientHello
        server[5] = 2
        let reply = Self.decode(
            Self.ether(
                Self.ipv4(Self.device, Self.client, proto: 6, Self.tcp(8009, 40_000, flags: 0x18, payload: server))))
        #expect(try #require(reply.first?.tcp).hello == .serverHello)
    }

    @Test("ICMP unreachable quoting a SYN or a UDP 5353 datagram is kept with its quote; quoting DNS is not")
    func icmp() throws {
        let syn = Self.ipv4(Self.client, Self.device, proto: 6, Self.tcp(40_000, 8009, flags: 0x02))
        let unreachable = [3, 3, 0, 0, 0, 0, 0, 0] + syn.prefix(28)
        let packets = Self.decode(Self.ether(Self.ipv4(Self.device, Self.client, proto: 1, Array(unreachable))))
        let i = try #require(packets.first?.icmp)
        #expect(i.isPortUnreachable && i.reason == "port unreachable")
        #expect(i.quotedSource.description == "192.0.2.10" && i.quotedDestination.description == "192.0.2.21")
        #expect(i.quotedProtocol == .tcp && i.quotedSourcePort == 40_000 && i.quotedDestinationPort == 8009)

        let mdns = Self.ipv4(Self.device, Self.client, proto: 17, Self.be16(5353) + Self.be16(5353) + [0, 20, 0, 0])
        let refused = Self.decode(
            Self.ether(Self.ipv4(Self.client, Self.device, proto: 1, [3, 3, 0, 0, 0, 0, 0, 0] + mdns)))
        #expect(refused.first?.icmp?.quotedDestinationPort == 5353)

        let dns = Self.ipv4(Self.client, Self.device, proto: 17, Self.be16(40_000) + Self.be16(53) + [0, 20, 0, 0])
        #expect(
            Self.decode(Self.ether(Self.ipv4(Self.device, Self.client, proto: 1, [3, 3, 0, 0, 0, 0, 0, 0] + dns)))
                .isEmpty)
        // An echo reply is not an unreachable.
        #expect(
            Self.decode(Self.ether(Self.ipv4(Self.device, Self.client, proto: 1, [0, 0, 0, 0, 0, 1, 0, 1] + syn)))
                .isEmpty)
    }

    @Test("a TCP header length under 20 is not a segment")
    func badOffset() {
        var segment = Self.tcp(40_000, 8009, flags: 0x02)
        segment[12] = 0x40
        #expect(Self.decode(Self.ether(Self.ipv4(Self.client, Self.device, proto: 6, segment))).isEmpty)
        #expect(throws: DecodeError.self) { try segment.withUnsafeBytes { try TCPSegment.decode(ByteCursor($0)) } }
    }
}

@Suite("HTTP for DIAL")
struct DIALHTTPTests {
    @Test("a response head is parsed once its empty line is there; the body starts after it")
    func head() throws {
        let text =
            "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nApplication-URL: http://192.0.2.21:8008/apps/\r\n\r\n<root></root>"
        let bytes = Array(text.utf8)
        let head = try #require(HTTPHead.parse(bytes))
        #expect(head.message.status == 200 && head.contentLength == 12)
        #expect(head.message.header("application-url") == "http://192.0.2.21:8008/apps/")
        #expect(Array(bytes[head.bodyOffset...]) == Array("<root></root>".utf8))
        #expect(HTTPHead.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n".utf8)) == nil)
        let get = try #require(HTTPHead.parse(Array("GET /ssdp/device-desc.xml HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        #expect(get.requestTarget == "/ssdp/device-desc.xml")
        #expect(httpStartLine(bytes) == "HTTP/1.1 200 OK")
        #expect(httpStartLine(Array("\u{16}\u{3}\u{1}xx".utf8)) == nil)
    }

    @Test("description elements: the first of each, entities replaced, spaces trimmed")
    func xml() {
        let body =
            Array(
                "<root><device><friendlyName> Tom &amp; Jerry&#39;s &#x54;V </friendlyName><modelName>Eureka Dongle</modelName>"
                    .utf8) + Array("<friendlyName>second</friendlyName></device></root>".utf8)
        #expect(xmlElementText("friendlyName", in: body) == "Tom & Jerry's TV")
        #expect(xmlElementText("modelName", in: body) == "Eureka Dongle")
        #expect(xmlElementText("manufacturer", in: body) == nil)
        // An element not closed within the bytes kept is not read.
        #expect(xmlElementText("friendlyName", in: Array("<friendlyName>cut".utf8)) == nil)
    }
}
