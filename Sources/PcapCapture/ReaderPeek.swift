// The time of the record a file would give next, read from the buffer without reading on: how
// a merge of many files leaves each file untouched, holding only its first small fill, until
// the merged timeline reaches that file's time.

import WireFormat

extension ReaderState {
    /// The timestamp of the next record when its header is already in the buffer and it is a
    /// timed record: the next classic pcap record, or an Enhanced or obsolete Packet Block of
    /// a described interface when such a block is next. `nil` otherwise (nothing is read).
    func peekTimestamp() -> Timestamp? {
        guard end == nil, recordsRead < recordLimit, buffer.available >= 28 else { return nil }
        let p = UnsafeRawPointer(buffer.current)
        if format == .pcap {
            return Timestamp(seconds: Int64(u32(p, 0)), nanoseconds: Int64(u32(p, 4)) &* pcapFractionScale)
        }
        let type = u32(p, 0)
        guard type == PcapngBlock.enhancedPacket || type == PcapngBlock.packet, u32(p, 4) >= 32 else { return nil }
        let local = type == PcapngBlock.packet ? Int(u16(p, 8)) : Int(u32(p, 8))
        guard local < interfaces.count &- sectionBase else { return nil }
        return readers[sectionBase &+ local].scale.timestamp(UInt64(u32(p, 12)) << 32 | UInt64(u32(p, 16)))
    }
}
