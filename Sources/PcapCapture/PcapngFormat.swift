// pcapng (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-03.html): a sequence of
// blocks (type, total length, body, total length again) in sections, each opened by a Section
// Header Block that sets the byte order of the blocks after it. Interfaces are described by
// Interface Description Blocks and numbered within their section; packets name them by that
// number.

import WireFormat

/// pcapng block types read here.
enum PcapngBlock {
    static let sectionHeader: UInt32 = 0x0A0D_0D0A
    static let interfaceDescription: UInt32 = 1
    /// The obsolete Packet Block (16-bit interface id and a drops count).
    static let packet: UInt32 = 2
    static let simplePacket: UInt32 = 3
    static let nameResolution: UInt32 = 4
    static let interfaceStatistics: UInt32 = 5
    static let enhancedPacket: UInt32 = 6
    /// The byte-order magic of a Section Header Block, as the section's writer stored it.
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
}

extension ReaderState {
    /// The next packet of a pcapng file, or `nil` with ``end`` set (or, while ``priming``, at
    /// the first packet block or once an interface has been described).
    mutating func nextPcapngPacket() -> Packet? {
        while true {
            if priming && !interfaces.isEmpty { return nil }
            let blockOffset = buffer.offset
            if buffer.available < 12 {
                let fill = buffer.require(12)
                if fill == .ended && buffer.available == 0 {
                    end = .endOfFile
                    return nil
                }
                guard fill == .ready else {
                    stop(fill, at: blockOffset, needing: 12, "block header")
                    return nil
                }
            }
            var p = UnsafeRawPointer(buffer.current)
            let rawType = p.loadUnaligned(as: UInt32.self)
            if rawType == PcapngBlock.sectionHeader {  // the same in either byte order
                let magic = p.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
                if magic == PcapngBlock.byteOrderMagic.bigEndian {
                    bigEndian = true
                } else if magic == PcapngBlock.byteOrderMagic.littleEndian {
                    bigEndian = false
                } else {
                    stop(
                        truncated: false, at: blockOffset,
                        "a section header block has the byte-order magic \(Self.hex(UInt32(bigEndian: magic))), "
                            + "not 1a2b3c4d in either order")
                    return nil
                }
            }
            let type = rawType == PcapngBlock.sectionHeader ? rawType : u32(p, 0)
            let length = Int(u32(p, 4))
            guard length >= 12, length & 3 == 0 else {
                stop(
                    truncated: false, at: blockOffset,
                    "a block of type \(type) gives its length as \(length) bytes, not a multiple of 4 of at least 12")
                return nil
            }
            guard length <= RecordBuffer.maximumBlock else {
                stop(
                    truncated: false, at: blockOffset,
                    "a block of type \(type) gives its length as \(length) bytes, more than the "
                        + "\(RecordBuffer.maximumBlock >> 20) MiB limit on a block")
                return nil
            }
            if priming && Self.isPacketBlock(type) { return nil }
            if buffer.available < length {
                let fill = buffer.require(length)
                guard fill == .ready else {
                    stop(fill, at: blockOffset, needing: length, "block of type \(type)")
                    return nil
                }
                p = UnsafeRawPointer(buffer.current)
            }
            let trailer = Int(u32(p, length - 4))
            guard trailer == length else {
                stop(
                    truncated: false, at: blockOffset,
                    "a block of type \(type) gives its length as \(length) bytes at its start and \(trailer) at its end"
                )
                return nil
            }
            switch type {
            case PcapngBlock.enhancedPacket, PcapngBlock.packet, PcapngBlock.simplePacket:
                let packet = readPacket(type, p, length, at: blockOffset)
                if packet == nil { return nil }
                buffer.start &+= length
                return packet
            case PcapngBlock.sectionHeader:
                guard readSectionHeader(p, length, at: blockOffset) else { return nil }
            case PcapngBlock.interfaceDescription:
                guard readInterface(p, length, at: blockOffset) else { return nil }
            case PcapngBlock.interfaceStatistics:
                readStatistics(p, length)
            default:
                // Name Resolution Blocks (nothing here uses names from the file), Decryption
                // Secrets, custom and unknown blocks: the length is checked, the body skipped.
                break
            }
            buffer.start &+= length
        }
    }

    static func isPacketBlock(_ type: UInt32) -> Bool {
        type == PcapngBlock.enhancedPacket || type == PcapngBlock.packet || type == PcapngBlock.simplePacket
    }

    static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    // MARK: Packets

    /// An Enhanced, Simple or obsolete Packet Block's record, or `nil` with reading stopped.
    @inline(__always)
    private mutating func readPacket(_ type: UInt32, _ p: UnsafeRawPointer, _ length: Int, at offset: Int64) -> Packet?
    {
        let local: Int
        let capturedLength: Int
        let originalLength: Int
        let dataOffset: Int
        var raw: UInt64 = 0
        if type == PcapngBlock.simplePacket {
            // No interface number (interface 0 of the section), no timestamp, and the captured
            // length is the original length cut to the snapshot length.
            guard length >= 16 else { return shortBlock("simple packet", length, 16, at: offset) }
            local = 0
            originalLength = Int(u32(p, 8))
            dataOffset = 12
            let count = interfaces.count - sectionBase
            guard count > 0 else { return unknownInterface(0, at: offset) }
            let snap = interfaces[sectionBase].snapLength
            capturedLength = snap > 0 ? min(originalLength, snap) : originalLength
        } else {
            guard length >= 32 else {
                return shortBlock(type == PcapngBlock.packet ? "packet" : "enhanced packet", length, 32, at: offset)
            }
            local = type == PcapngBlock.packet ? Int(u16(p, 8)) : Int(u32(p, 8))
            raw = UInt64(u32(p, 12)) << 32 | UInt64(u32(p, 16))
            capturedLength = Int(u32(p, 20))
            originalLength = Int(u32(p, 24))
            dataOffset = 28
        }
        guard local < interfaces.count &- sectionBase else { return unknownInterface(local, at: offset) }
        guard capturedLength <= length &- dataOffset &- 4 else {
            stop(
                truncated: false, at: offset,
                "a packet block of \(length) bytes claims \(capturedLength) captured bytes, more than it holds")
            return nil
        }
        let index = sectionBase &+ local
        let reading = readers[index]
        let timestamp =
            type == PcapngBlock.simplePacket ? Timestamp(seconds: 0, nanoseconds: 0) : reading.scale.timestamp(raw)
        let optionsStart = dataOffset &+ (capturedLength &+ 3) & ~3
        if optionsStart < length &- 4 && comments.count < CaptureFile.maximumComments {
            let frame = recordsRead + 1
            forEachOption(p, from: optionsStart, to: length - 4) { code, value in
                if code == 1 { keepComment(value, frame: frame) }  // opt_comment
            }
        }
        return Packet(
            header: RecordHeader(
                timestamp: timestamp, capturedLength: capturedLength, originalLength: originalLength, interface: index),
            bytes: UnsafeRawBufferPointer(start: p + dataOffset, count: capturedLength), linkType: reading.linkType,
            timed: type != PcapngBlock.simplePacket)
    }

    private mutating func shortBlock(_ kind: String, _ length: Int, _ minimum: Int, at offset: Int64) -> Packet? {
        stop(
            truncated: false, at: offset,
            "a \(kind) block of \(length) bytes is shorter than its \(minimum)-byte minimum")
        return nil
    }

    private mutating func unknownInterface(_ local: Int, at offset: Int64) -> Packet? {
        let count = interfaces.count - sectionBase
        let described = count == 0 ? "describes no interfaces" : count == 1 ? "describes one" : "describes \(count)"
        stop(
            truncated: false, at: offset,
            "a packet names interface \(local) of section \(max(sections - 1, 0)), which \(described)")
        return nil
    }

    // MARK: Sections, interfaces, statistics

    /// A Section Header Block: a new byte order (already set), interface numbering restarting.
    private mutating func readSectionHeader(_ p: UnsafeRawPointer, _ length: Int, at offset: Int64) -> Bool {
        guard length >= 28 else {
            stop(
                truncated: false, at: offset,
                "a section header block of \(length) bytes is shorter than its 28-byte minimum")
            return false
        }
        let major = u16(p, 12)
        guard major == 1 else {
            stop(truncated: false, at: offset, "a section is pcapng version \(major).\(u16(p, 14)); only 1.x is read")
            return false
        }
        sections += 1
        sectionBase = interfaces.count
        forEachOption(p, from: 24, to: length - 4) { code, value in
            if code == 1 { keepComment(value, frame: nil) }  // shb_comment
        }
        return true
    }

    /// An Interface Description Block: the next interface number, across sections.
    private mutating func readInterface(_ p: UnsafeRawPointer, _ length: Int, at offset: Int64) -> Bool {
        guard sections > 0 else {
            stop(truncated: false, at: offset, "an interface is described before any section header")
            return false
        }
        guard length >= 20 else {
            stop(
                truncated: false, at: offset,
                "an interface description block of \(length) bytes is shorter than its 20-byte minimum")
            return false
        }
        let linkType = FileLinkType.dlt(UInt32(u16(p, 8)))
        var interface = FileInterface(
            index: interfaces.count, section: sections - 1, linkType: linkType,
            linkTypeName: FileLinkType.name(linkType), linkTypeDescription: FileLinkType.description(linkType),
            snapLength: Int(u32(p, 12)))
        var scale = TimestampScale.microseconds
        var offsetSeconds: Int64 = 0
        var badResolution: UInt8?
        forEachOption(p, from: 16, to: length - 4) { code, value in
            switch code {
            case 2: interface.name = Self.text(value)  // if_name
            case 3: interface.description = Self.text(value)  // if_description
            case 9 where value.count >= 1:  // if_tsresol
                if let s = TimestampScale(resolution: value[0]) { scale = s } else { badResolution = value[0] }
            case 14 where value.count >= 8:  // if_tsoffset, signed seconds
                offsetSeconds = Int64(bitPattern: u64(value.baseAddress!, 0))
            default: break
            }
        }
        if let byte = badResolution {
            let unit = byte & 0x80 != 0 ? "2^-\(byte & 0x7F)" : "10^-\(byte)"
            stop(
                truncated: false, at: offset,
                "interface \(interfaces.count) gives a timestamp resolution of \(unit) s, finer than 64-bit "
                    + "timestamps can count (at most 2^-63 or 10^-19)")
            return false
        }
        scale.offsetSeconds = offsetSeconds
        addInterface(interface, scale: scale)
        return true
    }

    /// An Interface Statistics Block: the interface's latest received and dropped counts.
    private mutating func readStatistics(_ p: UnsafeRawPointer, _ length: Int) {
        guard length >= 24 else { return }
        let index = sectionBase + Int(u32(p, 8))
        guard index < interfaces.count else { return }  // statistics of no interface: nothing to keep
        var interface = interfaces[index]
        forEachOption(p, from: 20, to: length - 4) { code, value in
            guard value.count >= 8 else { return }
            let count = u64(value.baseAddress!, 0)
            switch code {
            case 4: interface.received = count  // isb_ifrecv
            case 5: interface.droppedByInterface = count  // isb_ifdrop
            case 7: interface.droppedByOS = count  // isb_osdrop
            default: break
            }
        }
        interfaces[index] = interface
    }

    /// Calls `body` with each option (code, value) between `from` and `to`, stopping at
    /// `opt_endofopt` or at an option that would run past the end (the block's own length has
    /// been checked; a bad option list loses the options, not the block).
    func forEachOption(
        _ p: UnsafeRawPointer, from: Int, to: Int, _ body: (UInt16, UnsafeRawBufferPointer) -> Void
    ) {
        var o = from
        while o + 4 <= to {
            let code = u16(p, o)
            let count = Int(u16(p, o + 2))
            if code == 0 || o + 4 + count > to { return }
            body(code, UnsafeRawBufferPointer(start: p + o + 4, count: count))
            o += 4 + (count + 3) & ~3
        }
    }
}
