import CastDiscovery
import Testing
import WireFormat

@testable import Reports

// The probe's own table, in text and Markdown: what each connection outcome reads as, and what
// a probe that heard nothing says.

@Suite struct ProbeReportTests {
    static let t0 = Timestamp(seconds: 1_800_000_000, nanoseconds: 0)

    static func summary(_ devices: [ProbeSummary.Device], ssdpAnswers: Int = 0) -> ProbeSummary {
        var s = ProbeSummary(
            interface: "eth0", addresses: [.v4(IPv4Address(192, 0, 2, 10))], families: ["ipv4"], appIDs: ["233637DE"],
            durationSeconds: 5, started: t0, captured: true, captureNote: nil, written: "p.pcap")
        s.queries = [
            ProbeSummary.Query(
                time: t0, family: "ipv4", unicastResponse: true, questions: ["_googlecast._tcp.local PTR"],
                knownAnswers: 0, truncated: false),
            ProbeSummary.Query(
                time: t0, family: "ipv4", unicastResponse: false, questions: ["TV._googlecast._tcp.local SRV"],
                knownAnswers: 0, truncated: false),
        ]
        s.mSearches = 3
        s.ssdpAnswers = ssdpAnswers
        s.devices = devices
        return s
    }

    static func device(_ name: String, _ connect: ProbeConnectResult?, firstAnswerMs: Double? = 12.5)
        -> ProbeSummary.Device
    {
        ProbeSummary.Device(
            instance: "\(name)._googlecast._tcp.local", name: name, id: nil, model: "Chromecast",
            addresses: [.v4(IPv4Address(192, 0, 2, 21))], port: 8009, resolved: true, firstAnswerMs: firstAnswerMs,
            foundUnder: ["_googlecast._tcp"], connect: connect)
    }

    static let tv = IPAddress.v4(IPv4Address(192, 0, 2, 21))

    @Test func eachOutcomeReadsAsWhatHappened() {
        let s = Self.summary([
            Self.device(
                "Living Room TV",
                ProbeConnectResult(
                    address: Self.tv, port: 8009, outcome: .established, started: Self.t0, connectMs: 0.42, tlsMs: 5.25,
                    tlsVersion: "TLSv1.3")),
            Self.device(
                "Kitchen",
                ProbeConnectResult(
                    address: Self.tv, port: 8009, outcome: .refused, started: Self.t0, error: "Connection refused")),
            Self.device("Bedroom", nil, firstAnswerMs: nil),
        ])
        #expect(s.answered && !s.allReachable)
        let text = ProbeReport.text(s)
        #expect(
            text.hasPrefix(
                "castscope probe on eth0 (192.0.2.10) for 5.00 s: 1 query over IPv4 and 1 follow-up question packet, "
                    + "3 DIAL M-SEARCHes; captured, written to p.pcap\n"))
        #expect(text.contains("Devices found by the probe (3):"))
        #expect(text.contains("established: TCP 0.4 ms, TLSv1.3 5.3 ms"))
        #expect(text.contains("refused (Connection refused)"))
        #expect(text.contains("not tried (--no-connect)"))
        #expect(text.contains("192.0.2.21:8009"))
        let md = ProbeReport.markdown(s)
        #expect(
            md.contains(
                "| Living Room TV | Chromecast | 192.0.2.21:8009 | 13 ms | established: TCP 0.4 ms, TLSv1.3 5.3 ms |"))
    }

    @Test func nothingAnsweredIsSaidPlainly() {
        let s = Self.summary([])
        #expect(!s.answered)
        #expect(
            ProbeReport.text(s).contains(
                "Nothing answered: no Cast device sent an mDNS answer or a DIAL response on eth0"))
        #expect(ProbeReport.markdown(s).contains("**Nothing answered**"))
        // A DIAL answer alone is an answer.
        #expect(Self.summary([], ssdpAnswers: 1).answered)
    }

    @Test func namesFromTheNetworkCannotMoveTheCursor() {
        let s = Self.summary([Self.device("TV\u{1B}[2J", nil)])
        #expect(!ProbeReport.text(s).contains("\u{1B}"))
    }
}
