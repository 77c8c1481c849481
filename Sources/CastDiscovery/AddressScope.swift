// What kind of network an IPv4 address belongs to, as far as its value tells: what the path
// rules need to say that an advertised address cannot be where the device is.

import WireFormat

/// The kind of network an IPv4 address belongs to.
public enum AddressScope: Hashable, Sendable {
    /// 172.17.0.0/16: Docker's default bridge (`docker0`).
    case dockerBridge
    /// 172.16.0.0/12 outside 172.17/16: Docker's user-defined bridges, also used by LANs.
    case privateRange172
    /// 169.254.0.0/16 (RFC 3927): no DHCP lease; reachable only on the same link.
    case linkLocal
    /// 10.0.0.0/8 and 192.168.0.0/16 (RFC 1918), 100.64.0.0/10 (RFC 6598, carrier-grade NAT
    /// and Tailscale).
    case privateRange(block: UInt32)
    /// 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 (RFC 5737): documentation. Counted as
    /// local networks (each one its own block), since test networks, including this project's
    /// captures, use them as LANs.
    case documentation(block: UInt32)
    /// 127.0.0.0/8, 0.0.0.0/8, multicast and reserved: never a device's address on a LAN.
    case special
    /// Everything else: publicly routable. Chrome refuses Cast devices at such addresses
    /// unless the `MediaRouterCastAllowAllIPs` policy is set (DOMAIN.md §7.2 #14).
    case publicRoutable

    public init(_ address: IPv4Address) {
        let a = address.rawValue
        func within(_ base: UInt32, _ bits: UInt32) -> Bool { a >> (32 - bits) == base >> (32 - bits) }
        if within(0xAC11_0000, 16) {
            self = .dockerBridge
        } else if within(0xAC10_0000, 12) {
            self = .privateRange172
        } else if within(0xA9FE_0000, 16) {
            self = .linkLocal
        } else if within(0x0A00_0000, 8) {
            self = .privateRange(block: 0x0A00_0000)
        } else if within(0xC0A8_0000, 16) {
            self = .privateRange(block: 0xC0A8_0000)
        } else if within(0x6440_0000, 10) {
            self = .privateRange(block: 0x6440_0000)
        } else if within(0xC000_0200, 24) || within(0xC633_6400, 24) || within(0xCB00_7100, 24) {
            self = .documentation(block: a & 0xFFFF_FF00)
        } else if within(0x7F00_0000, 8) || within(0, 8) || a >= 0xE000_0000 {
            self = .special
        } else {
            self = .publicRoutable
        }
    }

    /// Whether the address is on some local network (private, link-local, documentation),
    /// rather than public or special.
    public var isLocal: Bool {
        switch self {
        case .publicRoutable, .special: return false
        default: return true
        }
    }

    /// Whether two addresses of these scopes can be on one LAN: the same private block (the
    /// 172.16/12 range counted as one block), or link-local with link-local. A LAN seldom spans
    /// two RFC 1918 blocks; a host with addresses in two has two interfaces (a VPN, Docker, a
    /// second network card).
    func sharesBlock(with other: AddressScope) -> Bool {
        switch (self, other) {
        case (.dockerBridge, .dockerBridge), (.linkLocal, .linkLocal), (.publicRoutable, .publicRoutable): return true
        case (.dockerBridge, .privateRange172), (.privateRange172, .dockerBridge),
            (.privateRange172, .privateRange172):
            return true
        case (.privateRange(let a), .privateRange(let b)), (.documentation(let a), .documentation(let b)):
            return a == b
        default: return false
        }
    }
}
