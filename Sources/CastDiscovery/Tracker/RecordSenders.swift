// Who put a device's records on the wire: per device, each distinct (IP source, link source,
// IP TTL) its records arrived with, and per link address the IPv4 sources it sent mDNS from.
// The path rules read them to tell a device's own packets from relayed copies.

import WireFormat

/// One way a device's records reached the capture: the packet's IP source, link-layer source
/// and IP TTL (hop limit), whether it was multicast, the first such packet and how many.
public struct RecordSender: Hashable, Sendable {
    public var address: IPAddress
    public var mac: MACAddress?
    public var ipTTL: UInt8
    public var multicast: Bool
    public var frame: FrameRef
    public var packets: Int

    /// Whether its IP TTL is a little below a usual initial value (255, 128, 64): the packet
    /// passed a router that decremented it. TTL 1 or 32 are initial values some stacks choose
    /// (Chrome's queries carry 1), so they prove nothing.
    public var ttlDecremented: Bool { IPTTL.isDecremented(ipTTL) }
}

/// What an IP TTL says about the path.
public enum IPTTL {
    /// Hops a decremented TTL may show below its initial value and still count as decremented.
    static let hopsCounted: UInt8 = 8

    /// Whether `ttl` is 1 to 8 below 255, 128 or 64 (RFC 6762 §11 has responders send 255;
    /// Windows starts at 128, Linux unicast at 64).
    public static func isDecremented(_ ttl: UInt8) -> Bool {
        for initial: UInt8 in [255, 128, 64] where ttl < initial && ttl >= initial - hopsCounted { return true }
        return false
    }
}

extension Array where Element == RecordSender {
    /// Notes that a packet carrying the records came from `packet`'s sources (a short list:
    /// a device answers from two or three addresses, scanned rather than hashed).
    @inline(__always)
    mutating func note(_ packet: DiscoveryPacket, frame: FrameRef) {
        let multicast = packet.destination.isMulticast
        for i in indices
        where self[i].address == packet.source && self[i].mac == packet.sourceMAC && self[i].ipTTL == packet.ttl
            && self[i].multicast == multicast
        {
            self[i].packets += 1
            return
        }
        guard count < TrackerLimits.maximumAddressesKept else { return }
        append(
            RecordSender(
                address: packet.source, mac: packet.sourceMAC, ipTTL: packet.ttl, multicast: multicast, frame: frame,
                packets: 1))
    }

    /// Adds another list's senders (another instance of the device, its host, or another
    /// timeline), counting the packets of the same sender together.
    mutating func absorb(_ other: [RecordSender]) {
        for s in other {
            if let i = firstIndex(where: {
                $0.address == s.address && $0.mac == s.mac && $0.ipTTL == s.ipTTL && $0.multicast == s.multicast
            }) {
                self[i].packets += s.packets
            } else if count < TrackerLimits.maximumAddressesKept {
                append(s)
            }
        }
    }
}

/// The IPv4 source addresses each link-layer source sent mDNS from (a host has one; a router
/// or relay forwarding other hosts' packets shows several), bounded in MACs and per MAC.
struct LinkSources {
    /// IPv4 sources kept per MAC, and MACs kept.
    static let addressesPerMAC = 8
    static let maximumMACs = 1024

    private(set) var sources: [MACAddress: [IPAddress]] = [:]
    /// Pairs noted lately, as raw MAC and IPv4 values (a ring of `recentCount`): noting one of
    /// them again changes nothing, since `sources` only grows and a pair once added, or refused
    /// for a full list or a full table, stays so. A few hosts take turns on a busy network, so
    /// most packets are found here without hashing.
    private var recent = [(mac: UInt64, address: UInt32)](repeating: (0, 0), count: recentCount)
    private var recentFilled = 0
    private var recentNext = 0
    static let recentCount = 16

    mutating func note(_ packet: DiscoveryPacket) {
        guard let mac = packet.sourceMAC, case .v4(let v4) = packet.source else { return }
        let seen = recent.withUnsafeBufferPointer { r in
            for i in 0..<recentFilled where r[i].mac == mac.rawValue && r[i].address == v4.rawValue { return true }
            return false
        }
        if seen { return }
        recent[recentNext] = (mac.rawValue, v4.rawValue)
        recentNext = (recentNext + 1) % Self.recentCount
        recentFilled = min(recentFilled + 1, Self.recentCount)
        if var list = sources[mac] {
            guard !list.contains(packet.source), list.count < Self.addressesPerMAC else { return }
            list.append(packet.source)
            sources[mac] = list
        } else if sources.count < Self.maximumMACs {
            sources[mac] = [packet.source]
        }
    }
}
