import Testing

@testable import WireFormat

@Suite("IP fragment reassembly")
struct ReassemblyTests {
    static let key = FragmentReassembler.Key(
        source: .v4(IPv4Address(192, 0, 2, 1)), destination: .v4(IPv4Address(192, 0, 2, 2)), identification: 7,
        proto: 17)

    static func add(
        _ r: inout FragmentReassembler, _ data: [UInt8], offset: Int, more: Bool, frame: Int, at seconds: Int64 = 0,
        key: FragmentReassembler.Key = key, wanted: Bool = true
    ) -> FragmentReassembler.Outcome {
        data.withUnsafeBytes { raw in
            r.add(
                key: key,
                fragment: FragmentInfo(identification: key.identification, offset: offset, moreFragments: more),
                payload: ByteCursor(raw), ttl: 255, frame: frame, time: Timestamp(seconds: seconds, nanoseconds: 0)
            ) { _ in wanted }
        }
    }

    static func payload(_ outcome: FragmentReassembler.Outcome) -> [UInt8]? {
        if case .complete(let d) = outcome { return d.payload }
        return nil
    }

    @Test("in order, out of order, and with an exact duplicate")
    func orders() {
        let data = (0..<40).map { UInt8($0) }
        for order in [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 0, 2, 1]] {
            var r = FragmentReassembler()
            var last: FragmentReassembler.Outcome = .incomplete
            for (i, piece) in order.enumerated() {
                let slice = Array(data[(piece * 16)..<Swift.min(piece * 16 + 16, 40)])
                last = Self.add(&r, slice, offset: piece * 16, more: piece < 2, frame: i + 1)
            }
            #expect(Self.payload(last) == data, "order \(order)")
            #expect(r.datagramsInFlight == 0 && r.bytesInFlight == 0)
        }
    }

    @Test("overlapping fragments with different bytes invalidate the datagram")
    func conflictingOverlap() {
        var r = FragmentReassembler()
        _ = Self.add(&r, Array(repeating: 1, count: 16), offset: 0, more: true, frame: 1)
        let o = Self.add(&r, Array(repeating: 2, count: 16), offset: 8, more: false, frame: 2)
        #expect(Self.payload(o) == nil)
        #expect(r.statistics.invalid == 1)
        // Later fragments of that datagram are dropped.
        let again = Self.add(&r, Array(repeating: 1, count: 8), offset: 16, more: false, frame: 3)
        #expect(Self.payload(again) == nil)
    }

    @Test("datagrams the caller does not want are not buffered")
    func unwanted() {
        var r = FragmentReassembler()
        _ = Self.add(&r, Array(repeating: 1, count: 1480), offset: 0, more: true, frame: 1, wanted: false)
        #expect(r.bytesInFlight == 0)
        let o = Self.add(&r, Array(repeating: 1, count: 100), offset: 1480, more: false, frame: 2)
        #expect(Self.payload(o) == nil)
        #expect(r.bytesInFlight == 0)
    }

    @Test("timeouts free the memory of incomplete datagrams")
    func timeout() {
        var r = FragmentReassembler()
        _ = Self.add(&r, Array(repeating: 1, count: 800), offset: 0, more: true, frame: 1, at: 0)
        #expect(r.bytesInFlight == 800)
        let other = FragmentReassembler.Key(
            source: Self.key.source, destination: Self.key.destination, identification: 8, proto: 17)
        _ = Self.add(&r, Array(repeating: 1, count: 8), offset: 0, more: true, frame: 2, at: 31, key: other)
        #expect(r.statistics.timedOut == 1)
        #expect(r.bytesInFlight == 8)
    }

    @Test("a fragment flood stays within the datagram and byte limits")
    func flood() {
        var limits = ReassemblyLimits()
        limits.maximumDatagrams = 16
        limits.maximumBytes = 64 * 1024
        var r = FragmentReassembler(limits: limits)
        for i in 0..<5000 {
            let key = FragmentReassembler.Key(
                source: Self.key.source, destination: Self.key.destination, identification: UInt32(i), proto: 17)
            _ = Self.add(&r, Array(repeating: 0xAA, count: 1480), offset: 0, more: true, frame: i + 1, key: key)
            #expect(r.datagramsInFlight <= 16)
            #expect(r.bytesInFlight <= 64 * 1024)
        }
        #expect(r.statistics.evicted > 4900)
    }

    @Test("a fragment claiming to reach past 65535 bytes is rejected")
    func tooLarge() {
        var r = FragmentReassembler()
        let o = Self.add(&r, Array(repeating: 0, count: 16), offset: 65528, more: false, frame: 1)
        #expect(Self.payload(o) == nil)
        #expect(r.statistics.invalid == 1)
        #expect(r.bytesInFlight == 0)
    }
}

@Suite("Addresses")
struct AddressTests {
    @Test(
        "IPv6 text is RFC 5952",
        arguments: [
            ("2001:db8:0:0:0:0:0:1", "2001:db8::1"), ("ff02::fb", "ff02::fb"), ("::", "::"), ("::1", "::1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"), ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("fe80::1:2", "fe80::1:2"),
            ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
        ])
    func ipv6Text(input: String, expected: String) throws {
        #expect(try #require(IPv6Address(input)).description == expected)
    }

    @Test(
        "bad address text is rejected",
        arguments: ["1.2.3", "256.1.1.1", "1.2.3.4.5", "2001:db8::1::2", "12345::", "g::1"])
    func badText(input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test("MAC and IPv4 text")
    func text() {
        #expect(MACAddress(rawValue: 0x01005E0000FB).description == "01:00:5e:00:00:fb")
        #expect(MACAddress(rawValue: 0x01005E0000FB).isMulticast)
        #expect(IPv4Address.mdnsGroup.description == "224.0.0.251")
        #expect(IPv6Address.mdnsGroup.description == "ff02::fb")
    }
}
