import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The interface a probe runs on: its index and addresses, from `getifaddrs`.
public struct ProbeInterface: Sendable {
    public var name: String
    public var index: UInt32
    public var ipv4: [IPv4Address] = []
    /// Global addresses first, then link-local.
    public var ipv6: [IPv6Address] = []
    public var isUp = false
    public var isMulticast = false
    public var isLoopback = false
    /// The hardware address, when it is an Ethernet-like one.
    public var mac: MACAddress?

    /// Every interface with its addresses, in the order the kernel lists them.
    public static func all() -> [ProbeInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var out: [ProbeInterface] = []
        var node = list
        while let n = node {
            node = n.pointee.ifa_next
            let name = String(cString: n.pointee.ifa_name)
            let flags = n.pointee.ifa_flags
            var i: ProbeInterface
            if let existing = out.firstIndex(where: { $0.name == name }) {
                i = out.remove(at: existing)
                out.insert(i, at: existing)
            } else {
                i = ProbeInterface(name: name, index: if_nametoindex(name))
                out.append(i)
            }
            i.isUp = flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0
            i.isMulticast = flags & UInt32(IFF_MULTICAST) != 0
            i.isLoopback = flags & UInt32(IFF_LOOPBACK) != 0
            if let sa = n.pointee.ifa_addr {
                switch Int32(sa.pointee.sa_family) {
                case AF_INET:
                    sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        i.ipv4.append(IPv4Address(rawValue: UInt32(bigEndian: $0.pointee.sin_addr.s_addr)))
                    }
                case AF_INET6:
                    sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        i.ipv6.append(SocketAddress.ipv6($0.pointee.sin6_addr))
                    }
                case AF_PACKET:
                    // sockaddr_ll (not in Swift's Glibc): family, protocol, ifindex, hatype,
                    // pkttype, halen at byte 11, the address from byte 12.
                    let raw = UnsafeRawPointer(sa)
                    if raw.load(fromByteOffset: 11, as: UInt8.self) == 6 {
                        let value = (0..<6).reduce(UInt64(0)) {
                            $0 << 8 | UInt64(raw.load(fromByteOffset: 12 + $1, as: UInt8.self))
                        }
                        if value != 0 { i.mac = MACAddress(rawValue: value) }
                    }
                default: break
                }
            }
            i.ipv6.sort { !$0.isLinkLocal && $1.isLinkLocal }
            out[out.firstIndex(where: { $0.name == name })!] = i
        }
        return out
    }

    /// The interface a probe uses when none is named: the first one that is up, multicast
    /// capable, not loopback and has an address (IPv4 preferred).
    public static func defaultInterface(_ all: [ProbeInterface]) -> ProbeInterface? {
        let candidates = all.filter { $0.isUp && $0.isMulticast && !$0.isLoopback }
        return candidates.first { !$0.ipv4.isEmpty } ?? candidates.first { !$0.ipv6.isEmpty }
    }
}

/// One datagram a probe socket received, with what the kernel said of its IP header.
struct ReceivedDatagram {
    var bytes: [UInt8]
    var source: IPAddress
    var sourcePort: UInt16
    /// The IP destination (a group or this host), when the kernel reported it.
    var destination: IPAddress?
    /// The IP TTL or hop limit, when reported.
    var hopLimit: UInt8?
    var time: Timestamp
}

/// Conversions between socket addresses and castscope's address values.
enum SocketAddress {
    static func ipv6(_ a: in6_addr) -> IPv6Address {
        withUnsafeBytes(of: a) { raw in
            var c = ByteCursor(raw)
            return (try? IPv6Address(reading: &c)) ?? IPv6Address(high: 0, low: 0)
        }
    }

    static func in6(_ a: IPv6Address) -> in6_addr {
        var out = in6_addr()
        withUnsafeMutableBytes(of: &out) { raw in
            for k in 0..<8 {
                raw[k] = UInt8(truncatingIfNeeded: a.high >> (56 - 8 * UInt64(k)))
                raw[8 + k] = UInt8(truncatingIfNeeded: a.low >> (56 - 8 * UInt64(k)))
            }
        }
        return out
    }

    static func in4(_ a: IPv4Address) -> in_addr { in_addr(s_addr: a.rawValue.bigEndian) }

    /// Calls `body` with `address`:`port` as a `sockaddr` (scope `interfaceIndex` for IPv6).
    static func with<R>(
        _ address: IPAddress, port: UInt16, interfaceIndex: UInt32,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) -> R {
        switch address {
        case .v4(let a):
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = port.bigEndian
            sa.sin_addr = in4(a)
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let a):
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            sa.sin6_addr = in6(a)
            sa.sin6_scope_id = a.isLinkLocal || a.isMulticast ? interfaceIndex : 0
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// The address and port in a `sockaddr_storage`.
    static func decode(_ storage: sockaddr_storage) -> (IPAddress, UInt16)? {
        var s = storage
        return withUnsafePointer(to: &s) { p in
            switch Int32(storage.ss_family) {
            case AF_INET:
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    (
                        .v4(IPv4Address(rawValue: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))),
                        UInt16(bigEndian: $0.pointee.sin_port)
                    )
                }
            case AF_INET6:
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    (.v6(ipv6($0.pointee.sin6_addr)), UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default: return nil
            }
        }
    }
}

/// A UDP socket of the probe: mDNS on port 5353 (shared with the system's responder), or an
/// ephemeral port for SSDP. Non-blocking; it reports each datagram's destination and TTL.
final class ProbeSocket {
    let fd: Int32
    let family: Int32
    let interfaceIndex: UInt32

    /// A socket bound to `port` (0: any) on `family`, sending multicast out of `interface`
    /// with TTL `multicastTTL`, joined to `group` when given.
    init(
        family: Int32, port: UInt16, interface: ProbeInterface, group: IPAddress?, multicastTTL: Int32
    ) throws(ProbeError) {
        self.family = family
        interfaceIndex = interface.index
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ProbeError.system("socket", errno) }
        self.fd = fd
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        // Beside avahi-daemon or mDNSResponder, which hold 5353 too: Linux shares a UDP port
        // between sockets that all set SO_REUSEADDR, and delivers multicast to each of them.
        // SO_REUSEPORT only when that is refused (a responder that set SO_REUSEPORT alone, as
        // macOS's does): in a SO_REUSEPORT group the kernel deals unicast datagrams out among
        // the sockets, and a unicast (QU) answer would go to the responder half the time.
        if port != 0 { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var ttl = multicastTTL
        if family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, size)
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_RECVPKTINFO, &on, size)
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_RECVHOPLIMIT, &on, size)
            var index = interface.index
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, &index, socklen_t(MemoryLayout<UInt32>.size))
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &ttl, size)
            // Unicast answers (QU) come back with hop limit 255 as well.
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_UNICAST_HOPS, &ttl, size)
            try bind(any: .v6(IPv6Address(high: 0, low: 0)), port: port)
            if case .v6(let g) = group {
                var m = ipv6_mreq(ipv6mr_multiaddr: SocketAddress.in6(g), ipv6mr_interface: interface.index)
                guard
                    setsockopt(
                        fd, Int32(IPPROTO_IPV6), IPV6_ADD_MEMBERSHIP, &m, socklen_t(MemoryLayout<ipv6_mreq>.size)) == 0
                else { throw close(fd, ProbeError.system("join ff02::fb on \(interface.name)", errno)) }
            }
        } else {
            setsockopt(fd, Int32(IPPROTO_IP), IP_PKTINFO, &on, size)
            setsockopt(fd, Int32(IPPROTO_IP), IP_RECVTTL, &on, size)
            var request = ip_mreqn()
            request.imr_ifindex = Int32(interface.index)
            setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
            setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, size)
            setsockopt(fd, Int32(IPPROTO_IP), IP_TTL, &ttl, size)
            try bind(any: .v4(IPv4Address(rawValue: 0)), port: port)
            if case .v4(let g) = group {
                var m = ip_mreqn()
                m.imr_multiaddr = SocketAddress.in4(g)
                m.imr_ifindex = Int32(interface.index)
                guard
                    setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &m, socklen_t(MemoryLayout<ip_mreqn>.size))
                        == 0
                else { throw close(fd, ProbeError.system("join 224.0.0.251 on \(interface.name)", errno)) }
            }
        }
    }

    /// Binds to the wildcard address `any` and `port`; closes the socket when that fails.
    private func bind(any: IPAddress, port: UInt16) throws(ProbeError) {
        var bound = SocketAddress.with(any, port: port, interfaceIndex: 0) { Glibc.bind(fd, $0, $1) }
        if bound != 0, errno == EADDRINUSE, port != 0 {
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
            bound = SocketAddress.with(any, port: port, interfaceIndex: 0) { Glibc.bind(fd, $0, $1) }
        }
        let text = any.isIPv4 ? "\(any):\(port)" : "[\(any)]:\(port)"
        guard bound == 0 else { throw close(fd, ProbeError.system("bind \(text)", errno)) }
    }

    private func close(_ fd: Int32, _ error: ProbeError) -> ProbeError {
        _ = Glibc.close(fd)
        return error
    }

    deinit { _ = Glibc.close(fd) }

    /// The port the socket is bound to.
    var localPort: UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0, let (_, port) = SocketAddress.decode(storage) else { return 0 }
        return port
    }

    /// Sends `bytes` to `address`:`port`; returns the error number on failure.
    func send(_ bytes: [UInt8], to address: IPAddress, port: UInt16) -> Int32? {
        let sent = SocketAddress.with(address, port: port, interfaceIndex: interfaceIndex) { sa, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, length) }
        }
        return sent == bytes.count ? nil : errno
    }

    /// The next datagram waiting, or `nil` when none is.
    func receive() -> ReceivedDatagram? {
        var buffer = [UInt8](repeating: 0, count: 9216)
        var control = [UInt8](repeating: 0, count: 256)
        var controlLength = 0
        var storage = sockaddr_storage()
        let count: Int = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { ctl in
                withUnsafeMutablePointer(to: &storage) { from in
                    var iov = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &iov) { iovp in
                        var header = msghdr()
                        header.msg_name = UnsafeMutableRawPointer(from)
                        header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        header.msg_iov = iovp
                        header.msg_iovlen = 1
                        header.msg_control = ctl.baseAddress
                        header.msg_controllen = ctl.count
                        let n = recvmsg(fd, &header, 0)
                        controlLength = Int(header.msg_controllen)
                        return n
                    }
                }
            }
        }
        guard count >= 0, let (source, port) = SocketAddress.decode(storage) else { return nil }
        var d = ReceivedDatagram(
            bytes: Array(buffer[..<count]), source: source, sourcePort: port, destination: nil, hopLimit: nil,
            time: LiveSession.now())
        Self.readControl(control[..<min(controlLength, control.count)], into: &d)
        return d
    }

    /// Reads the destination and TTL from the control messages, in the Linux layout (`cmsghdr`:
    /// a `size_t` length, then level and type; data and the next message aligned to `size_t`).
    static func readControl(_ control: ArraySlice<UInt8>, into d: inout ReceivedDatagram) {
        let word = MemoryLayout<Int>.size
        let headerSize = MemoryLayout<cmsghdr>.size
        Array(control).withUnsafeBytes { raw in
            var offset = 0
            while offset + headerSize <= raw.count {
                let length = raw.loadUnaligned(fromByteOffset: offset, as: Int.self)
                guard length >= headerSize, offset + length <= raw.count else { break }
                let level = raw.loadUnaligned(fromByteOffset: offset + word, as: Int32.self)
                let type = raw.loadUnaligned(fromByteOffset: offset + word + 4, as: Int32.self)
                let data = offset + headerSize
                let dataLength = length - headerSize
                if level == Int32(IPPROTO_IP), type == IP_PKTINFO, dataLength >= 12 {
                    let a = raw.loadUnaligned(fromByteOffset: data + 8, as: UInt32.self)
                    d.destination = .v4(IPv4Address(rawValue: UInt32(bigEndian: a)))
                } else if level == Int32(IPPROTO_IP), type == IP_TTL, dataLength >= 4 {
                    d.hopLimit = UInt8(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: data, as: Int32.self))
                } else if level == Int32(IPPROTO_IPV6), type == IPV6_PKTINFO, dataLength >= 16 {
                    var c = ByteCursor(UnsafeRawBufferPointer(rebasing: raw[data..<(data + 16)]))
                    d.destination = (try? IPv6Address(reading: &c)).map { .v6($0) }
                } else if level == Int32(IPPROTO_IPV6), type == IPV6_HOPLIMIT, dataLength >= 4 {
                    d.hopLimit = UInt8(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: data, as: Int32.self))
                }
                offset += (length + word - 1) / word * word
            }
        }
    }
}

/// Why a probe could not run.
public struct ProbeError: Error, CustomStringConvertible {
    public var description: String
    /// The error number behind it, when a system call failed.
    public var code: Int32?

    static func system(_ operation: String, _ code: Int32) -> ProbeError {
        ProbeError(description: "\(operation): \(String(cString: strerror(code)))", code: code)
    }
}
