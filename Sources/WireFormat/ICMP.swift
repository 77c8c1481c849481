// ICMP and ICMPv6 destination-unreachable messages: the answer a router or host gives instead
// of a SYN-ACK (a firewall's `reject`, no route) or instead of taking a UDP datagram (no socket
// on 5353). Only the packet they quote is read: its addresses, protocol and ports.

/// An ICMP (type 3) or ICMPv6 (type 1) destination-unreachable message and what it quotes.
public struct ICMPUnreachable: Hashable, Sendable, CustomStringConvertible {
    /// 4 for ICMP, 6 for ICMPv6.
    public var version: UInt8
    /// The code: ICMP 0 net, 1 host, 3 port, 9/10/13 administratively prohibited…; ICMPv6 0 no
    /// route, 1 administratively prohibited, 3 address, 4 port.
    public var code: UInt8
    /// The quoted packet's source and destination (the packet that could not be delivered).
    public var quotedSource: IPAddress
    public var quotedDestination: IPAddress
    /// Its protocol.
    public var quotedProtocol: IPProtocol
    /// Its source and destination ports (TCP and UDP, when the quote holds them).
    public var quotedSourcePort: UInt16?
    public var quotedDestinationPort: UInt16?

    public init(
        version: UInt8, code: UInt8, quotedSource: IPAddress, quotedDestination: IPAddress,
        quotedProtocol: IPProtocol, quotedSourcePort: UInt16?, quotedDestinationPort: UInt16?
    ) {
        self.version = version
        self.code = code
        self.quotedSource = quotedSource
        self.quotedDestination = quotedDestination
        self.quotedProtocol = quotedProtocol
        self.quotedSourcePort = quotedSourcePort
        self.quotedDestinationPort = quotedDestinationPort
    }

    /// Whether the code says the port had no listener (ICMP 3, ICMPv6 4).
    public var isPortUnreachable: Bool { version == 4 ? code == 3 : code == 4 }

    /// Whether the code says a host refused the datagram: no socket on the port, or a firewall's
    /// reject (ICMP 3, 9, 10, 13; ICMPv6 1, 4, 5, 6). firewalld rejects with "administratively
    /// prohibited", a plain `reject` rule with "port unreachable".
    public var isRefusal: Bool { version == 4 ? [3, 9, 10, 13].contains(code) : [1, 4, 5, 6].contains(code) }

    /// The code in words, as tshark names it.
    public var reason: String {
        if version == 4 {
            switch code {
            case 0: return "network unreachable"
            case 1: return "host unreachable"
            case 2: return "protocol unreachable"
            case 3: return "port unreachable"
            case 9, 10, 13: return "administratively prohibited"
            default: return "unreachable (code \(code))"
            }
        }
        switch code {
        case 0: return "no route to destination"
        case 1: return "administratively prohibited"
        case 3: return "address unreachable"
        case 4: return "port unreachable"
        case 5, 6: return "rejected by policy"
        default: return "unreachable (code \(code))"
        }
    }

    public var description: String {
        let ports = quotedDestinationPort.map { ":\($0)" } ?? ""
        return "\(reason) for \(quotedDestination)\(ports)"
    }

    /// Decodes the message from an ICMP (`version` 4) or ICMPv6 (6) payload; `nil` when it is
    /// another type or its quote does not hold an IP header.
    public static func decode(_ cursor: ByteCursor, version: UInt8) -> ICMPUnreachable? {
        guard let type = cursor.peekUInt8(), let code = cursor.peekUInt8(ahead: 1),
            type == (version == 4 ? 3 : 1), cursor.remaining >= 8
        else { return nil }
        var quote = cursor
        guard (try? quote.skip(8)) != nil else { return nil }
        let inner: IPPacket
        do throws(DecodeError) {
            inner = version == 4 ? try IPPacket.decodeIPv4(quote.rest) : try IPPacket.decodeIPv6(quote.rest)
        } catch {
            return nil
        }
        var sourcePort: UInt16?
        var destinationPort: UInt16?
        if inner.proto == .tcp || inner.proto == .udp, inner.fragment.map({ $0.offset == 0 }) ?? true,
            let ports = UDPDatagram.ports(inner.payload)
        {
            sourcePort = ports.source
            destinationPort = ports.destination
        }
        return ICMPUnreachable(
            version: version, code: code, quotedSource: inner.source, quotedDestination: inner.destination,
            quotedProtocol: inner.proto, quotedSourcePort: sourcePort, quotedDestinationPort: destinationPort)
    }
}
