// PcapCapture: capture files (pcap, pcapng, compressed or not) and live interfaces, the BPF
// filters, writing pcaps and dropping privileges. Files are read here, in place in one reused
// buffer (RecordBuffer, PcapFormat, PcapngFormat); libpcap is used for live capture, for
// compiling BPF and for writing. Everything above it sees records (a header and borrowed
// bytes), never a pcap handle.

import CLibpcap
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One record's header: when it was captured and how long it was.
public struct RecordHeader: Hashable, Sendable {
    /// Capture time (nanosecond precision).
    public var timestamp: Timestamp
    /// Bytes captured (`caplen`).
    public var capturedLength: Int
    /// Bytes on the wire (`len`).
    public var originalLength: Int
    /// The capture interface (``CaptureFile/interfaces``) the record came from: 0 in classic
    /// pcap, the pcapng interface number (across sections) otherwise.
    public var interface: Int = 0

    public init(timestamp: Timestamp, capturedLength: Int, originalLength: Int, interface: Int = 0) {
        self.timestamp = timestamp
        self.capturedLength = capturedLength
        self.originalLength = originalLength
        self.interface = interface
    }
}

/// Why reading a capture stopped.
public enum ReadEnd: Hashable, Sendable {
    /// The file ended cleanly.
    case endOfFile
    /// The file was cut in the middle of a record or block (typical of a killed capture);
    /// everything before the cut was read. The message names the frame and byte offset.
    case truncated(String)
    /// The file is unreadable from some point on (a damaged block, a record longer than the
    /// snapshot length, a read error); everything before it was read.
    case error(String)
}

/// An open capture file: classic pcap or pcapng, possibly gzip-, zstd- or lz4-compressed, read
/// with nanosecond timestamps.
///
/// Packet bytes handed to ``forEachRecord(_:)`` lie in the reader's buffer and are valid only
/// during the callback: decode them in place and copy only what must outlive it.
public final class CaptureFile {
    /// The path as given (`-` is standard input).
    public let path: String
    /// The first interface's link type (Ethernet for a pcapng file that describes none before
    /// its first packet).
    public let linkType: LinkType
    /// libpcap's name for the link type (`EN10MB`, `LINUX_SLL2`, `PKTAP`…).
    public let linkTypeName: String
    /// libpcap's description of the link type (`Ethernet`, `Linux cooked v2`…).
    public let linkTypeDescription: String
    /// The first interface's snapshot length (0: none recorded).
    public let snapLength: Int
    /// The file format, from its magic number.
    public let format: Format
    /// `format == .pcap`, kept as a flag for the per-record path.
    let isClassicPcap: Bool
    /// Whether the file stores nanosecond (rather than microsecond) timestamps (classic pcap).
    public let nanosecondFile: Bool
    /// How the file is compressed (`nil`: not compressed).
    public let compression: Compression?
    /// The file's size in bytes (`nil` for standard input).
    public let fileSize: Int64?

    /// Capture file formats.
    public enum Format: String, Hashable, Sendable {
        case pcap, pcapng
    }

    /// Every interface seen so far, by ``FileInterface/index``: classic pcap has one; a
    /// pcapng file may describe more interfaces, with other link types, further on.
    public var interfaces: [FileInterface] { state.pointee.interfaces }
    /// Where reading stopped on a damaged or cut-off file, once it has (`nil` otherwise).
    public var fault: ReadFault? { state.pointee.fault }
    /// Section and packet comments read so far (at most ``maximumComments``).
    public var comments: [CaptureComment] { state.pointee.comments }
    /// The most comments kept (a file could hold millions).
    public static let maximumComments = 1000

    /// The timestamp of the first record (filtered or not), once reading has started.
    public var firstTimestamp: Timestamp? { state.pointee.firstTimestamp }
    /// The timestamp of the last record read so far (filtered or not).
    public var lastTimestamp: Timestamp? { state.pointee.lastTimestamp }
    /// The number of records read so far (filtered or not).
    public var recordsRead: Int { state.pointee.recordsRead }
    /// The timestamp of the next record, when it is already in the reader's buffer (nothing is
    /// read to find it) and has one; `nil` when it is not known. Records may be out of time
    /// order, so this is the next record's time, not a bound on all that follow.
    public var upcomingTimestamp: Timestamp? { state.pointee.peekTimestamp() }
    /// Why reading stopped, once it has.
    public var end: ReadEnd? { state.pointee.end }
    /// How far into the file reading has got, in bytes of the file (compressed bytes for a
    /// compressed file), for progress against ``fileSize``.
    public var bytesRead: Int64? { state.pointee.buffer.bytesConsumed }
    /// Whether a read-ahead thread was started for this file (tests).
    var readAheadStarted: Bool { state.pointee.buffer.readAheadStarted }
    var readAheadRunning: Bool { state.pointee.buffer.readAheadRunning }

    /// Allocated only once opening has succeeded: a throwing initializer does not run
    /// `deinit`, so anything allocated before a throw must be freed by hand (found by the
    /// capture fuzzer).
    private let state: UnsafeMutablePointer<ReaderState>

    /// Opens a capture file.
    /// - Parameter path: a file path, or `-` for standard input.
    /// - Throws: ``PcapError`` with kind `noSuchFile`, `unreadable` or `notACapture`.
    public convenience init(path: String) throws(PcapError) {
        let operation = "open \(path == "-" ? "standard input" : path)"
        var size: Int64?
        if path != "-" {
            var info = stat()
            if stat(path, &info) != 0 {
                let code = errno
                throw PcapError(
                    kind: code == ENOENT || code == ENOTDIR ? .noSuchFile : .unreadable, operation: operation,
                    message: CaptureFile.errnoText(code))
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw PcapError(kind: .unreadable, operation: operation, message: "is a directory")
            }
            if access(path, R_OK) != 0 {
                throw PcapError(kind: .unreadable, operation: operation, message: CaptureFile.errnoText(errno))
            }
            size = (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        }
        let descriptor = path == "-" ? dup(0) : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw PcapError(
                kind: code == ENOENT || code == ENOTDIR ? .noSuchFile : .unreadable, operation: operation,
                message: CaptureFile.errnoText(code))
        }
        let opened: (source: any ByteSource, compression: Compression?)
        do throws(ByteSourceError) {
            opened = try CompressedSource.open(FileDescriptorSource(descriptor: descriptor, closes: true))
        } catch {
            throw PcapError(kind: .notACapture, operation: operation, message: error.message)
        }
        // Only a regular file reads ahead: a read there never waits for a writer, so closing the
        // file early (`-c N`) waits at most for one read; a pipe's could block for good.
        var sizes = RecordBuffer.Sizes()
        if size != nil { sizes.readAhead = .whenAvailable }
        try self.init(
            source: opened.source, compression: opened.compression, path: path, fileSize: path == "-" ? nil : size,
            sizes: sizes)
    }

    /// Opens a capture read from `source` (tests give other buffer sizes and read-ahead uses).
    init(
        source: any ByteSource, compression: Compression? = nil, path: String, fileSize: Int64? = nil,
        sizes: RecordBuffer.Sizes
    ) throws(PcapError) {
        self.path = path
        let operation = "open \(path == "-" ? "standard input" : path)"
        var buffer = RecordBuffer(source: source, sizes: sizes)
        let state: UnsafeMutablePointer<ReaderState>
        do throws(PcapError) {
            state = try Self.start(&buffer, operation: operation)
        } catch {
            buffer.release()
            throw error
        }
        self.state = state
        let first = state.pointee.interfaces.first
        linkType = first?.linkType ?? .ethernet
        linkTypeName = first?.linkTypeName ?? FileLinkType.name(.ethernet)
        linkTypeDescription = first?.linkTypeDescription ?? FileLinkType.description(.ethernet)
        snapLength = first?.snapLength ?? 0
        format = state.pointee.format
        isClassicPcap = format == .pcap
        nanosecondFile = isClassicPcap && state.pointee.pcapFractionScale == 1
        self.compression = compression
        self.fileSize = fileSize
    }

    /// Reads the file header (classic pcap) or the blocks up to the first interface (pcapng).
    private static func start(_ buffer: inout RecordBuffer, operation: String) throws(PcapError)
        -> UnsafeMutablePointer<ReaderState>
    {
        func notACapture(_ message: String) -> PcapError {
            PcapError(kind: .notACapture, operation: operation, message: message)
        }
        let fill = buffer.require(24)
        if case .failed(let error) = fill { throw notACapture(error.message) }
        guard buffer.available > 0 else { throw notACapture("is empty (0 bytes): not a capture file") }
        let prefix = Array(UnsafeRawBufferPointer(start: buffer.current, count: min(buffer.available, 512)))
        let first4 = prefix.count >= 4 ? prefix[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : 0
        let format: Format
        if PcapHeader.isMagic(first4) {
            format = .pcap
        } else if first4 == PcapngBlock.sectionHeader {
            format = .pcapng
        } else {
            throw notACapture(
                "is not a pcap or pcapng capture: its first bytes look like \(FileKind.describe(prefix))")
        }
        let state = UnsafeMutablePointer<ReaderState>.allocate(capacity: 1)
        state.initialize(to: ReaderState(buffer: buffer, format: format))
        func discard() {
            buffer = state.pointee.buffer
            state.deinitialize(count: 1)
            state.deallocate()
        }
        if format == .pcap {
            guard buffer.available >= 24 else {
                discard()
                throw notACapture(
                    "is cut off inside its pcap file header (\(buffer.available) of 24 bytes): not a readable capture")
            }
            state.pointee.startPcap(PcapHeader(buffer.current))
            state.pointee.buffer.start = 24
            return state
        }
        state.pointee.priming = true
        _ = state.pointee.nextPcapngPacket()
        state.pointee.priming = false
        if state.pointee.sections == 0 {
            let reason = state.pointee.fault?.message ?? "no section header block"
            discard()
            throw notACapture("is not a readable pcapng capture: \(reason)")
        }
        return state
    }

    deinit {
        state.pointee.buffer.release()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: Filters

    /// Compiles a BPF expression that reading then applies (`pcap_offline_filter`) before
    /// handing a record over, compiled for each interface's link type as interfaces appear.
    /// Records the filter rejects are still counted, so frame numbers stay Wireshark's.
    /// - Throws: ``PcapError`` of kind `badFilter` when it does not compile for an interface
    ///   already known (an interface described later whose link type it does not compile for
    ///   has all its records rejected).
    public func setFilter(_ expression: String) throws(PcapError) {
        let filters = RecordFilters(expression: expression)
        var slots: [Int] = []
        let known = state.pointee.interfaces
        for interface in known {
            slots.append(try filters.requireSlot(for: interface.linkType, snapLength: interface.snapLength))
        }
        if known.isEmpty {
            // Nothing described yet: check the expression against the default link type.
            _ = try filters.requireSlot(for: linkType, snapLength: snapLength)
        }
        for (i, slot) in slots.enumerated() { state.pointee.readers[i].filterSlot = slot }
        state.pointee.filters = filters
    }

    /// Installs the lossless discovery prefilter (``DiscoveryPrefilter``) for every interface:
    /// records it rejects are counted (frame numbers, timestamps) but not handed over.
    public func setDiscoveryPrefilter() throws(PcapError) {
        state.pointee.prefilter = true
    }

    /// Reads no more than this many records (`-c N`, counted over every record, filtered or
    /// not); `nil` for no limit. Reaching it ends reading without an ``end``.
    public var recordLimit: Int? {
        get { state.pointee.recordLimit == .max ? nil : state.pointee.recordLimit }
        set { state.pointee.recordLimit = newValue ?? .max }
    }

    // MARK: Reading

    /// The next record that passes the filters, or `nil` at the end (see ``end``).
    @inline(__always)
    private func nextPassing() -> (frame: Int, packet: Packet)? {
        let state = self.state
        while true {
            if state.pointee.recordsRead >= state.pointee.recordLimit {
                state.pointee.buffer.release()
                return nil
            }
            let found = isClassicPcap ? state.pointee.nextPcapPacket() : state.pointee.nextPcapngPacket()
            guard let packet = found else {
                // The file has ended: its buffers (and read-ahead thread) go now, not when the
                // last reference to the file does (every file of a merge stays open until the
                // report is made).
                if state.pointee.end != nil { state.pointee.buffer.release() }
                return nil
            }
            state.pointee.count(packet)
            if state.pointee.prefilter, !DiscoveryPrefilter.keeps(packet.linkType, packet.bytes) { continue }
            if let filters = state.pointee.filters,
                !filters.matches(
                    state.pointee.readers[packet.header.interface].filterSlot, packet.header, packet.bytes)
            {
                continue
            }
            return (state.pointee.recordsRead, packet)
        }
    }

    /// What ``nextRecord(_:)`` found.
    public enum Next<T> {
        /// A record, as transformed by the body.
        case record(T)
        /// No more records, and why.
        case end(ReadEnd)
    }

    /// Reads the next record that passes the filter (pull style, for merging several files).
    ///
    /// - Parameter body: called with the 1-based frame number (counted over every record,
    ///   filtered or not), the record header, and the borrowed bytes, valid only during the call.
    /// - Returns: what `body` returned, or the end of the file. A damaged or cut-off file does
    ///   not throw: it ends with ``ReadEnd/truncated(_:)`` or ``ReadEnd/error(_:)``.
    public func nextRecord<T>(
        _ body: (_ frame: Int, _ header: RecordHeader, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) rethrows -> Next<T> {
        if let end = state.pointee.end { return .end(end) }
        guard let (frame, packet) = nextPassing() else { return .end(state.pointee.end ?? .endOfFile) }
        return .record(try body(frame, packet.header, packet.bytes))
    }

    /// Reads the next record that passes the filter and calls `body` with it: ``nextRecord(_:)``
    /// without a generic result, which costs a metadata lookup per record when called from
    /// another module.
    /// - Returns: `false` at the end of the file (see ``end``).
    public func readRecord(
        _ body: (_ frame: Int, _ header: RecordHeader, _ bytes: UnsafeRawBufferPointer) -> Void
    ) -> Bool {
        if state.pointee.end != nil { return false }
        guard let (frame, packet) = nextPassing() else { return false }
        body(frame, packet.header, packet.bytes)
        return true
    }

    /// Reads every record in order.
    ///
    /// - Parameter body: called with the 1-based frame number (counted over every record,
    ///   filtered or not), the record header, and the borrowed bytes.
    /// - Returns: the number of records read and why reading stopped. A damaged or cut-off file
    ///   does not throw: every record before the fault has been delivered.
    @discardableResult
    public func forEachRecord(
        _ body: (_ frame: Int, _ header: RecordHeader, _ bytes: UnsafeRawBufferPointer) throws -> Void
    ) rethrows -> (records: Int, end: ReadEnd) {
        while true {
            if case .end(let e) = try nextRecord(body) { return (recordsRead, e) }
        }
    }

    /// libpcap's error buffer as text (LiveCapture).
    static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { p in
            String(decoding: UnsafeRawBufferPointer(p).prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func errnoText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
