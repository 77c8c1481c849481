// Classic pcap (tcpdump's format): a 24-byte file header, then records of a 16-byte header and
// the captured bytes. Either byte order; microsecond (a1b2c3d4), nanosecond (a1b23c4d) and
// Alexey Kuznetsov's modified (a1b2cd34, 24-byte record headers) magic numbers.

import WireFormat

/// What a classic pcap file header says.
struct PcapHeader {
    var bigEndian: Bool
    var nanoseconds: Bool
    /// 16, or 24 for the modified format.
    var recordHeaderLength: Int
    var snapLength: Int
    var linkType: LinkType

    /// The magic number's bytes as they appear in the file, big-endian view.
    enum Magic {
        static let microseconds: UInt32 = 0xA1B2_C3D4
        static let nanoseconds: UInt32 = 0xA1B2_3C4D
        static let modified: UInt32 = 0xA1B2_CD34
    }

    /// Whether four bytes (read big-endian) open a classic pcap file, in either order.
    static func isMagic(_ first4: UInt32) -> Bool {
        [Magic.microseconds, Magic.nanoseconds, Magic.modified].contains { $0 == first4 || $0.byteSwapped == first4 }
    }

    /// Reads the file header from the first 24 bytes.
    init(_ p: UnsafeRawPointer) {
        let first4 = UInt32(bigEndian: p.loadUnaligned(as: UInt32.self))
        bigEndian = [Magic.microseconds, Magic.nanoseconds, Magic.modified].contains(first4)
        let magic = bigEndian ? first4 : first4.byteSwapped
        nanoseconds = magic == Magic.nanoseconds
        recordHeaderLength = magic == Magic.modified ? 24 : 16
        let order = bigEndian
        func u32(_ offset: Int) -> UInt32 {
            let v = p.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return order ? UInt32(bigEndian: v) : UInt32(littleEndian: v)
        }
        snapLength = Int(u32(16))
        linkType = FileLinkType.dlt(FileLinkType.pcapField(u32(20)))
    }

    /// The file's one interface.
    var interface: FileInterface {
        FileInterface(
            index: 0, linkType: linkType, linkTypeName: FileLinkType.name(linkType),
            linkTypeDescription: FileLinkType.description(linkType), snapLength: snapLength)
    }
}

extension ReaderState {
    /// Sets up reading records after a classic pcap file header (already consumed).
    mutating func startPcap(_ header: PcapHeader) {
        bigEndian = header.bigEndian
        pcapHeaderLength = header.recordHeaderLength
        pcapFractionScale = header.nanoseconds ? 1 : 1000
        pcapSnapLength = header.snapLength
        // A snapshot length of 0 means none was recorded: libpcap and Wireshark then bound
        // records by the link type's largest.
        pcapCaptureLimit = header.snapLength > 0 ? header.snapLength : FileLinkType.maximumRecord(header.linkType)
        addInterface(header.interface, scale: header.nanoseconds ? .nanoseconds : .microseconds)
    }

    /// The next record of a classic pcap file, or `nil` with ``end`` set.
    @inline(__always)
    mutating func nextPcapPacket() -> Packet? {
        let headerLength = pcapHeaderLength
        if buffer.available < headerLength {
            let fill = buffer.require(headerLength)
            if fill != .ready {
                if fill == .ended && buffer.available == 0 {
                    end = .endOfFile
                } else {
                    stop(fill, at: buffer.offset, needing: headerLength, "record header")
                }
                return nil
            }
        }
        var p = UnsafeRawPointer(buffer.current)
        let seconds = u32(p, 0)
        let fraction = u32(p, 4)
        let capturedLength = Int(u32(p, 8))
        let originalLength = Int(u32(p, 12))
        guard capturedLength <= pcapCaptureLimit else {
            rejectLength(capturedLength)
            return nil
        }
        let total = headerLength &+ capturedLength
        if buffer.available < total {
            let fill = buffer.require(total)
            guard fill == .ready else {
                stop(fill, at: buffer.offset, needing: total, "record")
                return nil
            }
            p = UnsafeRawPointer(buffer.current)
        }
        buffer.start &+= total
        // Seconds are unsigned: records after January 2038 are not dated 1901.
        let timestamp = Timestamp(seconds: Int64(seconds), nanoseconds: Int64(fraction) &* pcapFractionScale)
        return Packet(
            header: RecordHeader(timestamp: timestamp, capturedLength: capturedLength, originalLength: originalLength),
            bytes: UnsafeRawBufferPointer(start: p + headerLength, count: capturedLength), linkType: readers[0].linkType
        )
    }

    @inline(never)
    private mutating func rejectLength(_ capturedLength: Int) {
        let limit =
            pcapSnapLength > 0
            ? "the file's snapshot length of \(pcapSnapLength)"
            : "the largest record of its link type (\(pcapCaptureLimit) bytes; the snapshot length is 0)"
        stop(
            truncated: false, at: buffer.offset, "a record claims \(capturedLength) captured bytes, more than \(limit)")
    }
}
