import WireFormat

/// The BPF prefilter applied inside libpcap before CastScope decodes a frame.
///
/// It must lose nothing: SSDP answers arrive on ephemeral ports, IP fragments after the first
/// carry no UDP header, IPv6 extension headers can precede UDP, and iPhone `rvictl` files
/// labelled Ethernet may hold raw IP. So it keeps every UDP packet, every IPv4 fragment,
/// every IPv6 packet whose first next-header is not TCP and, on Ethernet, every frame whose
/// EtherType is not IPv4, IPv6 or ARP, and VLAN-tagged frames (one or two tags) on the same
/// terms. It mostly throws away TCP, which is the bulk of a typical capture.
public enum DiscoveryFilter {
    /// The part for an untagged IP packet.
    static let ipPart = "udp or (ip and ip[6:2] & 0x3fff != 0) or (ip6 and ip6[6] != 6)"

    /// The expression for a link type, or `nil` where no filter is safe (802.11, PKTAP) or
    /// libpcap cannot compile one (DLT 14, which is raw IP only on OpenBSD).
    public static func expression(for linkType: LinkType) -> String? {
        switch linkType {
        case .ethernet:
            // `vlan` shifts offsets for the rest of the expression, so it comes last.
            let notIP =
                "not (ether proto 0x0800 or ether proto 0x86dd or ether proto 0x0806 "
                + "or ether proto 0x8100 or ether proto 0x88a8 or ether proto 0x9100)"
            // Three or more tags: keep the frame, the decoder sorts it out.
            return "(\(ipPart)) or \(notIP) or (vlan and ((\(ipPart)) or (vlan and ((\(ipPart)) or vlan))))"
        case .linuxSLL, .linuxSLL2:
            // Cooked frames can carry VLAN-tagged payloads (libpcap re-inserts the tag).
            return "(\(ipPart)) or not (ether proto 0x0800 or ether proto 0x86dd or ether proto 0x0806)"
        case .null, .loop:
            // libpcap matches the address family only in the file's byte order; the decoder
            // accepts both, so frames that are not recognisably IP pass.
            return "(\(ipPart)) or not (ip or ip6)"
        case .raw, .rawFile, .ipv4, .ipv6:
            return ipPart
        default:
            return nil
        }
    }
}
