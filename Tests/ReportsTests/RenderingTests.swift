import Testing

@testable import Reports
@testable import WireFormat

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("nesting, key order, commas and null")
    func structure() {
        var w = JSONWriter()
        w.beginObject()
        w.int(1, "a")
        w.beginArray("b")
        w.string("x")
        w.beginObject()
        w.bool(true, "c")
        w.endObject()
        w.string(nil)
        w.endArray()
        w.beginObject("d")
        w.endObject()
        w.rawNumber("0.500000000", "e")
        w.endObject()
        #expect(w.output == #"{"a":1,"b":["x",{"c":true},null],"d":{},"e":0.500000000}"#)
    }

    @Test("integers: every width and sign, and beyond Int64, as Swift prints them")
    func integers() {
        let values: [Int64] = [0, 7, -7, 10, -10, 1_234_567, -1_000_000_000, .max, .min]
        for v in values {
            var w = JSONWriter()
            w.int(v)
            #expect(w.output == String(v))
        }
        var w = JSONWriter()
        w.int(UInt64.max)
        #expect(w.output == String(UInt64.max))
    }

    @Test("timestamps written in place equal TimeFormat's, quoted, on 50,000 seeded times")
    func timestampsInPlace() {
        var state: UInt64 = 11
        var mismatches: [Timestamp] = []
        var times = [
            Timestamp(seconds: 0, nanoseconds: 0), Timestamp(seconds: -1, nanoseconds: 999_999_999),
            Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_000),  // 9999-12-31T23:59:59
            Timestamp(seconds: 253_402_300_800, nanoseconds: 0),  // year 10000: the general path
            Timestamp(seconds: -62_135_596_800, nanoseconds: 0),  // year 1
            Timestamp(seconds: -62_167_219_201, nanoseconds: 0),  // year -1
        ]
        for i in 0..<50_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let range: Int64 = i % 8 == 0 ? 1_000_000_000_000 : 20_000_000_000
            times.append(
                Timestamp(seconds: Int64(bitPattern: state) % range, nanoseconds: Int64(state % 1_000_000_000)))
        }
        for t in times {
            var w = JSONWriter()
            w.timestamp(t)
            if w.output != "\"" + TimeFormat.rfc3339Micro(t) + "\"", mismatches.count < 3 { mismatches.append(t) }
        }
        #expect(mismatches.isEmpty)
    }

    @Test(
        "milliseconds written in place equal AnalysisJSON's",
        arguments: [0.0, 1.5, -1.5, 0.0004, 0.0005, -0.0004, 123_456.789_4, -0.25, 9.999_9996, 1e30, -1e30, 0.001])
    func millisecondsInPlace(_ ms: Double) {
        var w = JSONWriter()
        w.milliseconds(ms)
        #expect(w.output == AnalysisJSON.milliseconds(ms))
    }

    @Test("nesting deeper than 64 levels, compact and indented")
    func deepNesting() {
        for pretty in [false, true] {
            var w = JSONWriter(pretty: pretty)
            var expected = ""
            for depth in 0..<100 {
                w.beginArray()
                w.int(depth)
                if depth > 0 {
                    expected += ","
                    if pretty { expected += "\n" + String(repeating: "  ", count: depth) }
                }
                expected += "["
                if pretty { expected += "\n" + String(repeating: "  ", count: depth + 1) }
                expected += "\(depth)"
            }
            for depth in (0..<100).reversed() {
                w.beginArray()
                w.endArray()
                w.endArray()
                expected += ","
                if pretty { expected += "\n" + String(repeating: "  ", count: depth + 1) }
                expected += "[]"
                if pretty { expected += "\n" + String(repeating: "  ", count: depth) }
                expected += "]"
            }
            #expect(w.output == expected, "pretty: \(pretty)")
        }
    }

    @Test("indented output: members one per line, empty containers closed at once")
    func indented() {
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.int(1, "a")
        w.beginArray("b")
        w.string("x")
        w.beginObject()
        w.endObject()
        w.endArray()
        w.beginObject("c")
        w.bool(false, "d")
        w.endObject()
        w.endObject()
        w.appendNewline()
        #expect(
            w.output == """
                {
                  "a": 1,
                  "b": [
                    "x",
                    {}
                  ],
                  "c": {
                    "d": false
                  }
                }

                """)
    }

    @Test("a copied writer goes on writing its own text")
    func copies() {
        var a = JSONWriter()
        a.beginArray()
        a.int(1)
        var b = a
        b.int(2)
        a.int(3)
        a.endArray()
        b.endArray()
        #expect(a.output == "[1,3]")
        #expect(b.output == "[1,2]")
    }

    @Test("the eight-byte scan finds every byte that needs escaping, at every position")
    func escapingScan() {
        for length in 1...24 {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes[position] = UInt8(value)
                    let expected = value < 0x20 || value >= 0x7F || value == 0x22 || value == 0x5C
                    let found = bytes.withUnsafeBytes { JSONWriter.needsEscaping($0) }
                    if found != expected {
                        Issue.record("byte \(value) at \(position) of \(length)")
                        return
                    }
                }
            }
        }
        // Strings with escapes, written through the writer, equal the reference escaping.
        for s in [
            "plain", "a\"b", "tab\there", "uni\u{e9}code and more text", String(repeating: "x", count: 17) + "\\",
        ] {
            var w = JSONWriter()
            w.string(s)
            var reference = ""
            JSONWriter.appendString(s, to: &reference)
            #expect(w.output == reference)
        }
    }

    @Test("strings are escaped so no control character survives")
    func escaping() {
        var out = ""
        JSONWriter.appendString("a\"b\\c\n\u{1B}[31m\u{7F}\u{85}\u{2028}é", to: &out)
        #expect(out == #""a\"b\\c\n\u001b[31m\u007f\u0085\u2028é""#)
    }
}

@Suite("Time formatting")
struct TimeFormatTests {
    @Test(
        "UTC civil time with nanoseconds",
        arguments: [
            (Int64(0), Int32(0), "1970-01-01T00:00:00.000000000Z"),
            (1_764_459_601, 123_456_789, "2025-11-29T23:40:01.123456789Z"),
            (951_782_400, 1, "2000-02-29T00:00:00.000000001Z"),
            (4_102_444_799, 999_999_999, "2099-12-31T23:59:59.999999999Z"),
            (-1, 0, "1969-12-31T23:59:59.000000000Z"),
        ])
    func rfc3339(seconds: Int64, nanos: Int32, expected: String) {
        #expect(TimeFormat.rfc3339(Timestamp(seconds: seconds, nanoseconds: Int64(nanos))) == expected)
    }

    /// The interpolating formatter the byte-by-byte one replaced (the oracle).
    static func interpolated(_ t: Timestamp) -> String {
        let days = t.seconds >= 0 ? t.seconds / 86400 : (t.seconds - 86399) / 86400
        let secondOfDay = t.seconds - days * 86400
        let (y, m, d) = TimeFormat.civil(days)
        let p = TimeFormat.pad
        return "\(p(y, 4))-\(p(Int64(m), 2))-\(p(Int64(d), 2))T\(p(secondOfDay / 3600, 2)):"
            + "\(p(secondOfDay / 60 % 60, 2)):\(p(secondOfDay % 60, 2)).\(p(Int64(t.nanoseconds), 9))Z"
    }

    @Test("RFC 3339 text, and with microseconds, agrees with the interpolating formatter on 50,000 seeded times")
    func rfc3339Seeded() {
        var state: UInt64 = 3
        var mismatches: [Timestamp] = []
        var micro: [Timestamp] = []
        for i in 0..<50_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Most within a few centuries of 1970; every eighth anywhere up to ±10^12 s.
            let range: Int64 = i % 8 == 0 ? 1_000_000_000_000 : 20_000_000_000
            let seconds = Int64(bitPattern: state) % range  // either sign
            let t = Timestamp(seconds: seconds, nanoseconds: Int64(state % 1_000_000_000))
            if TimeFormat.rfc3339(t) != Self.interpolated(t), mismatches.count < 3 { mismatches.append(t) }
            // Microseconds: the same text with the last three digits cut.
            if TimeFormat.rfc3339Micro(t) != String(Self.interpolated(t).dropLast(4)) + "Z", micro.count < 3 {
                micro.append(t)
            }
        }
        #expect(mismatches.isEmpty)
        #expect(micro.isEmpty)
        #expect(TimeFormat.rfc3339Micro(Timestamp(seconds: 0, nanoseconds: 1_999)) == "1970-01-01T00:00:00.000001Z")
    }

    @Test(
        "milliseconds with three decimals",
        arguments: [
            (0.0, "0.000"), (1.5, "1.500"), (-1.5, "-1.500"), (0.0004, "0.000"), (0.0005, "0.001"),
            (-0.0004, "0.000"), (123_456.789_4, "123456.789"), (-0.25, "-0.250"), (9.999_9996, "10.000"),
            (1e30, "9000000000000000.000"), (-1e30, "-9000000000000000.000"),
        ])
    func milliseconds(value: Double, text: String) {
        #expect(AnalysisJSON.milliseconds(value) == text)
    }

    @Test("relative and epoch forms")
    func relative() {
        #expect(TimeFormat.relative(1_500_000_000) == "+1.500000000")
        #expect(TimeFormat.relative(-20) == "-0.000000020")
        #expect(TimeFormat.relative(7, sign: false) == "0.000000007")
        #expect(TimeFormat.epoch(Timestamp(seconds: 12, nanoseconds: 5)) == "12.000000005")
    }
}

@Suite("Packet text")
struct PacketTextTests {
    static func packet(_ message: DNSMessage, sourcePort: UInt16 = 5353) -> DiscoveryPacket {
        DiscoveryPacket(
            frame: 7, timestamp: Timestamp(seconds: 10, nanoseconds: 0), ipVersion: 4,
            source: .v4(IPv4Address(192, 0, 2, 20)), destination: .v4(.mdnsGroup), ttl: 255, sourcePort: sourcePort,
            destinationPort: 5353, payload: .mdns(message))
    }

    @Test("records, escapes and the terminal")
    func records() {
        var m = DNSMessage(id: 0, flags: 0x8400, counts: [0, 1, 0, 1])
        let instance = DNSName(labels: [
            Array("Evil\u{1B}[2J TV".utf8), Array("_googlecast".utf8), Array("_tcp".utf8), Array("local".utf8),
        ])
        m.answers = [
            DNSResourceRecord(name: DNSName("_googlecast._tcp.local"), type: .ptr, ttl: 120, data: .name(instance))
        ]
        m.additionals = [
            DNSResourceRecord(
                name: instance, type: .txt, cacheFlush: true, ttl: 4500,
                data: .txt(TXTRecord(strings: [Array("fn=A \"quoted\" name".utf8), [0x66, 0x6E, 0x3D, 0x07]])))
        ]
        let text = PacketText.render(Self.packet(m), start: Timestamp(seconds: 9, nanoseconds: 500_000_000))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(text.contains("+0.500000000 192.0.2.20 > 224.0.0.251 ttl 255 mDNS response id 0 aa 0q/1an/0ns/1ar"))
        #expect(text.contains("an _googlecast._tcp.local PTR IN ttl 120 Evil\\027[2J TV._googlecast._tcp.local"))
        #expect(text.contains(#"TXT IN cache-flush ttl 4500 "fn=A \"quoted\" name" "fn=\007""#))
    }

    @Test("legacy unicast ports are shown")
    func ports() {
        var p = Self.packet(DNSMessage(id: 9, flags: 0, counts: [0, 0, 0, 0]), sourcePort: 40000)
        p.legacyUnicast = true
        let line = PacketText.render(p, start: p.timestamp)
        #expect(line.contains("192.0.2.20:40000 > 224.0.0.251 ttl 255 mDNS query id 9 0q/0an/0ns/0ar [legacy-unicast]"))
    }

    @Test("JSON line for a packet is valid and complete")
    func jsonLine() {
        var m = DNSMessage(id: 0, flags: 0x8400, counts: [0, 1, 0, 0])
        m.answers = [
            DNSResourceRecord(
                name: DNSName("x.local"), type: .srv, cacheFlush: true, ttl: 120, rdlength: 14,
                data: .srv(priority: 0, weight: 0, port: 8009, target: DNSName("h.local")))
        ]
        let line = PacketJSON.render(
            Self.packet(m), file: "f.pcap", linkType: "EN10MB", start: Timestamp(seconds: 10, nanoseconds: 0))
        #expect(
            line.hasPrefix(
                #"{"file":"f.pcap","frame":7,"time":"1970-01-01T00:00:10.000000000Z","epoch":"10.000000000","relative":0.000000000,"linkType":"EN10MB","#
            ))
        #expect(
            line.contains(
                #""answers":[{"name":"x.local","type":"SRV","typeCode":33,"class":"IN","classCode":1,"cacheFlush":true,"ttl":120,"rdlength":14,"rdata":{"priority":0,"weight":0,"port":8009,"target":"h.local"}}]"#
            ))
        #expect(!line.contains("\n"))
    }
}
