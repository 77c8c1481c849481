import Testing

@testable import WireFormat

@Suite("DNS message decoding")
struct DNSMessageTests {
    @Test("a real Chromecast response decodes completely")
    func chromecast() throws {
        let m = try Fixtures.message(Fixtures.chromecastResponse)
        #expect(m.isResponse && m.isAuthoritative && m.id == 0)
        #expect(m.counts == [0, 1, 0, 3])
        let ptr = try #require(m.answers.first)
        #expect(ptr.name.description == "_googlecast._tcp.local")
        #expect(ptr.type == .ptr && !ptr.cacheFlush && ptr.ttl == 120)
        #expect(ptr.data == .name(DNSName("Chromecast-3e21b953ec39083d43815ade69112265._googlecast._tcp.local")))
        #expect(m.additionals.map(\.type) == [.txt, .srv, .a])
        #expect(m.additionals.allSatisfy { $0.cacheFlush })
        guard case .txt(let txt) = m.additionals[0].data else {
            Issue.record("no TXT")
            return
        }
        #expect(m.additionals[0].ttl == 4500)
        #expect(txt.string(forKey: "fn") == "Chromecast")
        #expect(txt.string(forKey: "CA") == "200709")
        #expect(txt.string(forKey: "rs") == "")
        #expect(txt.strings.count == 12)
        #expect(
            m.additionals[1].data
                == .srv(
                    priority: 0, weight: 0, port: 8009, target: DNSName("3e21b953-ec39-083d-4381-5ade69112265.local")))
        #expect(m.additionals[2].data == .a(IPv4Address(192, 168, 1, 103)))
    }

    @Test("a real Chrome query: three PTR questions sharing compressed suffixes")
    func chromeQuery() throws {
        let m = try Fixtures.message(Fixtures.chromeQuery)
        #expect(!m.isResponse && m.id == 102)
        #expect(
            m.questions.map(\.name.description) == [
                "_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp.local",
                "_5E81F6DB._sub._googlecast._tcp.local", "_googlecast._tcp.local",
            ])
        #expect(m.questions.allSatisfy { $0.type == .ptr && !$0.unicastResponse && $0.dnsClass == .internet })
    }

    @Test("truncating a real response at every offset gives a located error and keeps what came before")
    func truncatedEverywhere() throws {
        let full = Fixtures.chromecastResponse
        for cut in 0..<full.count {
            let prefix = Array(full.prefix(cut))
            let (message, error): (DNSMessage?, DecodeError?) = prefix.withUnsafeBytes {
                DNSMessage.decodePartial(ByteCursor($0))
            }
            let e = try #require(error, "cut at \(cut) must fail")
            #expect(e.offset <= cut, "cut at \(cut): offset \(e.offset)")
            if cut < 12 {
                #expect(message == nil)
            } else {
                let m = try #require(message)
                // Records decoded before the cut are complete and correct.
                let total = m.answers.count + m.additionals.count
                #expect(total <= 3)
                if cut >= 92 { #expect(m.answers.count == 1) }
            }
        }
    }

    @Test("QU and cache-flush bits are separated from the class")
    func mdnsBits() throws {
        var b = Fixtures.header(flags: 0, qd: 1)
        b += Fixtures.wireName("_googlecast._tcp.local") + [0, 12, 0x80, 0x01]
        let m = try Fixtures.message(b)
        #expect(m.questions[0].unicastResponse)
        #expect(m.questions[0].dnsClass == .internet)
    }

    @Test("header counts are not trusted: a huge count with no data fails cleanly")
    func lyingCounts() {
        let b = Fixtures.header(qd: 0xFFFF, an: 0xFFFF, ns: 0xFFFF, ar: 0xFFFF)
        #expect(throws: DecodeError.truncated(offset: 12, needed: 1, available: 0)) { try Fixtures.message(b) }
    }

    @Test("NSEC, OPT, HINFO, AAAA and unknown types")
    func otherTypes() throws {
        var b = Fixtures.header(an: 3, ar: 2)
        let host = Fixtures.wireName("host.local")
        // NSEC host.local -> host.local, types A(1) and AAAA(28): window 0, 4 bytes.
        let nsecRData: [UInt8] = [0xC0, 12, 0, 4, 0x40, 0, 0, 0x08]
        b += host + [0, 47, 0x80, 1, 0, 0, 0, 120, 0, UInt8(nsecRData.count)] + nsecRData
        // AAAA 2001:db8::1
        b +=
            [0xC0, 12, 0, 28, 0x80, 1, 0, 0, 0, 120, 0, 16, 0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [
                1
            ]
        // HINFO "ARMV7" "LINUX"
        b += [0xC0, 12, 0, 13, 0, 1, 0, 0, 0, 120, 0, 12, 5] + Array("ARMV7".utf8) + [5] + Array("LINUX".utf8)
        // OPT: root, udp 1440, DO bit, option 4 (Owner) with 2 bytes
        b += [0, 0, 41, 0x05, 0xA0, 0, 0, 0x80, 0, 0, 6, 0, 4, 0, 2, 0xAB, 0xCD]
        // TYPE65280 with 3 bytes
        b += [0xC0, 12, 0xFF, 0x00, 0, 1, 0, 0, 0, 1, 0, 3, 1, 2, 3]
        let m = try Fixtures.message(b)
        #expect(m.answers[0].data == .nsec(next: DNSName("host.local"), types: [.a, .aaaa]))
        #expect(m.answers[1].data == .aaaa(IPv6Address("2001:db8::1")!))
        #expect(m.answers[2].data == .hinfo(cpu: Array("ARMV7".utf8), os: Array("LINUX".utf8)))
        let opt = m.additionals[0]
        #expect(opt.type == .opt && opt.dnsClass.rawValue == 1440 && !opt.cacheFlush && opt.ttl & 0x8000 != 0)
        #expect(opt.data == .opt([EDNSOption(code: 4, data: [0xAB, 0xCD])]))
        #expect(m.additionals[1].data == .unknown([1, 2, 3]))
        #expect(m.additionals[1].type.description == "TYPE65280")
    }

    @Test(
        "impossible rdata is rejected with its offset",
        arguments: [
            // A with 3 bytes
            (
                [0, 1, 0, 1, 0, 0, 0, 1, 0, 3, 1, 2, 3] as [UInt8],
                DecodeError.invalid(offset: 21, field: .rdataLength(type: 1, length: 3))
            ),
            // PTR whose name runs past rdlength (rdlength 2, name is 3 bytes)
            ([0, 12, 0, 1, 0, 0, 0, 1, 0, 2, 1, 0x61, 0], .invalid(offset: 23, field: .rdataOverrun(type: 12))),
            // TXT string longer than the rdata
            ([0, 16, 0, 1, 0, 0, 0, 1, 0, 2, 5, 0x61], .truncated(offset: 24, needed: 5, available: 1)),
            // rdlength beyond the message
            ([0, 16, 0, 1, 0, 0, 0, 1, 0, 9, 1], .truncated(offset: 23, needed: 9, available: 1)),
            // NSEC with a zero-length bitmap
            ([0, 47, 0, 1, 0, 0, 0, 1, 0, 3, 0, 0, 0], .invalid(offset: 24, field: .nsecBitmap)),
            // NSEC whose bitmap says 9 bytes and has 1: the first missing byte
            ([0, 47, 0, 1, 0, 0, 0, 1, 0, 4, 0, 0, 9, 0x40], .truncated(offset: 27, needed: 1, available: 0)),
            // NSEC windows out of order
            (
                [0, 47, 0, 1, 0, 0, 0, 1, 0, 7, 0, 1, 1, 0x40, 0, 1, 0x40],
                .invalid(offset: 27, field: .nsecBitmap)
            ),
            // SRV with rdlength 4: its port is outside the rdata
            ([0, 33, 0, 1, 0, 0, 0, 1, 0, 4, 0, 0, 0, 0], .truncated(offset: 27, needed: 2, available: 0)),
            // SRV whose target runs past rdlength
            (
                [0, 33, 0, 1, 0, 0, 0, 1, 0, 7, 0, 0, 0, 0, 0, 80, 1, 0x61, 0],
                .invalid(offset: 29, field: .rdataOverrun(type: 33))
            ),
            // OPT with an option header cut in the rdata
            ([0, 41, 0x05, 0xA0, 0, 0, 0, 0, 0, 3, 0, 4, 0], .truncated(offset: 25, needed: 2, available: 1)),
            // HINFO with its OS string missing
            ([0, 13, 0, 1, 0, 0, 0, 1, 0, 2, 1, 0x61], .truncated(offset: 25, needed: 1, available: 0)),
            // AAAA with 4 bytes
            (
                [0, 28, 0, 1, 0, 0, 0, 1, 0, 4, 1, 2, 3, 4],
                .invalid(offset: 21, field: .rdataLength(type: 28, length: 4))
            ),
            // the owner name's compression pointer goes forwards
            ([0xC0, 0x20], .badPointer(offset: 12, target: 0x20)),
        ] as [([UInt8], DecodeError)])
    func badRData(tail: [UInt8], expected: DecodeError) {
        // Owner: root at offset 12 (the last case replaces it with a pointer).
        let b = Fixtures.header(an: 1) + (tail.first == 0xC0 ? [] : [0]) + tail
        #expect(throws: expected) { try Fixtures.message(b) }
        // In a frame, the same fault sits where the message does.
        let (m, e) = b.withUnsafeBytes { DNSMessage.decodePartial(ByteCursor($0, base: 42)) }
        #expect(e?.offset == expected.offset + 42)
        #expect(m?.answers.isEmpty == true && m?.counts == [0, 1, 0, 0])
    }

    @Test("a decode error keeps the records before it")
    func partial() throws {
        var b = Fixtures.header(an: 2)
        b += [0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 4, 192, 0, 2, 1]  // A . 192.0.2.1
        b += [0xC0, 0x40]  // forward pointer
        let (m, e) = b.withUnsafeBytes { DNSMessage.decodePartial(ByteCursor($0)) }
        #expect(
            m?.answers == [
                DNSResourceRecord(name: .root, type: .a, ttl: 1, rdlength: 4, data: .a(IPv4Address(192, 0, 2, 1)))
            ])
        #expect(m?.counts == [0, 2, 0, 0])
        #expect(e == .badPointer(offset: 27, target: 0x40))
    }

    @Test("a packet from the materialising decoder reads its message again as a view")
    func messageViewOfPacket() throws {
        typealias F = LinkTestFrames
        let frame = F.ethernet(.v4)
        let (decoded, _) = decodeLinkTestFrame(.ethernet, frame)
        let p = try expectCastResponse(decoded, flow: LinkTestIP.v4.flow)
        let seen = p.withMessageView { view -> (id: UInt16, base: Int, bytes: [UInt8], types: [DNSRecordType])? in
            guard let view else { return nil }
            var types: [DNSRecordType] = []
            view.forEachRecord { types.append($0.type) }
            return (view.id, view.message.base, Array(view.message.bytes), types)
        }
        let v = try #require(seen)
        #expect(v.id == 0 && v.types == [.ptr, .txt, .srv, .a])
        #expect(v.base == 14 + 20 + 8 && v.bytes == linkTestCastResponse)

        // Cut inside the second record: the view finds the same fault at the same frame offset.
        let cut = Array(frame.prefix(14 + 20 + 8 + 120))
        let (partial, _) = decodeLinkTestFrame(.ethernet, cut)
        let q = try #require(partial)
        let recheck = q.withMessageView { view in view.map { DNSMessageView.check($0.message).error } }
        #expect(recheck == .some(q.error?.error) && q.error?.layer == .dns)
        #expect(q.withMessageView { $0?.recordCount(in: .answer) } == 1)

        // No view without a whole header; a message set as a value is read back from its wire
        // format (the one parser), and a payload without a message has no view.
        let (headerless, _) = decodeLinkTestFrame(.ethernet, Array(frame.prefix(14 + 20 + 8 + 5)))
        #expect(try #require(headerless).withMessageView { $0 == nil })
        var replaced = p
        replaced.payload = .mdns(p.mdns)
        // (written without compression, so compare everything but rdlength)
        let reread = replaced.withMessageView { $0.map { DNSMessage($0) } }
        #expect(reread?.answers.map(\.data) == p.mdns?.answers.map(\.data))
        #expect(reread?.additionals.map(\.data) == p.mdns?.additionals.map(\.data))
        #expect(reread?.answers.map(\.name) == p.mdns?.answers.map(\.name))
        #expect(replaced == p)
        replaced.payload = .mdns(nil)
        #expect(replaced.withMessageView { $0 == nil })
    }
}

@Suite("TXT key=value view (RFC 6763 §6)")
struct TXTRecordTests {
    @Test("keys are case-insensitive, first occurrence wins, values are binary-safe")
    func entries() {
        let t = TXTRecord(strings: [
            Array("fn=Living Room".utf8), Array("FN=Other".utf8), Array("flag".utf8), Array("=novalue".utf8),
            [0x62, 0x69, 0x6E, 0x3D, 0x00, 0xFF, 0x3D], Array("empty=".utf8),
        ])
        #expect(t.entries.map(\.keyText) == ["fn", "flag", "bin", "empty"])
        #expect(t.string(forKey: "Fn") == "Living Room")
        #expect(t.value(forKey: "flag") == .some(nil))
        #expect(t.value(forKey: "missing") == nil)
        #expect(t.value(forKey: "bin") == .some([0x00, 0xFF, 0x3D]))
        #expect(t.string(forKey: "empty") == "")
    }
}
