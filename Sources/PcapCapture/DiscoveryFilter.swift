import WireFormat

/// The BPF prefilter applied inside libpcap before CastScope decodes a frame.
///
/// It must lose nothing the decoder would report, while throwing away as much as it can:
/// - UDP to or from port 5353 or 1900;
/// - UDP to or from port 53 (the decoder keeps only questions about `.local` names: a sender
///   resolving an mDNS name through unicast DNS; the name is checked there, not in BPF);
/// - UDP whose payload starts with `HTTP` (IPv4, and IPv6 without extension headers): the
///   unicast SSDP answers a Chromecast sends from an ephemeral port to the searcher's port;
/// - IPv4 fragments after the first (they carry no UDP header; the first fragment has the
///   ports and matches above);
/// - IPv6 packets whose first next-header is not TCP, UDP or ICMPv6: extension headers
///   (hop-by-hop, routing, fragments) before UDP;
/// - the connection phase: TCP segments with SYN, RST or FIN, data with PSH from port 8008,
///   segments whose payload starts a TLS handshake record of type 0–2 (ClientHello and
///   ServerHello are kept by the decoder) or `HTTP` or `GET `, and ICMP type 3 / ICMPv6 type 1
///   (destination unreachable);
/// - on Ethernet, frames whose EtherType is not IPv4, IPv6 or ARP (raw IP in an `rvictl`
///   file labelled Ethernet) and VLAN-tagged frames on the same terms (three or more tags: all).
///
/// A test decodes every capture with and without it and requires the same packets.
public enum DiscoveryFilter {
    /// The part for an untagged IP packet.
    static let ipPart =
        "udp port 5353 or udp port 1900 or udp port 53 or (ip and udp and udp[8:4] = 0x48545450) "
        + "or (ip and ip[6:2] & 0x1fff != 0) or (ip6 and ip6[6] = 17 and ip6[48:4] = 0x48545450) "
        + "or (ip6 and ip6[6] != 6 and ip6[6] != 17 and ip6[6] != 58) "
        // The connection phase: TCP with SYN, RST or FIN, data with PSH from port 8008 (a Cast
        // device's HTTP), or a payload starting a TLS ClientHello or ServerHello (the decoder
        // checks 1 or 2) or an HTTP message (`HTTP`, `GET `); ICMP destination unreachable. libpcap's
        // `tcp[]` is IPv4 only, so IPv6 reads the TCP header through `ip6[]` (no extension
        // headers: those frames are kept whole by the term above).
        + "or tcp[13] & 7 != 0 or (tcp[0:2] = 8008 and tcp[13] & 8 != 0) "
        + "or (tcp[(tcp[12] & 0xf0) >> 2] = 0x16 and tcp[((tcp[12] & 0xf0) >> 2) + 5] < 3) "
        + "or tcp[(tcp[12] & 0xf0) >> 2:4] = 0x48545450 or tcp[(tcp[12] & 0xf0) >> 2:4] = 0x47455420 "
        + "or icmp[0] = 3 "
        + "or (ip6 and ip6[6] = 6 and (ip6[53] & 7 != 0 or (ip6[40:2] = 8008 and ip6[53] & 8 != 0) "
        + "or (ip6[40 + ((ip6[52] & 0xf0) >> 2)] = 0x16 and ip6[45 + ((ip6[52] & 0xf0) >> 2)] < 3) "
        + "or ip6[40 + ((ip6[52] & 0xf0) >> 2):4] = 0x48545450 or ip6[40 + ((ip6[52] & 0xf0) >> 2):4] = 0x47455420)) "
        + "or (ip6 and ip6[6] = 58 and ip6[40] = 1)"

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
