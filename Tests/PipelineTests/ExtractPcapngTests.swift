import Foundation
import PcapCapture
import Pipeline
import Testing
import WireFormat

/// `extract` on inputs of several link types writes pcapng, and tshark reads from it the same
/// packets it reads from the inputs.
@Suite struct ExtractPcapngTests {
    typealias S = PipelineSupport

    static let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// What tshark shows of a capture's discovery packets, one line each: time, lengths,
    /// encapsulation, addresses, the UDP payload.
    static func tsharkPackets(_ path: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(tshark))
        process.arguments = [
            "-r", path, "-Y", "mdns || ssdp", "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len", "-e",
            "frame.cap_len", "-e", "frame.encap_type", "-e", "ip.src", "-e", "ipv6.src", "-e", "udp.srcport", "-e",
            "udp.payload",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "tshark -r \(path) failed")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func extract(_ inputs: [String], to output: String) throws -> Extraction.Written {
        let sources = try inputs.map { ExtractSource(try CaptureRun.open(S.path($0), notices: { _ in }).get()) }
        return try Extraction.write(sources, to: output)
    }

    static func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("extract-pcapng-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try body(dir)
    }

    static func requireTshark() -> Bool {
        if tshark != nil { return true }
        #expect(ProcessInfo.processInfo.environment["CI"] != "true", "CI=true but tshark is missing")
        print("note: tshark is missing: the pcapng output is not checked against it")
        return false
    }

    static func magic(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4))
    }

    @Test("an Ethernet and an SLL2 capture extract to one pcapng that tshark reads as the inputs")
    func mixedLinkTypes() throws {
        guard Self.requireTshark() else { return }
        try Self.withTemporaryDirectory { dir in
            let inputs = ["healthy-ipv4.pcap", "any-sll2.pcap"]
            let output = dir.appendingPathComponent("mixed.pcap").path
            let written = try Self.extract(inputs, to: output)
            #expect(written.format == .pcapng)
            #expect(written.linkTypeNames == ["EN10MB", "LINUX_SLL2"])
            #expect(try Self.magic(output) == [0x0A, 0x0D, 0x0D, 0x0A])
            let expected = try inputs.flatMap { try Self.tsharkPackets(S.path($0)) }.sorted()
            let got = try Self.tsharkPackets(output)
            #expect(!expected.isEmpty)
            #expect(got.count == written.frames)
            // Merged by time: the output is in time order and holds exactly the inputs' packets.
            #expect(got == got.sorted())
            #expect(got.sorted() == expected)
        }
    }

    @Test("one link type still gives a classic nanosecond pcap; an output named .pcapng gives pcapng")
    func formatChoice() throws {
        guard Self.requireTshark() else { return }
        try Self.withTemporaryDirectory { dir in
            let classic = dir.appendingPathComponent("one.pcap").path
            let written = try Self.extract(["healthy-ipv4.pcap", "dial-ssdp.pcap"], to: classic)
            #expect(written.format == .pcap)
            #expect(try Self.magic(classic) == [0x4D, 0x3C, 0xB2, 0xA1])
            let named = dir.appendingPathComponent("one.PCAPNG").path
            let asPcapng = try Self.extract(["healthy-ipv4.pcap", "dial-ssdp.pcap"], to: named)
            #expect(asPcapng.format == .pcapng)
            #expect(try Self.magic(named) == [0x0A, 0x0D, 0x0D, 0x0A])
            #expect(try Self.tsharkPackets(named) == Self.tsharkPackets(classic))
            #expect(asPcapng.frames == written.frames)
        }
    }

    @Test("the pcapng writer's interfaces: link type, snapshot length, name, nanosecond resolution")
    func writerInterfaces() throws {
        guard Self.requireTshark() else { return }
        try Self.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("w.pcapng").path
            let writer = try PcapngWriter(path: path, application: "castscope tests")
            let eth = writer.addInterface(linkType: .ethernet, snapLength: 1500, name: "eth0")
            let raw = writer.addInterface(linkType: .raw, snapLength: 0, name: nil)
            let frame: [UInt8] = Array(repeating: 0xAB, count: 61)  // padded to 64 in the block
            writer.write(frame, interface: eth, timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))
            writer.write(
                [0x45] + Array(repeating: 0, count: 19), interface: raw,
                timestamp: Timestamp(seconds: 1_700_000_001, nanoseconds: 1), originalLength: 40, comment: "frame 7")
            try writer.close()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(Self.tshark))
            process.arguments = [
                "-r", path, "-T", "fields", "-E", "separator=|", "-e", "frame.interface_id", "-e",
                "frame.interface_name", "-e", "frame.encap_type", "-e", "frame.time_epoch", "-e", "frame.len", "-e",
                "frame.cap_len", "-e", "frame.comment",
            ]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").map(String.init)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(lines.count == 2)
            #expect(lines.first == "0|eth0|1|1700000000.123456789|61|61|")
            // LINKTYPE_RAW is encapsulation 7 (raw IP) in Wireshark.
            #expect(lines.last == "1|unknown|7|1700000001.000000001|40|20|frame 7")
        }
    }
}
