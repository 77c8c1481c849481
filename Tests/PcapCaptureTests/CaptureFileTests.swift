import Foundation
import PcapCapture
import Testing
import WireFormat

// Reading captures (natively) and writing them (through libpcap), error kinds, the BPF prefilter.

// MARK: - Support

enum CaptureTestSupport {
    /// The repository root, found from this file's path (Tests/PcapCaptureTests/CaptureFileTests.swift).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/captures/external` next to the repository, when present.
    static let externalDirectory: URL = repoRoot.appendingPathComponent("../shared/captures/external")
        .standardizedFileURL
    static var hasExternal: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: externalDirectory.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// A fresh temporary directory, removed by `body`'s caller via the returned cleanup.
    static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("castscope-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    struct Record {
        var bytes: [UInt8]
        var timestamp: Timestamp
        var originalLength: Int?
    }

    /// Writes records with `CaptureWriter`; the writer is closed (deinit) before returning.
    static func write(_ path: String, linkType: LinkType, snapLength: Int = 262_144, _ records: [Record]) throws {
        let writer = try CaptureWriter(path: path, linkType: linkType, snapLength: snapLength)
        for r in records { writer.write(r.bytes, timestamp: r.timestamp, originalLength: r.originalLength) }
        writer.flush()
    }

    /// A classic microsecond pcap written byte by byte, for link types CaptureWriter refuses and for
    /// big-endian files (CaptureWriter writes the host's byte order).
    static func handWrittenPcap(
        linkType: UInt32, bigEndian: Bool = false, records: [(sec: UInt32, frac: UInt32, bytes: [UInt8])] = []
    ) -> [UInt8] {
        let u16 = bigEndian ? be16 : le16
        let u32 = bigEndian ? be32 : le32
        var out = u32(0xA1B2_C3D4) + u16(2) + u16(4) + u32(0) + u32(0) + u32(65_535) + u32(linkType)
        for r in records {
            out += u32(r.sec) + u32(r.frac) + u32(UInt32(r.bytes.count)) + u32(UInt32(r.bytes.count)) + r.bytes
        }
        return out
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func writeFile(_ url: URL, _ bytes: [UInt8]) throws { try Data(bytes).write(to: url) }

    /// Every record of a capture: (frame, header, bytes).
    static func readAll(_ file: CaptureFile) -> (records: [(Int, RecordHeader, [UInt8])], count: Int, end: ReadEnd) {
        var out: [(Int, RecordHeader, [UInt8])] = []
        let (count, end) = file.forEachRecord { frame, header, bytes in out.append((frame, header, Array(bytes))) }
        return (out, count, end)
    }

    /// Decodes every discovery packet of a capture, with or without the DiscoveryFilter prefilter.
    static func discoveryPackets(_ path: String, prefilter: Bool) throws -> (packets: [DiscoveryPacket], filtered: Bool)
    {
        let file = try CaptureFile(path: path)
        var filtered = false
        if prefilter, let expression = DiscoveryFilter.expression(for: file.linkType) {
            try file.setFilter(expression)
            filtered = true
        }
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var packets: [DiscoveryPacket] = []
        file.forEachRecord { frame, header, bytes in
            if let p = decoder.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                packets.append(p)
            }
        }
        return (packets, filtered)
    }

    /// `frame protocol` keys, the comparison the prefilter must preserve.
    static func keys(_ packets: [DiscoveryPacket]) -> [String] {
        packets.map { "\($0.frame) \($0.isMDNS ? "mdns" : "ssdp")" }
    }

    /// Capture files of the repository and, when present, of the external directory, as paths
    /// relative to the repository root.
    static func captureFiles() -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        if let names = try? fm.contentsOfDirectory(atPath: repoRoot.appendingPathComponent("captures").path) {
            out += names.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted().map { "captures/\($0)" }
        }
        if hasExternal, let e = fm.enumerator(atPath: externalDirectory.path) {
            var external: [String] = []
            while let name = e.nextObject() as? String {
                if name.hasSuffix(".pcap") || name.hasSuffix(".pcapng") { external.append(name) }
            }
            out += external.sorted().map { "../shared/captures/external/\($0)" }
        }
        return out
    }

    static func path(_ relative: String) -> String {
        repoRoot.appendingPathComponent(relative).standardizedFileURL.path
    }

    // MARK: Frame builders (a real Chrome mDNS query, SSDP text)

    static let macCast: [UInt8] = [0x3C, 0x28, 0x6D, 0x1E, 0x5F, 0x01]
    static let macPhone: [UInt8] = [0x8A, 0x11, 0x22, 0x33, 0x44, 0x55]
    static let macMDNS4: [UInt8] = [0x01, 0x00, 0x5E, 0x00, 0x00, 0xFB]
    static let macMDNS6: [UInt8] = [0x33, 0x33, 0x00, 0x00, 0x00, 0xFB]

    /// A Chrome sender's `_googlecast._tcp.local` PTR query (QM).
    static let mdnsQuery: [UInt8] =
        [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        + [11] + Array("_googlecast".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0]
        + [0x00, 0x0C, 0x00, 0x01]

    static func ipv4(
        src: [UInt8], dst: [UInt8], proto: UInt8 = 17, id: UInt16 = 0x4D2, flagsOffset: UInt16 = 0,
        totalPayload: Int? = nil, _ payload: [UInt8]
    ) -> [UInt8] {
        [0x45, 0] + be16(UInt16(20 + (totalPayload ?? payload.count))) + be16(id) + be16(flagsOffset) + [
            255, proto, 0, 0,
        ]
            + src + dst + payload
    }

    static func ipv6(src: [UInt8], dst: [UInt8], next: UInt8 = 17, _ payload: [UInt8]) -> [UInt8] {
        [0x60, 0, 0, 0] + be16(UInt16(payload.count)) + [next, 255] + src + dst + payload
    }

    static func udp(_ sport: UInt16, _ dport: UInt16, _ payload: [UInt8]) -> [UInt8] {
        be16(sport) + be16(dport) + be16(UInt16(8 + payload.count)) + [0, 0] + payload
    }

    /// A pure ACK: TCP that is neither discovery traffic nor kept for the connection phase.
    static func tcp(_ sport: UInt16, _ dport: UInt16, flags: UInt8 = 0x10) -> [UInt8] {
        be16(sport) + be16(dport) + be32(1) + be32(0) + [0x50, flags] + be16(64_240) + [0, 0, 0, 0]
    }

    static func ether(dst: [UInt8], src: [UInt8] = macCast, tags: [(UInt16, UInt16)] = [], type: UInt16, _ p: [UInt8])
        -> [UInt8]
    {
        var f = dst + src
        for (tpid, tci) in tags { f += be16(tpid) + be16(tci) }
        return f + be16(type) + p
    }

    static let v4Cast: [UInt8] = [192, 168, 1, 20]
    static let v4Phone: [UInt8] = [192, 168, 1, 5]
    static let v4Group: [UInt8] = [224, 0, 0, 251]
    static let v4SSDP: [UInt8] = [239, 255, 255, 250]
    static let v6Phone: [UInt8] = [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x88, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55]
    static let v6Group: [UInt8] = [0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFB]

    static var mdns4: [UInt8] { ipv4(src: v4Phone, dst: v4Group, udp(5353, 5353, mdnsQuery)) }
    static var mdns6: [UInt8] { ipv6(src: v6Phone, dst: v6Group, udp(5353, 5353, mdnsQuery)) }
    static var tcp4: [UInt8] { ipv4(src: v4Phone, dst: v4Cast, proto: 6, tcp(50_000, 8009)) }
    static var tcp6: [UInt8] { ipv6(src: v6Phone, dst: v6Group, next: 6, tcp(50_001, 8009)) }
    static var arp: [UInt8] {
        ether(
            dst: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], type: 0x0806,
            [0, 1, 8, 0, 6, 4, 0, 1] + macCast + v4Cast + [0, 0, 0, 0, 0, 0] + v4Phone)
    }

    static let mSearch = Array(
        ("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\n"
            + "ST: urn:dial-multiscreen-org:service:dial:1\r\n\r\n").utf8)
    static let searchAnswer = Array(
        ("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nLOCATION: http://192.168.1.20:8008/ssdp/device-desc.xml\r\n"
            + "ST: urn:dial-multiscreen-org:service:dial:1\r\nUSN: uuid:3e21b953-ec39-083d-4381-5ade69112265::urn:dial-multiscreen-org:service:dial:1\r\n\r\n")
            .utf8)

    /// A synthetic capture for the prefilter test.
    struct Synthetic: Sendable, CustomTestStringConvertible {
        var name: String
        var linkType: LinkType
        var frames: [[UInt8]]
        /// How many discovery packets the decoder finds without the filter (a sanity check on the builders).
        var expectedPackets: Int
        /// Written by hand as a big-endian microsecond pcap instead of with CaptureWriter.
        var bigEndianFile = false
        var testDescription: String { name }
    }

    static func tsFor(_ i: Int) -> Timestamp {
        Timestamp(seconds: 1_795_992_591 + Int64(i), nanoseconds: Int64(i) * 1_001)
    }

    /// IPv4 fragments of one mDNS datagram: the second carries no UDP header.
    static var fragmented4: [[UInt8]] {
        let bigAnswer = mdnsQuery + [UInt8](repeating: 0x41, count: 1_200)  // padding after the question
        let datagram = udp(5353, 5353, bigAnswer)
        let cut = 600
        let first = ipv4(src: v4Cast, dst: v4Group, id: 0x7777, flagsOffset: 0x2000, Array(datagram[..<cut]))
        let second = ipv4(src: v4Cast, dst: v4Group, id: 0x7777, flagsOffset: UInt16(cut / 8), Array(datagram[cut...]))
        return [ether(dst: macMDNS4, type: 0x0800, second), ether(dst: macMDNS4, type: 0x0800, first)]
    }

    /// IPv6 fragments (fragment extension header) of one mDNS datagram.
    static var fragmented6: [[UInt8]] {
        let datagram = udp(5353, 5353, mdnsQuery + [UInt8](repeating: 0x42, count: 1_000))
        let cut = 504
        func frag(_ offset: Int, more: Bool, _ data: ArraySlice<UInt8>) -> [UInt8] {
            let header: [UInt8] = [17, 0] + be16(UInt16(offset) | (more ? 1 : 0)) + be32(0xCAFE_0001)
            return ether(dst: macMDNS6, type: 0x86DD, ipv6(src: v6Phone, dst: v6Group, next: 44, header + Array(data)))
        }
        return [frag(0, more: true, datagram[..<cut]), frag(cut, more: false, datagram[cut...])]
    }

    /// IPv6 with a hop-by-hop header (router alert) before UDP.
    static var hopByHop6: [UInt8] {
        let hbh: [UInt8] = [17, 0, 0x05, 0x02, 0x00, 0x00, 0x01, 0x00]
        return ether(
            dst: macMDNS6, type: 0x86DD, ipv6(src: v6Phone, dst: v6Group, next: 0, hbh + udp(5353, 5353, mdnsQuery)))
    }

    static var ssdpExchange: [[UInt8]] {
        [
            ether(
                dst: [0x01, 0x00, 0x5E, 0x7F, 0xFF, 0xFA], src: macPhone, type: 0x0800,
                ipv4(src: v4Phone, dst: v4SSDP, udp(50_123, 1900, mSearch))),
            ether(dst: macPhone, type: 0x0800, ipv4(src: v4Cast, dst: v4Phone, udp(41_234, 50_123, searchAnswer))),
        ]
    }

    static func snap(_ type: UInt16, _ p: [UInt8]) -> [UInt8] { [0xAA, 0xAA, 0x03, 0, 0, 0] + be16(type) + p }

    static func sll(_ proto: UInt16, _ p: [UInt8]) -> [UInt8] {
        be16(2) + be16(1) + be16(6) + macCast + [0, 0] + be16(proto) + p
    }
    static func sll2(_ proto: UInt16, _ p: [UInt8]) -> [UInt8] {
        be16(proto) + [0, 0] + be32(3) + be16(1) + [2, 6] + macCast + [0, 0] + p
    }

    /// Captures the prefilter is expected to keep everything of.
    static var syntheticCaptures: [Synthetic] {
        [
            Synthetic(
                name: "Ethernet: mDNS v4/v6 among TCP and ARP", linkType: .ethernet,
                frames: [
                    ether(dst: macMDNS4, type: 0x0800, tcp4), ether(dst: macMDNS4, type: 0x0800, mdns4), arp,
                    ether(dst: macMDNS6, type: 0x86DD, tcp6), ether(dst: macMDNS6, type: 0x86DD, mdns6),
                ], expectedPackets: 2),
            Synthetic(
                name: "Ethernet: rvictl raw IPv4 and IPv6", linkType: .ethernet, frames: [mdns4, tcp4, mdns6],
                expectedPackets: 2),
            Synthetic(
                name: "Ethernet: 802.3 + LLC/SNAP", linkType: .ethernet,
                frames: [macMDNS4 + macCast + be16(UInt16(8 + mdns4.count)) + snap(0x0800, mdns4)], expectedPackets: 1),
            Synthetic(
                name: "Ethernet: 802.1Q, QinQ 0x88a8 and 0x9100", linkType: .ethernet,
                frames: [
                    ether(dst: macMDNS4, tags: [(0x8100, 42)], type: 0x0800, mdns4),
                    ether(dst: macMDNS4, tags: [(0x88A8, 100), (0x8100, 200)], type: 0x0800, mdns4),
                    ether(dst: macMDNS6, tags: [(0x9100, 100), (0x8100, 200)], type: 0x86DD, mdns6),
                    ether(dst: macMDNS4, tags: [(0x8100, 42)], type: 0x0800, tcp4),
                ], expectedPackets: 3),
            Synthetic(
                name: "Ethernet: IPv4 fragments, last first", linkType: .ethernet, frames: fragmented4,
                expectedPackets: 1),
            Synthetic(name: "Ethernet: IPv6 fragments", linkType: .ethernet, frames: fragmented6, expectedPackets: 1),
            Synthetic(
                name: "Ethernet: IPv6 hop-by-hop before UDP", linkType: .ethernet, frames: [hopByHop6],
                expectedPackets: 1),
            Synthetic(
                name: "Ethernet: SSDP answer to an ephemeral port", linkType: .ethernet, frames: ssdpExchange,
                expectedPackets: 2),
            Synthetic(
                name: "SLL", linkType: .linuxSLL, frames: [sll(0x0800, tcp4), sll(0x0800, mdns4), sll(0x86DD, mdns6)],
                expectedPackets: 2),
            Synthetic(
                name: "SLL2", linkType: .linuxSLL2,
                frames: [sll2(0x0800, mdns4), sll2(0x86DD, tcp6), sll2(0x86DD, mdns6)], expectedPackets: 2),
            Synthetic(name: "raw IP (DLT 12)", linkType: .raw, frames: [mdns4, tcp4, mdns6], expectedPackets: 2),
            Synthetic(name: "DLT_IPV4", linkType: .ipv4, frames: [tcp4, mdns4], expectedPackets: 1),
            Synthetic(name: "DLT_IPV6", linkType: .ipv6, frames: [mdns6, tcp6], expectedPackets: 1),
            Synthetic(
                name: "NULL, little-endian file and families", linkType: .null,
                frames: [le32(2) + mdns4, le32(30) + mdns6, le32(24) + mdns6, le32(28) + mdns6, le32(2) + tcp4],
                expectedPackets: 4),
            Synthetic(
                name: "NULL, big-endian file and families", linkType: .null,
                frames: [be32(2) + mdns4, be32(30) + mdns6, be32(2) + tcp4], expectedPackets: 2, bigEndianFile: true),
            Synthetic(
                name: "LOOP", linkType: .loop, frames: [be32(2) + mdns4, be32(24) + mdns6, be32(2) + tcp4],
                expectedPackets: 2),
        ]
    }

    /// Captures the prefilter currently loses packets of (see the known-issue test).
    static var syntheticCapturesLost: [Synthetic] {
        [
            Synthetic(
                name: "Ethernet: three VLAN tags", linkType: .ethernet,
                frames: [ether(dst: macMDNS4, tags: [(0x88A8, 1), (0x8100, 2), (0x8100, 3)], type: 0x0800, mdns4)],
                expectedPackets: 1),
            Synthetic(
                name: "SLL with a VLAN tag (libpcap re-inserts tags at offset 14)", linkType: .linuxSLL,
                frames: [sll(0x8100, [0x00, 0x2A, 0x08, 0x00] + mdns4)], expectedPackets: 1),
            Synthetic(
                name: "SLL2 with a VLAN tag", linkType: .linuxSLL2,
                frames: [sll2(0x8100, [0x00, 0x2A, 0x86, 0xDD] + mdns6)], expectedPackets: 1),
            // A big-endian host's loopback capture whose file header was rewritten little-endian
            // (mergecap/editcap on another host): the decoder accepts either order, libpcap's `ip`
            // on DLT_NULL only the file's.
            Synthetic(
                name: "NULL, families in the opposite byte order to the file", linkType: .null,
                frames: [be32(2) + mdns4, be32(30) + mdns6], expectedPackets: 2),
        ]
    }
}

// MARK: - Tests

@Suite("Capture files")
struct CaptureFileTests {
    typealias S = CaptureTestSupport

    // MARK: Round trip

    @Test("CaptureWriter → CaptureFile keeps nanosecond timestamps, caplen/len and frame numbers")
    func roundTrip() throws {
        let records: [S.Record] = [
            .init(
                bytes: S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4),
                timestamp: Timestamp(seconds: 1_795_992_591, nanoseconds: 1)),
            .init(
                bytes: Array(S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4).prefix(60)),
                timestamp: Timestamp(seconds: 1_795_992_591, nanoseconds: 123_456_789), originalLength: 1_514),
            .init(
                bytes: [], timestamp: Timestamp(seconds: 1_795_992_592, nanoseconds: 999_999_999), originalLength: 64),
            .init(bytes: S.arp, timestamp: Timestamp(seconds: 0, nanoseconds: 0)),
            .init(
                bytes: S.ether(dst: S.macMDNS6, type: 0x86DD, S.mdns6),
                timestamp: Timestamp(seconds: 2_147_483_647, nanoseconds: 500)),
        ]
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("round.pcap").path
            try S.write(path, linkType: .ethernet, snapLength: 4_096, records)
            let file = try CaptureFile(path: path)
            #expect(file.linkType == .ethernet)
            #expect(file.linkTypeName == "EN10MB")
            #expect(file.format == .pcap)
            #expect(file.nanosecondFile)
            #expect(file.snapLength == 4_096)
            #expect(file.path == path)
            let (read, count, end) = S.readAll(file)
            #expect(count == 5)
            #expect(end == .endOfFile)
            try #require(read.count == records.count)
            for (i, (frame, header, bytes)) in read.enumerated() {
                #expect(frame == i + 1)
                #expect(header.timestamp == records[i].timestamp, "frame \(frame)")
                #expect(header.capturedLength == records[i].bytes.count, "frame \(frame)")
                #expect(
                    header.originalLength == (records[i].originalLength ?? records[i].bytes.count), "frame \(frame)")
                #expect(bytes == records[i].bytes, "frame \(frame)")
            }
            #expect(file.firstTimestamp == records[0].timestamp)
            #expect(file.lastTimestamp == records[4].timestamp)
        }
    }

    @Test(
        "The link type survives writing and reading",
        arguments: LinkType.supported.filter { $0 != .rawFile && $0 != .rawOpenBSD })
    func linkTypeRoundTrip(linkType: LinkType) throws {
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("lt.pcap").path
            try S.write(path, linkType: linkType, [.init(bytes: S.mdns4, timestamp: S.tsFor(1))])
            let file = try CaptureFile(path: path)
            #expect(file.linkType == linkType)
            #expect(S.readAll(file).count == 1)
        }
    }

    @Test(
        "Link type names come from libpcap",
        arguments: [
            (LinkType.linuxSLL2, "LINUX_SLL2"), (.pktap, "PKTAP"), (.null, "NULL"), (.radiotap, "IEEE802_11_RADIO"),
        ])
    func linkTypeNames(linkType: LinkType, name: String) throws {
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("n.pcap").path
            try S.write(path, linkType: linkType, [])
            #expect(try CaptureFile(path: path).linkTypeName == name)
        }
    }

    @Test("LINKTYPE_RAW (101) in a file is read as DLT_RAW (12)")
    func linktypeRawMapsToDLT() throws {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("raw101.pcap")
            try S.writeFile(url, S.handWrittenPcap(linkType: 101, records: [(1_795_992_591, 250_000, S.mdns4)]))
            let file = try CaptureFile(path: url.path)
            #expect(file.linkType == .raw)
            #expect(file.linkTypeName == "RAW")
            #expect(!file.nanosecondFile)
            let (read, _, end) = S.readAll(file)
            #expect(end == .endOfFile)
            // A microsecond file: 250000 µs become 250000000 ns.
            #expect(read.first?.1.timestamp == Timestamp(seconds: 1_795_992_591, nanoseconds: 250_000_000))
        }
    }

    @Test("A big-endian microsecond pcap reads the same")
    func bigEndianPcap() throws {
        let frame = S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4)
        let bytes = S.handWrittenPcap(linkType: 1, bigEndian: true, records: [(1_795_992_591, 42, frame)])
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("be.pcap")
            try S.writeFile(url, bytes)
            let file = try CaptureFile(path: url.path)
            #expect(file.linkType == .ethernet)
            let (read, _, _) = S.readAll(file)
            #expect(read.count == 1)
            #expect(read.first?.1.timestamp == Timestamp(seconds: 1_795_992_591, nanoseconds: 42_000))
            #expect(read.first?.2 == frame)
        }
    }

    @Test(
        "pcap seconds are unsigned: timestamps after January 2038 survive",
        arguments: [UInt32(2_147_483_648), 4_294_967_295])
    func timestampsAfter2038(seconds: UInt32) throws {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("2038.pcap")
            try S.writeFile(url, S.handWrittenPcap(linkType: 1, records: [(seconds, 7, S.arp)]))
            let (read, _, _) = S.readAll(try CaptureFile(path: url.path))
            let header = try #require(read.first?.1)
            #expect(header.timestamp == Timestamp(seconds: Int64(seconds), nanoseconds: 7_000))
        }
    }

    // MARK: Errors

    @Test("A missing file is .noSuchFile", arguments: ["missing.pcap", "not-a-dir.txt/inside.pcap"])
    func missingFile(name: String) throws {
        try S.withTemporaryDirectory { dir in
            try S.writeFile(dir.appendingPathComponent("not-a-dir.txt"), Array("hello\n".utf8))
            let path = dir.appendingPathComponent(name).path
            do throws(PcapError) {
                _ = try CaptureFile(path: path)
                Issue.record("opening \(path) did not throw")
            } catch {
                #expect(error.kind == .noSuchFile)
                #expect(error.operation == "open \(path)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test("A directory is .unreadable")
    func directory() throws {
        try S.withTemporaryDirectory { dir in
            do throws(PcapError) {
                _ = try CaptureFile(path: dir.path)
                Issue.record("opening a directory did not throw")
            } catch {
                #expect(error.kind == .unreadable)
                #expect(error.message.contains("directory"))
            }
        }
    }

    @Test(
        "Files that are not captures are .notACapture",
        arguments: [
            ("text", Array("this is not a capture\nat all\n".utf8)),
            ("empty", []),
            ("short", [0xD4, 0xC3, 0xB2]),
            ("header only, cut", Array(CaptureTestSupport.handWrittenPcap(linkType: 1).prefix(20))),
        ] as [(String, [UInt8])])
    func notACapture(name: String, bytes: [UInt8]) throws {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("\(name).pcap")
            try S.writeFile(url, bytes)
            do throws(PcapError) {
                _ = try CaptureFile(path: url.path)
                Issue.record("opening \(name) did not throw")
            } catch {
                #expect(error.kind == .notACapture, "\(error)")
            }
        }
    }

    @Test("A pcap with a link type CastScope cannot decode opens, and says which")
    func unsupportedLinkType() throws {
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("usb.pcap")
            try S.writeFile(url, S.handWrittenPcap(linkType: 189))
            let file = try CaptureFile(path: url.path)
            #expect(file.linkType.rawValue == 189)
            #expect(!file.linkType.isSupported)
            #expect(file.linkTypeName == "USB_LINUX")
        }
    }

    // MARK: Truncation

    @Test(
        "A capture cut inside the last record delivers the records before it",
        arguments: [10, 100, 16 + 100 - 5])  // inside the data ×2, inside the 16-byte record header
    func truncatedRecord(chop: Int) throws {
        let records = (1...3).map { i in
            S.Record(
                bytes: S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4) + [UInt8](repeating: UInt8(i), count: 50),
                timestamp: S.tsFor(i))
        }
        #expect(records[2].bytes.count > 100)
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("cut.pcap")
            try S.write(url.path, linkType: .ethernet, records)
            let whole = try Data(contentsOf: url)
            #expect(whole.count == 24 + 3 * (16 + records[0].bytes.count))
            try whole.prefix(whole.count - chop).write(to: url)
            let file = try CaptureFile(path: url.path)
            let (read, count, end) = S.readAll(file)
            #expect(read.map(\.0) == [1, 2])
            #expect(read.map(\.2) == [records[0].bytes, records[1].bytes])
            #expect(count == 2)
            guard case .truncated(let message) = end else {
                Issue.record("expected .truncated, got \(end)")
                return
            }
            #expect(message.contains("truncated"))
        }
    }

    @Test("A capture cut exactly between records ends cleanly")
    func cutAtRecordBoundary() throws {
        let records = (1...3).map {
            S.Record(bytes: S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4), timestamp: S.tsFor($0))
        }
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("cut.pcap")
            try S.write(url.path, linkType: .ethernet, records)
            let whole = try Data(contentsOf: url)
            try whole.prefix(whole.count - 16 - records[2].bytes.count).write(to: url)
            let (_, count, end) = S.readAll(try CaptureFile(path: url.path))
            #expect(count == 2)
            #expect(end == .endOfFile)
        }
    }

    // MARK: pcapng

    @Test(
        "A real pcapng file is read natively",
        .enabled(if: CaptureTestSupport.hasExternal, "../shared/captures/external is absent"))
    func pcapng() throws {
        let path = S.path("../shared/captures/external/packetgen/mdns.pcapng")
        let file = try CaptureFile(path: path)
        #expect(file.format == .pcapng)
        #expect(file.linkType == .ethernet)
        #expect(!file.nanosecondFile)
        let (read, count, end) = S.readAll(file)
        #expect(count == 2)
        #expect(end == .endOfFile)
        #expect(read.map(\.0) == [1, 2])
        #expect(read.map(\.1.capturedLength) == [169, 425])
        #expect(read.map(\.1.originalLength) == [169, 425])
        #expect(read.first?.1.timestamp == Timestamp(seconds: 1_530_354_392, nanoseconds: 0))
        #expect(read.last?.1.timestamp == Timestamp(seconds: 1_530_354_393, nanoseconds: 0))
        let packets = try S.discoveryPackets(path, prefilter: true).packets
        #expect(packets.map(\.frame) == [1, 2])
        #expect(packets.map { $0.mdns?.isResponse } == [false, true])
        #expect(packets.allSatisfy { $0.source == IPAddress("192.168.0.96") && $0.sourcePort == 5353 })
    }

    // MARK: Filters

    @Test("A filter that drops records keeps Wireshark frame numbers")
    func filterKeepsFrameNumbers() throws {
        let frames: [[UInt8]] = [
            S.ether(dst: S.macMDNS4, type: 0x0800, S.tcp4),  // 1
            S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4),  // 2
            S.ether(dst: S.macMDNS6, type: 0x86DD, S.tcp6),  // 3
            S.ether(dst: S.macMDNS6, type: 0x86DD, S.mdns6),  // 4
            S.arp,  // 5
            S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4),  // 6
            S.ether(dst: S.macMDNS4, type: 0x0800, S.tcp4),  // 7
        ]
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("mixed.pcap").path
            try S.write(
                path, linkType: .ethernet, frames.enumerated().map { S.Record(bytes: $1, timestamp: S.tsFor($0 + 1)) })

            let plain = try CaptureFile(path: path)
            try plain.setFilter("udp port 5353")
            let (read, count, end) = S.readAll(plain)
            #expect(read.map(\.0) == [2, 4, 6])
            #expect(read.map(\.2) == [frames[1], frames[3], frames[5]])
            #expect(read.map(\.1.timestamp) == [S.tsFor(2), S.tsFor(4), S.tsFor(6)])
            #expect(count == 7)
            #expect(end == .endOfFile)
            // First/last timestamps cover filtered-out records too.
            #expect(plain.firstTimestamp == S.tsFor(1))
            #expect(plain.lastTimestamp == S.tsFor(7))

            let discovery = try CaptureFile(path: path)
            try discovery.setFilter(try #require(DiscoveryFilter.expression(for: .ethernet)))
            #expect(S.readAll(discovery).records.map(\.0) == [2, 4, 6])

            let packets = try S.discoveryPackets(path, prefilter: true).packets
            #expect(packets.map(\.frame) == [2, 4, 6])
        }
    }

    @Test("A filter can be replaced")
    func filterReplaced() throws {
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("two.pcap").path
            try S.write(
                path, linkType: .ethernet,
                [
                    .init(bytes: S.ether(dst: S.macMDNS4, type: 0x0800, S.tcp4), timestamp: S.tsFor(1)),
                    .init(bytes: S.ether(dst: S.macMDNS4, type: 0x0800, S.mdns4), timestamp: S.tsFor(2)),
                ])
            let file = try CaptureFile(path: path)
            try file.setFilter("udp")
            try file.setFilter("tcp")
            #expect(S.readAll(file).records.map(\.0) == [1])
        }
    }

    @Test("A filter that does not compile throws .badFilter")
    func badFilter() throws {
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("empty.pcap").path
            try S.write(path, linkType: .ethernet, [])
            let file = try CaptureFile(path: path)
            do throws(PcapError) {
                try file.setFilter("not a filter (((")
                Issue.record("setFilter accepted garbage")
            } catch {
                #expect(error.kind == .badFilter)
                #expect(error.operation.contains("not a filter ((("))
                #expect(!error.message.isEmpty)
            }
        }
    }

    /// Link types whose DiscoveryFilter expression libpcap (on this platform) must compile.
    static let filterableLinkTypes: [LinkType] = LinkType.supported.filter {
        DiscoveryFilter.expression(for: $0) != nil && $0 != .rawOpenBSD
    }

    @Test(
        "DiscoveryFilter's expression compiles for every link type it returns one for", arguments: filterableLinkTypes)
    func discoveryFilterCompiles(linkType: LinkType) throws {
        let expression = try #require(DiscoveryFilter.expression(for: linkType))
        try S.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("dead.pcap")
            if linkType == .rawFile {
                // libpcap cannot dump DLT 101 (it is a LINKTYPE, read back as DLT_RAW): write the header by hand.
                try S.writeFile(url, S.handWrittenPcap(linkType: 101))
            } else {
                try S.write(url.path, linkType: linkType, [])
            }
            let file = try CaptureFile(path: url.path)
            try file.setFilter(expression)
            #expect(DiscoveryFilter.expression(for: file.linkType) != nil)
        }
    }

    @Test(
        "DiscoveryFilter gives no expression where libpcap cannot filter",
        arguments: [LinkType.pktap, .pktapLive, .ieee80211, .radiotap, .rawOpenBSD, LinkType(rawValue: 189)])
    func noFilterForUnfilterable(linkType: LinkType) {
        #expect(DiscoveryFilter.expression(for: linkType) == nil)
    }

    // MARK: The prefilter loses nothing

    @Test("Prefiltered and unfiltered decoding agree on every capture", arguments: CaptureTestSupport.captureFiles())
    func prefilterLosesNothing(relativePath: String) throws {
        let path = S.path(relativePath)
        let file = try CaptureFile(path: path)
        guard file.linkType.isSupported else { return }
        let unfiltered = try S.discoveryPackets(path, prefilter: false)
        let filtered = try S.discoveryPackets(path, prefilter: true)
        #expect(!unfiltered.filtered)
        #expect(S.keys(filtered.packets) == S.keys(unfiltered.packets))
        #expect(filtered.packets == unfiltered.packets)
        if relativePath.hasPrefix("captures/"), !relativePath.hasSuffix("/no-mdns.pcap") {
            #expect(!unfiltered.packets.isEmpty, "the repository's captures all hold discovery traffic")
        }
    }

    @Test("CI has the external corpus (../shared/captures/external)")
    func externalCorpusInCI() {
        let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
        if inCI {
            #expect(
                S.hasExternal,
                "CI=true but \(S.externalDirectory.path) is missing: the external captures are required in CI")
        } else if !S.hasExternal {
            print("note: \(S.externalDirectory.path) is missing; tests on external captures are skipped")
        }
    }

    @Test("The repository's captures are all found")
    func captureListing() {
        let files = S.captureFiles()
        #expect(files.contains("captures/goodbye.pcap"))
        #expect(files.filter { $0.hasPrefix("captures/") }.count >= 8)
        if S.hasExternal { #expect(files.contains("../shared/captures/external/packetgen/mdns.pcapng")) }
    }

    static func compareSynthetic(_ capture: CaptureTestSupport.Synthetic) throws -> (
        filtered: [String], unfiltered: [String]
    ) {
        try S.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("synthetic.pcap").path
            if capture.bigEndianFile {
                let records = capture.frames.enumerated().map {
                    (sec: UInt32(1_795_992_591 + $0), frac: UInt32($0), bytes: $1)
                }
                try S.writeFile(
                    URL(fileURLWithPath: path),
                    S.handWrittenPcap(linkType: UInt32(capture.linkType.rawValue), bigEndian: true, records: records))
            } else {
                try S.write(
                    path, linkType: capture.linkType,
                    capture.frames.enumerated().map { S.Record(bytes: $1, timestamp: S.tsFor($0)) })
            }
            let unfiltered = try S.discoveryPackets(path, prefilter: false)
            let filtered = try S.discoveryPackets(path, prefilter: true)
            #expect(filtered.filtered, "a prefilter should apply to \(capture.linkType)")
            #expect(unfiltered.packets.count == capture.expectedPackets)
            #expect(unfiltered.packets.allSatisfy { $0.error == nil })
            return (S.keys(filtered.packets), S.keys(unfiltered.packets))
        }
    }

    @Test(
        "The prefilter keeps every discovery packet of tricky synthetic captures",
        arguments: CaptureTestSupport.syntheticCaptures)
    func prefilterSynthetic(_ capture: CaptureTestSupport.Synthetic) throws {
        let (filtered, unfiltered) = try Self.compareSynthetic(capture)
        #expect(filtered == unfiltered)
    }

    @Test(
        "The prefilter keeps triple-tagged Ethernet, VLAN-tagged Linux cooked and opposite-order NULL frames",
        arguments: CaptureTestSupport.syntheticCapturesLost)
    func prefilterSyntheticKnownLosses(_ capture: CaptureTestSupport.Synthetic) throws {
        let (filtered, unfiltered) = try Self.compareSynthetic(capture)
        #expect(filtered == unfiltered)
    }
}
