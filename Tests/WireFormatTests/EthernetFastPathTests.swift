import Testing

@testable import WireFormat

/// The one-bounds-check path for plain Ethernet (``LinkLayer/decodePlainEthernet(_:into:)``)
/// against the general decoder (``LinkLayer/decodeAnyEthernet(_:originalLength:into:)``) on
/// every frame it could be confused by: tagged, 802.3/SNAP, raw IP labelled Ethernet (the rvictl
/// quirk), cut short at every length, and seeded mutations of the bytes it looks at.
@Suite("Ethernet fast path")
struct EthernetFastPathTests {
    typealias Seeded = TextFastPathTests.Seeded

    /// What a decoded link frame says, for comparison.
    struct Decoded: Equatable {
        var etherType: EtherType
        var sourceMAC: MACAddress?
        var destinationMAC: MACAddress?
        var vlanCount: Int
        var rawIPInEthernet: Bool
        var payloadPosition: Int
        var payload: [UInt8]

        init(_ f: LinkFrame) {
            etherType = f.etherType
            sourceMAC = f.sourceMAC
            destinationMAC = f.destinationMAC
            vlanCount = f.vlan.count
            rawIPInEthernet = f.rawIPInEthernet
            payloadPosition = f.payload.position
            payload = Array(f.payload.bytes[f.payload.offset...])
        }
    }

    /// The frames: every kind the general decoder tells apart, whole and cut short.
    static func frames() -> [[UInt8]] {
        typealias F = LinkTestFrames
        var kinds: [[UInt8]] = []
        for v in LinkTestIP.allCases {
            kinds.append(F.ethernet(v))
            kinds.append(F.ethernet(v, tags: [(0x8100, 0x0064)]))
            kinds.append(F.ethernet(v, tags: [(0x88A8, 0x00C8), (0x8100, 0x0064)]))
            kinds.append(F.llcSNAP(v))
            kinds.append(F.ip(v))  // raw IP labelled Ethernet
            // An EtherType that says one version over a header of the other.
            kinds.append(F.ethernet(dst: F.groupMAC(v), etherType: v.etherType, F.ip(v == .v4 ? .v6 : .v4)))
        }
        kinds.append(F.ethernet(dst: F.mdnsV4MAC, etherType: 0x0806, [UInt8](repeating: 0x45, count: 28)))
        var all: [[UInt8]] = []
        for k in kinds {
            for n in 0...Swift.min(k.count, 64) { all.append(Array(k.prefix(n))) }
            all.append(k)
        }
        // Mutations of the EtherType, the version nibble and the bytes around them.
        var rng = Seeded(state: 14)
        for _ in 0..<4000 {
            var f = kinds[Int(rng.next() % UInt64(kinds.count))]
            for _ in 0..<(1 + rng.next() % 3) {
                let at = Int(rng.next() % UInt64(Swift.min(f.count, 24)))
                f[at] =
                    [0x08, 0x00, 0x86, 0xDD, 0x81, 0x45, 0x60, 0x4F, 0x65, UInt8(truncatingIfNeeded: rng.next())][
                        Int(rng.next() % 10)]
            }
            all.append(f)
        }
        return all
    }

    @Test("decodes what it takes exactly as the general decoder, and leaves the rest untouched")
    func agreesWithGeneralDecoder() throws {
        var taken = 0
        var left = 0
        for frame in Self.frames() {
            try frame.withUnsafeBytes { raw in
                let start = ByteCursor(raw)
                var fast = start
                var fastResult = LinkFrame(payload: start)
                let took = LinkLayer.decodePlainEthernet(&fast, into: &fastResult)
                if took {
                    taken += 1
                    var general = start
                    var generalResult = LinkFrame(payload: start)
                    try LinkLayer.decodeAnyEthernet(&general, originalLength: frame.count, into: &generalResult)
                    #expect(Decoded(fastResult) == Decoded(generalResult), "frame \(frame)")
                    #expect(fast.offset == general.offset)
                } else {
                    left += 1
                    #expect(Decoded(fastResult) == Decoded(LinkFrame(payload: start)), "frame \(frame)")
                    #expect(fast.offset == start.offset)
                }
            }
        }
        // Both paths must have been exercised.
        #expect(taken > 100)
        #expect(left > 100)
    }
}
