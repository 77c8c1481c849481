import Testing
import WireFormat

@testable import CastDiscovery

// CAPTURE_UNREADABLE and PACKETS_DROPPED from a file's statistics: a capture that stops being
// readable, or whose capturing machine dropped packets, must not be read as a network without
// mDNS or a sender that never asked.
@Suite("CAPTURE_UNREADABLE and file drop counts")
struct CaptureFaultRuleTests {
    /// A report of captures with no discovery traffic read (the tracker saw nothing).
    static func report(_ captures: [CaptureInfo]) -> AnalysisReport {
        let options = AnalysisOptions()
        var tracker = DiscoveryTracker(options: options)
        var r = AnalysisReport(captures: captures, timelines: [tracker.finish()], options: options, merged: false)
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    static func capture(packets: Int, discovery: Int = 0, mdns: Int = 0) -> CaptureInfo {
        var c = CaptureInfo(file: "broken.pcapng", linkType: "EN10MB", packets: packets, discoveryPackets: discovery)
        c.mdnsPackets = mdns
        return c
    }

    @Test("unreadable after frames without mDNS: an error naming frame and byte offset, no NO_MDNS_TRAFFIC")
    func unreadableWithoutTraffic() throws {
        var c = Self.capture(packets: 41)
        c.unreadableFrom = CaptureFault(frame: 42, byteOffset: 8192, message: "block length 3 is not a multiple of 4")
        let r = Self.report([c])
        #expect(r.findings.map(\.code) == [.captureUnreadable])
        let f = try #require(r.findings.first)
        #expect(f.severity == .error)
        #expect(f.title == "broken.pcapng is unreadable from frame 42 (byte offset 8192)")
        #expect(f.detail.contains("block length 3 is not a multiple of 4"))
        #expect(f.detail.contains("The 41 frames before it were analysed"))
        #expect(f.frames == [FrameRef(capture: 0, frame: 41)])
        #expect(!f.detail.contains("wrong interface") && !f.advice.contains("wrong interface"))
    }

    @Test("unreadable from the first frame: CAPTURE_UNREADABLE, not EMPTY_CAPTURE")
    func unreadableFromTheStart() throws {
        var c = Self.capture(packets: 0)
        c.unreadableFrom = CaptureFault(frame: 1, byteOffset: nil, message: "an interface that does not exist")
        let r = Self.report([c])
        #expect(r.findings.map(\.code) == [.captureUnreadable])
        #expect(r.findings[0].title == "broken.pcapng is unreadable from frame 1")
        #expect(r.findings[0].frames.isEmpty)
    }

    @Test("unreadable after discovery traffic: a warning, and NO_CAST_QUERIES is not claimed")
    func unreadableAfterTraffic() throws {
        var c = Self.capture(packets: 500, discovery: 20, mdns: 20)
        c.unreadableFrom = CaptureFault(frame: 501, byteOffset: 90_000, message: "damaged")
        let r = Self.report([c])
        #expect(r.findings.map(\.code) == [.captureUnreadable])
        #expect(r.findings[0].severity == .warning)
        // The same capture read to its end does get NO_CAST_QUERIES: the suppression is the fault's.
        #expect(
            Self.report([Self.capture(packets: 500, discovery: 20, mdns: 20)]).findings.map(\.code) == [
                .noCastQueries
            ])
    }

    @Test("a readable capture without mDNS still gets NO_MDNS_TRAFFIC")
    func readableWithoutTraffic() {
        #expect(Self.report([Self.capture(packets: 41)]).findings.map(\.code) == [.noMDNSTraffic])
    }

    @Test("interface statistics with drops: PACKETS_DROPPED names the interface and the counts")
    func fileDrops() throws {
        var c = Self.capture(packets: 41)
        var eth = InterfaceInfo(index: 0, name: "eth0", linkType: "EN10MB", snapLength: 262_144)
        eth.droppedByOS = 7
        eth.droppedByInterface = 2
        var any = InterfaceInfo(index: 1, name: "any", linkType: "LINUX_SLL2", snapLength: 262_144)
        any.droppedByOS = 0
        c.interfaces = [eth, any]
        let r = Self.report([c])
        let f = try #require(r.findings.first { $0.code == .packetsDropped })
        #expect(f.severity == .warning)
        #expect(f.title == "9 packets were dropped by the capturing machine")
        #expect(f.detail.contains("eth0: 2 by the interface, 7 by the operating system"))
        #expect(!f.detail.contains("any:"))
        c.interfaces[0].droppedByOS = 0
        c.interfaces[0].droppedByInterface = 0
        #expect(!Self.report([c]).findings.contains { $0.code == .packetsDropped })
    }
}
