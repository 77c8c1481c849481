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
    static func open(_ path: String, prefilter: Bool, reassembly: ReassemblyLimits = ReassemblyLimits())
        -> Result<CaptureRun, ExitStatusError>
    {
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
            CaptureRun(
                shownName: shownName, file: file,
                decoder: DiscoveryDecoder(linkType: file.linkType, reassemblyLimits: reassembly)))
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

/// An exit status carried as an error.
struct ExitStatusError: Error {
    var status: ExitStatus
}
