/// One question of a DNS message.
public struct DNSQuestion: Hashable, Sendable {
    /// The name asked about.
    public var name: DNSName
    /// The type asked for (`PTR` for service browsing, `ANY` for mDNS probes).
    public var type: DNSRecordType
    /// The class, with the mDNS unicast-response bit removed.
    public var dnsClass: DNSClass
    /// The mDNS "QU" bit: the querier asks for a unicast reply (RFC 6762 §5.4).
    public var unicastResponse: Bool

    public init(name: DNSName, type: DNSRecordType, dnsClass: DNSClass = .internet, unicastResponse: Bool = false) {
        self.name = name
        self.type = type
        self.dnsClass = dnsClass
        self.unicastResponse = unicastResponse
    }
}

/// An EDNS(0) option inside an OPT record.
public struct EDNSOption: Hashable, Sendable {
    /// Option code (4 is the Owner option used by Apple's sleep proxy).
    public var code: UInt16
    /// Option data.
    public var data: [UInt8]

    public init(code: UInt16, data: [UInt8]) {
        self.code = code
        self.data = data
    }
}

/// The decoded rdata of a resource record.
public enum DNSRecordData: Hashable, Sendable {
    /// A: an IPv4 address.
    case a(IPv4Address)
    /// AAAA: an IPv6 address.
    case aaaa(IPv6Address)
    /// PTR, CNAME or NS: a name.
    case name(DNSName)
    /// SRV: where a service instance runs.
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// TXT: character strings.
    case txt(TXTRecord)
    /// NSEC: the next name and the types that exist for the owner.
    case nsec(next: DNSName, types: [DNSRecordType])
    /// OPT: EDNS(0) options.
    case opt([EDNSOption])
    /// HINFO: CPU and OS strings.
    case hinfo(cpu: [UInt8], os: [UInt8])
    /// Any other type: the raw rdata.
    case unknown([UInt8])
}

/// A resource record from the answer, authority or additional section.
public struct DNSResourceRecord: Hashable, Sendable {
    /// Owner name.
    public var name: DNSName
    /// Record type.
    public var type: DNSRecordType
    /// The class with the cache-flush bit removed (for OPT: the whole field, the UDP size).
    public var dnsClass: DNSClass
    /// The mDNS cache-flush bit (RFC 6762 §10.2): the record is unique and replaces older ones.
    public var cacheFlush: Bool
    /// Time to live in seconds; 0 is a goodbye in mDNS.
    public var ttl: UInt32
    /// The rdata length field.
    public var rdlength: Int
    /// The decoded rdata.
    public var data: DNSRecordData

    public init(
        name: DNSName, type: DNSRecordType, dnsClass: DNSClass = .internet, cacheFlush: Bool = false, ttl: UInt32,
        rdlength: Int = 0, data: DNSRecordData
    ) {
        self.name = name
        self.type = type
        self.dnsClass = dnsClass
        self.cacheFlush = cacheFlush
        self.ttl = ttl
        self.rdlength = rdlength
        self.data = data
    }
}

/// Which section of a message a record came from.
public enum DNSSection: String, Hashable, Sendable, CaseIterable {
    case answer = "an"
    case authority = "ns"
    case additional = "ar"
}

/// A DNS / mDNS message, owned: what `dump`, `extract` and `live` print and keep.
///
/// It is materialised from a checked ``DNSMessageView`` (``init(_:)``), the one DNS parser:
/// every bound, pointer rule and fault is the view's, and this type only copies out what the
/// view found well-formed.
public struct DNSMessage: Hashable, Sendable {
    /// Message ID (0 for multicast mDNS, the querier's ID for legacy unicast).
    public var id: UInt16
    /// The 16-bit flags word.
    public var flags: UInt16
    /// QDCOUNT, ANCOUNT, NSCOUNT, ARCOUNT as written (attacker-controlled; never used to allocate).
    public var counts: [Int]
    public var questions: [DNSQuestion] = []
    public var answers: [DNSResourceRecord] = []
    public var authorities: [DNSResourceRecord] = []
    public var additionals: [DNSResourceRecord] = []

    public init(id: UInt16 = 0, flags: UInt16 = 0, counts: [Int] = [0, 0, 0, 0]) {
        self.id = id
        self.flags = flags
        self.counts = counts
    }

    /// QR: this is a response.
    public var isResponse: Bool { flags & 0x8000 != 0 }
    /// OPCODE (must be 0 in mDNS).
    public var opcode: UInt8 { UInt8((flags >> 11) & 0xF) }
    /// AA: authoritative answer (set in every mDNS response).
    public var isAuthoritative: Bool { flags & 0x0400 != 0 }
    /// TC: in an mDNS query, more known answers follow in another packet.
    public var isTruncated: Bool { flags & 0x0200 != 0 }
    /// RD.
    public var recursionDesired: Bool { flags & 0x0100 != 0 }
    /// RA.
    public var recursionAvailable: Bool { flags & 0x0080 != 0 }
    /// RCODE (must be 0 in mDNS).
    public var rcode: UInt8 { UInt8(flags & 0xF) }

    /// The records of one section.
    public func records(in section: DNSSection) -> [DNSResourceRecord] {
        switch section {
        case .answer: return answers
        case .authority: return authorities
        case .additional: return additionals
        }
    }

    /// Every record, in wire order, with its section.
    public var allRecords: [(section: DNSSection, record: DNSResourceRecord)] {
        answers.map { (.answer, $0) } + authorities.map { (.authority, $0) } + additionals.map { (.additional, $0) }
    }
}

extension DNSMessage {
    /// Copies out every question and record that `view` found well-formed (those before its
    /// fault, if it had one), with the header's counts as written.
    public init(_ view: DNSMessageView) {
        let written = view.headerCounts
        self.init(id: view.id, flags: view.flags, counts: [written.0, written.1, written.2, written.3])
        // The view's counts are of checked items, each at least 5 bytes: bounded by the
        // message, not by the attacker's header.
        var questions: [DNSQuestion] = []
        questions.reserveCapacity(view.decodedCounts.0)
        view.forEachQuestion { q in
            questions.append(
                DNSQuestion(
                    name: view.name(at: q.nameOffset), type: q.type, dnsClass: DNSClass(rawValue: q.rawClass & 0x7FFF),
                    unicastResponse: q.unicastResponse))
        }
        var answers: [DNSResourceRecord] = []
        var authorities: [DNSResourceRecord] = []
        var additionals: [DNSResourceRecord] = []
        answers.reserveCapacity(view.recordCount(in: .answer))
        authorities.reserveCapacity(view.recordCount(in: .authority))
        additionals.reserveCapacity(view.recordCount(in: .additional))
        view.forEachRecord { r in
            let record = DNSResourceRecord(r, in: view)
            switch r.section {
            case .answer: answers.append(record)
            case .authority: authorities.append(record)
            case .additional: additionals.append(record)
            }
        }
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// Checks and materialises a whole message, failing on the first fault.
    public static func decode(_ message: ByteCursor) throws(DecodeError) -> DNSMessage {
        let (decoded, error) = decodePartial(message)
        if let error { throw error }
        return decoded!
    }

    /// Checks a message (``DNSMessageView/check(_:index:)``) and materialises as much of it as
    /// is well-formed (degrade, don't die).
    ///
    /// - Parameter index: as for ``DNSMessageView/check(_:index:)``; saves walking the message
    ///   a second time to materialise it.
    /// - Returns: the message with every question and record before the first fault (`nil`
    ///   when even the 12-byte header is missing), and that fault.
    public static func decodePartial(_ message: ByteCursor, index: DNSMessageIndex? = nil) -> (
        message: DNSMessage?, error: DecodeError?
    ) {
        let (view, error) = DNSMessageView.check(message, index: index)
        return (view.map(DNSMessage.init), error)
    }
}

extension DNSResourceRecord {
    /// The record `r` of `view`, copied out.
    init(_ r: DNSRecordView, in view: DNSMessageView) {
        // OPT's class field is the UDP payload size, whole (RFC 6891 §6.1.2).
        let isOPT = r.type == .opt
        self.init(
            name: view.name(at: r.nameOffset), type: r.type,
            dnsClass: DNSClass(rawValue: isOPT ? r.rawClass : r.rawClass & 0x7FFF),
            cacheFlush: !isOPT && r.rawClass & 0x8000 != 0, ttl: r.ttl, rdlength: r.rdlength,
            data: DNSRecordData(r, in: view))
    }
}

extension DNSRecordData {
    /// The rdata of the record `r` of `view`, copied out.
    ///
    /// The check has already held the rdata to its type's layout (A is 4 bytes, SRV holds its
    /// three numbers and a name inside rdlength, TXT strings and NSEC windows end exactly at
    /// the end), so nothing here can fail; every read is still kept inside the rdata.
    init(_ r: DNSRecordView, in view: DNSMessageView) {
        let rdata = view.rdata(r)
        switch r.type {
        case .a:
            self = .a(view.ipv4(r))
        case .aaaa:
            self = .aaaa(view.ipv6(r))
        case .ptr, .cname, .ns:
            self = .name(view.name(at: view.rdataNameOffset(r)))
        case .srv:
            self = .srv(
                priority: Self.uint16(rdata, at: 0), weight: Self.uint16(rdata, at: 2), port: view.srvPort(r),
                target: view.name(at: view.rdataNameOffset(r)))
        case .txt:
            self = .txt(TXTRecord(wire: rdata))
        case .hinfo:
            // Two character-strings; bytes after them are allowed and ignored.
            let strings = TXTRecord(wire: rdata).strings
            self = .hinfo(cpu: strings.first ?? [], os: strings.count > 1 ? strings[1] : [])
        case .nsec:
            var next = view.message
            next.offset = r.rdataOffset
            _ = try? DNSName.skip(&next)  // checked: moves past the next-name's bytes
            let bitmapStart = Swift.min(Swift.max(next.offset - r.rdataOffset, 0), rdata.count)
            self = .nsec(
                next: view.name(at: r.rdataOffset),
                types: Self.nsecTypes(UnsafeRawBufferPointer(rebasing: rdata[bitmapStart...])))
        case .opt:
            var options: [EDNSOption] = []
            var i = 0
            while i + 4 <= rdata.count {
                let end = Swift.min(i + 4 + Int(Self.uint16(rdata, at: i + 2)), rdata.count)
                options.append(EDNSOption(code: Self.uint16(rdata, at: i), data: Array(rdata[(i + 4)..<end])))
                i = end
            }
            self = .opt(options)
        default:
            self = .unknown(Array(rdata))
        }
    }

    /// The types an NSEC type bitmap lists (RFC 4034 §4.1.2): windows of a number, a length
    /// and that many bitmap bytes, the high bit of the first byte being type `window × 256`.
    static func nsecTypes(_ bitmap: UnsafeRawBufferPointer) -> [DNSRecordType] {
        var types: [DNSRecordType] = []
        var i = 0
        while i + 2 <= bitmap.count {
            let window = Int(bitmap[i])
            let length = Swift.min(Int(bitmap[i + 1]), bitmap.count - i - 2)
            for k in 0..<length {
                let byte = bitmap[i + 2 + k]
                for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                    types.append(DNSRecordType(rawValue: UInt16(window * 256 + k * 8 + bit)))
                }
            }
            i += 2 + length
        }
        return types
    }

    /// The big-endian 16-bit number at `at` of `bytes` (0 past the end).
    static func uint16(_ bytes: UnsafeRawBufferPointer, at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }
}
