/// A DNS resource record TYPE (or question QTYPE). Open: unknown values round-trip.
public struct DNSRecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// IPv4 host address, 1.
    @inlinable public static var a: DNSRecordType { DNSRecordType(rawValue: 1) }
    /// Name server, 2.
    @inlinable public static var ns: DNSRecordType { DNSRecordType(rawValue: 2) }
    /// Canonical name, 5.
    @inlinable public static var cname: DNSRecordType { DNSRecordType(rawValue: 5) }
    /// Start of authority, 6.
    @inlinable public static var soa: DNSRecordType { DNSRecordType(rawValue: 6) }
    /// Domain name pointer, 12 (DNS-SD service instance enumeration).
    @inlinable public static var ptr: DNSRecordType { DNSRecordType(rawValue: 12) }
    /// Host information, 13 (CPU and OS strings).
    @inlinable public static var hinfo: DNSRecordType { DNSRecordType(rawValue: 13) }
    /// Mail exchange, 15.
    @inlinable public static var mx: DNSRecordType { DNSRecordType(rawValue: 15) }
    /// Text strings, 16 (DNS-SD key=value metadata).
    @inlinable public static var txt: DNSRecordType { DNSRecordType(rawValue: 16) }
    /// IPv6 host address, 28.
    @inlinable public static var aaaa: DNSRecordType { DNSRecordType(rawValue: 28) }
    /// Service location, 33 (host and port of a DNS-SD instance).
    @inlinable public static var srv: DNSRecordType { DNSRecordType(rawValue: 33) }
    /// EDNS(0) pseudo-record, 41.
    @inlinable public static var opt: DNSRecordType { DNSRecordType(rawValue: 41) }
    /// Next secure, 47 (mDNS negative responses).
    @inlinable public static var nsec: DNSRecordType { DNSRecordType(rawValue: 47) }
    /// Any type, 255 (questions only; mDNS probes).
    @inlinable public static var any: DNSRecordType { DNSRecordType(rawValue: 255) }

    /// The mnemonic, or `TYPE<n>` (RFC 3597) for unknown types.
    public var description: String {
        switch rawValue {
        case 1: return "A"
        case 2: return "NS"
        case 5: return "CNAME"
        case 6: return "SOA"
        case 12: return "PTR"
        case 13: return "HINFO"
        case 15: return "MX"
        case 16: return "TXT"
        case 28: return "AAAA"
        case 33: return "SRV"
        case 41: return "OPT"
        case 47: return "NSEC"
        case 50: return "NSEC3"
        case 64: return "SVCB"
        case 65: return "HTTPS"
        case 255: return "ANY"
        default: return "TYPE\(rawValue)"
        }
    }
}

/// A DNS CLASS with the mDNS top bit (QU / cache-flush) already removed.
public struct DNSClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Internet, 1.
    @inlinable public static var internet: DNSClass { DNSClass(rawValue: 1) }
    /// Any class, 255.
    @inlinable public static var any: DNSClass { DNSClass(rawValue: 255) }

    /// `IN`, `CH`, `HS`, `ANY`, or `CLASS<n>`.
    public var description: String {
        switch rawValue {
        case 1: return "IN"
        case 3: return "CH"
        case 4: return "HS"
        case 254: return "NONE"
        case 255: return "ANY"
        default: return "CLASS\(rawValue)"
        }
    }
}
