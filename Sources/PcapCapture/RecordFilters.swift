// A user's BPF filter (`--filter`) over a file whose interfaces may have different link types:
// BPF offsets depend on the link layer, so the expression is compiled once per link type (with
// libpcap's compiler over a `pcap_open_dead` handle) and run on each record's bytes in place.

import CLibpcap
import WireFormat

/// One BPF expression compiled for every link type met so far.
final class RecordFilters {
    let expression: String
    /// The program for each slot; `nil` where the expression does not compile for that link
    /// type (such records never match).
    private var programs: [UnsafeMutablePointer<bpf_program>?] = []
    private var linkTypes: [LinkType] = []

    init(expression: String) {
        self.expression = expression
    }

    deinit {
        for case let program? in programs {
            pcap_freecode(program)
            program.deallocate()
        }
    }

    /// The slot of `linkType`'s program, compiling it the first time.
    func slot(for linkType: LinkType, snapLength: Int) -> Int {
        if let i = linkTypes.firstIndex(of: linkType) { return i }
        linkTypes.append(linkType)
        programs.append(try? Self.compile(expression, linkType: linkType, snapLength: snapLength))
        return programs.count - 1
    }

    /// The slot of `linkType`'s program, compiling it now: for the interfaces already known when
    /// the filter is set, whose errors the user should see.
    /// - Throws: ``PcapError`` of kind `badFilter`.
    func requireSlot(for linkType: LinkType, snapLength: Int) throws(PcapError) -> Int {
        if let i = linkTypes.firstIndex(of: linkType), programs[i] != nil { return i }
        let program = try Self.compile(expression, linkType: linkType, snapLength: snapLength)
        linkTypes.append(linkType)
        programs.append(program)
        return programs.count - 1
    }

    /// Whether the program of `slot` accepts the record.
    @inline(__always)
    func matches(_ slot: Int, _ header: RecordHeader, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard slot >= 0, let program = programs[slot] else { return false }
        var h = pcap_pkthdr()
        h.ts.tv_sec = Int(header.timestamp.seconds)
        h.ts.tv_usec = Int(header.timestamp.nanoseconds / 1000)
        h.caplen = UInt32(truncatingIfNeeded: header.capturedLength)
        h.len = UInt32(truncatingIfNeeded: header.originalLength)
        guard let base = bytes.baseAddress else {
            var empty: UInt8 = 0
            return pcap_offline_filter(program, &h, &empty) != 0
        }
        return pcap_offline_filter(program, &h, base.assumingMemoryBound(to: UInt8.self)) != 0
    }

    /// Compiles `expression` for one link type.
    /// - Throws: ``PcapError`` of kind `badFilter` with libpcap's message.
    static func compile(_ expression: String, linkType: LinkType, snapLength: Int) throws(PcapError)
        -> UnsafeMutablePointer<bpf_program>
    {
        let operation = "compile filter '\(expression)'"
        guard let dead = pcap_open_dead(linkType.rawValue, Int32(clamping: snapLength > 0 ? snapLength : 262_144))
        else {
            throw PcapError(kind: .badFilter, operation: operation, message: "pcap_open_dead failed")
        }
        defer { pcap_close(dead) }
        let program = UnsafeMutablePointer<bpf_program>.allocate(capacity: 1)
        program.initialize(to: bpf_program())
        guard pcap_compile(dead, program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            program.deallocate()
            throw PcapError(kind: .badFilter, operation: operation, message: String(cString: pcap_geterr(dead)))
        }
        return program
    }
}
