import CastDiscovery
import Dispatch
import PcapCapture
import Reports
import WireFormat

/// Opening and decoding one capture file, shared by the commands.
struct CaptureRun {
    /// The file's name as shown to the user.
    let shownName: String
    let file: CaptureFile
    var decoder: DiscoveryDecoder

    /// Opens `path`, checks its link type and installs the lossless prefilter.
    /// - Returns: the run, or the exit status after printing the error.
    static func open(_ path: String, prefilter: Bool) -> Result<CaptureRun, ExitStatusError> {
        let file: CaptureFile
        do throws(PcapError) {
            file = try CaptureFile(path: path)
        } catch {
            printError(error.description)
            switch error.kind {
            case .noSuchFile, .unreadable: return .failure(ExitStatusError(status: .noInput))
            default: return .failure(ExitStatusError(status: .dataError))
            }
        }
        let shownName = path == "-" ? "standard input" : path
        guard file.linkType.isSupported else {
            printError(
                "\(shownName): unsupported link type \(file.linkTypeName) (\(file.linkTypeDescription), "
                    + "DLT \(file.linkType.rawValue)); castscope decodes Ethernet, Linux cooked (SLL, SLL2), raw IP, "
                    + "BSD loopback, Apple PKTAP and 802.11/radiotap")
            return .failure(ExitStatusError(status: .dataError))
        }
        if prefilter, let expression = DiscoveryFilter.expression(for: file.linkType) {
            do throws(PcapError) {
                try file.setFilter(expression)
            } catch {
                printError("warning: \(shownName): prefilter not applied: \(error.message)")
            }
        }
        return .success(
            CaptureRun(shownName: shownName, file: file, decoder: DiscoveryDecoder(linkType: file.linkType)))
    }

    /// Decodes every record, calling `body` for each discovery packet.
    /// - Returns: records read, how reading ended, and the warnings to show.
    mutating func run(_ body: (DiscoveryPacket) -> Void) -> (records: Int, end: ReadEnd, notes: [String]) {
        var decoder = self.decoder
        let (records, end) = file.forEachRecord { frame, header, bytes in
            if let packet = decoder.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                body(packet)
            }
        }
        self.decoder = decoder
        return (records, end, Self.notes(records: records, end: end, statistics: decoder.statistics))
    }

    /// The next discovery packet, or `nil` at the end of the file (pull style, for `--merge`).
    /// Every 4096 records the shared `progress` is updated.
    mutating func nextPacket(progress: ReadProgress? = nil) -> DiscoveryPacket? {
        var decoder = self.decoder
        defer { self.decoder = decoder }
        while true {
            if let progress, file.recordsRead & 4095 == 0 {
                progress.packets.store(file.recordsRead, ordering: .relaxed)
                if let b = file.bytesRead { progress.bytes.store(b, ordering: .relaxed) }
            }
            let next = file.nextRecord { frame, header, bytes in
                decoder.decode(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            }
            switch next {
            case .record(let packet?): return packet
            case .record(nil): continue
            case .end: return nil
            }
        }
    }

    /// Decodes every remaining record in place, calling `body` for each discovery packet with
    /// its mDNS message read over the borrowed bytes (the analysis hot path: nothing is
    /// materialised). Every 4096 records the shared `progress` is updated.
    mutating func forEachPacketInPlace(
        progress: ReadProgress? = nil, _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        var decoder = self.decoder
        defer { self.decoder = decoder }
        while true {
            if let progress, file.recordsRead & 4095 == 0 {
                progress.packets.store(file.recordsRead, ordering: .relaxed)
                if let b = file.bytesRead { progress.bytes.store(b, ordering: .relaxed) }
            }
            let more = file.readRecord { frame, header, bytes in
                decoder.decodeInPlace(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength, body
                )
            }
            if !more { return }
        }
    }

    /// The warnings for the file once it has been read.
    var finalNotes: [String] {
        Self.notes(records: file.recordsRead, end: file.end ?? .endOfFile, statistics: decoder.statistics)
    }

    /// The warnings a finished file deserves.
    static func notes(records: Int, end: ReadEnd, statistics stats: DecodeStatistics) -> [String] {
        var notes: [String] = []
        switch end {
        case .endOfFile: break
        case .truncated(let message):
            notes.append(
                "capture ends in the middle of a record after frame \(records) (\(message)); "
                    + "the \(records) frames before it were read")
        case .error(let message):
            notes.append("reading stopped after frame \(records): \(message)")
        }
        if stats.protectedWiFiFrames > 0 {
            notes.append(
                "\(stats.protectedWiFiFrames) of \(stats.wifiDataFrames) 802.11 data frames are encrypted (Protected): "
                    + "this is an encrypted Wi-Fi capture and mDNS inside those frames cannot be read")
        }
        if stats.rawIPInEthernetFrames > 0 {
            notes.append(
                "\(stats.rawIPInEthernetFrames) frames labelled Ethernet carry raw IP (iPhone rvictl quirk); "
                    + "decoded as raw IP")
        }
        let reassembly = stats.reassembly
        let dropped = reassembly.timedOut + reassembly.evicted + reassembly.invalid
        if dropped > 0 {
            notes.append(
                "\(dropped) fragmented datagrams could not be reassembled (\(reassembly.timedOut) timed out, "
                    + "\(reassembly.evicted) evicted by limits, \(reassembly.invalid) inconsistent)")
        }
        return notes
    }
}

/// An exit status carried as an error.
struct ExitStatusError: Error {
    var status: ExitStatus
}

// MARK: - Reading and tracking on two threads

/// Discovery packets handed from the reading thread to the tracking thread, with their mDNS
/// messages copied (checked, indexed) into an arena. Batches are reused: a value owned by one
/// thread at a time (moved through ``HandOver``), so its storage is never copied.
struct PacketBatch {
    static let capacity = 256
    var packets: [DiscoveryPacket] = []
    /// Per packet: its message in `arena`, or -1.
    var messages: [Int] = []
    var arena = DNSMessageArena()

    init() {
        packets.reserveCapacity(Self.capacity)
        messages.reserveCapacity(Self.capacity)
    }

    mutating func reset() {
        packets.removeAll(keepingCapacity: true)
        messages.removeAll(keepingCapacity: true)
        arena.removeAll()
    }
}

/// A one-writer, one-reader hand-over of up to `capacity` values; `take` waits for one.
/// The semaphore orders each slot's write before its read.
final class HandOver<T>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<T?>
    private let capacity: Int
    private var head = 0  // reader only
    private var tail = 0  // writer only
    private let items = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Writer side. The caller guarantees at most `capacity` values are ever in flight.
    func put(_ value: T) {
        slots[tail % capacity] = value
        tail += 1
        items.signal()
    }

    /// Reader side.
    func take() -> T {
        items.wait()
        let value = slots[head % capacity].take()!
        head += 1
        return value
    }
}

extension CaptureRun {
    /// Batches in flight between the reading and the tracking thread.
    static let pipelineDepth = 4

    /// Reads and decodes on this thread while `DiscoveryTracker` runs on another: the
    /// decoder checks and indexes each mDNS message in place, copies it into a batch, and
    /// the tracker reads it from there in capture order. The result is the same as
    /// ``forEachPacketInPlace(progress:_:)`` feeding a tracker directly (a test compares them).
    mutating func trackPipelined(progress: ReadProgress?, options: AnalysisOptions, capture: Int) -> TimelineResult {
        let full = HandOver<PacketBatch?>(capacity: Self.pipelineDepth + 1)
        let empty = HandOver<PacketBatch>(capacity: Self.pipelineDepth)
        for _ in 0..<Self.pipelineDepth { empty.put(PacketBatch()) }
        let result = HandOver<TimelineResult>(capacity: 1)
        // A queue of its own (an overcommitting one): tracking always gets a thread, even when
        // every worker of the global queue is reading a file and waiting for a free batch.
        DispatchQueue(label: "castscope.track.\(capture)").async {
            var tracker = DiscoveryTracker(options: options)
            while var batch = full.take() {
                for i in batch.packets.indices {
                    let m = batch.messages[i]
                    if m >= 0 {
                        batch.arena.withView(m) { tracker.ingest(batch.packets[i], message: $0, capture: capture) }
                    } else {
                        tracker.ingest(batch.packets[i], message: nil, capture: capture)
                    }
                }
                batch.reset()
                // Handed back without keeping a reference: the reader then appends to storage
                // it alone holds (a lingering copy here would make it copy the whole batch).
                empty.put(consume batch)
            }
            result.put(tracker.finish())
        }
        var batch = empty.take()
        forEachPacketInPlace(progress: progress) { packet, view in
            batch.packets.append(packet)
            batch.messages.append(view.map { batch.arena.append($0) } ?? -1)
            if batch.packets.count == PacketBatch.capacity {
                var filled = empty.take()
                swap(&filled, &batch)
                full.put(consume filled)
            }
        }
        full.put(consume batch)
        full.put(nil)
        return result.take()
    }
}
