import Testing

@testable import WireFormat

@Suite("DNS name decoding")
struct DNSNameTests {
    @Test("plain and compressed names")
    func plainAndCompressed() throws {
        // "a.example" at 0, then "b" + pointer to 0 at 11.
        let b: [UInt8] = [1, 0x61, 7] + Array("example".utf8) + [0, 1, 0x62, 0xC0, 0x00]
        #expect(try Fixtures.name(b).description == "a.example")
        #expect(try Fixtures.name(b, at: 11).description == "b.a.example")
    }

    @Test("the cursor resumes after the first pointer, not after the target")
    func resumesAfterPointer() throws {
        let b: [UInt8] = [1, 0x61, 0, 1, 0x62, 0xC0, 0x00, 0xAB]
        let after: Int = try withCursor(over: b) { (c: inout ByteCursor) throws(DecodeError) in
            c.offset = 3
            _ = try DNSName.decode(&c)
            return c.offset
        }
        #expect(after == 7)
    }

    // From miekg/dns TestUnpackDomainName and tcpdump's DNS infinite-loop tests.
    @Test(
        "hostile names fail with a located error",
        arguments: [
            // pointer to itself
            ([0xC0, 0x00] as [UInt8], 0, DecodeError.badPointer(offset: 0, target: 0)),
            // forward pointer
            ([0x01, 0x61, 0xC0, 0x05, 0x00, 0x00], 0, .badPointer(offset: 2, target: 5)),
            // two pointers that point at each other (loop): the second must go below the first
            ([0x00, 0xC0, 0x03, 0xC0, 0x01], 3, .badPointer(offset: 1, target: 3)),
            // a pointer into the middle of the current name
            ([0x03, 0x61, 0x62, 0x63, 0xC0, 0x01], 0, .badPointer(offset: 4, target: 1)),
            // label runs past the end
            ([0x07, 0x61], 0, .truncated(offset: 1, needed: 7, available: 1)),
            // name without its terminating zero
            ([0x01, 0x61], 0, .truncated(offset: 2, needed: 1, available: 0)),
            // half a pointer
            ([0xC0], 0, .truncated(offset: 1, needed: 1, available: 0)),
            // reserved label types 0b10 and 0b01 (EDNS0 extended labels)
            ([0x80], 0, .reservedLabelType(offset: 0, byte: 0x80)),
            ([0x41, 0x00], 0, .reservedLabelType(offset: 0, byte: 0x41)),
            // empty input
            ([], 0, .truncated(offset: 0, needed: 1, available: 0)),
        ] as [([UInt8], Int, DecodeError)])
    func hostile(bytes: [UInt8], at: Int, expected: DecodeError) {
        #expect(throws: expected) { try Fixtures.name(bytes, at: at) }
    }

    @Test("a name of exactly 255 octets is accepted, 256 is not")
    func lengthLimit() throws {
        // 4 labels of 63 = 256 wire octets with root; 3×63 + 61 = 254 + root = 255.
        let label63 = [UInt8(63)] + Array(repeating: 0x61, count: 63)
        let ok = label63 + label63 + label63 + [61] + Array(repeating: 0x62, count: 61) + [0]
        #expect(try Fixtures.name(ok).wire.count == 254)
        let tooLong = label63 + label63 + label63 + [62] + Array(repeating: 0x62, count: 62) + [0]
        #expect(throws: DecodeError.nameTooLong(offset: 0)) { try Fixtures.name(tooLong) }
    }

    @Test("matryoshka: a name that exceeds 255 octets only after pointer expansion")
    func matryoshka() {
        // Each step prepends a 60-byte label and points back at the previous name.
        var b: [UInt8] = [60] + Array(repeating: 0x61, count: 60) + [0]
        var starts = [0]
        for _ in 0..<4 {
            let start = b.count
            b += [60] + Array(repeating: 0x62, count: 60) + [0xC0, UInt8(starts.last!)]
            starts.append(start)
        }
        #expect(throws: DecodeError.nameTooLong(offset: starts.last!)) { try Fixtures.name(b, at: starts.last!) }
    }

    @Test("many pointers in a chain still terminate, each strictly backwards")
    func longChain() throws {
        // 0: "x", then 120 entries each "\x01y" + pointer to the previous entry: valid but long.
        var b: [UInt8] = [1, 0x78, 0]
        var previous = 0
        for _ in 0..<40 {
            let start = b.count
            b += [1, 0x79, 0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF)]
            previous = start
        }
        let n = try Fixtures.name(b, at: previous)
        #expect(n.labels.count == 41)
    }

    @Test("presentation format escapes dots, backslashes, controls and invalid UTF-8")
    func escaping() {
        let n = DNSName(labels: [
            Array("Mr. TV\\".utf8), [0x07, 0x41], Array("Küche".utf8), [0xFF, 0x41], Array("local".utf8),
        ])
        #expect(n.description == "Mr\\. TV\\\\.\\007A.Küche.\\255A.local")
        #expect(DNSName.root.description == ".")
    }

    @Test("C1 controls and bidi overrides in UTF-8 are escaped")
    func c1() {
        // U+0085 (NEL) encoded as C2 85.
        #expect(DNSText.escape([0x41, 0xC2, 0x85], quote: false, escapeDot: false) == "A\\194\\133")
        // Overlong encoding of "/" (C0 AF) is invalid UTF-8.
        #expect(DNSText.escape([0xC0, 0xAF], quote: false, escapeDot: false) == "\\192\\175")
    }

    @Test("case-insensitive comparison and suffix")
    func comparison() {
        let a = DNSName("Chromecast-1._GoogleCast._TCP.local")
        #expect(a.hasSuffix(DNSName("_googlecast._tcp.local")))
        #expect(!a.hasSuffix(DNSName("_airplay._tcp.local")))
        #expect(DNSName("_GOOGLECAST._tcp.local").equalsIgnoringCase(DNSName("_googlecast._tcp.LOCAL")))
    }
}
