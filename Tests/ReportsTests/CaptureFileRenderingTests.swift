import CastDiscovery
import Testing
import WireFormat

@testable import Reports

// What a capture file says about itself (several interfaces, where it became unreadable, its
// comments) in every format, and a frame's interface in the evidence; a plain one-interface
// capture shows none of it.
@Suite struct CaptureFileRenderingTests {
    static func report(_ capture: CaptureInfo, frames: [FrameRef]) -> AnalysisReport {
        var tracker = DiscoveryTracker(options: AnalysisOptions())
        var r = AnalysisReport(
            captures: [capture], timelines: [tracker.finish()], options: AnalysisOptions(), merged: false)
        r.findings = [
            Finding(code: .slowResponse, severity: .warning, title: "Slow", detail: "d", advice: "a", frames: frames)
        ]
        return r
    }

    static var twoInterfaces: CaptureInfo {
        var c = CaptureInfo(file: "both.pcapng", linkType: "EN10MB, LINUX_SLL2", packets: 40)
        c.interfaces = [
            InterfaceInfo(index: 0, name: "eth0", linkType: "EN10MB", snapLength: 262_144),
            InterfaceInfo(index: 1, linkType: "LINUX_SLL2", snapLength: 0),
        ]
        c.unreadableFrom = CaptureFault(frame: 41, byteOffset: 9000, message: "a lying block length")
        c.comments = [CaptureFileComment(frame: nil, text: "living room\nAP"), CaptureFileComment(frame: 3, text: "x")]
        return c
    }

    @Test func severalInterfacesInText() {
        let text = AnalysisText.render(
            Self.report(
                Self.twoInterfaces,
                frames: [FrameRef(capture: 0, frame: 12, interface: 1), FrameRef(capture: 0, frame: 3)]),
            width: .terminal(200))
        #expect(text.contains("2 interfaces (eth0 EN10MB, interface 1 LINUX_SLL2), 40 frames"))
        #expect(text.contains("unreadable from frame 41 (byte offset 9000)"))
        #expect(text.contains("comment: \"living room AP\" (and 1 more comment)"))
        #expect(text.contains("Frames: #12 (interface 1) #3 (eth0)"))
    }

    @Test func severalInterfacesInHTMLAndJSON() {
        let r = Self.report(Self.twoInterfaces, frames: [FrameRef(capture: 0, frame: 12, interface: 1)])
        let html = HTMLReport.render(r)
        #expect(html.contains("#12 on interface 1"))
        #expect(html.contains("unreadable from frame 41 (byte offset 9000)"))
        let json = AnalysisJSON.compact(r)
        #expect(json.contains(#""unreadableFrom":{"frame":41,"byteOffset":9000,"message":"a lying block length"}"#))
        #expect(json.contains(#"{"index":1,"name":null,"linkType":"LINUX_SLL2","snapLength":0}"#))
        #expect(json.contains(#"{"capture":0,"frame":12,"interface":1}"#))
        #expect(json.contains(#""comments":[{"frame":null,"text":"living room\nAP"},{"frame":3,"text":"x"}]"#))
    }

    @Test func oneInterfaceShowsNoneOfIt() {
        var c = CaptureInfo(file: "one.pcap", linkType: "EN10MB", packets: 40)
        c.interfaces = [InterfaceInfo(index: 0, linkType: "EN10MB", snapLength: 262_144)]
        let r = Self.report(c, frames: [FrameRef(capture: 0, frame: 12)])
        let text = AnalysisText.render(r, width: .terminal(200))
        #expect(text.contains("Frames: #12\n"))
        #expect(text.contains("  EN10MB, 40 frames"))
        let json = AnalysisJSON.compact(r)
        #expect(!json.contains("interfaces") && !json.contains("unreadableFrom") && !json.contains("comments"))
        #expect(json.contains(#"{"capture":0,"frame":12}"#))
    }
}
