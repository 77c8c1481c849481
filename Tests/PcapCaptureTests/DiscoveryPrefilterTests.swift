import CLibpcap
import Foundation
import PcapCapture
import Testing
import WireFormat

// The hand-written prefilter against libpcap's own: DiscoveryPrefilter.keeps must agree with
// pcap_offline_filter running DiscoveryFilter's expression on every frame there is.

/// DiscoveryFilter's expression compiled by libpcap for one link type, run with
/// `pcap_offline_filter`.
final class CompiledDiscoveryFilter {
    let linkType: LinkType
    private var program = bpf_program()
    private let handle: OpaquePointer

    /// `nil` when DiscoveryFilter has no expression for the link type.
    init?(_ linkType: LinkType) throws {
        guard let expression = DiscoveryFilter.expression(for: linkType) else { return nil }
        self.linkType = linkType
        // LINKTYPE_RAW (101) is a file value: libpcap compiles it as DLT_RAW.
        let dlt = linkType == .rawFile ? LinkType.raw.rawValue : linkType.rawValue
        guard let handle = pcap_open_dead(dlt, 262_144) else { throw CompileFailure(linkType: linkType) }
        self.handle = handle
        guard pcap_compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            pcap_close(handle)
            throw CompileFailure(linkType: linkType)
        }
    }

    struct CompileFailure: Error { var linkType: LinkType }

    deinit {
        pcap_freecode(&program)
        pcap_close(handle)
    }

    func keeps(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var header = pcap_pkthdr()
        header.caplen = UInt32(bytes.count)
        header.len = UInt32(bytes.count)
        // A zero-length frame still needs a valid pointer for libpcap.
        var empty: UInt8 = 0
        if bytes.isEmpty { return pcap_offline_filter(&program, &header, &empty) != 0 }
        return pcap_offline_filter(&program, &header, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)) != 0
    }
}

@Suite("The hand-written discovery prefilter is libpcap's filter")
struct DiscoveryPrefilterTests {
    typealias S = CaptureTestSupport

    /// The link types DiscoveryFilter has an expression for.
    static let filteredLinkTypes: [LinkType] = [
        .ethernet, .linuxSLL, .linuxSLL2, .null, .loop, .raw, .rawFile, .ipv4, .ipv6,
    ]

    /// Every frame libpcap reads from a file, with its link type (`pcap_datalink`). Files with
    /// several link types (which libpcap cannot read) give the frames before the change.
    static func frames(ofFile path: String, limit: Int = .max) -> (linkType: LinkType, frames: [[UInt8]])? {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_open_offline(path, &errorBuffer) else { return nil }
        defer { pcap_close(handle) }
        let linkType = LinkType(rawValue: pcap_datalink(handle))
        var frames: [[UInt8]] = []
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while frames.count < limit, pcap_next_ex(handle, &header, &data) == 1, let header, let data {
            frames.append(Array(UnsafeBufferPointer(start: data, count: Int(header.pointee.caplen))))
        }
        return (linkType, frames)
    }

    /// Capture files: captures/, the hostile corpus and the external corpus (when present).
    static func allCaptureFiles() -> [String] {
        var paths = S.captureFiles().map(S.path)
        let hostile = S.repoRoot.appendingPathComponent("Tests/hostile/corpus")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: hostile.path) {
            paths += names.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
                .map { hostile.appendingPathComponent($0).path }
        }
        return paths
    }

    /// The frames of `linkType` on which the two filters disagree (at most a few, for the message).
    static func disagreements(_ linkType: LinkType, _ frames: [[UInt8]]) throws -> (
        count: Int, kept: Int, first: [String]
    ) {
        guard let compiled = try CompiledDiscoveryFilter(linkType) else {
            let rejected = frames.filter { f in !f.withUnsafeBytes { DiscoveryPrefilter.keeps(linkType, $0) } }
            return (rejected.count, frames.count, rejected.prefix(3).map { hex($0) })
        }
        var count = 0
        var kept = 0
        var first: [String] = []
        for frame in frames {
            let (bpf, native) = frame.withUnsafeBytes { (compiled.keeps($0), DiscoveryPrefilter.keeps(linkType, $0)) }
            if bpf { kept += 1 }
            if bpf != native {
                count += 1
                if first.count < 3 { first.append("libpcap \(bpf ? "keeps" : "drops"): \(hex(frame))") }
            }
        }
        return (count, kept, first)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.prefix(80).map { String(format: "%02x", $0) }.joined()
            + (bytes.count > 80 ? "… (\(bytes.count) bytes)" : "")
    }

    @Test("keeps() agrees with pcap_offline_filter on every frame of every capture")
    func everyCapture() throws {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(S.hasExternal, "CI=true but \(S.externalDirectory.path) is missing")
        } else if !S.hasExternal {
            print("note: \(S.externalDirectory.path) is missing: only the repository's captures are checked")
        }
        var files = 0
        var total = 0
        var kept = 0
        for path in Self.allCaptureFiles() {
            guard let (linkType, frames) = Self.frames(ofFile: path) else { continue }  // libpcap cannot open it
            files += 1
            total += frames.count
            let result = try Self.disagreements(linkType, frames)
            kept += result.kept
            #expect(result.count == 0, "\(path) (\(linkType)): \(result.count) frames differ: \(result.first)")
        }
        #expect(files >= 40)
        #expect(total > 10_000)
        #expect(kept > 0 && kept < total)
    }

    @Test("keeps() agrees with pcap_offline_filter on 100,000 frames of the sparse benchmark capture")
    func sparseBenchmarkCapture() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            #expect(ProcessInfo.processInfo.environment["CI"] != "true", "CI=true but python3 is missing")
            print("note: python3 is missing: the sparse benchmark capture is not checked")
            return
        }
        try S.withTemporaryDirectory { dir in
            let output = dir.appendingPathComponent("sparse.pcap").path
            let generator = Process()
            generator.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            generator.arguments = [
                S.repoRoot.appendingPathComponent("scripts/gen-bench-capture.py").path, "--mode", "sparse",
                "--packets", "100000", "-q", "-o", output,
            ]
            try generator.run()
            generator.waitUntilExit()
            #expect(generator.terminationStatus == 0)
            let (linkType, frames) = try #require(Self.frames(ofFile: output))
            #expect(frames.count == 100_000)
            let result = try Self.disagreements(linkType, frames)
            #expect(result.count == 0, "\(result.count) frames differ: \(result.first)")
            // About 2% discovery, plus DNS and fragments: far from all or nothing.
            #expect(result.kept > 1_000 && result.kept < 20_000)
        }
    }

    /// SplitMix64: a fixed, portable sequence (Swift's own generator is seeded randomly).
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Bytes the filter branches on: EtherTypes, protocols, ports, version nibbles, families.
    static let interesting: [UInt8] = [
        0x00, 0x02, 0x0A, 0x08, 0x06, 0x86, 0xDD, 0x81, 0x88, 0xA8, 0x91, 0x11, 0x3A, 0x14, 0xE9, 0x07, 0x6C,
        0x35, 0x40, 0x45, 0x46, 0x4F, 0x60, 0x48, 0x54, 0x50, 0x1F, 0x20, 0xFF,
    ]

    @Test("keeps() agrees with pcap_offline_filter on 100,000 mutated frames, for every link type")
    func mutatedFrames() throws {
        var pool: [[UInt8]] = []
        for path in S.captureFiles().map(S.path) {
            if let (_, frames) = Self.frames(ofFile: path, limit: 200) { pool += frames }
        }
        #expect(pool.count > 1_000)
        var rng = SplitMix64(state: 14)
        var mutated: [[UInt8]] = []
        for _ in 0..<12_500 {
            var frame = pool[Int.random(in: 0..<pool.count, using: &rng)]
            // Change up to four bytes among the first 80, where every branch reads.
            for _ in 0..<Int.random(in: 0...4, using: &rng) where !frame.isEmpty {
                let at = Int.random(in: 0..<min(frame.count, 80), using: &rng)
                frame[at] =
                    Bool.random(using: &rng)
                    ? Self.interesting[Int.random(in: 0..<Self.interesting.count, using: &rng)]
                    : UInt8.random(in: 0...255, using: &rng)
            }
            // Cut one frame in three short, often right where a load would start.
            if Int.random(in: 0..<3, using: &rng) == 0 {
                frame.removeLast(frame.count - Int.random(in: 0...min(frame.count, 80), using: &rng))
            }
            mutated.append(frame)
        }
        // Every frame under every link type: 8 × 12,500 = 100,000 checks.
        for linkType in Self.filteredLinkTypes where linkType != .rawFile {
            let result = try Self.disagreements(linkType, mutated)
            #expect(result.count == 0, "\(linkType): \(result.count) mutated frames differ: \(result.first)")
            #expect(result.kept > 100 && result.kept < mutated.count - 100, "\(linkType): kept \(result.kept)")
        }
    }

    @Test(
        "keeps() keeps everything where DiscoveryFilter has no expression",
        arguments: [
            LinkType.pktap, .pktapLive, .ieee80211, .radiotap, .rawOpenBSD, LinkType(rawValue: 189),
        ])
    func noExpressionKeepsAll(linkType: LinkType) {
        #expect(DiscoveryFilter.expression(for: linkType) == nil)
        for frame in [[], [0x45], Array(repeating: 0, count: 60), S.mdnsQuery] as [[UInt8]] {
            #expect(frame.withUnsafeBytes { DiscoveryPrefilter.keeps(linkType, $0) })
        }
    }

    @Test("LINKTYPE_RAW (101) filters as DLT_RAW")
    func rawFileIsRaw() throws {
        let frames = Self.frames(ofFile: S.path("captures/ipv6.pcap"))?.frames ?? []
        for frame in frames {
            frame.withUnsafeBytes {
                #expect(DiscoveryPrefilter.keeps(.rawFile, $0) == DiscoveryPrefilter.keeps(.raw, $0))
            }
        }
        #expect(try Self.disagreements(.rawFile, frames).count == 0)
    }
}
