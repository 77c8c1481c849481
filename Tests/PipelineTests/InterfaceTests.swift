import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Pipeline

// A pcapng whose interfaces have different link types (what Wireshark writes when it captures
// on two interfaces, and what mergecap makes of an Ethernet and a `-i any` capture): each
// interface is decoded with its own link layer, the packets and the evidence name their
// interface, and an interface castscope cannot decode is counted, not fatal.
@Suite struct InterfaceTests {
    typealias S = PipelineSupport

    /// Runs a Wireshark tool (mergecap, editcap) and requires it to succeed.
    static func tool(_ name: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(name) \(arguments) failed")
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("castscope-\(getpid())-\(name)").path
    }

    /// `mergecap -F pcapng` of captures/ files: interface i is the i-th file's.
    static func merged(_ name: String, _ inputs: [String]) throws -> String {
        let out = temporary(name)
        try tool("mergecap", ["-F", "pcapng", "-w", out] + inputs)
        return out
    }

    @Test func eachInterfaceIsDecodedWithItsOwnLinkType() throws {
        let mixed = try Self.merged("sll2-ethernet.pcapng", [S.path("any-sll2.pcap"), S.path("slow-response.pcap")])
        let (report, status, notices) = S.run(AnalysisRun.Options(files: [mixed]))
        let r = try #require(report)
        #expect(status == .success)
        #expect(notices.isEmpty)
        let c = r.captures[0]
        #expect(c.linkType == "LINUX_SLL2, EN10MB")
        #expect(c.interfaces.map(\.linkType) == ["LINUX_SLL2", "EN10MB"])
        // The two captures read apart and merged as one timeline give the same devices and findings.
        var apart = AnalysisRun.Options(files: [S.path("any-sll2.pcap"), S.path("slow-response.pcap")])
        apart.merge = true
        let separate = try #require(S.run(apart).0)
        #expect(r.devices.map(\.id) == separate.devices.map(\.id))
        #expect(r.findings.map(\.code) == separate.findings.map(\.code))
        #expect(c.packets == separate.captures.map(\.packets).reduce(0, +))
        #expect(c.discoveryPackets == separate.captures.map(\.discoveryPackets).reduce(0, +))
        // slow-response.pcap's frames are interface 1's, and its evidence says so.
        let slow = try #require(r.findings.first { $0.code == .slowResponse })
        #expect(!slow.frames.isEmpty && slow.frames.allSatisfy { $0.interface == 1 })
    }

    @Test func packetsCarryTheirInterface() throws {
        let mixed = try Self.merged("sll2-ethernet-dump.pcapng", [S.path("any-sll2.pcap"), S.path("goodbye.pcap")])
        var run = try CaptureRun.open(mixed, notices: { _ in }).get()
        var byInterface: [Int: Int] = [:]
        _ = run.forEachPacket { byInterface[$0.captureInterface, default: 0] += 1 }
        // tshark -r FILE -Y "mdns or ssdp" | wc -l: any-sll2.pcap 4, goodbye.pcap 17.
        #expect(byInterface == [0: 4, 1: 17])
    }

    @Test func anInterfaceOfAnotherLinkTypeIsCountedNotFatal() throws {
        // any-sll2.pcap relabelled USB (DLT 189) by editcap -T: frames castscope cannot decode.
        let usb = Self.temporary("usb.pcap")
        try Self.tool("editcap", ["-T", "usb-linux", S.path("any-sll2.pcap"), usb])
        let mixed = try Self.merged("ethernet-usb.pcapng", [S.path("healthy-ipv4.pcap"), usb])
        let (report, status, notices) = S.run(AnalysisRun.Options(files: [mixed]))
        let r = try #require(report)
        #expect(status == .success)
        #expect(
            notices == [
                .warning(
                    "\(mixed): 7 frames on interface 1 (USB_LINUX, DLT 189) cannot be decoded: castscope decodes "
                        + "Ethernet, Linux cooked (SLL, SLL2), raw IP, BSD loopback, Apple PKTAP and 802.11/radiotap")
            ])
        #expect(r.captures[0].interfaces.map(\.framesNotDecoded) == [0, 7])
        let alone = try #require(S.run(AnalysisRun.Options(files: [S.path("healthy-ipv4.pcap")])).0)
        #expect(r.devices.map(\.id) == alone.devices.map(\.id))
        #expect(r.findings.map(\.code) == alone.findings.map(\.code))
        // Only USB: nothing can be decoded, so the file is refused as before.
        let (none, refused, errors) = S.run(AnalysisRun.Options(files: [usb]))
        #expect(none == nil && refused == .dataError)
        #expect(errors.first?.text.contains("unsupported link type USB_LINUX") == true)
    }
}
