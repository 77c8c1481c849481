// PcapCapture: capture files (pcap, pcapng) and live interfaces, the BPF filters, writing pcaps
// and dropping privileges. The only module that uses libpcap; everything above it sees records
// (a header and borrowed bytes), never a pcap handle.

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
    /// The file was cut in the middle of a record (typical of a killed capture); everything
    /// before the cut was read. Carries libpcap's message.
    case truncated(String)
    /// libpcap reported another error part-way; everything before it was read.
    case error(String)
}

/// An open capture file (pcap or pcapng), read through libpcap with nanosecond timestamps.
///
/// Packet bytes handed to ``forEachRecord(_:)`` are borrowed from libpcap's buffer and valid
/// only during the callback: decode them in place and copy only what must outlive it.
public final class CaptureFile {
    /// The path as given (`-` is standard input).
    public let path: String
    /// The capture's link type.
    public let linkType: LinkType
    /// libpcap's name for the link type (`EN10MB`, `LINUX_SLL2`, `PKTAP`…).
    public let linkTypeName: String
    /// libpcap's description of the link type (`Ethernet`, `Linux cooked v2`…).
    public let linkTypeDescription: String
    /// The snapshot length recorded in the file.
    public let snapLength: Int
    /// The file format, from its magic number.
    public let format: Format
    /// `format == .pcap`, kept as a flag for the per-record path.
    let isClassicPcap: Bool
    /// Whether the file stores nanosecond (rather than microsecond) timestamps.
    public let nanosecondFile: Bool

    /// Capture file formats.
    public enum Format: String, Hashable, Sendable {
        case pcap, pcapng
    }

    /// Every interface seen so far, by ``FileInterface/index``: classic pcap has one; a
    /// pcapng file may describe more interfaces, with other link types, further on.
    public var interfaces: [FileInterface] {
        [
            FileInterface(
                index: 0, linkType: linkType, linkTypeName: linkTypeName, linkTypeDescription: linkTypeDescription,
                snapLength: snapLength)
        ]
    }
    /// How the file is compressed (`nil`: not compressed).
    public var compression: Compression? { nil }
    /// Where reading stopped on a damaged or cut-off file, once it has (`nil` otherwise).
    public var fault: ReadFault? { nil }
    /// Section and packet comments read so far (at most ``maximumComments``).
    public var comments: [CaptureComment] { [] }
    /// The most comments kept (a file could hold millions).
    public static let maximumComments = 1000

    /// Installs the lossless discovery prefilter (``DiscoveryPrefilter``) for every interface.
    public func setDiscoveryPrefilter() throws(PcapError) {
        if let expression = DiscoveryFilter.expression(for: linkType) { try setFilter(expression) }
    }

    /// The timestamp of the first record (filtered or not), once reading has started.
    public var firstTimestamp: Timestamp? { state.pointee.firstTimestamp }
    /// The timestamp of the last record read so far (filtered or not).
    public var lastTimestamp: Timestamp? { state.pointee.lastTimestamp }

    private let handle: OpaquePointer
    /// The stdio buffer of the stream libpcap reads (see ``streamBufferSize``).
    private let streamBuffer: UnsafeMutablePointer<CChar>
    /// What changes while reading, behind a pointer: a class's stored properties are checked
    /// for exclusive access on every use, which cost more than the rest of the per-record work
    /// (about 120 instructions a record).
    private struct ReadState {
        var recordsRead = 0
        var end: ReadEnd?
        var firstTimestamp: Timestamp?
        var lastTimestamp: Timestamp?
        var filter = bpf_program()
        var hasFilter = false
    }
    /// Allocated only once opening has succeeded: a throwing initializer does not run
    /// `deinit`, so anything allocated before a throw would leak (found by the capture fuzzer).
    private let state: UnsafeMutablePointer<ReadState>

    /// Opens a capture file.
    /// - Parameter path: a file path, or `-` for standard input.
    /// - Throws: ``PcapError`` with kind `noSuchFile`, `unreadable` or `notACapture`.
    public init(path: String) throws(PcapError) {
        self.path = path
        let operation = "open \(path == "-" ? "standard input" : path)"
        if path != "-" {
            var info = stat()
            if stat(path, &info) != 0 {
                let code = errno
                throw PcapError(
                    kind: code == ENOENT || code == ENOTDIR ? .noSuchFile : .unreadable, operation: operation,
                    message: Self.errnoText(code))
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw PcapError(kind: .unreadable, operation: operation, message: "is a directory")
            }
            if access(path, R_OK) != 0 {
                throw PcapError(kind: .unreadable, operation: operation, message: Self.errnoText(errno))
            }
        }
        // The stream is opened here rather than by libpcap so that it gets a 1 MiB buffer:
        // stdio's default (the file system's 4 KiB block) costs one read(2) per 4 KiB, which
        // on a page-cached multi-gigabyte capture is a large share of the whole run.
        let stream: UnsafeMutablePointer<FILE>
        if path == "-" {
            // A stream of its own over a copy of descriptor 0 (libpcap closes it).
            guard let f = fdopen(dup(0), "rb") else {
                throw PcapError(kind: .unreadable, operation: operation, message: Self.errnoText(errno))
            }
            stream = f
        } else {
            guard let f = fopen(path, "rb") else {
                let code = errno
                throw PcapError(
                    kind: code == ENOENT || code == ENOTDIR ? .noSuchFile : .unreadable, operation: operation,
                    message: Self.errnoText(code))
            }
            stream = f
        }
        // glibc ignores the size when it allocates the buffer itself, so it is ours (freed after
        // pcap_close in deinit).
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Self.streamBufferSize)
        setvbuf(stream, buffer, _IOFBF, Self.streamBufferSize)
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let h = pcap_fopen_offline_with_tstamp_precision(stream, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
        else {
            // libpcap leaves the stream open when it fails.
            fclose(stream)
            buffer.deallocate()
            let message = Self.text(errbuf)
            let kind: PcapError.Kind =
                message.contains("No such file")
                ? .noSuchFile : message.contains("ermission") ? .unreadable : .notACapture
            throw PcapError(kind: kind, operation: operation, message: message)
        }
        handle = h
        streamBuffer = buffer
        state = .allocate(capacity: 1)
        state.initialize(to: ReadState())
        let dlt = pcap_datalink(h)
        linkType = LinkType(rawValue: dlt)
        linkTypeName = pcap_datalink_val_to_name(dlt).map { String(cString: $0) } ?? "DLT\(dlt)"
        linkTypeDescription = pcap_datalink_val_to_description(dlt).map { String(cString: $0) } ?? "DLT \(dlt)"
        snapLength = Int(pcap_snapshot(h))
        // pcap_major_version is 1 for pcapng as libpcap presents it, 2 for pcap.
        format = pcap_major_version(h) == 2 ? .pcap : .pcapng
        isClassicPcap = pcap_major_version(h) == 2
        nanosecondFile = Self.nanosecondMagic(path)
        var info = stat()
        fileSize = path != "-" && stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// The stdio buffer of the stream libpcap reads from.
    static let streamBufferSize = 1 << 20

    /// The file's size in bytes (`nil` for standard input).
    public let fileSize: Int64?

    /// How far into the file libpcap has read, in bytes (`nil` when it cannot tell).
    public var bytesRead: Int64? {
        guard let f = pcap_file(handle) else { return nil }
        let position = ftello(f)
        return position >= 0 ? Int64(position) : nil
    }

    deinit {
        if state.pointee.hasFilter { pcap_freecode(&state.pointee.filter) }
        state.deinitialize(count: 1)
        state.deallocate()
        pcap_close(handle)
        streamBuffer.deallocate()
    }

    /// Compiles a BPF expression that ``forEachRecord(_:)`` then applies in libpcap
    /// (`pcap_offline_filter`) before handing a record over. Records the filter rejects are
    /// still counted, so frame numbers stay Wireshark's.
    public func setFilter(_ expression: String) throws(PcapError) {
        var program = bpf_program()
        guard pcap_compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw PcapError(
                kind: .badFilter, operation: "compile filter '\(expression)'",
                message: String(cString: pcap_geterr(handle)))
        }
        if state.pointee.hasFilter { pcap_freecode(&state.pointee.filter) }
        state.pointee.filter = program
        state.pointee.hasFilter = true
    }

    /// The number of records read so far (filtered or not).
    public var recordsRead: Int { state.pointee.recordsRead }
    /// Why reading stopped, once it has.
    public var end: ReadEnd? { state.pointee.end }

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
        let state = self.state
        if let end = state.pointee.end { return .end(end) }
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while true {
            let status = pcap_next_ex(handle, &header, &data)
            switch status {
            case 1:
                guard let header, let data else { continue }
                state.pointee.recordsRead += 1
                let h = header.pointee
                // pcap stores seconds as an unsigned 32-bit number that libpcap sign-extends;
                // read it back as unsigned so records after 2038 are not dated 1901.
                let seconds = isClassicPcap ? Int64(UInt32(truncatingIfNeeded: h.ts.tv_sec)) : Int64(h.ts.tv_sec)
                let timestamp = Timestamp(seconds: seconds, nanoseconds: Int64(h.ts.tv_usec))
                if state.pointee.firstTimestamp == nil { state.pointee.firstTimestamp = timestamp }
                state.pointee.lastTimestamp = timestamp
                if state.pointee.hasFilter, pcap_offline_filter(&state.pointee.filter, header, data) == 0 { continue }
                let record = RecordHeader(
                    timestamp: timestamp, capturedLength: Int(h.caplen), originalLength: Int(h.len))
                return .record(
                    try body(
                        state.pointee.recordsRead, record, UnsafeRawBufferPointer(start: data, count: Int(h.caplen))))
            case PCAP_ERROR_BREAK:
                state.pointee.end = .endOfFile
                return .end(.endOfFile)
            default:
                let message = String(cString: pcap_geterr(handle))
                let e: ReadEnd = message.contains("truncated") ? .truncated(message) : .error(message)
                state.pointee.end = e
                return .end(e)
            }
        }
    }

    /// Reads the next record that passes the filter and calls `body` with it: ``nextRecord(_:)``
    /// without a generic result, which costs a metadata lookup per record when called from
    /// another module.
    /// - Returns: `false` at the end of the file (see ``end``).
    public func readRecord(
        _ body: (_ frame: Int, _ header: RecordHeader, _ bytes: UnsafeRawBufferPointer) -> Void
    ) -> Bool {
        if case .record = nextRecord(body) { return true }
        return false
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

    /// libpcap's error buffer as text.
    static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { p in
            String(decoding: UnsafeRawBufferPointer(p).prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func errnoText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Whether the file starts with the nanosecond pcap magic (a1b23c4d in either order).
    static func nanosecondMagic(_ path: String) -> Bool {
        guard path != "-", let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var magic: UInt32 = 0
        guard fread(&magic, 4, 1, f) == 1 else { return false }
        return magic == 0xA1B2_3C4D || magic == 0x4D3C_B2A1
    }
}

/// Writes a pcap file through libpcap (`pcap_dump`), with nanosecond timestamps.
public final class CaptureWriter {
    private let dead: OpaquePointer
    private let dumper: OpaquePointer
    /// The path being written.
    public let path: String

    /// Creates (or truncates) a pcap file.
    /// - Parameters:
    ///   - path: where to write.
    ///   - linkType: the link type of the records that will be written.
    ///   - snapLength: the snapshot length to record in the header.
    public init(path: String, linkType: LinkType, snapLength: Int = 262_144) throws(PcapError) {
        self.path = path
        guard
            let d = pcap_open_dead_with_tstamp_precision(
                linkType.rawValue, Int32(snapLength), UInt32(PCAP_TSTAMP_PRECISION_NANO))
        else {
            throw PcapError(kind: .writeFailed, operation: "create \(path)", message: "pcap_open_dead failed")
        }
        guard let w = pcap_dump_open(d, path) else {
            let message = String(cString: pcap_geterr(d))
            pcap_close(d)
            throw PcapError(kind: .writeFailed, operation: "create \(path)", message: message)
        }
        dead = d
        dumper = w
    }

    /// Appends one record.
    public func write(_ bytes: UnsafeRawBufferPointer, timestamp: Timestamp, originalLength: Int? = nil) {
        var header = pcap_pkthdr()
        header.ts.tv_sec = Int(timestamp.seconds)
        header.ts.tv_usec = Int(timestamp.nanoseconds)
        header.caplen = UInt32(bytes.count)
        header.len = UInt32(originalLength ?? bytes.count)
        guard let base = bytes.baseAddress else {
            var empty: UInt8 = 0
            pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &header, &empty)
            return
        }
        pcap_dump(
            UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &header,
            base.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends one record from an array.
    public func write(_ bytes: [UInt8], timestamp: Timestamp, originalLength: Int? = nil) {
        bytes.withUnsafeBytes { write($0, timestamp: timestamp, originalLength: originalLength) }
    }

    /// Flushes buffered records to the file.
    public func flush() { pcap_dump_flush(dumper) }

    deinit {
        pcap_dump_close(dumper)
        pcap_close(dead)
    }
}
