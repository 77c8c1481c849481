import Testing

@testable import WireFormat

@Suite("SSDP decoding")
struct SSDPTests {
    static func decode(_ text: String) throws(DecodeError) -> SSDPMessage {
        try withCursor(over: Array(text.utf8)) { (c: inout ByteCursor) throws(DecodeError) in try SSDPMessage.decode(c)
        }
    }

    @Test("Chrome's DIAL M-SEARCH")
    func mSearch() throws {
        let m = try Self.decode(
            "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\n"
                + "ST: urn:dial-multiscreen-org:service:dial:1\r\nUSER-AGENT: Google Chrome/99.0 Mac OS X\r\n\r\n")
        #expect(m.kind == .mSearch)
        #expect(m.man == "\"ssdp:discover\"")
        #expect(m.mx == "1")
        #expect(m.searchTarget == "urn:dial-multiscreen-org:service:dial:1")
        #expect(m.isDIAL)
        #expect(m.userAgent == "Google Chrome/99.0 Mac OS X")
    }

    @Test(
        "DIAL is recognised in any ASCII case, anywhere in ST, NT or USN, and nowhere else",
        arguments: [
            ("urn:dial-multiscreen-org:service:dial:1", true), ("URN:DIAL-MULTISCREEN-ORG:SERVICE:DIAL:1", true),
            ("dial-multiscreen-org", true), ("x-Dial-Multiscreen-Org", true), ("dial-multiscreen-or", false),
            ("urn:schemas-upnp-org:device:MediaRenderer:1", false), ("", false),
            ("dial-multiscreen-ørg", false),
        ])
    func dialInAnyCase(value: String, expected: Bool) {
        #expect(SSDPMessage.mentionsDIAL(value) == expected)
        #expect(!SSDPMessage.mentionsDIAL(nil))
    }

    @Test("a Chromecast's answer, header names in any case, bare LF tolerated")
    func response() throws {
        let m = try Self.decode(
            "HTTP/1.1 200 OK\ncache-control: max-age=1800\nLocation: http://10.0.0.149:8008/ssdp/device-desc.xml\n"
                + "st: urn:dial-multiscreen-org:service:dial:1\nUsn: uuid:abc::urn:dial-multiscreen-org:service:dial:1\n"
                + "SERVER: Linux/3.8.13+, UPnP/1.0, Portable SDK for UPnP devices/1.6.18\n\nbody")
        #expect(m.kind == .response && m.status == 200)
        #expect(m.location == "http://10.0.0.149:8008/ssdp/device-desc.xml")
        #expect(m.maxAge == 1800)
        #expect(m.usn == "uuid:abc::urn:dial-multiscreen-org:service:dial:1")
        #expect(m.server?.hasPrefix("Linux/3.8.13+") == true)
        #expect(m.headers.count == 5)
    }

    @Test("NOTIFY ssdp:alive")
    func notify() throws {
        let m = try Self.decode("NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\nNTS: ssdp:alive\r\n\r\n")
        #expect(m.kind == .notify && m.notificationType == "upnp:rootdevice" && m.notificationSubtype == "ssdp:alive")
    }

    @Test(
        "binary junk on port 1900 is an error, not a crash", arguments: [[UInt8](), [0x00, 0x01, 0x02], [0x0D, 0x0A]])
    func junk(bytes: [UInt8]) {
        #expect(throws: DecodeError.self) {
            try withCursor(over: bytes) { (c: inout ByteCursor) throws(DecodeError) in try SSDPMessage.decode(c) }
        }
    }
}
