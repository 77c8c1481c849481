import Testing

@testable import WireFormat

/// SSDP decoding over bytes against the String-based implementation it replaced (kept here as
/// the oracle), on real messages and on seeded mutations full of the bytes that matter: CR, LF,
/// spaces, tabs, colons, brackets, slashes and invalid UTF-8.
@Suite("SSDP fast paths")
struct SSDPFastPathTests {
    typealias Seeded = TextFastPathTests.Seeded

    /// The decoder before issue 14's byte-based one.
    static func referenceDecode(_ bytes: [UInt8]) -> (startLine: String, headers: [(String, String)])? {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var headersEnded = false
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            var end = i
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            let line = bytes[start..<end]
            start = i + 1
            if line.isEmpty, !lines.isEmpty {
                headersEnded = true
                break
            }
            lines.append(line)
        }
        if !headersEnded, start < bytes.count { lines.append(bytes[start...]) }
        guard let first = lines.first, !first.isEmpty, first.contains(0x20) else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            headers.append(
                (
                    trim(String(decoding: line[line.startIndex..<colon], as: UTF8.self)),
                    trim(String(decoding: line[line.index(after: colon)...], as: UTF8.self))
                ))
        }
        return (String(decoding: first, as: UTF8.self), headers)
    }

    static func trim(_ s: String) -> String {
        let scalars = s.unicodeScalars
        var a = scalars.startIndex
        var e = scalars.endIndex
        while a < e, scalars[a] == " " || scalars[a] == "\t" { a = scalars.index(after: a) }
        while e > a, scalars[scalars.index(before: e)] == " " || scalars[scalars.index(before: e)] == "\t" {
            e = scalars.index(before: e)
        }
        return String(scalars[a..<e])
    }

    /// `address(inURL:)` before issue 14, cut as characters.
    static func referenceAddress(_ url: String) -> IPAddress? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        var host = url[schemeEnd.upperBound...].prefix { $0 != "/" }
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return IPAddress(host)
    }

    static let samples: [String] = [
        "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\n"
            + "ST: urn:dial-multiscreen-org:service:dial:1\r\nUSER-AGENT: Google Chrome/99.0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nLOCATION: http://192.168.1.20:8008/ssdp/device-desc.xml"
            + "\r\nST: urn:dial-multiscreen-org:service:dial:1\r\nUSN: uuid:1234::urn:dial\r\n\r\n",
        "NOTIFY * HTTP/1.1\nHOST:239.255.255.250:1900\nNT: upnp:rootdevice\nNTS: ssdp:alive\n"
            + "LOCATION: http://[fe80::1]:49152/desc.xml\n\nbody",
    ]

    static let alphabet: [UInt8] = [
        0x0D, 0x0A, 0x20, 0x09, 0x3A, 0x2F, 0x5B, 0x5D, 0x41, 0x61, 0x31, 0xC3, 0xA9, 0xFF, 0x80,
    ]

    /// A sample with a few bytes replaced, inserted or cut.
    static func mutated(_ g: inout Seeded) -> [UInt8] {
        var bytes = Array(samples[Int(g.next() % UInt64(samples.count))].utf8)
        for _ in 0..<(1 + g.next() % 6) {
            let at = Int(g.next() % UInt64(bytes.count + 1))
            let b = alphabet[Int(g.next() % UInt64(alphabet.count))]
            switch g.next() % 3 {
            case 0 where at < bytes.count: bytes[at] = b
            case 1: bytes.insert(b, at: at)
            default: bytes = Array(bytes[..<at])
            }
            if bytes.isEmpty { bytes = [0x20] }
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> SSDPMessage? {
        try? withCursor(over: bytes) { (c: inout ByteCursor) throws(DecodeError) in try SSDPMessage.decode(c) }
    }

    @Test("Byte-based decoding gives the reference's lines, names and values on 20,000 mutations")
    func decodeAgrees() {
        var g = Seeded(state: 14)
        var mismatches = 0
        for n in 0..<20_000 {
            let bytes = n < Self.samples.count ? Array(Self.samples[n].utf8) : Self.mutated(&g)
            let ours = Self.decode(bytes)
            let reference = Self.referenceDecode(bytes)
            let same =
                ours?.startLine == reference?.startLine && ours?.headers.map(\.name) == reference?.headers.map(\.0)
                && ours?.headers.map(\.value) == reference?.headers.map(\.1)
            if !same {
                mismatches += 1
                if mismatches < 5 { Issue.record("differs on \(bytes)") }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("Header lookup and LOCATION's address agree with the reference on 20,000 mutations")
    func lookupAgrees() {
        var g = Seeded(state: 15)
        var mismatches = 0
        var found = 0
        let names = ["ST", "st", "LOCATION", "Location", "USN", "NTS", "cache-control", "HOST", "X", "\u{212A}"]
        for _ in 0..<20_000 {
            guard let m = Self.decode(Self.mutated(&g)) else { continue }
            for name in names {
                let wanted = name.lowercased()
                let reference = m.headers.first { $0.name.lowercased() == wanted }?.value
                if m.header(name) != reference { mismatches += 1 }
            }
            for h in m.headers {
                if SSDPMessage.address(inURL: h.value) != Self.referenceAddress(h.value) { mismatches += 1 }
                if SSDPMessage.address(inURL: h.value) != nil { found += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(found > 100)
    }

    @Test(
        "Addresses in URLs, ASCII or not",
        arguments: [
            "http://192.168.1.20:8008/x", "http://[fe80::1]:80/", "http://[2001:db8::21]/a", "http://host:1/",
            "192.168.1.20:80", "http://10.0.0.1", "http://10.0.0.1:", "http://é/10.0.0.1", "x://[10.0.0.1",
            "http://\u{212A}10.0.0.1/", "://1.2.3.4:5",
        ])
    func urls(url: String) {
        #expect(SSDPMessage.address(inURL: url) == Self.referenceAddress(url))
    }

    @Test("A header named with the Kelvin sign matches `k` as before")
    func kelvin() throws {
        let bytes = Array("NOTIFY * HTTP/1.1\r\n\u{212A}EY: v\r\n\r\n".utf8)
        let m = try #require(Self.decode(bytes))
        #expect(m.header("KEY") == "v")
        #expect(m.header("key") == "v")
    }
}
