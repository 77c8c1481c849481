/// A libpcap data-link type (`DLT_*` as returned by `pcap_datalink`).
///
/// An open set: unknown values round-trip, so a capture with an exotic link type can still be
/// named in an error. libpcap maps the `LINKTYPE_*` values stored in files to `DLT_*` values
/// (for example `LINKTYPE_RAW` 101 becomes `DLT_RAW` 12 on Linux); both are accepted here.
public struct LinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// BSD loopback: a 4-byte address family in the capturing host's byte order. `DLT_NULL`.
    @inlinable public static var null: LinkType { LinkType(rawValue: 0) }
    /// Ethernet II / 802.3. `DLT_EN10MB`.
    @inlinable public static var ethernet: LinkType { LinkType(rawValue: 1) }
    /// Raw IP, version taken from the first nibble. `DLT_RAW` on most systems.
    @inlinable public static var raw: LinkType { LinkType(rawValue: 12) }
    /// Raw IP as `DLT_RAW` is numbered on OpenBSD.
    @inlinable public static var rawOpenBSD: LinkType { LinkType(rawValue: 14) }
    /// Raw IP as stored in files (`LINKTYPE_RAW`).
    @inlinable public static var rawFile: LinkType { LinkType(rawValue: 101) }
    /// IEEE 802.11 without a radio header. `DLT_IEEE802_11`.
    @inlinable public static var ieee80211: LinkType { LinkType(rawValue: 105) }
    /// OpenBSD loopback: a 4-byte address family in network byte order. `DLT_LOOP`.
    @inlinable public static var loop: LinkType { LinkType(rawValue: 108) }
    /// Linux cooked capture v1 (`tcpdump -i any` before libpcap 1.10). `DLT_LINUX_SLL`.
    @inlinable public static var linuxSLL: LinkType { LinkType(rawValue: 113) }
    /// 802.11 with a radiotap header. `DLT_IEEE802_11_RADIO`.
    @inlinable public static var radiotap: LinkType { LinkType(rawValue: 127) }
    /// Apple PKTAP as produced live on Darwin (`DLT_USER2`).
    @inlinable public static var pktapLive: LinkType { LinkType(rawValue: 149) }
    /// Raw IPv4. `DLT_IPV4`.
    @inlinable public static var ipv4: LinkType { LinkType(rawValue: 228) }
    /// Raw IPv6. `DLT_IPV6`.
    @inlinable public static var ipv6: LinkType { LinkType(rawValue: 229) }
    /// Apple PKTAP as stored in files (`LINKTYPE_PKTAP`).
    @inlinable public static var pktap: LinkType { LinkType(rawValue: 258) }
    /// Linux cooked capture v2 (`tcpdump -i any`, libpcap ≥ 1.10). `DLT_LINUX_SLL2`.
    @inlinable public static var linuxSLL2: LinkType { LinkType(rawValue: 276) }

    /// Every link type CastScope decodes.
    public static let supported: [LinkType] = [
        .null, .ethernet, .raw, .rawOpenBSD, .rawFile, .ieee80211, .loop, .linuxSLL, .radiotap, .pktapLive,
        .ipv4, .ipv6, .pktap, .linuxSLL2,
    ]

    /// Whether CastScope can decode discovery traffic on this link type.
    public var isSupported: Bool { Self.supported.contains(self) }

    /// Whether the link type carries 802.11 frames (which may be encrypted).
    public var isWiFi: Bool { self == .ieee80211 || self == .radiotap }

    /// libpcap's name for the common types (`pcap_datalink_val_to_name`), else `DLT<n>`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .ethernet: return "EN10MB"
        case .raw, .rawOpenBSD, .rawFile: return "RAW"
        case .ieee80211: return "IEEE802_11"
        case .loop: return "LOOP"
        case .linuxSLL: return "LINUX_SLL"
        case .radiotap: return "IEEE802_11_RADIO"
        case .pktapLive: return "USER2"
        case .ipv4: return "IPV4"
        case .ipv6: return "IPV6"
        case .pktap: return "PKTAP"
        case .linuxSLL2: return "LINUX_SLL2"
        default: return "DLT\(rawValue)"
        }
    }
}

/// An EtherType: the protocol carried by an Ethernet, cooked or SNAP frame.
public struct EtherType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// IPv4, 0x0800.
    @inlinable public static var ipv4: EtherType { EtherType(rawValue: 0x0800) }
    /// ARP, 0x0806.
    @inlinable public static var arp: EtherType { EtherType(rawValue: 0x0806) }
    /// IPv6, 0x86DD.
    @inlinable public static var ipv6: EtherType { EtherType(rawValue: 0x86DD) }
    /// 802.1Q customer VLAN tag, 0x8100.
    @inlinable public static var vlan: EtherType { EtherType(rawValue: 0x8100) }
    /// 802.1ad service VLAN tag (QinQ), 0x88A8.
    @inlinable public static var qinq: EtherType { EtherType(rawValue: 0x88A8) }
    /// Pre-standard QinQ tag, 0x9100.
    @inlinable public static var qinqLegacy: EtherType { EtherType(rawValue: 0x9100) }
    /// Not an EtherType: used for frames whose network layer is not known.
    @inlinable public static var none: EtherType { EtherType(rawValue: 0) }

    /// Whether this is a VLAN tag protocol identifier.
    public var isVLANTag: Bool { self == .vlan || self == .qinq || self == .qinqLegacy }
}
