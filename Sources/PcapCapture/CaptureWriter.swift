// Writing pcap files (extract, live --write) through libpcap's dumper.

import CLibpcap
import WireFormat

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
