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

/// A DNS / mDNS message.
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

    /// Decodes a whole message, failing on the first fault.
    public static func decode(_ message: ByteCursor) throws(DecodeError) -> DNSMessage {
        let (decoded, error) = decodePartial(message)
        if let error { throw error }
        return decoded!
    }

    /// Decodes as much of a message as is well-formed (degrade, don't die).
    ///
    /// - Returns: the message with every question and record decoded before the first fault
    ///   (`nil` when even the 12-byte header is missing), and that fault.
    public static func decodePartial(_ message: ByteCursor) -> (message: DNSMessage?, error: DecodeError?) {
        var c = message
        c.offset = 0
        let id: UInt16
        let flags: UInt16
        var counts = [0, 0, 0, 0]
        do throws(DecodeError) {
            id = try c.readUInt16()
            flags = try c.readUInt16()
            for i in 0..<4 { counts[i] = Int(try c.readUInt16()) }
        } catch {
            return (nil, error)
        }
        var result = DNSMessage(id: id, flags: flags, counts: counts)
        do throws(DecodeError) {
            // Counts are attacker-controlled: nothing is reserved from them, and each item
            // consumes at least 5 bytes, so the loops end when the bytes do.
            for _ in 0..<counts[0] {
                let name = try DNSName.decode(&c)
                let type = try c.readUInt16()
                let rawClass = try c.readUInt16()
                result.questions.append(
                    DNSQuestion(
                        name: name, type: DNSRecordType(rawValue: type),
                        dnsClass: DNSClass(rawValue: rawClass & 0x7FFF),
                        unicastResponse: rawClass & 0x8000 != 0))
            }
            for _ in 0..<counts[1] { result.answers.append(try decodeRecord(&c)) }
            for _ in 0..<counts[2] { result.authorities.append(try decodeRecord(&c)) }
            for _ in 0..<counts[3] { result.additionals.append(try decodeRecord(&c)) }
        } catch {
            return (result, error)
        }
        return (result, nil)
    }

    static func decodeRecord(_ c: inout ByteCursor) throws(DecodeError) -> DNSResourceRecord {
        let name = try DNSName.decode(&c)
        let type = DNSRecordType(rawValue: try c.readUInt16())
        let rawClass = try c.readUInt16()
        let ttl = try c.readUInt32()
        let rdlengthOffset = c.position
        let rdlength = Int(try c.readUInt16())
        try c.require(rdlength)
        let rdataStart = c.offset
        let rdataEnd = rdataStart + rdlength
        let isOPT = type == .opt
        let data = try decodeRData(type: type, length: rdlength, message: &c, lengthOffset: rdlengthOffset)
        guard c.offset <= rdataEnd else {
            throw .invalid(offset: c.base + rdataStart, field: .rdataOverrun(type: type.rawValue))
        }
        c.offset = rdataEnd
        return DNSResourceRecord(
            name: name, type: type, dnsClass: DNSClass(rawValue: isOPT ? rawClass : rawClass & 0x7FFF),
            cacheFlush: !isOPT && rawClass & 0x8000 != 0, ttl: ttl, rdlength: rdlength, data: data)
    }

    static func decodeRData(type: DNSRecordType, length: Int, message c: inout ByteCursor, lengthOffset: Int)
        throws(DecodeError) -> DNSRecordData
    {
        let start = c.offset
        let end = start + length
        func checkLength(_ expected: Int) throws(DecodeError) {
            guard length == expected else {
                throw .invalid(offset: lengthOffset, field: .rdataLength(type: type.rawValue, length: length))
            }
        }
        switch type {
        case .a:
            try checkLength(4)
            return .a(IPv4Address(rawValue: try c.readUInt32()))
        case .aaaa:
            try checkLength(16)
            return .aaaa(try IPv6Address(reading: &c))
        case .ptr, .cname, .ns:
            return .name(try decodeNameInRData(&c, end: end, type: type))
        case .srv:
            var r = try c.readSlice(Swift.min(6, length))
            let priority = try r.readUInt16()
            let weight = try r.readUInt16()
            let port = try r.readUInt16()
            return .srv(
                priority: priority, weight: weight, port: port, target: try decodeNameInRData(&c, end: end, type: type))
        case .txt:
            var r = try c.readSlice(length)
            var strings: [[UInt8]] = []
            while !r.isAtEnd {
                let n = Int(try r.readUInt8())
                strings.append(try r.readBytes(n))
            }
            return .txt(TXTRecord(strings: strings))
        case .hinfo:
            var r = try c.readSlice(length)
            let cpu = try r.readBytes(Int(try r.readUInt8()))
            let os = try r.readBytes(Int(try r.readUInt8()))
            return .hinfo(cpu: cpu, os: os)
        case .nsec:
            let next = try decodeNameInRData(&c, end: end, type: type)
            var r = try c.readSlice(end - c.offset)
            var types: [DNSRecordType] = []
            var lastWindow = -1
            while !r.isAtEnd {
                let windowOffset = r.position
                let window = Int(try r.readUInt8())
                let bitmapLength = Int(try r.readUInt8())
                guard window > lastWindow, bitmapLength >= 1, bitmapLength <= 32 else {
                    throw .invalid(offset: windowOffset, field: .nsecBitmap)
                }
                lastWindow = window
                for i in 0..<bitmapLength {
                    let byte = try r.readUInt8()
                    for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                        types.append(DNSRecordType(rawValue: UInt16(window * 256 + i * 8 + bit)))
                    }
                }
            }
            return .nsec(next: next, types: types)
        case .opt:
            var r = try c.readSlice(length)
            var options: [EDNSOption] = []
            while !r.isAtEnd {
                let code = try r.readUInt16()
                let n = Int(try r.readUInt16())
                options.append(EDNSOption(code: code, data: try r.readBytes(n)))
            }
            return .opt(options)
        default:
            return .unknown(try c.readBytes(length))
        }
    }

    static func decodeNameInRData(_ c: inout ByteCursor, end: Int, type: DNSRecordType) throws(DecodeError) -> DNSName {
        let start = c.offset
        let name = try DNSName.decode(&c)
        guard c.offset <= end else { throw .invalid(offset: c.base + start, field: .rdataOverrun(type: type.rawValue)) }
        return name
    }
}
