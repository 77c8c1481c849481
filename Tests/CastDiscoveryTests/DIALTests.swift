import Foundation
import Testing
import WireFormat

@testable import CastDiscovery

// DIAL done properly: who searched (USER-AGENT), who answered (a Cast device or another DIAL
// server), how fast (per M-SEARCH), and what the verdict says when nobody answered. On the real
// external captures where they exist (../shared/captures/external), and on captures/dial-*.pcap.

private typealias S = DiagnosisSupport

private let hasExternal = FileManager.default.fileExists(atPath: S.external.path)

private func external(_ name: String) throws -> AnalysisReport {
    try S.report(paths: [S.external.appendingPathComponent(name).path])
}

private func ip(_ s: String) -> IPAddress { IPAddress(s)! }

private func findings(_ r: AnalysisReport, _ code: FindingCode) -> [Finding] {
    r.findings.filter { $0.code == code }
}

@Suite("DIAL: senders, Cast and other DIAL devices, answer latency, verdicts")
struct DIALTests {
    @Test("the USER-AGENT of an M-SEARCH names Chrome and the browsers built on it")
    func sender() {
        let chrome = DIALSender(userAgent: "Google Chrome/99.0.4844.74 Mac OS X")
        #expect(chrome.isChromium && chrome.name == "Google Chrome 99")
        #expect(DIALSender(userAgent: "Microsoft Edge/83.0.478.54 Windows").name == "Microsoft Edge 83")
        #expect(DIALSender(userAgent: "Microsoft Edge/83.0.478.54 Windows").isChromium)
        #expect(DIALSender(userAgent: "Brave Browser/81.1.9.76 Mac OS X").isChromium)
        #expect(DIALSender(userAgent: "Chromium/120.0.0.0 Linux").isChromium)
        let none = DIALSender(userAgent: nil)
        #expect(!none.isChromium && none.name == nil)
        let other = DIALSender(userAgent: "Netflix/7.1 iOS")
        #expect(!other.isChromium && other.name == "Netflix 7")
        #expect(!DIALSender(userAgent: "SomeTV").isChromium)
    }

    @Test("a Cast LOCATION is http://<ip>:8008/ssdp/device-desc.xml; Roku's :8060/dial/dd.xml is not")
    func castLocation() {
        func info(_ location: String?) -> DIALInfo {
            let t = Timestamp(seconds: 1, nanoseconds: 0)
            return DIALInfo(
                location: location, usn: nil, server: nil, address: ip("192.0.2.1"), firstSeen: t, lastSeen: t,
                leftAt: nil, firstFrame: FrameRef(capture: 0, frame: 1), leftFrame: nil)
        }
        #expect(info("http://10.0.0.149:8008/ssdp/device-desc.xml").hasCastLocation)
        #expect(info("http://[2001:db8::21]:8008/ssdp/device-desc.xml").hasCastLocation)
        #expect(info("HTTP://10.0.0.149:8008/SSDP/device-desc.xml").hasCastLocation)
        #expect(!info("http://10.0.0.151:8060/dial/dd.xml").hasCastLocation)
        #expect(!info("http://10.0.0.151:8008/dial/dd.xml").hasCastLocation)
        #expect(!info("http://10.0.0.151:7676/ssdp/device-desc.xml").hasCastLocation)
        #expect(!info(nil).hasCastLocation)
    }

    @Test(
        "anyconnect-vpn: the Chromecast is a Cast device answering in 86.316 ms, the Roku another DIAL device",
        .enabled(if: hasExternal, "../shared is absent"))
    func anyconnect() throws {
        // tshark -r ndpi/anyconnect-vpn.pcap -Y 'frame.number in {391 397}' -T fields -e frame.time_relative
        //   391 26.998781 M-SEARCH from 10.0.0.227:61328 (USER-AGENT Google Chrome/77.0.3865.90 Mac OS X)
        //   397 27.085097 200 OK from 10.0.0.149:38616, LOCATION http://10.0.0.149:8008/ssdp/device-desc.xml
        //   411 27.383905 200 OK from 10.0.0.151:1900, LOCATION http://10.0.0.151:8060/dial/dd.xml, Server Roku
        // M-SEARCH 412/503/524/531 (port 57547) answered by the Chromecast in 415/521/526/534.
        let r = try external("ndpi/anyconnect-vpn.pcap")
        #expect(r.devices.map(\.id) == ["79d88e83-725c-b71b-bad0-5862d5b22386"])
        #expect(r.devices[0].dial?.location == "http://10.0.0.149:8008/ssdp/device-desc.xml")
        #expect(r.otherDevices.map(\.id) == ["295c0004-6807-106d-80cf-d831342077fb"])
        let roku = try #require(r.otherDevices.first)
        #expect(roku.location == "http://10.0.0.151:8060/dial/dd.xml")
        #expect(roku.server == "Roku UPnP/1.0 Roku/9.1.0")
        #expect(roku.answers == 5 && roku.answeredClients == [ip("10.0.0.227")])
        #expect(roku.firstAnswerFrame == FrameRef(capture: 0, frame: 411))

        let rows = r.latency.filter { $0.via == .dial }
        #expect(rows.count == 5)
        #expect(rows.allSatisfy { $0.deviceID == "79d88e83-725c-b71b-bad0-5862d5b22386" })
        #expect(rows.map(\.sessionStartFrame.frame) == [391, 412, 503, 524, 531])
        #expect(rows.map { $0.firstAnswerFrame?.frame } == [397, 415, 521, 526, 534])
        #expect(rows.map { $0.firstAnswerMs! } == [86.316, 187.935, 156.41, 179.775, 203.777])
        #expect(rows.allSatisfy { $0.resolvedMs == nil && $0.resolvedMissing != nil })
        #expect(r.overall.dialAnswer?.count == 5 && r.overall.dialAnswer?.min == 86.316)
        #expect(r.overall.firstAnswer == nil)

        let c = try #require(r.clients.first)
        #expect(c.dialUserAgent == "Google Chrome/77.0.3865.90 Mac OS X")
        #expect(c.dialSearches == 5 && c.dialSearchesAnswered == 5)

        // Chrome with the Cast dialog closed, answered: a note, and nothing wrong.
        #expect(S.codes(r) == ["DIAL_ONLY"])
        let f = try #require(findings(r, .dialOnly).first)
        #expect(f.severity == .info)
        #expect(f.title.contains("Google Chrome 77"))
        #expect(!f.advice.contains("Cast SDK"))
        #expect(f.frames.contains(FrameRef(capture: 0, frame: 397)))
        #expect(Verdict(r.findings).line(r.findings).hasPrefix("OK"))
    }

    @Test(
        "ssdp-m-search-ua: Chrome 99's unanswered DIAL search is an error with Chrome's advice",
        .enabled(if: hasExternal, "../shared is absent"))
    func chromeUnanswered() throws {
        // tshark -r ndpi/ssdp-m-search-ua.pcap -Y ssdp -T fields -e ip.src -e http.user_agent
        //   4 × 192.168.242.50 "Google Chrome/99.0.4844.74 Mac OS X"; nothing else in the file.
        let r = try external("ndpi/ssdp-m-search-ua.pcap")
        #expect(r.devices.isEmpty && r.otherDevices.isEmpty)
        #expect(S.codes(r) == ["DIAL_UNANSWERED"])
        let f = try #require(r.findings.first)
        #expect(f.severity == .error)
        #expect(f.title == "192.168.242.50 (Google Chrome 99) searched with DIAL 4 times; no DIAL device answered")
        #expect(f.advice.contains("Cast dialog"))
        #expect(!f.advice.contains("Cast SDK"))
        #expect(f.frames.map(\.frame) == [1, 2, 3, 4])
        #expect(Verdict(r.findings).line(r.findings).hasPrefix("FAIL"))
    }

    @Test(
        "netflix: an app's unanswered DIAL search (no USER-AGENT) is an error with the legacy advice",
        .enabled(if: hasExternal, "../shared is absent"))
    func appUnanswered() throws {
        // tshark -r ndpi/netflix.pcap -Y 'ssdp contains "dial-multiscreen"' -T fields -e ip.src -e http.user_agent
        //   8 × 192.168.1.7 without USER-AGENT (the Netflix app; it also searches urn:mdx-netflix-com).
        let r = try external("ndpi/netflix.pcap")
        #expect(r.devices.isEmpty)
        #expect(S.codes(r) == ["DIAL_UNANSWERED"])
        let f = try #require(r.findings.first)
        #expect(f.severity == .error)
        #expect(f.title.hasPrefix("192.168.1.7 searched with DIAL 8 times"))
        #expect(f.advice.contains("Cast SDK"))
        #expect(Verdict(r.findings).line(r.findings).hasPrefix("FAIL"))
    }

    @Test(
        "ipfixprobe/ssdp: 9 searchers, none answered; browsers get Chrome's advice, the others an app's",
        .enabled(if: hasExternal, "../shared is absent"))
    func campus() throws {
        // tshark -r ipfixprobe/ssdp.pcap -Y 'ssdp contains "dial-multiscreen"' -T fields -e ip.src
        //   -e http.user_agent | sort | uniq -c: Chrome 83 ×5 hosts, Brave 81, Edge 83, 2 hosts without.
        let r = try external("ipfixprobe/ssdp.pcap")
        // One finding (one code, one severity) with the 9 searchers as its evidence.
        let fs = findings(r, .dialUnanswered)
        #expect(fs.count == 1 && S.codes(r) == ["DIAL_UNANSWERED"])
        let f = try #require(fs.first)
        #expect(f.severity == .error && f.evidence.count == 9 && f.title.hasPrefix("9 clients "))
        let lines = f.evidence.map(\.detail)
        #expect(lines.filter { $0.contains("(Google Chrome 83)") }.count == 5)
        #expect(lines.contains { $0.hasPrefix("147.229.183.89 (Microsoft Edge 83)") })
        #expect(lines.contains { $0.hasPrefix("147.229.181.211 (Brave Browser 81)") })
        // The two searchers without USER-AGENT get an app's advice, the browsers Chrome's.
        #expect(f.advice.contains("For 147.229.180.170 and 147.229.180.136: "))
        #expect(f.advice.contains("Cast dialog"))
        #expect(r.devices.isEmpty && r.otherDevices.isEmpty)
    }

    @Test(
        "telegram and home-multicast-short: DIAL-only searchers get DIAL_UNANSWERED, mDNS searchers do not",
        .enabled(if: hasExternal, "../shared is absent"))
    func mixed() throws {
        // telegram: 192.168.1.53 queries _googlecast (6) and searches DIAL (8); 192.168.1.75 (3, no
        // USER-AGENT) and 192.168.1.77 (4, Chrome 83) only DIAL; nothing answers anyone.
        let t = try external("ndpi/telegram.pcap")
        let subjects = findings(t, .dialUnanswered).flatMap(\.subjects.clients)
        #expect(subjects == ["192.168.1.75", "192.168.1.77"])
        #expect(findings(t, .dialOnly).isEmpty)
        #expect(findings(t, .dialUnanswered).allSatisfy { $0.severity == .error })
        // home-multicast-short: one DIAL M-SEARCH from 192.168.0.10 (frame 5), no answer.
        let h = try external("zeek/home-multicast-short.pcap")
        let f = try #require(findings(h, .dialUnanswered).first)
        #expect(f.subjects.clients == ["192.168.0.10"] && f.frames.first?.frame == 5)
        #expect(f.title.contains("DIAL once;"))
    }

    @Test(
        "sip-ssdp-pm: a UPnP NOTIFY that is not DIAL makes no DIAL device at all",
        .enabled(if: hasExternal, "../shared is absent"))
    func notDIAL() throws {
        let r = try external("suricata-verify/sip-ssdp-pm/ssdp.pcap")
        #expect(r.devices.isEmpty && r.otherDevices.isEmpty && r.clients.isEmpty)
        #expect(findings(r, .dialUnanswered).isEmpty && findings(r, .dialOnly).isEmpty)
    }

    @Test("dial-other-device: the Roku-style server is listed apart, the Chromecast-style one timed")
    func otherDevice() throws {
        // tshark -r captures/dial-other-device.pcap -Y 'udp contains "HTTP/1.1 200 OK"' -T fields
        //   -e frame.number -e ip.src -e udp.srcport: 21 24 26 29 from 192.0.2.21 (ephemeral ports),
        //   20 23 27 30 from 192.0.2.26:1900; M-SEARCH 15 22 25 28.
        let r = try S.report("dial-other-device.pcap")
        #expect(r.devices.map(\.id) == ["3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35"])
        #expect(r.otherDevices.map(\.id) == ["295c0004-6807-106d-80cf-0a1b2c3d4e5f"])
        #expect(r.otherDevices.first?.answers == 4)
        let rows = r.latency.filter { $0.via == .dial }
        #expect(rows.map(\.sessionStartFrame.frame) == [15, 22, 25, 28])
        #expect(rows.map { $0.firstAnswerFrame?.frame } == [21, 24, 26, 29])
        #expect(S.codes(r) == ["DIAL_ONLY"])
        #expect(findings(r, .dialOnly).first?.severity == .info)
        #expect(findings(r, .dialOnly).first?.subjects.devices == ["3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35"])
    }

    @Test("dial-unanswered: only a Roku-style server answered: an error naming it as not a Cast device")
    func onlyOther() throws {
        let r = try S.report("dial-unanswered.pcap")
        #expect(r.devices.isEmpty && r.otherDevices.count == 1)
        #expect(r.latency.isEmpty)
        #expect(S.codes(r) == ["DIAL_UNANSWERED"])
        let f = try #require(r.findings.first)
        #expect(f.severity == .error)
        #expect(f.title.hasSuffix("no Cast device answered, only other DIAL devices"))
        #expect(f.detail.contains("192.0.2.26") && f.detail.contains("not a Cast device"))
        #expect(f.frames.contains(try #require(r.otherDevices.first?.firstAnswerFrame)))
    }

    @Test("DIAL_UNANSWERED with Cast devices on the network: a note for Chrome, a warning for an app")
    func castDevicesElsewhere() throws {
        var r = try S.report("dial-unanswered.pcap")
        // A Cast device heard over mDNS (taken from healthy-ipv4.pcap), that did not answer DIAL.
        r.devices = try S.report("healthy-ipv4.pcap").devices
        let chrome = Diagnosis.diagnose(r).filter { $0.code == .dialUnanswered }
        #expect(chrome.map(\.severity) == [.info])
        #expect(chrome.first?.detail.contains("Cast devices are on the network") == true)
        r.clients[0].dialUserAgent = nil
        let app = Diagnosis.diagnose(r).filter { $0.code == .dialUnanswered }
        #expect(app.map(\.severity) == [.warning])
        #expect(app.first?.advice.contains("Cast SDK") == true)
    }

    @Test("DIAL_ONLY for an app is still a warning with the legacy advice")
    func appAnswered() throws {
        var r = try S.report("dial-ssdp.pcap")
        #expect(findings(r, .dialOnly).map(\.severity) == [.info])
        r.clients[0].dialUserAgent = nil
        let f = try #require(Diagnosis.diagnose(r).first { $0.code == .dialOnly })
        #expect(f.severity == .warning)
        #expect(f.advice.contains("Cast SDK"))
    }
}
