@testable import WireFormat

/// Real mDNS payloads used across the tests.
enum Fixtures {
    /// A real Chromecast's answer to `_googlecast._tcp.local` (Sming-MDNS test resource
    /// `192.168.1.103.mdns`): PTR in the answers; TXT, SRV (8009) and A in the additionals.
    static let chromecastResponse = bytes(
        "0000840000000001000000030b5f676f6f676c6563617374045f746370056c6f63616c00000c000100000078002e2b4368726f6d65"
            + "636173742d3365323162393533656333393038336434333831356164653639313132323635c00cc02e001080010000119400a923"
            + "69643d33653231623935336563333930383364343338313561646536393131323236352363643d3334313231344239383335413843"
            + "4631463533373944433337423930443546360372"
            + "6d3d0576653d30350d6d643d4368726f6d65636173741269633d2f73657475702f69636f6e2e706e670d666e3d4368726f6d6563"
            + "6173740963613d3230303730390473743d300f62733d464138464341363732333642046e663d310372733dc02e0021800100000078"
            + "002d000000001f492433653231623935332d656333392d303833642d343338312d356164653639313132323635c01dc123000180"
            + "01000000780004c0a80167")

    /// A real Chrome sender query (Sming-MDNS `192.168.1.107.mdns`): two subtypes and the base type.
    static let chromeQuery = bytes(
        "0066000000030000000000002a5f2539453545374338463437393839353236433942434439354432343038344636463042323743"
            + "354544045f7375620b5f676f6f676c6563617374045f746370056c6f63616c00000c0001095f3545383146364442c037000c0001"
            + "c03c000c0001")

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = hex.makeIterator()
        while let a = it.next(), let b = it.next() {
            out.append(UInt8(String([a, b]), radix: 16)!)
        }
        return out
    }

    /// Decodes a DNS message from an array, throwing the typed error.
    static func message(_ b: [UInt8]) throws(DecodeError) -> DNSMessage {
        try withCursor(over: b) { (c: inout ByteCursor) throws(DecodeError) in try DNSMessage.decode(c) }
    }

    /// Decodes a name at offset `at` of `b`.
    static func name(_ b: [UInt8], at: Int = 0) throws(DecodeError) -> DNSName {
        try withCursor(over: b) { (c: inout ByteCursor) throws(DecodeError) in
            c.offset = at
            return try DNSName.decode(&c)
        }
    }

    /// A minimal DNS header + payload builder for hand-made cases.
    static func header(
        id: UInt16 = 0, flags: UInt16 = 0x8400, qd: UInt16 = 0, an: UInt16 = 0, ns: UInt16 = 0, ar: UInt16 = 0
    )
        -> [UInt8]
    {
        [id, flags, qd, an, ns, ar].flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// `len label ... 0` for dotted text.
    static func wireName(_ dotted: String) -> [UInt8] {
        var out: [UInt8] = []
        for label in dotted.split(separator: ".") {
            out.append(UInt8(label.utf8.count))
            out += Array(label.utf8)
        }
        return out + [0]
    }
}
