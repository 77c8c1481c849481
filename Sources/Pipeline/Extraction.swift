import PcapCapture
import WireFormat

/// Extraction: the discovery packets of captures, written to one capture file that can be
/// shared and that decodes to exactly the same packets (`castscope extract`).
///
/// The file is a classic pcap (nanosecond timestamps) when every interface of the inputs has
/// the same link type, as it always was; a pcapng with one interface per input interface when
/// their link types differ (a classic pcap holds one link type) or when the output's name ends
/// in `.pcapng`.
public enum Extraction {
    /// The file format written.
    public enum Format: String, Hashable, Sendable {
        case pcap, pcapng
    }

    /// What ``write(_:to:)`` wrote.
    public struct Written: Hashable, Sendable {
        /// Frames written.
        public var frames = 0
        /// Their captured bytes.
        public var bytes = 0
        /// The format chosen.
        public var format = Format.pcap
        /// The link types of the inputs' interfaces when the format was chosen, by name
        /// (`EN10MB`), in order of appearance.
        public var linkTypeNames: [String] = []
        /// Frames a classic pcap could not hold: their interface, described after the format
        /// was chosen, has another link type.
        public var leftOut = 0
        /// For a classic pcap, the file's expected size (the caller checks it: `pcap_dump`
        /// reports no write errors); for pcapng the writer checks its own writes.
        public var expectedSize: Int64?
    }

    /// Writes the sources' kept frames, merged by time, and closes the file.
    ///
    /// Each source is read up to its first kept frame before the format is chosen, so the
    /// interfaces described before it (normally all of them) decide.
    public static func write(_ sources: [ExtractSource], to output: String) throws(PcapError) -> Written {
        let heads = sources.map { $0.next() }
        var started = [Bool](repeating: false, count: sources.count)
        var written = Written()
        var interfaces: [(source: Int, interface: FileInterface)] = []
        for (i, s) in sources.enumerated() {
            interfaces += s.run.file.interfaces.map { (i, $0) }
        }
        for (_, interface) in interfaces where !written.linkTypeNames.contains(interface.linkTypeName) {
            written.linkTypeNames.append(interface.linkTypeName)
        }
        let linkTypes = Set(interfaces.map(\.interface.linkType))
        let snapLength =
            sources.flatMap { $0.run.file.interfaces.map(\.snapLength) }.max().flatMap { $0 > 0 ? $0 : nil }
            ?? 262_144
        let wantsPcapng = output.lowercased().hasSuffix(".pcapng") || linkTypes.count > 1
        written.format = wantsPcapng ? .pcapng : .pcap
        let next: (Int) -> ExtractSource.Held? = { i in
            if !started[i] {
                started[i] = true
                return heads[i]
            }
            return sources[i].next()
        }
        if wantsPcapng {
            let writer = try PcapngWriter(path: output, application: "castscope extract")
            // One interface in the output per (input, interface), described before its first packet.
            var numbers: [Int: [Int: Int]] = [:]
            mergeByTime(sources: sources.count, next: next, timestamp: \.header.timestamp) { i, h in
                let index = h.header.interface
                let number: Int
                if let known = numbers[i]?[index] {
                    number = known
                } else {
                    let described = sources[i].run.file.interfaces
                    let interface = index < described.count ? described[index] : nil
                    number = writer.addInterface(
                        linkType: interface?.linkType ?? sources[i].run.file.linkType,
                        snapLength: interface?.snapLength ?? snapLength, name: interface?.name)
                    numbers[i, default: [:]][index] = number
                }
                writer.write(
                    h.bytes, interface: number, timestamp: h.header.timestamp, originalLength: h.header.originalLength)
                written.frames += 1
                written.bytes += h.bytes.count
            }
            try writer.close()
            return written
        }
        let linkType = linkTypes.first ?? sources[0].run.file.linkType
        let writer = try CaptureWriter(path: output, linkType: linkType, snapLength: snapLength)
        mergeByTime(sources: sources.count, next: next, timestamp: \.header.timestamp) { i, h in
            guard h.header.interface == 0 || sources[i].linkType(of: h.header.interface) == linkType else {
                written.leftOut += 1
                return
            }
            writer.write(h.bytes, timestamp: h.header.timestamp, originalLength: h.header.originalLength)
            written.frames += 1
            written.bytes += h.bytes.count
        }
        writer.flush()
        written.expectedSize = Int64(24 + written.bytes + 16 * written.frames)
        return written
    }

    /// Writes the sources' kept frames, merged by time, to a classic pcap of `linkType`, and
    /// closes the file.
    /// - Returns: frames written and their captured bytes.
    public static func write(
        _ sources: [ExtractSource], to output: String, linkType: LinkType, snapLength: Int
    ) throws(PcapError) -> (frames: Int, bytes: Int) {
        let writer = try CaptureWriter(path: output, linkType: linkType, snapLength: snapLength)
        var frames = 0
        var bytes = 0
        mergeByTime(sources: sources.count, next: { sources[$0].next() }, timestamp: \.header.timestamp) { _, h in
            writer.write(h.bytes, timestamp: h.header.timestamp, originalLength: h.header.originalLength)
            frames += 1
            bytes += h.bytes.count
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
public final class ExtractSource {
    /// A frame waiting to be written, or to be found unneeded.
    public struct Held {
        public var frame: Int
        public var header: RecordHeader
        public var bytes: [UInt8]
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

    /// The most bytes held while waiting for fragmented datagrams to complete.
    static let maximumBufferedBytes = 256 << 20
    /// How long a datagram may take to complete: the decoder's reassembly timeout.
    static let timeout = ReassemblyLimits().timeoutNanoseconds

    public let run: CaptureRun
    var decoder: DiscoveryDecoder
    var queue: [Held] = []
    var head = 0
    /// Frames removed from the front of `queue` so far (absolute index = offset + index).
    var removed = 0
    var bufferedBytes = 0
    var pending: [Int: Int] = [:]
    var groups: [FragmentReassembler.Key: Group] = [:]
    var nextGroup = 1
    var lastSweep: Timestamp?
    var ended = false

    /// Discovery packets found.
    public private(set) var discoveryPackets = 0
    /// Packets of the connection phase kept (TCP SYN/RST/FIN and TLS hellos, ICMP unreachables).
    public private(set) var connectionPackets = 0
    /// Fragment frames a discovery datagram needed that had already been dropped.
    public private(set) var lostFragments = 0
    /// Held fragments dropped because the buffer was full.
    public private(set) var droppedForSpace = 0

    public init(_ run: CaptureRun) {
        self.run = run
        decoder = run.decoder
    }

    /// The interface whose link type `decoder` has.
    var decoderInterface = 0

    /// The link type of one of the file's interfaces (the file's own for one not described).
    func linkType(of interface: Int) -> LinkType {
        let interfaces = run.file.interfaces
        return interface < interfaces.count ? interfaces[interface].linkType : run.file.linkType
    }

    /// Warnings once the file has been read.
    public var notes: [String] {
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
    public func next() -> Held? {
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
        if run.limitReached {
            ended = true
            return
        }
        let next = run.file.nextRecord { frame, header, bytes in
            self.process(frame: frame, header: header, bytes: bytes)
        }
        if case .end = next { ended = true }
    }

    func process(frame: Int, header: RecordHeader, bytes: UnsafeRawBufferPointer) {
        if header.interface != decoderInterface {
            // Each interface's frames are decoded with its own link layer.
            decoder.linkType = linkType(of: header.interface)
            decoderInterface = header.interface
        }
        let now = header.timestamp
        sweep(now: now)
        if let packet = decoder.decode(
            frame: frame, timestamp: now, bytes: bytes, originalLength: header.originalLength)
        {
            if packet.isConnection { connectionPackets += 1 } else { discoveryPackets += 1 }
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

    /// Whether a datagram's first fragment may be discovery traffic: the decoder's own test,
    /// with the M-SEARCH senders it remembers.
    func isCandidate(_ f: Fragment, now: Timestamp) -> Bool {
        guard let ports = f.ports else { return false }
        return decoder.isDiscoveryDatagram(
            sourcePort: ports.source, destination: f.destination, destinationPort: ports.destination, time: now)
    }

    /// Forgets datagrams that can no longer complete (once per second).
    func sweep(now: Timestamp) {
        if let last = lastSweep, now.nanoseconds(since: last) < 1_000_000_000, now >= last { return }
        lastSweep = now
        groups = groups.filter { now.nanoseconds(since: $0.value.firstSeen) <= Self.timeout }
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
