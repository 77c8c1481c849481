// What changes while a capture file is read, kept behind one pointer by CaptureFile: a class's
// stored properties are checked for exclusive access on every use, which cost more than the
// rest of the per-record work (about 120 instructions a record).

import WireFormat

/// One record found by a format reader: where its bytes lie in the buffer and how to read them.
struct Packet {
    var header: RecordHeader
    /// The record's bytes, in place in the ``RecordBuffer`` (valid until the next read).
    var bytes: UnsafeRawBufferPointer
    /// The link type of its interface.
    var linkType: LinkType
    /// Whether the record has a timestamp (a Simple Packet Block has none: 0, as libpcap gives).
    var timed = true
}

/// What the hot path needs of an interface, by interface number.
struct InterfaceReading {
    var linkType: LinkType
    var scale: TimestampScale
    /// Its compiled user filter in ``RecordFilters`` (-1: no filter set).
    var filterSlot = -1
}

/// The reading state of a ``CaptureFile``.
struct ReaderState {
    var buffer: RecordBuffer
    let format: CaptureFile.Format
    /// Whether the file (classic pcap) or the current section (pcapng) is big-endian.
    var bigEndian = false

    // Classic pcap.
    /// 16, or 24 in Alexey Kuznetsov's modified format (ifindex, protocol, packet type).
    var pcapHeaderLength = 16
    /// 1000 for microsecond files, 1 for nanosecond ones.
    var pcapFractionScale: Int64 = 1000
    /// The largest captured length accepted: the snapshot length, or the link type's largest
    /// record when the header says 0.
    var pcapCaptureLimit = 262_144
    var pcapSnapLength = 0

    // pcapng.
    /// Sections read so far; the current one is `sections - 1`.
    var sections = 0
    /// The interface number of the current section's interface 0.
    var sectionBase = 0
    /// While opening: stop before the first packet block, or once an interface is described.
    var priming = false

    var readers: [InterfaceReading] = []
    var interfaces: [FileInterface] = []
    var comments: [CaptureComment] = []
    var recordsRead = 0
    var end: ReadEnd?
    var fault: ReadFault?
    var firstTimestamp: Timestamp?
    var lastTimestamp: Timestamp?
    /// Whether ``DiscoveryPrefilter`` decides which records are handed over.
    var prefilter = false
    /// Read no record past this many (`-c N`): the prefilter skips records inside the reader,
    /// so the limit must be checked here, not by the caller.
    var recordLimit = Int.max
    var filters: RecordFilters?

    init(buffer: RecordBuffer, format: CaptureFile.Format) {
        self.buffer = buffer
        self.format = format
    }

    // MARK: Reading numbers in the file's byte order

    @inline(__always)
    func u16(_ p: UnsafeRawPointer, _ offset: Int) -> UInt16 {
        let v = p.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v)
    }

    @inline(__always)
    func u32(_ p: UnsafeRawPointer, _ offset: Int) -> UInt32 {
        let v = p.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v)
    }

    @inline(__always)
    func u64(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        let v = p.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
    }

    // MARK: Stopping

    /// Ends reading at the block or record at stream offset `offset`: everything before it has
    /// been delivered. The message names the frame and the offset, so it can be found in a hex
    /// editor or by `editcap -r`.
    mutating func stop(truncated: Bool, at offset: Int64, _ what: String) {
        let frame = recordsRead + 1
        let message = "frame \(frame) at byte offset \(offset): \(what)"
        fault = ReadFault(frame: frame, byteOffset: offset, message: message)
        end = truncated ? .truncated(message) : .error(message)
    }

    /// Ends reading for a fill that did not give the bytes asked for; `what` names the block
    /// or record (`record`, `block of type 6`).
    mutating func stop(_ fill: RecordBuffer.Fill, at offset: Int64, needing count: Int, _ what: String) {
        switch fill {
        case .ready:
            break
        case .ended:
            stop(
                truncated: true, at: offset,
                "truncated \(what): the file ends after \(buffer.available) of its \(count) bytes")
        case .tooLarge:
            stop(
                truncated: false, at: offset,
                "the \(what) of \(count) bytes is larger than the \(RecordBuffer.maximumBlock >> 20) MiB limit")
        case .failed(let error):
            stop(truncated: error.endedEarly, at: offset, "reading \(what) failed: \(error.message)")
        }
    }

    /// Records the timestamps and frame count of a record just found.
    @inline(__always)
    mutating func count(_ packet: Packet) {
        recordsRead &+= 1
        guard packet.timed else { return }
        if firstTimestamp == nil { firstTimestamp = packet.header.timestamp }
        lastTimestamp = packet.header.timestamp
    }

    /// Adds a comment unless ``CaptureFile/maximumComments`` are kept already.
    mutating func keepComment(_ value: UnsafeRawBufferPointer, frame: Int?) {
        guard comments.count < CaptureFile.maximumComments else { return }
        comments.append(CaptureComment(frame: frame, text: Self.text(value)))
    }

    /// An option's text, without the NUL terminators some writers add.
    static func text(_ value: UnsafeRawBufferPointer) -> String {
        var count = value.count
        while count > 0 && value[count - 1] == 0 { count -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: value[..<count]), as: UTF8.self)
    }

    /// Adds an interface (its reading state, and its user filter when one is set).
    mutating func addInterface(_ interface: FileInterface, scale: TimestampScale) {
        var reading = InterfaceReading(linkType: interface.linkType, scale: scale)
        if let filters { reading.filterSlot = filters.slot(for: interface.linkType, snapLength: interface.snapLength) }
        readers.append(reading)
        interfaces.append(interface)
    }
}
