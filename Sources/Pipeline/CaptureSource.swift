import CastDiscovery
import PcapCapture
import WireFormat

/// One capture file being read and decoded: the file, its decoder, and how much of it to read.
///
/// Every command that reads captures opens them here, so they all check link types, install
/// the lossless prefilter and word their warnings the same way.
public struct CaptureRun {
    /// The file's name as shown to the user (`standard input` for `-`).
    public let shownName: String
    public let file: CaptureFile
    public var decoder: DiscoveryDecoder
    /// The interface whose link type the decoder is set to, and the frames of interfaces it
    /// cannot decode.
    public internal(set) var interfaces: InterfaceSelection
    /// Read at most this many records (`-c N`); `nil` for all.
    public let frameLimit: Int?

    /// Opens `path` (`-` is standard input), checks its link type and installs the lossless
    /// prefilter unless `prefilter` is false.
    /// - Returns: the run, or the exit status after sending the error to `notices`.
    public static func open(
        _ path: String, prefilter: Bool = true, reassembly: ReassemblyLimits = ReassemblyLimits(),
        frameLimit: Int? = nil, notices: NoticeSink
    ) -> Result<CaptureRun, ExitStatusError> {
        let file: CaptureFile
        do throws(PcapError) {
            file = try CaptureFile(path: path)
        } catch {
            notices(.error(error.description))
            switch error.kind {
            case .noSuchFile, .unreadable: return .failure(ExitStatusError(status: .noInput))
            default: return .failure(ExitStatusError(status: .dataError))
            }
        }
        let shownName = path == "-" ? "standard input" : path
        // Only a file none of whose interfaces castscope decodes is refused; the frames of an
        // interface with another link type are counted and the rest analysed.
        let interfaces = file.interfaces
        let decodable = interfaces.first { $0.linkType.isSupported }
        if !interfaces.isEmpty, decodable == nil {
            var types: [String] = []
            for i in interfaces {
                let type = "\(i.linkTypeName) (\(i.linkTypeDescription), DLT \(i.linkType.rawValue))"
                if !types.contains(type) { types.append(type) }
            }
            notices(
                .error(
                    "\(shownName): unsupported link type \(types.joined(separator: ", ")); castscope "
                        + "decodes Ethernet, Linux cooked (SLL, SLL2), raw IP, BSD loopback, Apple PKTAP and "
                        + "802.11/radiotap"))
            return .failure(ExitStatusError(status: .dataError))
        }
        if prefilter {
            do throws(PcapError) {
                try file.setDiscoveryPrefilter()
            } catch {
                notices(.warning("\(shownName): prefilter not applied: \(error.message)"))
            }
        }
        let first = file.linkType.isSupported ? file.linkType : decodable?.linkType ?? file.linkType
        file.recordLimit = frameLimit
        return .success(
            CaptureRun(
                shownName: shownName, file: file,
                decoder: DiscoveryDecoder(linkType: first, reassemblyLimits: reassembly),
                interfaces: InterfaceSelection(file), frameLimit: frameLimit))
    }

    /// Whether the `-c N` limit has been reached.
    var limitReached: Bool { frameLimit.map { file.recordsRead >= $0 } ?? false }

    /// Whether to read another record (the `-c N` limit is not reached); every 4096 records it
    /// also stores the position in `progress`.
    @inline(__always)
    func readsOn(_ progress: ReadProgress?) -> Bool {
        if let progress, file.recordsRead & 4095 == 0 {
            progress.record(packets: file.recordsRead, bytes: file.bytesRead)
        }
        return !limitReached
    }

    /// Decodes every record, calling `body` for each discovery packet (materialised, for
    /// `dump`).
    /// - Returns: records read, how reading ended, and the warnings to show.
    public mutating func forEachPacket(_ body: (DiscoveryPacket) -> Void) -> (
        records: Int, end: ReadEnd, notes: [String]
    ) {
        while let packet = nextPacket() { body(packet) }
        return (file.recordsRead, file.end ?? .endOfFile, finalNotes)
    }

    /// The next discovery packet, or `nil` at the end of the file (pull style, for merging).
    /// Every 4096 records the shared `progress` is updated.
    public mutating func nextPacket(progress: ReadProgress? = nil) -> DiscoveryPacket? {
        var decoder = self.decoder
        var interfaces = self.interfaces
        defer {
            self.decoder = decoder
            self.interfaces = interfaces
        }
        let file = self.file
        while readsOn(progress) {
            let next = file.nextRecord { frame, header, bytes -> DiscoveryPacket? in
                guard interfaces.select(header.interface, file, &decoder) else { return nil }
                var packet = decoder.decode(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
                if header.interface != 0 { packet?.captureInterface = header.interface }
                return packet
            }
            switch next {
            case .record(let packet?): return packet
            case .record(nil): continue
            case .end: return nil
            }
        }
        return nil
    }

    /// Decodes every remaining record in place, calling `body` for each discovery packet with
    /// its mDNS message read over the borrowed bytes (the analysis hot path: nothing is
    /// materialised). Every 4096 records the shared `progress` is updated.
    /// - Parameter pauseAt: stop once this many records of the file have been read, to go on
    ///   later (`nil`: read to the end).
    /// - Returns: whether reading is over (the end of the file or the frame limit), false when
    ///   it paused.
    @discardableResult
    public mutating func forEachPacketInPlace(
        progress: ReadProgress? = nil, pauseAt: Int? = nil, _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) -> Bool {
        var decoder = self.decoder
        var interfaces = self.interfaces
        defer {
            self.decoder = decoder
            self.interfaces = interfaces
        }
        let file = self.file
        let pause = pauseAt ?? Int.max
        while readsOn(progress) {
            if file.recordsRead >= pause { return false }
            let more = file.readRecord { frame, header, bytes in
                guard interfaces.select(header.interface, file, &decoder) else { return }
                if header.interface == 0 {
                    decoder.decodeInPlace(
                        frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength,
                        body)
                } else {
                    // Only frames of a second interface pay for the copy that names it.
                    decoder.decodeInPlace(
                        frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength
                    ) { packet, message in
                        var packet = packet
                        packet.captureInterface = header.interface
                        body(packet, message)
                    }
                }
            }
            if !more { return true }
        }
        return true
    }

    /// The warnings for the file once it has been read.
    public var finalNotes: [String] {
        var notes = Self.notes(
            records: file.recordsRead, end: file.end ?? .endOfFile, fault: file.fault, statistics: decoder.statistics)
        notes += interfaces.notes(file.interfaces)
        return notes
    }

    /// Whether reading stopped on an error (not a cut-off end): the file is damaged or uses
    /// something the reader cannot read, and scripts should know (exit 65).
    public var endedInError: Bool {
        if case .error? = file.end { return true }
        return false
    }

    /// The warnings a finished file deserves.
    /// - Parameter fault: where the reader stopped, when it knows (frame and byte offset).
    public static func notes(
        records: Int, end: ReadEnd, fault: ReadFault? = nil, statistics stats: DecodeStatistics
    ) -> [String] {
        var notes: [String] = []
        let before = records == 1 ? "the frame before it was read" : "the \(records) frames before it were read"
        switch end {
        case .endOfFile: break
        case .truncated(let message):
            let at = fault.map { " at byte \($0.byteOffset)" } ?? ""
            notes.append(
                "capture ends in the middle of a record after frame \(records)\(at) (\(fault?.problem ?? message)); "
                    + before)
        case .error(let message):
            if let fault {
                notes.append(
                    "unreadable from frame \(fault.frame) (byte offset \(fault.byteOffset)): \(fault.problem); "
                        + before)
            } else {
                notes.append("reading stopped after frame \(records): \(message)")
            }
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
        let dropped = reassembly.timedOut + reassembly.evicted + reassembly.invalid + reassembly.incomplete
        if dropped > 0 {
            notes.append(
                "\(dropped) fragmented datagrams could not be reassembled (\(reassembly.timedOut) timed out, "
                    + "\(reassembly.evicted) evicted by limits, \(reassembly.invalid) inconsistent, "
                    + "\(reassembly.incomplete) incomplete when the capture ended)")
        }
        return notes
    }
}

extension AnalysisOptions {
    /// The decoder's reassembly limits, with `--max-fragments` applied: files and live
    /// interfaces decode with the same bounds.
    var reassemblyLimits: ReassemblyLimits {
        var limits = ReassemblyLimits()
        limits.maximumDatagrams = capacity.fragments
        return limits
    }
}

/// Interleaves several sources by timestamp, one pending element per source: the way `analyze
/// --merge` makes one timeline of several files and `extract` writes one pcap of them. Ties go
/// to the source listed first, so the result does not depend on how the sources are read.
///
/// `startsAt` gives, before anything is taken from a source, the time its first element can
/// have at the earliest (`nil`: not known). Such a source is not read until the merged
/// timeline reaches that time, so of many rotated files only those whose time has come hold
/// more than their first small read. The result is the same as reading every source's first
/// element at once as long as no source's records go back before its first record.
public func mergeByTime<Element>(
    sources count: Int, startsAt: ((Int) -> Timestamp?)? = nil, next: (Int) -> Element?,
    timestamp: (Element) -> Timestamp, _ body: (Int, Element) -> Void
) {
    var heads = [Element?](repeating: nil, count: count)
    // Sources not read yet, by the time they start at, latest first (taken from the end).
    var waiting: [(start: Timestamp, source: Int)] = []
    for i in 0..<count {
        if let start = startsAt?(i) {
            waiting.append((start, i))
        } else {
            heads[i] = next(i)
        }
    }
    waiting.sort { $0.start > $1.start || ($0.start == $1.start && $0.source > $1.source) }
    while true {
        var best: Int?
        for i in heads.indices {
            guard let h = heads[i] else { continue }
            if let b = best, timestamp(heads[b]!) <= timestamp(h) { continue }
            best = i
        }
        // A waiting source that could start at or before the best head is read first.
        if let first = waiting.last, best.map({ first.start <= timestamp(heads[$0]!) }) ?? true {
            waiting.removeLast()
            heads[first.source] = next(first.source)
            continue
        }
        guard let i = best else { return }
        body(i, heads[i]!)
        heads[i] = next(i)
    }
}
