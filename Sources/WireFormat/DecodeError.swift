/// Why a packet, or part of one, could not be decoded, and where.
///
/// Every case carries the frame-relative byte offset of the fault (hickory-dns style), so a
/// report can say "at byte 54" and the user can find that byte in Wireshark. The type is small
/// and `Hashable` so tests can compare errors exactly.
public enum DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer bytes were left than a field needs.
    case truncated(offset: Int, needed: Int, available: Int)
    /// A compression pointer that does not point strictly before every name byte visited so far.
    case badPointer(offset: Int, target: Int)
    /// A label length byte with the reserved top bits `01` or `10`.
    case reservedLabelType(offset: Int, byte: UInt8)
    /// A name longer than 255 octets once expanded.
    case nameTooLong(offset: Int)
    /// A field whose value is impossible for the protocol.
    case invalid(offset: Int, field: InvalidField)

    /// The frame-relative byte offset of the fault.
    public var offset: Int {
        switch self {
        case .truncated(let o, _, _), .badPointer(let o, _), .reservedLabelType(let o, _), .nameTooLong(let o),
            .invalid(let o, _):
            return o
        }
    }

    /// A one-line human explanation, without the offset.
    public var reason: String {
        switch self {
        case .truncated(_, let needed, let available):
            return "truncated: needed \(needed) byte\(needed == 1 ? "" : "s"), \(available) left"
        case .badPointer(_, let target):
            return "bad compression pointer to message offset \(target) (pointers must go strictly backwards)"
        case .reservedLabelType(_, let byte):
            return "reserved label type 0x\(hex(byte))"
        case .nameTooLong:
            return "domain name longer than 255 octets"
        case .invalid(_, let field):
            return field.description
        }
    }

    /// The reason followed by the offset.
    public var description: String { "\(reason) at byte \(offset)" }
}

/// The fields that ``DecodeError/invalid(offset:field:)`` can name.
///
/// Payloads are numbers only (no `String`): every ``DiscoveryPacket`` carries an optional
/// error, and with plain-data errors a packet copies as plain bytes and one reference, where a
/// `String` payload made each copy a call through the type's value witness (~140 instructions;
/// the pipelined read copies every packet once).
public enum InvalidField: Hashable, Sendable, CustomStringConvertible {
    case ipVersion(UInt8)
    case ipv4HeaderLength(Int)
    case ipv4TotalLength(Int)
    case ipv6ExtensionHeaders
    case udpLength(Int)
    case tcpDataOffset(Int)
    case rdataLength(type: UInt16, length: Int)
    case rdataOverrun(type: UInt16)
    case nsecBitmap
    case ssdpNotText
    case pktapHeaderLength(Int)
    case radiotapLength(Int)

    public var description: String {
        switch self {
        case .ipVersion(let v): return "IP version \(v) where 4 or 6 was expected"
        case .ipv4HeaderLength(let l): return "IPv4 header length \(l) < 20"
        case .ipv4TotalLength(let l): return "IPv4 total length \(l) shorter than its header"
        case .ipv6ExtensionHeaders: return "too many IPv6 extension headers"
        case .udpLength(let l): return "UDP length \(l) < 8"
        case .tcpDataOffset(let l): return "TCP header length \(l) < 20"
        case .rdataLength(let t, let l):
            return "rdata length \(l) is wrong for \(DNSRecordType(rawValue: t))"
        case .rdataOverrun(let t): return "\(DNSRecordType(rawValue: t)) rdata runs past its rdlength"
        case .nsecBitmap: return "malformed NSEC type bitmap"
        case .ssdpNotText: return "SSDP payload has no HTTP start line"
        case .pktapHeaderLength(let l): return "PKTAP header length \(l) is impossible"
        case .radiotapLength(let l): return "radiotap header length \(l) is impossible"
        }
    }
}

@usableFromInline
func hex(_ byte: UInt8) -> String {
    let digits: [Character] = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
