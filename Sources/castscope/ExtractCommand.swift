import PcapCapture
import Reports
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope extract`: writes only the discovery packets of captures to a small pcap that can
/// be shared, and that decodes to exactly the same packets.
enum ExtractCommand {
    struct Options {
        var output: String?
        var prefilter = true
        var files: [String] = []
        /// `-c N`: stop after N frames of each capture (`nil`: read everything).
        var frameLimit: Int?
        /// `-q`: no summary line.
        var quiet = false
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let output = o.output!

        // Open every input before creating the output, so a bad input leaves nothing behind.
        var sources: [ExtractSource] = []
        for path in o.files {
            switch CaptureRun.open(path, prefilter: o.prefilter) {
            case .success(let run): sources.append(ExtractSource(run))
            case .failure(let e): return e.status
            }
        }
        let first = sources[0].run
        for s in sources.dropFirst() where s.run.file.linkType != first.file.linkType {
            printError(
                "extract: \(TerminalText.sanitize(first.shownName)) is \(first.file.linkTypeName) but "
                    + "\(TerminalText.sanitize(s.run.shownName)) is \(s.run.file.linkTypeName); a pcap has one "
                    + "link type, so extract them to separate files")
            return .dataError
        }
        let snapLength = sources.map(\.run.file.snapLength).max().flatMap { $0 > 0 ? $0 : nil } ?? 262_144

        let written: (frames: Int, bytes: Int)
        do throws(PcapError) {
            written = try write(sources, to: output, linkType: first.file.linkType, snapLength: snapLength)
        } catch {
            printError(error.description)
            return .cannotCreate
        }

        var status = ExitStatus.success
        var packets = 0
        var lost = 0
        for s in sources {
            packets += s.discoveryPackets
            lost += s.lostFragments
            for n in s.notes { printError("warning: \(TerminalText.sanitize(s.run.shownName)): \(n)") }
            if case .error? = s.run.file.end { status = .dataError }
        }
        if lost > 0 {
            printError(
                "warning: \(lost) IP fragment frames of discovery datagrams were no longer buffered and are "
                    + "missing from \(output); those datagrams will not reassemble from it")
        }
        if output != "-" {
            // pcap_dump reports no write errors: check the file holds every byte.
            var info = stat()
            let expected = 24 + written.bytes + 16 * written.frames
            if stat(output, &info) != 0 || ((info.st_mode & S_IFMT) == S_IFREG && Int(info.st_size) != expected) {
                printError("cannot write \(output): the file is incomplete (disk full?)")
                return .cannotCreate
            }
            let fragments = written.frames - packets
            if o.quiet { return status }
            Output.standardOutput.write(
                "wrote \(TerminalText.sanitize(output)): \(written.frames) frames (\(packets) discovery packets"
                    + (fragments > 0 ? ", \(fragments) more IP fragment frames" : "") + ") from "
                    + "\(sources.count) file\(sources.count == 1 ? "" : "s"), \(first.file.linkTypeName)\n")
        }
        return status
    }

    /// Writes the sources' kept frames, merged by time, and closes the file.
    /// - Returns: frames written and their captured bytes.
    static func write(
        _ sources: [ExtractSource], to output: String, linkType: LinkType, snapLength: Int
    ) throws(PcapError) -> (frames: Int, bytes: Int) {
        let writer = try CaptureWriter(path: output, linkType: linkType, snapLength: snapLength)
        var frames = 0
        var bytes = 0
        var heads = sources.map { $0.next() }
        while let i = heads.indices.filter({ heads[$0] != nil }).min(by: {
            (heads[$0]!.header.timestamp, $0) < (heads[$1]!.header.timestamp, $1)
        }) {
            let h = heads[i]!
            writer.write(h.bytes, timestamp: h.header.timestamp, originalLength: h.header.originalLength)
            frames += 1
            bytes += h.bytes.count
            heads[i] = sources[i].next()
        }
        writer.flush()
        return (frames, bytes)
    }
}

/// One input of `extract`: yields, in file order, the frames to keep: every discovery packet and
/// every IP fragment frame of a discovery datagram that was reassembled.
///
/// It reads the file once (standard input works). A fragment is held until its datagram
/// completes as discovery traffic (then it is kept), turns out not to be (its first fragment's
/// ports say so) or can no longer complete (the reassembly timeout passed); frames after a held
/// fragment wait behind it so the order is kept. The buffer is bounded by
/// ``ExtractSource/maximumBufferedBytes``.
final class ExtractSource {
    /// A frame waiting to be written, or to be found unneeded.
    struct Held {
        var frame: Int
        var header: RecordHeader
        var bytes: [UInt8]
        /// Known to be needed.
        var keep: Bool
        /// For a fragment not yet known to be needed: its datagram.
        var key: FragmentReassembler.Key?
        var group = 0
    }

    /// A datagram whose fragments are being held.
    struct Group {
        var id: Int
        var firstSeen: Timestamp
        /// Not discovery traffic: its fragments are dropped.
        var ignored = false
    }

    struct SearcherKey: Hashable {
        var address: IPAddress
        var port: UInt16
    }

    /// The most bytes held while waiting for fragmented datagrams to complete.
    static let maximumBufferedBytes = 256 << 20
    /// How long a datagram may take to complete: the decoder's reassembly timeout.
    static let timeout = ReassemblyLimits().timeoutNanoseconds

    let run: CaptureRun
    var decoder: DiscoveryDecoder
    var queue: [Held] = []
    var head = 0
    /// Frames removed from the front of `queue` so far (absolute index = offset + index).
    var removed = 0
    var bufferedBytes = 0
    var pending: [Int: Int] = [:]
    var groups: [FragmentReassembler.Key: Group] = [:]
    var nextGroup = 1
    var searchers: [SearcherKey: Timestamp] = [:]
    var lastSweep: Timestamp?
    var ended = false

    /// Discovery packets found.
    private(set) var discoveryPackets = 0
    /// Fragment frames a discovery datagram needed that had already been dropped.
    private(set) var lostFragments = 0
    /// Held fragments dropped because the buffer was full.
    private(set) var droppedForSpace = 0

    init(_ run: CaptureRun) {
        self.run = run
        decoder = run.decoder
    }

    /// Warnings once the file has been read.
    var notes: [String] {
        var notes = CaptureRun.notes(
            records: run.file.recordsRead, end: run.file.end ?? .endOfFile, statistics: decoder.statistics)
        if droppedForSpace > 0 {
            notes.append(
                "\(droppedForSpace) IP fragment frames were dropped to keep the buffer under "
                    + "\(Self.maximumBufferedBytes >> 20) MiB")
        }
        return notes
    }

    /// The next frame to write, or `nil` when the file is done.
    func next() -> Held? {
        while true {
            if head < queue.count {
                let h = queue[head]
                if h.keep {
                    popHead()
                    return h
                }
                if !isLive(h) || ended {
                    popHead()
                    continue
                }
                if bufferedBytes > Self.maximumBufferedBytes {
                    droppedForSpace += 1
                    popHead()
                    continue
                }
            } else if ended {
                return nil
            }
            read()
        }
    }

    func isLive(_ h: Held) -> Bool {
        guard let key = h.key, let g = groups[key] else { return false }
        return g.id == h.group && !g.ignored
    }

    func popHead() {
        let h = queue[head]
        bufferedBytes -= h.bytes.count
        pending[h.frame] = nil
        head += 1
        if head >= 1024, head * 2 >= queue.count {
            queue.removeFirst(head)
            removed += head
            head = 0
        }
    }

    func append(_ h: Held) {
        if !h.keep { pending[h.frame] = removed + queue.count }
        bufferedBytes += h.bytes.count
        queue.append(h)
    }

    /// Reads one record (or notes the end of the file).
    func read() {
        let next = run.file.nextRecord { frame, header, bytes in
            self.process(frame: frame, header: header, bytes: bytes)
        }
        if case .end = next { ended = true }
    }

    func process(frame: Int, header: RecordHeader, bytes: UnsafeRawBufferPointer) {
        let now = header.timestamp
        sweep(now: now)
        if let packet = decoder.decode(
            frame: frame, timestamp: now, bytes: bytes, originalLength: header.originalLength)
        {
            discoveryPackets += 1
            for f in packet.fragmentFrames where f != frame {
                if let index = pending[f] {
                    queue[index - removed].keep = true
                    pending[f] = nil
                } else {
                    lostFragments += 1
                }
            }
            if !packet.fragmentFrames.isEmpty, let fragment = Self.udpFragment(decoder.linkType, header, bytes) {
                groups[fragment.key] = nil
            }
            if let ssdp = packet.ssdp, ssdp.kind == .mSearch, packet.sourcePort != DiscoveryDecoder.ssdpPort {
                searchers[SearcherKey(address: packet.source, port: packet.sourcePort)] = now
            }
            append(Held(frame: frame, header: header, bytes: Array(bytes), keep: true))
            return
        }
        guard let fragment = Self.udpFragment(decoder.linkType, header, bytes) else { return }
        var group = groups[fragment.key]
        if let g = group, now.nanoseconds(since: g.firstSeen) > Self.timeout { group = nil }
        var g: Group
        if let group {
            g = group
        } else {
            g = Group(id: nextGroup, firstSeen: now)
            nextGroup += 1
        }
        if !g.ignored, fragment.offset == 0, !isCandidate(fragment, now: now) { g.ignored = true }
        groups[fragment.key] = g
        if g.ignored { return }
        append(Held(frame: frame, header: header, bytes: Array(bytes), keep: false, key: fragment.key, group: g.id))
    }

    /// Whether a datagram's first fragment may be discovery traffic (the decoder's test, with
    /// every M-SEARCH sender of the last 60 s remembered).
    func isCandidate(_ f: Fragment, now: Timestamp) -> Bool {
        guard let ports = f.ports else { return false }
        let known = [DiscoveryDecoder.mdnsPort, DiscoveryDecoder.ssdpPort]
        if known.contains(ports.source) || known.contains(ports.destination) { return true }
        guard let t = searchers[SearcherKey(address: f.destination, port: ports.destination)] else { return false }
        return now.nanoseconds(since: t) <= DiscoveryDecoder.searchAnswerWindowNanoseconds
    }

    /// Forgets datagrams and M-SEARCH senders that can no longer matter (once per second).
    func sweep(now: Timestamp) {
        if let last = lastSweep, now.nanoseconds(since: last) < 1_000_000_000, now >= last { return }
        lastSweep = now
        groups = groups.filter { now.nanoseconds(since: $0.value.firstSeen) <= Self.timeout }
        searchers = searchers.filter {
            now.nanoseconds(since: $0.value) <= DiscoveryDecoder.searchAnswerWindowNanoseconds
        }
    }

    struct Fragment {
        var key: FragmentReassembler.Key
        var offset: Int
        var destination: IPAddress
        /// The UDP ports, in the first fragment.
        var ports: (source: UInt16, destination: UInt16)?
    }

    /// The datagram a UDP IP fragment belongs to, or `nil` for any other frame.
    static func udpFragment(_ linkType: LinkType, _ header: RecordHeader, _ bytes: UnsafeRawBufferPointer)
        -> Fragment?
    {
        guard
            let link = try? LinkLayer.decode(
                linkType, frame: ByteCursor(bytes), originalLength: header.originalLength),
            !link.protectedWiFi, link.etherType == .ipv4 || link.etherType == .ipv6,
            let ip = try? IPPacket.decode(link.etherType, link.payload), ip.proto == .udp,
            let fragment = ip.fragment
        else { return nil }
        return Fragment(
            key: FragmentReassembler.Key(
                source: ip.source, destination: ip.destination, identification: fragment.identification,
                proto: ip.proto.rawValue),
            offset: fragment.offset, destination: ip.destination,
            ports: fragment.offset == 0 ? UDPDatagram.ports(ip.payload) : nil)
    }
}
