import CastDiscovery
import Foundation
import PcapCapture
import Testing

@testable import WireFormat

// A decoder remembers the check of the last few distinct messages and the tracker what it made
// of them (DNSMessageMemo, KeyedMessageMemo): a message repeated byte for byte is not checked
// or keyed again. These tests hold the remembered results against results worked out afresh.

@Suite("Repeated messages")
struct MessageMemoTests {
    /// Every mDNS message of a capture, as its bytes and frame-relative base.
    static func messages(_ url: URL) -> [(bytes: [UInt8], base: Int)] {
        guard let file = InPlaceSupport.open(url) else { return [] }
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var out: [(bytes: [UInt8], base: Int)] = []
        _ = file.forEachRecord { frame, header, bytes in
            decoder.decodeInPlace(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
            ) { _, view in
                if let view { out.append((Array(view.message.bytes), view.message.base)) }
            }
        }
        return out
    }

    /// Whether the memo keeps the check of `view` (found with an index, `error` its fault): it
    /// checked without a fault, it is short enough to keep (reassembled datagrams are not) and
    /// all its questions and records fitted in the index.
    static func remembered(_ view: DNSMessageView?, _ error: DecodeError?, length: Int) -> Bool {
        guard let view, error == nil, length <= DNSMessageMemo.maximumLength else { return false }
        let c = view.decodedCounts
        return c.0 <= DNSMessageIndex.capacity && c.1 + c.2 + c.3 <= DNSMessageIndex.capacity
    }

    @Test("a message checked again is recalled with what a fresh check finds", arguments: InPlaceSupport.captures())
    func recalledCheck(_ url: URL) {
        let index = DNSMessageIndex()
        for (bytes, base) in Self.messages(url) {
            bytes.withUnsafeBytes { raw in
                let fresh = DNSMessageView.check(ByteCursor(raw, base: base))
                // Twice with one index: the second time from memory when the first kept it.
                var stamps: [UInt64?] = []
                for _ in 0..<2 {
                    let (view, error) = DNSMessageView.check(ByteCursor(raw, base: base), index: index)
                    #expect(error == fresh.error, "\(url.lastPathComponent)")
                    #expect(view.map(ViewSummary.init) == fresh.view.map(ViewSummary.init), "\(url.lastPathComponent)")
                    let kept = Self.remembered(view, error, length: bytes.count)
                    #expect((view?.messageStamp != nil) == kept, "\(url.lastPathComponent): \(bytes.count) bytes")
                    stamps.append(view?.messageStamp)
                }
                // Recalled, not kept again (keeping gives a new stamp).
                #expect(stamps[0] == stamps[1], "\(url.lastPathComponent)")
            }
        }
    }

    @Test("a message too long to remember is checked afresh each time, with the same result")
    func tooLongToRemember() {
        // fragmented.pcap's mDNS responses are reassembled from IP fragments: over 1500 bytes.
        let url = InPlaceSupport.repoRoot.appendingPathComponent("captures/fragmented.pcap")
        let long = Self.messages(url).filter { $0.bytes.count > DNSMessageMemo.maximumLength }
        #expect(!long.isEmpty, "fragmented.pcap has no message too long to remember")
        let index = DNSMessageIndex()
        for (bytes, base) in long {
            bytes.withUnsafeBytes { raw in
                let fresh = DNSMessageView.check(ByteCursor(raw, base: base))
                #expect(fresh.error == nil && fresh.view != nil, "a reassembled message did not check")
                for _ in 0..<3 {
                    let (view, error) = DNSMessageView.check(ByteCursor(raw, base: base), index: index)
                    #expect(view?.messageStamp == nil)
                    #expect(error == fresh.error)
                    #expect(view.map(ViewSummary.init) == fresh.view.map(ViewSummary.init))
                }
            }
        }
    }

    @Test("a stamp belongs to one message's bytes, whichever index gave it")
    func stampsAreUnique() {
        var bytesOf: [UInt64: [UInt8]] = [:]
        var recalled = 0
        // Two indexes over all the captures: the stamps of one never name the bytes of another.
        let indexes = [DNSMessageIndex(), DNSMessageIndex()]
        for (n, url) in InPlaceSupport.captures().enumerated() {
            for (bytes, base) in Self.messages(url) {
                bytes.withUnsafeBytes { raw in
                    for index in [indexes[n % 2], indexes[(n + 1) % 2]] {
                        guard
                            let stamp = DNSMessageView.check(ByteCursor(raw, base: base), index: index).view?
                                .messageStamp
                        else { continue }
                        if let known = bytesOf[stamp] {
                            #expect(known == bytes, "\(url.lastPathComponent)")
                            recalled += 1
                        } else {
                            bytesOf[stamp] = bytes
                        }
                    }
                }
            }
        }
        #expect(recalled > 0, "no message was recalled")
    }

    @Test("a message one byte away from a remembered one is checked, not recalled")
    func oneByteAway() throws {
        let url = InPlaceSupport.repoRoot.appendingPathComponent("captures/healthy-ipv4.pcap")
        let index = DNSMessageIndex()
        for (bytes, base) in Self.messages(url) {
            bytes.withUnsafeBytes { raw in _ = DNSMessageView.check(ByteCursor(raw, base: base), index: index) }
            // Every byte of the message changed in turn (the header's counts included).
            for i in 0..<bytes.count {
                var changed = bytes
                changed[i] ^= 0x5A
                changed.withUnsafeBytes { raw in
                    let fresh = DNSMessageView.check(ByteCursor(raw, base: base))
                    let (view, error) = DNSMessageView.check(ByteCursor(raw, base: base), index: index)
                    #expect(error == fresh.error)
                    #expect(view.map(ViewSummary.init) == fresh.view.map(ViewSummary.init))
                }
                bytes.withUnsafeBytes { raw in _ = DNSMessageView.check(ByteCursor(raw, base: base), index: index) }
            }
        }
    }

    @Test(
        "every packet twice: the report read in place equals the one materialised", arguments: InPlaceSupport.captures()
    )
    func everyPacketTwice(_ url: URL) throws {
        guard let f1 = InPlaceSupport.open(url), let f2 = InPlaceSupport.open(url) else { return }
        var d1 = DiscoveryDecoder(linkType: f1.linkType)
        var d2 = DiscoveryDecoder(linkType: f2.linkType)
        // The materialising path checks each message afresh (no index, nothing remembered).
        var t1 = DiscoveryTracker()
        var t2 = DiscoveryTracker()
        _ = f1.forEachRecord { frame, header, bytes in
            for _ in 0..<2 {
                if let p = d1.decode(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
                {
                    t1.ingest(p, capture: 0)
                }
            }
        }
        _ = f2.forEachRecord { frame, header, bytes in
            for _ in 0..<2 {
                d2.decodeInPlace(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
                ) { p, view in t2.ingest(p, message: view, capture: 0) }
            }
        }
        let info = CaptureInfo(file: url.lastPathComponent, linkType: f1.linkTypeName)
        let r1 = AnalysisReport(captures: [info], timelines: [t1.finish()], options: AnalysisOptions(), merged: false)
        let r2 = AnalysisReport(captures: [info], timelines: [t2.finish()], options: AnalysisOptions(), merged: false)
        #expect(r1.devices == r2.devices, "\(url.lastPathComponent)")
        #expect(r1.clients == r2.clients)
        #expect(r1.latency == r2.latency)
        #expect(r1.responses == r2.responses)
        #expect(r1.queries == r2.queries)
        #expect(r1.findings == r2.findings)
        #expect(r1.reflectedFrames == r2.reflectedFrames && r1.reflectedTTLs == r2.reflectedTTLs)
    }
}
