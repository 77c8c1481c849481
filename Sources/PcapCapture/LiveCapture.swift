import CLibpcap
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A network interface as libpcap lists it (`pcap_findalldevs`).
public struct CaptureInterface: Hashable, Sendable {
    public var name: String
    public var description: String?
    public var addresses: [String]
    public var isUp: Bool
    public var isRunning: Bool
    public var isLoopback: Bool

    /// Every interface libpcap can capture on.
    public static func all() throws(PcapError) -> [CaptureInterface] {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        var list: UnsafeMutablePointer<pcap_if_t>?
        guard pcap_findalldevs(&list, &errbuf) == 0 else {
            throw PcapError(kind: .other, operation: "list interfaces", message: CaptureFile.text(errbuf))
        }
        defer { pcap_freealldevs(list) }
        var out: [CaptureInterface] = []
        var node = list
        while let n = node {
            let d = n.pointee
            var addresses: [String] = []
            var a = d.addresses
            while let address = a {
                if let sa = address.pointee.addr, let text = Self.text(sa) { addresses.append(text) }
                a = address.pointee.next
            }
            out.append(
                CaptureInterface(
                    name: String(cString: d.name), description: d.description.map { String(cString: $0) },
                    addresses: addresses, isUp: d.flags & UInt32(PCAP_IF_UP) != 0,
                    isRunning: d.flags & UInt32(PCAP_IF_RUNNING) != 0,
                    isLoopback: d.flags & UInt32(PCAP_IF_LOOPBACK) != 0))
            node = d.next
        }
        return out
    }

    static func text(_ sa: UnsafeMutablePointer<sockaddr>) -> String? {
        switch Int32(sa.pointee.sa_family) {
        case AF_INET:
            return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                IPv4Address(rawValue: UInt32(bigEndian: $0.pointee.sin_addr.s_addr)).description
            }
        case AF_INET6:
            return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { raw in
                    var c = ByteCursor(raw)
                    return (try? IPv6Address(reading: &c))?.description
                }
            }
        default:
            return nil
        }
    }
}

/// Settings of a live capture.
public struct LiveOptions: Hashable, Sendable {
    /// Enough for 9000-byte mDNS packets (RFC 6762 §17) with any link header.
    public var snapLength: Int32 = 9216 + 256
    /// Kernel buffer size in bytes (`pcap_set_buffer_size`).
    public var bufferSize: Int32 = 4 << 20
    /// Put the interface into promiscuous mode.
    public var promiscuous = false
    /// How long a read may wait before returning (ms), so that timers and signals are served.
    public var readTimeoutMs: Int32 = 100
    public init() {}
}

/// A live capture on one interface: `pcap_create`, options, `pcap_activate`, immediate mode.
public final class LiveCapture {
    /// The interface name.
    public let interface: String
    /// The link type of the interface.
    public private(set) var linkType = LinkType.ethernet
    public private(set) var linkTypeName = "EN10MB"
    private let handle: OpaquePointer
    /// Packets delivered so far (after the filter): the frame numbers of this capture.
    public private(set) var packets = 0

    /// Opens and activates a live capture.
    /// - Throws: ``PcapError`` with kind `permissionDenied`, `noSuchInterface`, `interfaceDown`
    ///   or `other`, and libpcap's message.
    public init(interface: String, options: LiveOptions) throws(PcapError) {
        self.interface = interface
        // The handle is created and activated before `self` owns it, so that a failure closes
        // it exactly once (a throwing class initializer would otherwise run deinit as well).
        handle = try Self.activate(interface, options: options)
        let dlt = pcap_datalink(handle)
        linkType = LinkType(rawValue: dlt)
        linkTypeName = pcap_datalink_val_to_name(dlt).map { String(cString: $0) } ?? "DLT\(dlt)"
        if pcap_get_tstamp_precision(handle) != Int32(PCAP_TSTAMP_PRECISION_NANO) { microsecondTimestamps = true }
    }

    static func activate(_ interface: String, options: LiveOptions) throws(PcapError) -> OpaquePointer {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let h = pcap_create(interface, &errbuf) else {
            throw PcapError(kind: .other, operation: "open \(interface)", message: CaptureFile.text(errbuf))
        }
        pcap_set_snaplen(h, options.snapLength)
        pcap_set_promisc(h, options.promiscuous ? 1 : 0)
        pcap_set_timeout(h, options.readTimeoutMs)
        pcap_set_immediate_mode(h, 1)
        pcap_set_buffer_size(h, options.bufferSize)
        pcap_set_tstamp_precision(h, Int32(PCAP_TSTAMP_PRECISION_NANO))
        let status = pcap_activate(h)
        if status < 0 {
            let detail = String(cString: pcap_geterr(h))
            let kind: PcapError.Kind
            switch status {
            case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED: kind = .permissionDenied
            case PCAP_ERROR_NO_SUCH_DEVICE: kind = .noSuchInterface
            case PCAP_ERROR_IFACE_NOT_UP: kind = .interfaceDown
            default: kind = .other
            }
            let message = detail.isEmpty ? String(cString: pcap_statustostr(status)) : detail
            pcap_close(h)
            throw PcapError(kind: kind, operation: "capture on \(interface)", message: message)
        }
        // Warnings (status > 0) are not fatal: the capture runs. Non-blocking, so that one
        // loop can serve several interfaces with poll().
        pcap_setnonblock(h, 1, &errbuf)
        return h
    }

    /// Whether the kernel refused nanosecond timestamps (then `tv_usec` is microseconds).
    public private(set) var microsecondTimestamps = false

    deinit { pcap_close(handle) }

    /// Installs a kernel BPF filter.
    public func setFilter(_ expression: String) throws(PcapError) {
        var program = bpf_program()
        guard pcap_compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw PcapError(
                kind: .badFilter, operation: "filter '\(expression)'", message: String(cString: pcap_geterr(handle)))
        }
        defer { pcap_freecode(&program) }
        guard pcap_setfilter(handle, &program) == 0 else {
            throw PcapError(
                kind: .badFilter, operation: "filter '\(expression)'", message: String(cString: pcap_geterr(handle)))
        }
    }

    /// A descriptor that becomes readable when packets wait (for `poll` over several captures).
    public var selectableDescriptor: Int32 { pcap_get_selectable_fd(handle) }

    /// Reads the packets that are waiting (at most `limit`; blocks at most the read timeout).
    /// - Parameter body: called with the record header and the borrowed bytes.
    /// - Returns: the number of packets handled, or `nil` when the capture ended or failed
    ///   (``lastError`` says why).
    public func dispatch(limit: Int32 = -1, _ body: (RecordHeader, UnsafeRawBufferPointer) -> Void) -> Int? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var handled = 0
        while limit < 0 || handled < limit {
            let status = pcap_next_ex(handle, &header, &data)
            switch status {
            case 1:
                guard let header, let data else { continue }
                let h = header.pointee
                let fraction = Int64(h.ts.tv_usec) * (microsecondTimestamps ? 1000 : 1)
                packets += 1
                handled += 1
                body(
                    RecordHeader(
                        timestamp: Timestamp(seconds: Int64(h.ts.tv_sec), nanoseconds: fraction),
                        capturedLength: Int(h.caplen), originalLength: Int(h.len)),
                    UnsafeRawBufferPointer(start: data, count: Int(h.caplen)))
            case 0:
                return handled  // read timeout: nothing waiting
            case PCAP_ERROR_BREAK:
                return handled
            default:
                lastError = String(cString: pcap_geterr(handle))
                return nil
            }
        }
        return handled
    }

    /// The last read error.
    public private(set) var lastError: String?

    /// Makes a blocked read return (async-signal-safe).
    public func breakLoop() { pcap_breakloop(handle) }

    /// Kernel counters: packets received, dropped by the kernel, dropped by the interface.
    public func statistics() -> (received: UInt32, dropped: UInt32, interfaceDropped: UInt32)? {
        var s = pcap_stat()
        guard pcap_stats(handle, &s) == 0 else { return nil }
        return (s.ps_recv, s.ps_drop, s.ps_ifdrop)
    }

    /// The raw handle, for a signal handler that needs `pcap_breakloop`.
    public var rawHandle: OpaquePointer { handle }
}

/// Drops root privileges the way tcpdump's `-Z` does: supplementary groups, then the group,
/// then the user; then checks that root cannot be regained.
public enum PrivilegeDrop {
    /// Switches to `user` (by name). Returns the new uid and gid.
    public static func drop(to user: String) throws(PcapError) -> (uid: UInt32, gid: UInt32) {
        guard let pw = getpwnam(user) else {
            throw PcapError(kind: .other, operation: "drop privileges", message: "no such user '\(user)'")
        }
        let uid = pw.pointee.pw_uid
        let gid = pw.pointee.pw_gid
        if setgroups(0, nil) != 0 && getuid() == 0 {
            throw PcapError(kind: .other, operation: "setgroups", message: String(cString: strerror(errno)))
        }
        guard setgid(gid) == 0 else {
            throw PcapError(kind: .other, operation: "setgid(\(gid))", message: String(cString: strerror(errno)))
        }
        guard setuid(uid) == 0 else {
            throw PcapError(kind: .other, operation: "setuid(\(uid))", message: String(cString: strerror(errno)))
        }
        // Verify: the ids changed, and (when leaving root) root cannot come back.
        guard getuid() == uid, geteuid() == uid, getgid() == gid, getegid() == gid else {
            throw PcapError(kind: .other, operation: "drop privileges", message: "ids did not change")
        }
        if uid != 0, setuid(0) == 0 {
            throw PcapError(kind: .other, operation: "drop privileges", message: "root could be regained")
        }
        return (uid, gid)
    }
}
