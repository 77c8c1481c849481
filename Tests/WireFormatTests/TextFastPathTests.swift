import Testing

@testable import WireFormat

/// The byte-by-byte text of addresses and names against the straightforward implementations
/// they replaced (kept here as the oracle).
@Suite("Text fast paths")
struct TextFastPathTests {
    /// A small deterministic generator (SplitMix64), so that failures reproduce.
    struct Seeded {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func interpolated(_ a: IPv4Address) -> String {
        let v = a.rawValue
        return "\(v >> 24).\((v >> 16) & 0xFF).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }

    @Test(
        "IPv4 text: edge values",
        arguments: [
            (UInt32(0), "0.0.0.0"), (0xFFFF_FFFF, "255.255.255.255"), (0xC000_0201, "192.0.2.1"),
            (0x0A00_6409, "10.0.100.9"), (0xE000_00FB, "224.0.0.251"), (0x6463_0A01, "100.99.10.1"),
        ])
    func ipv4Edges(raw: UInt32, text: String) {
        #expect(IPv4Address(rawValue: raw).description == text)
        #expect(IPv4Address(text)?.rawValue == raw)
    }

    @Test("IPv4 text agrees with interpolation on 100,000 seeded addresses")
    func ipv4Seeded() {
        var g = Seeded(state: 6)
        var mismatches: [UInt32] = []
        for _ in 0..<100_000 {
            let r = g.next()
            // Mix in octets of one and two digits, which random 32-bit values rarely give.
            let raw = UInt32(truncatingIfNeeded: r) & UInt32(truncatingIfNeeded: r >> 32 | 0x0F0F_0F0F)
            let a = IPv4Address(rawValue: raw)
            if a.description != Self.interpolated(a), mismatches.count < 3 { mismatches.append(raw) }
        }
        #expect(mismatches.isEmpty)
    }

    /// The label-by-label text ``DNSName/description`` wrote before its fast path.
    static func labelByLabel(_ n: DNSName) -> String {
        if n.wire.isEmpty { return "." }
        return n.labels.map { DNSText.escape($0, quote: false, escapeDot: true) }.joined(separator: ".")
    }

    @Test(
        "name text: plain and escaped labels",
        arguments: [
            ["_googlecast", "_tcp", "local"], ["Chromecast-3f5d6b2a", "local"], ["a"], ["Mr. TV", "local"],
            ["back\\slash", "local"], ["K\u{FC}che", "local"], ["tab\there"], ["del\u{7F}"], ["", "empty-label"],
        ])
    func nameText(labels: [String]) {
        var wire: [UInt8] = []
        for l in labels {
            wire.append(UInt8(l.utf8.count))
            wire += l.utf8
        }
        let n = DNSName(wire: wire)
        #expect(n.description == Self.labelByLabel(n))
    }

    @Test("name text agrees with the label-by-label text on 20,000 seeded names")
    func nameSeeded() {
        var g = Seeded(state: 17)
        // Mostly printable ASCII, sometimes a dot, backslash, control or high byte.
        let alphabet: [UInt8] = Array("abcXYZ019-_ ".utf8) + [0x2E, 0x5C, 0x00, 0x1B, 0x7F, 0xC3, 0xBC, 0xFF]
        var mismatches: [[UInt8]] = []
        for _ in 0..<20_000 {
            var wire: [UInt8] = []
            for _ in 0..<(1 + Int(g.next() % 4)) {
                let length = 1 + Int(g.next() % 12)
                wire.append(UInt8(length))
                for _ in 0..<length {
                    let r = g.next()
                    let pool = r % 8 == 0 ? alphabet.count : 12
                    wire.append(alphabet[Int(r >> 8) % pool])
                }
            }
            let n = DNSName(wire: wire)
            if n.description != Self.labelByLabel(n), mismatches.count < 3 { mismatches.append(wire) }
        }
        #expect(mismatches.isEmpty)
    }
}

/// ``DiscoveryPacket`` keeps its rarely set fields in a shared box: copies must still behave
/// as independent values.
@Suite("Discovery packet values")
struct DiscoveryPacketValueTests {
    static func packet() -> DiscoveryPacket {
        DiscoveryPacket(
            frame: 3, timestamp: Timestamp(seconds: 1, nanoseconds: 2), ipVersion: 4,
            source: .v4(IPv4Address(192, 0, 2, 7)), destination: .v4(.mdnsGroup), ttl: 255, sourcePort: 5353,
            destinationPort: 5353, payload: .mdns(nil))
    }

    @Test("empty rare fields read as empty, and a packet without them equals a fresh one")
    func empty() {
        var p = Self.packet()
        #expect(p.vlanIDs.isEmpty && p.fragmentFrames.isEmpty && p.pktap == nil)
        #expect(p.isMDNS && p.mdns == nil && p.ssdp == nil)
        #expect(p.payload == .mdns(nil))
        p.vlanIDs = [5]
        p.vlanIDs = []
        #expect(p == Self.packet())
        #expect(p.hashValue == Self.packet().hashValue)
    }

    @Test("setting a field on a copy leaves the original alone")
    func copies() {
        var a = Self.packet()
        a.vlanIDs = [10, 20]
        a.fragmentFrames = [1, 2]
        var b = a
        b.vlanIDs.append(30)
        b.fragmentFrames = []
        #expect(a.vlanIDs == [10, 20] && a.fragmentFrames == [1, 2])
        #expect(b.vlanIDs == [10, 20, 30] && b.fragmentFrames.isEmpty)
        #expect(a != b)
    }

    @Test("the payload round-trips through the box, and its kind through isMDNS")
    func payload() {
        var p = Self.packet()
        let m = DNSMessage(id: 1, flags: 0x8400, counts: [0, 0, 0, 0])
        p.payload = .mdns(m)
        #expect(p.mdns == m && p.payload == .mdns(m))
        p.payload = .ssdp(nil)
        #expect(!p.isMDNS && p.ssdp == nil && p.mdns == nil && p.payload == .ssdp(nil))
        var q = p
        q.vlanIDs = [1]
        #expect(q.payload == .ssdp(nil) && p.vlanIDs.isEmpty)
    }
}
