import CastDiscovery
import Foundation
import PcapCapture
import Testing
import WireFormat

// There is one DNS parser, the checked view (DNSMessageView.check); DNSMessage is
// materialised from it. These tests hold what it finds, on every capture and on mutated
// messages, against an independent decoder written for the tests (ReferenceDNSDecoder), and
// hold the decoder's two entry points (decode, decodeInPlace) and the tracker's two ingests
// together: the same packets, faults, statistics and, in the end, the same report.

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

    @Test("decode and decodeInPlace give the same packets, faults and views", arguments: InPlaceSupport.captures())
    func entryPointsAgree(_ url: URL) throws {
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
        var viewed = 0
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
                let place = "\(url.lastPathComponent) frame \(m.frame)"
                #expect(packet.frame == m.frame)
                #expect(packet.error == m.error, "\(place)")
                #expect(packet.legacyUnicast == m.legacyUnicast)
                #expect(packet.isMDNS == m.isMDNS)
                #expect(packet.mdns == nil && packet.withMessageView { $0 == nil }, "in-place packets keep no bytes")
                #expect((view != nil) == (m.mdns != nil), "\(place)")
                // The materialised packet's kept bytes give the view decodeInPlace gave.
                let kept = m.withMessageView { $0.map(ViewSummary.init) }
                #expect(kept == view.map(ViewSummary.init), "\(place)")
                if kept != nil { viewed += 1 }
            }
        }
        #expect(index == materialised.count)
        #expect(a.statistics == b.statistics)
        #expect(viewed == materialised.filter { $0.mdns != nil }.count)
    }

    @Test(
        "every mDNS message of every capture is what the reference decoder makes of it",
        arguments: InPlaceSupport.captures())
    func capturesMatchReference(_ url: URL) throws {
        guard let file = InPlaceSupport.open(url) else { return }
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var compared = 0
        _ = file.forEachRecord { frame, header, bytes in
            guard
                let p = decoder.decode(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength),
                let (message, base) = p.withMessageView({ v in v.map { (Array($0.message.bytes), $0.message.base) } })
            else { return }
            let (expected, fault) = ReferenceDNSDecoder.decodePartial(message, base: base)
            #expect(p.mdns == expected, "\(url.lastPathComponent) frame \(frame)")
            #expect(
                p.error == fault.map { PacketError(layer: .dns, error: $0) }, "\(url.lastPathComponent) frame \(frame)")
            compared += 1
        }
        // Unicast DNS about `.local` names is a DNS message too, counted apart from mDNS.
        #expect(
            compared == decoder.statistics.mdnsPackets + decoder.statistics.unicastDNSPackets
                - Self.mdnsWithoutHeader(url))
    }

    /// mDNS packets of `url` whose message has no whole header (or whose UDP failed).
    static func mdnsWithoutHeader(_ url: URL) -> Int {
        guard let file = InPlaceSupport.open(url) else { return 0 }
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var n = 0
        _ = file.forEachRecord { frame, header, bytes in
            decoder.decodeInPlace(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
            ) { p, view in if p.isMDNS && view == nil { n += 1 } }
        }
        return n
    }

    @Test("mutated messages: the reference decoder's fault, at its offset, after its records")
    func mutatedMessagesMatchReference() throws {
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
        var partial = 0
        var runs = 0
        let index = DNSMessageIndex()
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
                // A base as a UDP payload in a frame has: offsets in faults are frame-relative.
                let base = 42
                let (expected, fault) = ReferenceDNSDecoder.decodePartial(m, base: base)
                m.withUnsafeBytes { raw in
                    let cursor = ByteCursor(raw, base: base)
                    // Walking the message again, and reading the index the check filled.
                    for (decoded, error) in [
                        DNSMessage.decodePartial(cursor), DNSMessage.decodePartial(cursor, index: index),
                    ] {
                        #expect(error == fault)
                        #expect(decoded == expected)
                    }
                }
                if fault != nil { faults += 1 }
                if fault != nil, let e = expected, !(e.questions.isEmpty && e.allRecords.isEmpty) { partial += 1 }
                runs += 1
            }
        }
        // The mutations must exercise the fault paths, and keep records before faults.
        #expect(faults > runs / 4)
        #expect(partial > runs / 10)
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

/// What a view found: header, and every question and record with its names expanded.
struct ViewSummary: Equatable {
    var id: UInt16
    var flags: UInt16
    var base: Int
    var bytes: [UInt8]
    var items: [[UInt8]] = []

    init(_ view: DNSMessageView) {
        id = view.id
        flags = view.flags
        base = view.message.base
        bytes = Array(view.message.bytes)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
        defer { scratch.deallocate() }
        var items: [[UInt8]] = []
        view.forEachQuestion { q in
            items.append(Array(view.name(at: q.nameOffset, into: scratch)) + [UInt8(q.type.rawValue & 0xFF)])
        }
        view.forEachRecord { r in
            items.append(Array(view.name(at: r.nameOffset, into: scratch)) + Array(view.rdata(r)))
        }
        self.items = items
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
