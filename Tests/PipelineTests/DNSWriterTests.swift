import Foundation
import Testing
import WireFormat

@testable import Pipeline

/// `DNSMessage.wireFormat()` writes what the one parser reads back as the same message: every
/// whole mDNS message of every bundled and external capture makes the round trip (PTR, SRV,
/// TXT, A, AAAA, NSEC, OPT, HINFO and unknown types among them).
@Suite struct DNSWriterTests {
    static func captures() -> [String] {
        let root = PipelineSupport.repoRoot
        var paths =
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("captures").path))
            ?? []).filter { $0.hasSuffix(".pcap") }.sorted().map { root.appendingPathComponent("captures/\($0)").path }
        let external = root.appendingPathComponent("../shared/captures/external").standardizedFileURL
        if let e = FileManager.default.enumerator(atPath: external.path) {
            for case let f as String in e where f.hasSuffix(".pcap") || f.hasSuffix(".pcapng") {
                paths.append(external.appendingPathComponent(f).path)
            }
        }
        return paths
    }

    @Test func wholeMessagesOfEveryCaptureSurviveTheRoundTrip() throws {
        var checked = 0
        var types = Set<UInt16>()
        for path in Self.captures() {
            guard case .success(var run) = CaptureRun.open(path, notices: { _ in }) else { continue }
            _ = run.forEachPacket { packet in
                guard packet.error == nil, let m = packet.mdns else { return }
                let wire = m.wireFormat()
                let back = wire.withUnsafeBytes { raw -> DNSMessage? in
                    let checked = DNSMessageView.check(ByteCursor(raw))
                    guard checked.error == nil, let view = checked.view else { return nil }
                    return DNSMessage(view)
                }
                // Written without compression, so only rdlength (and the counts a malformed
                // header claimed) may differ.
                var expected = m
                expected.counts = [m.questions.count, m.answers.count, m.authorities.count, m.additionals.count]
                #expect(
                    back.map(Self.ignoringLengths) == Self.ignoringLengths(expected), "\(path) frame \(packet.frame)")
                for r in m.answers + m.authorities + m.additionals { types.insert(r.type.rawValue) }
                checked += 1
            }
        }
        #expect(checked > 500)
        // The bundled captures alone have PTR, SRV, TXT, A, AAAA and NSEC.
        #expect(types.isSuperset(of: [12, 33, 16, 1, 28, 47]))
    }

    static func ignoringLengths(_ m: DNSMessage) -> DNSMessage {
        var m = m
        for i in m.answers.indices { m.answers[i].rdlength = 0 }
        for i in m.authorities.indices { m.authorities[i].rdlength = 0 }
        for i in m.additionals.indices { m.additionals[i].rdlength = 0 }
        return m
    }

    @Test func aHandWrittenQueryIsTheBytesRFC6762Expects() {
        var m = DNSMessage()
        m.questions = [
            DNSQuestion(
                name: DNSName(labels: [Array("_googlecast".utf8), Array("_tcp".utf8), Array("local".utf8)]),
                type: .ptr, unicastResponse: true)
        ]
        let wire = m.wireFormat()
        #expect(Array(wire.prefix(12)) == [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        #expect(wire[12] == 11)
        #expect(Array(wire.suffix(5)) == [0, 0, 12, 0x80, 1])  // root, PTR, QU bit + IN
    }
}
