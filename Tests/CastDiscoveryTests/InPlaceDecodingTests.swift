import CastDiscovery
import Foundation
import PcapCapture
import Testing
import WireFormat

// The analysis hot path reads mDNS in place (DNSMessageView, DiscoveryDecoder.decodeInPlace,
// DiscoveryTracker.ingest(_:message:capture:)). It must find exactly what the materialising
// path finds: the same faults, records, names and, in the end, the same report.

enum InPlaceSupport {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let external = repoRoot.appendingPathComponent("../shared/captures/external").standardizedFileURL

    /// Every capture of the project, and the external ones when `../shared` is there.
    static func captures() -> [URL] {
        let fm = FileManager.default
        var out = (try? fm.contentsOfDirectory(atPath: repoRoot.appendingPathComponent("captures").path)) ?? []
        var urls = out.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
            .map { repoRoot.appendingPathComponent("captures").appendingPathComponent($0) }
        if let e = fm.enumerator(atPath: external.path) {
            out = (e.allObjects as? [String] ?? []).filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
            urls += out.map { external.appendingPathComponent($0) }
        }
        return urls
    }

    static var externalPresent: Bool { FileManager.default.fileExists(atPath: external.path) }

    /// Opens a capture with the prefilter, as `castscope analyze` does (nil if libpcap cannot).
    static func open(_ url: URL) -> CaptureFile? {
        guard let file = try? CaptureFile(path: url.path), file.linkType.isSupported else { return nil }
        if let expression = DiscoveryFilter.expression(for: file.linkType) { try? file.setFilter(expression) }
        return file
    }
}

@Suite("In-place mDNS decoding")
struct InPlaceDecodingTests {
    @Test("the external captures are there in CI")
    func externalPresentInCI() {
        if ProcessInfo.processInfo.environment["CI"] != nil {
            #expect(InPlaceSupport.externalPresent, "../shared/captures/external is missing in CI")
        }
    }

    @Test(
        "DNSMessageView finds what DNSMessage.decodePartial decodes, packet by packet",
        arguments: InPlaceSupport.captures())
    func viewMatchesDecode(_ url: URL) throws {
        guard let full = InPlaceSupport.open(url), let inPlace = InPlaceSupport.open(url) else { return }
        var a = DiscoveryDecoder(linkType: full.linkType)
        var b = DiscoveryDecoder(linkType: inPlace.linkType)
        var materialised: [DiscoveryPacket] = []
        _ = full.forEachRecord { frame, header, bytes in
            if let p = a.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                materialised.append(p)
            }
        }
        var index = 0
        var checked = 0
        _ = inPlace.forEachRecord { frame, header, bytes in
            b.decodeInPlace(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
            ) {
                packet, view in
                defer { index += 1 }
                guard index < materialised.count else {
                    Issue.record("\(url.lastPathComponent): more packets in place than materialised")
                    return
                }
                let m = materialised[index]
                #expect(packet.frame == m.frame)
                #expect(packet.error == m.error, "\(url.lastPathComponent) frame \(m.frame)")
                #expect(packet.legacyUnicast == m.legacyUnicast)
                #expect(packet.isMDNS == m.isMDNS)
                #expect((view != nil) == (m.mdns != nil), "\(url.lastPathComponent) frame \(m.frame)")
                if let view, let message = m.mdns {
                    Self.compare(view, message, where: "\(url.lastPathComponent) frame \(m.frame)")
                    checked += 1
                }
            }
        }
        #expect(index == materialised.count)
        #expect(a.statistics == b.statistics)
        #expect(checked == materialised.filter { $0.mdns != nil }.count)
    }

    /// Every question and record of the view against the decoded message.
    static func compare(_ view: DNSMessageView, _ m: DNSMessage, where place: String) {
        #expect(view.id == m.id && view.flags == m.flags, "\(place)")
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
        defer { scratch.deallocate() }
        var questions: [(wire: [UInt8], type: DNSRecordType, qu: Bool)] = []
        view.forEachQuestion { q in
            questions.append((Array(view.name(at: q.nameOffset, into: scratch)), q.type, q.unicastResponse))
        }
        #expect(questions.count == m.questions.count, "\(place)")
        for (q, d) in zip(questions, m.questions) {
            #expect(q.wire == d.name.wire && q.type == d.type && q.qu == d.unicastResponse, "\(place)")
        }
        var records: [(DNSSection, DNSRecordView)] = []
        view.forEachRecord { records.append(($0.section, $0)) }
        let decoded = m.allRecords
        #expect(records.count == decoded.count, "\(place)")
        for ((section, r), (dSection, d)) in zip(records, decoded) {
            #expect(section == dSection && r.type == d.type && r.ttl == d.ttl && r.rdlength == d.rdlength, "\(place)")
            #expect(Array(view.name(at: r.nameOffset, into: scratch)) == d.name.wire, "\(place)")
            switch d.data {
            case .a(let a): #expect(view.ipv4(r) == a, "\(place)")
            case .aaaa(let a): #expect(view.ipv6(r) == a, "\(place)")
            case .name(let n):
                #expect(Array(view.name(at: view.rdataNameOffset(r), into: scratch)) == n.wire, "\(place)")
            case .srv(_, _, let port, let target):
                #expect(view.srvPort(r) == port, "\(place)")
                #expect(Array(view.name(at: view.rdataNameOffset(r), into: scratch)) == target.wire, "\(place)")
            case .txt(let txt):
                #expect(Array(view.rdata(r)) == txt.wire, "\(place)")
                #expect(TXTRecord(wire: view.rdata(r)) == txt, "\(place)")
            default: break
            }
        }
    }

    @Test("mutated messages: the same fault, at the same offset, after the same records")
    func mutatedMessagesAgree() throws {
        // The mDNS payloads of the project's captures, each mutated many times (seeded).
        var payloads: [[UInt8]] = []
        for url in InPlaceSupport.captures() where !url.path.contains("external") {
            guard let file = InPlaceSupport.open(url) else { continue }
            var decoder = DiscoveryDecoder(linkType: file.linkType)
            _ = file.forEachRecord { frame, header, bytes in
                decoder.decodeInPlace(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
                ) { _, view in
                    if let view, payloads.count < 400 { payloads.append(Array(view.message.bytes)) }
                }
            }
        }
        #expect(payloads.count >= 100)
        var rng = SplitMix(seed: 0x6361_7374)
        var faults = 0
        var runs = 0
        for payload in payloads {
            for _ in 0..<25 {
                var m = payload
                switch rng.next() % 4 {
                case 0: m = Array(m.prefix(Int(rng.next() % UInt64(m.count + 1))))
                case 1:
                    for _ in 0..<(1 + rng.next() % 4) where !m.isEmpty {
                        m[Int(rng.next() % UInt64(m.count))] = UInt8(truncatingIfNeeded: rng.next())
                    }
                case 2:
                    // A compression pointer somewhere.
                    if m.count > 2 {
                        let at = Int(rng.next() % UInt64(m.count - 1))
                        m[at] = 0xC0 | UInt8(truncatingIfNeeded: rng.next() & 0x3F)
                        m[at + 1] = UInt8(truncatingIfNeeded: rng.next())
                    }
                default:
                    // A length byte or count made large.
                    if !m.isEmpty { m[Int(rng.next() % UInt64(m.count))] = 0xFF }
                }
                m.withUnsafeBytes { raw in
                    let cursor = ByteCursor(raw)
                    let (decoded, e1) = DNSMessage.decodePartial(cursor)
                    let (view, e2) = DNSMessageView.check(cursor)
                    #expect(e1 == e2)
                    #expect((decoded == nil) == (view == nil))
                    if let decoded, let view {
                        #expect(view.decodedCounts.0 == decoded.questions.count)
                        #expect(view.recordCount(in: .answer) == decoded.answers.count)
                        #expect(view.recordCount(in: .authority) == decoded.authorities.count)
                        #expect(view.recordCount(in: .additional) == decoded.additionals.count)
                        Self.compare(view, decoded, where: "mutation")
                    }
                    if e1 != nil { faults += 1 }
                    runs += 1
                }
            }
        }
        // The mutations must exercise the fault paths, not only the happy one.
        #expect(faults > runs / 4)
    }

    @Test("the report is the same from the in-place and the materialising path", arguments: InPlaceSupport.captures())
    func sameReport(_ url: URL) throws {
        guard let f1 = InPlaceSupport.open(url), let f2 = InPlaceSupport.open(url) else { return }
        var d1 = DiscoveryDecoder(linkType: f1.linkType)
        var d2 = DiscoveryDecoder(linkType: f2.linkType)
        var t1 = DiscoveryTracker()
        var t2 = DiscoveryTracker()
        _ = f1.forEachRecord { frame, header, bytes in
            if let p = d1.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                t1.ingest(p, capture: 0)
            }
        }
        _ = f2.forEachRecord { frame, header, bytes in
            d2.decodeInPlace(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
            ) {
                p, view in t2.ingest(p, message: view, capture: 0)
            }
        }
        let info = CaptureInfo(file: url.lastPathComponent, linkType: f1.linkTypeName)
        let r1 = AnalysisReport(captures: [info], timelines: [t1.finish()], options: AnalysisOptions(), merged: false)
        let r2 = AnalysisReport(captures: [info], timelines: [t2.finish()], options: AnalysisOptions(), merged: false)
        #expect(r1.devices == r2.devices)
        #expect(r1.clients == r2.clients)
        #expect(r1.latency == r2.latency)
        #expect(r1.responses == r2.responses)
        #expect(r1.queries == r2.queries)
        #expect(r1.findings == r2.findings)
        #expect(r1.malformedCount == r2.malformedCount)
        #expect(
            r1.malformedFrames.map { "\($0.frame) \($0.reason)" }
                == r2.malformedFrames.map { "\($0.frame) \($0.reason)" })
        #expect(r1.reflectedFrames == r2.reflectedFrames && r1.reflectedTTLs == r2.reflectedTTLs)
    }
}

/// A small seeded generator (SplitMix64), so the mutations are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
