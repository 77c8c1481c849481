import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a pcapng file: one section, any number of interfaces with their own link types,
/// Enhanced Packet Blocks with nanosecond timestamps.
///
/// A classic pcap holds one link type; this is what `extract` writes when its frames come from
/// interfaces of several link types (a Wireshark capture on two interfaces, `mergecap` of an
/// Ethernet and a `-i any` capture). Blocks are written in the host's byte order (the Section
/// Header Block's byte-order magic says which), as Wireshark does. Unlike `pcap_dump`, write
/// errors are reported: ``close()`` throws if any byte could not be written.
public final class PcapngWriter {
    /// The path being written (`-`: standard output).
    public let path: String
    /// Bytes handed to the file so far (the file's size once closed).
    public private(set) var bytesWritten: Int64 = 0
    /// Interfaces described so far.
    public private(set) var interfaceCount = 0

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var failure: String?
    private var closed = false

    /// Flushes to the file once this many bytes are buffered.
    static let bufferSize = 1 << 20

    /// Creates (or truncates) the file and writes the Section Header Block.
    /// - Parameters:
    ///   - path: where to write; `-` writes standard output.
    ///   - application: `shb_userappl`, the program that wrote the file.
    public init(path: String, application: String) throws(PcapError) {
        self.path = path
        if path == "-" {
            descriptor = 1
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw PcapError(
                    kind: .writeFailed, operation: "create \(path)", message: String(cString: strerror(errno)))
            }
        }
        buffer.reserveCapacity(Self.bufferSize + 65_536)
        // Section Header Block: byte-order magic, version 1.0, section length unknown (-1).
        var body: [UInt8] = []
        append32(0x1A2B_3C4D, to: &body)
        append16(1, to: &body)
        append16(0, to: &body)
        append64(UInt64.max, to: &body)
        appendOption(4, Array(application.utf8), to: &body)  // shb_userappl
        appendEndOfOptions(to: &body)
        writeBlock(type: 0x0A0D_0D0A, body: body)
    }

    /// Describes an interface (an Interface Description Block) and returns its number, the
    /// `interface` argument of ``write(_:interface:timestamp:originalLength:comment:)``.
    /// - Parameters:
    ///   - linkType: its link type (a `DLT_` value; written as the matching `LINKTYPE_`).
    ///   - snapLength: its snapshot length (0: none).
    ///   - name: `if_name`, when known.
    public func addInterface(linkType: LinkType, snapLength: Int, name: String?) -> Int {
        var body: [UInt8] = []
        append16(UInt16(truncatingIfNeeded: Self.fileLinkType(linkType)), to: &body)
        append16(0, to: &body)
        append32(UInt32(clamping: snapLength), to: &body)
        if let name, !name.isEmpty { appendOption(2, Array(name.utf8), to: &body) }  // if_name
        appendOption(9, [9], to: &body)  // if_tsresol: 10^-9 s
        appendEndOfOptions(to: &body)
        writeBlock(type: 1, body: body)
        interfaceCount += 1
        return interfaceCount - 1
    }

    /// Appends one packet (an Enhanced Packet Block).
    /// - Parameters:
    ///   - bytes: the captured bytes.
    ///   - interface: a number from ``addInterface(linkType:snapLength:name:)``.
    ///   - timestamp: when it was captured.
    ///   - originalLength: its length on the wire (default: the captured length).
    ///   - comment: `opt_comment`, if any.
    public func write(
        _ bytes: UnsafeRawBufferPointer, interface: Int, timestamp: Timestamp, originalLength: Int? = nil,
        comment: String? = nil
    ) {
        precondition(interface >= 0 && interface < interfaceCount, "interface \(interface) was never added")
        let time = UInt64(bitPattern: timestamp.totalNanoseconds)
        let padded = (bytes.count + 3) & ~3
        var options: [UInt8] = []
        if let comment { appendOption(1, Array(comment.utf8), to: &options) }  // opt_comment
        if !options.isEmpty { appendEndOfOptions(to: &options) }
        let total = 12 + 20 + padded + options.count
        append32(6, to: &buffer)
        append32(UInt32(total), to: &buffer)
        append32(UInt32(interface), to: &buffer)
        append32(UInt32(truncatingIfNeeded: time >> 32), to: &buffer)
        append32(UInt32(truncatingIfNeeded: time), to: &buffer)
        append32(UInt32(bytes.count), to: &buffer)
        append32(UInt32(clamping: originalLength ?? bytes.count), to: &buffer)
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: repeatElement(0, count: padded - bytes.count))
        buffer.append(contentsOf: options)
        append32(UInt32(total), to: &buffer)
        if buffer.count >= Self.bufferSize { flush() }
    }

    /// Appends one packet from an array.
    public func write(
        _ bytes: [UInt8], interface: Int, timestamp: Timestamp, originalLength: Int? = nil, comment: String? = nil
    ) {
        bytes.withUnsafeBytes {
            write($0, interface: interface, timestamp: timestamp, originalLength: originalLength, comment: comment)
        }
    }

    /// Writes what is buffered.
    public func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil else { return }
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                failure = n < 0 ? String(cString: strerror(errno)) : "nothing could be written"
                return
            }
            done += n
            bytesWritten += Int64(n)
        }
    }

    /// Writes what is buffered and closes the file (not standard output).
    /// - Throws: ``PcapError`` (`writeFailed`) when any byte could not be written.
    public func close() throws(PcapError) {
        guard !closed else { return }
        closed = true
        flush()
        if descriptor != 1, systemClose(descriptor) != 0, failure == nil {
            failure = String(cString: strerror(errno))
        }
        if let failure { throw PcapError(kind: .writeFailed, operation: "write \(path)", message: failure) }
    }

    deinit { try? close() }

    /// The value stored in a file for a link type: `DLT_RAW` is stored as `LINKTYPE_RAW` (101),
    /// as libpcap's `pcap_dump` does; the others are the same number.
    static func fileLinkType(_ linkType: LinkType) -> Int32 {
        linkType == .raw || linkType == .rawOpenBSD ? LinkType.rawFile.rawValue : linkType.rawValue
    }

    private func writeBlock(type: UInt32, body: [UInt8]) {
        let total = UInt32(12 + body.count)
        append32(type, to: &buffer)
        append32(total, to: &buffer)
        buffer.append(contentsOf: body)
        append32(total, to: &buffer)
    }

    private func appendOption(_ code: UInt16, _ value: [UInt8], to out: inout [UInt8]) {
        append16(code, to: &out)
        let length = min(value.count, Int(UInt16.max) - 3)
        append16(UInt16(length), to: &out)
        out.append(contentsOf: value.prefix(length))
        out.append(contentsOf: repeatElement(0, count: (4 - length % 4) % 4))
    }

    private func appendEndOfOptions(to out: inout [UInt8]) { append32(0, to: &out) }

    private func append16(_ v: UInt16, to out: inout [UInt8]) {
        withUnsafeBytes(of: v) { out.append(contentsOf: $0) }
    }
    private func append32(_ v: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: v) { out.append(contentsOf: $0) }
    }
    private func append64(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v) { out.append(contentsOf: $0) }
    }
}

// The C calls, outside the class whose methods are also called `write` and `close`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
