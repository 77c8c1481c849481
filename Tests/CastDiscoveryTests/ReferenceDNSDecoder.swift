import WireFormat

/// A second DNS decoder, written only as a test oracle for the one in WireFormat
/// (``DNSMessageView/check(_:index:)`` and ``DNSMessage/init(_:)``).
///
/// It is written the plain way, over an array with integer positions and no shared code with
/// WireFormat's parser: a field at a time, names expanded while they are checked, each rdata
/// type decoded into its value as it is read. It states the project's rules (docs/dump-format.md,
/// docs/architecture.md) as they were before the view became the parser: the fault is the
/// first field that cannot be read, at that field's frame offset; a read inside an rdata part
/// (SRV's numbers, TXT, HINFO, NSEC's bitmap, OPT) is bounded by that part; compression
/// pointers go strictly below every offset the name visited; names are at most 255 octets.
enum ReferenceDNSDecoder {
    /// A position in the message with the limit that reads must stay under.
    struct Reader {
        let bytes: [UInt8]
        /// Frame position of `bytes[0]`.
        let base: Int
        var at: Int
        let end: Int

        var isAtEnd: Bool { at >= end }

        func need(_ n: Int) throws(DecodeError) {
            guard n >= 0, n <= end - at else {
                throw .truncated(offset: base + at, needed: n, available: max(end - at, 0))
            }
        }

        mutating func u8() throws(DecodeError) -> UInt8 {
            try need(1)
            at += 1
            return bytes[at - 1]
        }

        /// A big-endian number of `n` bytes, all there or none read.
        mutating func number(_ n: Int) throws(DecodeError) -> UInt32 {
            try take(n).reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func u16() throws(DecodeError) -> UInt16 { UInt16(try number(2)) }

        mutating func u32() throws(DecodeError) -> UInt32 { try number(4) }

        mutating func take(_ n: Int) throws(DecodeError) -> [UInt8] {
            try need(n)
            at += n
            return Array(bytes[(at - n)..<at])
        }

        /// A reader over the next `n` bytes; this one moves past them.
        mutating func part(_ n: Int) throws(DecodeError) -> Reader {
            try need(n)
            at += n
            return Reader(bytes: bytes, base: base, at: at - n, end: at)
        }

        /// The name at the position (anywhere in the message), moving past its bytes here.
        mutating func name() throws(DecodeError) -> DNSName {
            let start = at
            var p = start
            var lowest = start
            var resume: Int?
            var wire: [UInt8] = []
            while true {
                guard p < bytes.count else {
                    throw .truncated(offset: base + p, needed: 1, available: max(bytes.count - p, 0))
                }
                let length = bytes[p]
                if length == 0 {
                    at = resume ?? p + 1
                    return DNSName(wire: wire)
                }
                switch length >> 6 {
                case 0:
                    guard wire.count + Int(length) + 2 <= 255 else { throw .nameTooLong(offset: base + start) }
                    guard p + 1 + Int(length) <= bytes.count else {
                        throw .truncated(offset: base + p + 1, needed: Int(length), available: bytes.count - p - 1)
                    }
                    wire += bytes[p...(p + Int(length))]
                    p += 1 + Int(length)
                case 3:
                    guard p + 1 < bytes.count else {
                        throw .truncated(offset: base + p + 1, needed: 1, available: max(bytes.count - p - 1, 0))
                    }
                    let target = Int(length & 0x3F) << 8 | Int(bytes[p + 1])
                    guard target < lowest else { throw .badPointer(offset: base + p, target: target) }
                    if resume == nil { resume = p + 2 }
                    lowest = target
                    p = target
                default:
                    throw .reservedLabelType(offset: base + p, byte: length)
                }
            }
        }
    }

    /// Decodes `bytes` (a DNS message whose first byte is at frame position `base`) up to its
    /// first fault: the message (`nil` without a whole header) and the fault.
    static func decodePartial(_ bytes: [UInt8], base: Int = 0) -> (DNSMessage?, DecodeError?) {
        var r = Reader(bytes: bytes, base: base, at: 0, end: bytes.count)
        var header: [UInt16] = []
        do throws(DecodeError) {
            for _ in 0..<6 { header.append(try r.u16()) }
        } catch {
            return (nil, error)
        }
        let counts = header[2...].map { Int($0) }
        var m = DNSMessage(id: header[0], flags: header[1], counts: counts)
        do throws(DecodeError) {
            for _ in 0..<counts[0] {
                let name = try r.name()
                let type = try r.u16()
                let rawClass = try r.u16()
                m.questions.append(
                    DNSQuestion(
                        name: name, type: DNSRecordType(rawValue: type),
                        dnsClass: DNSClass(rawValue: rawClass & 0x7FFF),
                        unicastResponse: rawClass >= 0x8000))
            }
            for _ in 0..<counts[1] { m.answers.append(try record(&r)) }
            for _ in 0..<counts[2] { m.authorities.append(try record(&r)) }
            for _ in 0..<counts[3] { m.additionals.append(try record(&r)) }
        } catch {
            return (m, error)
        }
        return (m, nil)
    }

    static func record(_ r: inout Reader) throws(DecodeError) -> DNSResourceRecord {
        let name = try r.name()
        let type = DNSRecordType(rawValue: try r.u16())
        let rawClass = try r.u16()
        let ttl = try r.u32()
        let lengthOffset = r.base + r.at
        let length = Int(try r.u16())
        try r.need(length)
        let end = r.at + length
        func nameInside() throws(DecodeError) -> DNSName {
            let start = r.at
            let name = try r.name()
            guard r.at <= end else { throw .invalid(offset: r.base + start, field: .rdataOverrun(type: type.rawValue)) }
            return name
        }
        func exactly(_ n: Int) throws(DecodeError) {
            guard length == n else {
                throw .invalid(offset: lengthOffset, field: .rdataLength(type: type.rawValue, length: length))
            }
        }
        let data: DNSRecordData
        switch type {
        case .a:
            try exactly(4)
            data = .a(IPv4Address(rawValue: try r.u32()))
        case .aaaa:
            try exactly(16)
            let b = try r.take(16)
            data = .aaaa(IPv6Address(high: word(b, 0), low: word(b, 8)))
        case .ptr, .cname, .ns:
            data = .name(try nameInside())
        case .srv:
            var numbers = try r.part(min(6, length))
            let priority = try numbers.u16()
            let weight = try numbers.u16()
            let port = try numbers.u16()
            data = .srv(priority: priority, weight: weight, port: port, target: try nameInside())
        case .txt:
            var p = try r.part(length)
            var strings: [[UInt8]] = []
            while !p.isAtEnd { strings.append(try p.take(Int(try p.u8()))) }
            data = .txt(TXTRecord(strings: strings))
        case .hinfo:
            var p = try r.part(length)
            let cpu = try p.take(Int(try p.u8()))
            data = .hinfo(cpu: cpu, os: try p.take(Int(try p.u8())))
        case .nsec:
            let next = try nameInside()
            var p = try r.part(end - r.at)
            var types: [DNSRecordType] = []
            var lastWindow = -1
            while !p.isAtEnd {
                let windowOffset = p.base + p.at
                let window = Int(try p.u8())
                let count = Int(try p.u8())
                guard window > lastWindow, (1...32).contains(count) else {
                    throw .invalid(offset: windowOffset, field: .nsecBitmap)
                }
                lastWindow = window
                // Byte by byte: a bitmap cut short fails at its first missing byte.
                for i in 0..<count {
                    let byte = try p.u8()
                    for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                        types.append(DNSRecordType(rawValue: UInt16(window * 256 + i * 8 + bit)))
                    }
                }
            }
            data = .nsec(next: next, types: types)
        case .opt:
            var p = try r.part(length)
            var options: [EDNSOption] = []
            while !p.isAtEnd {
                let code = try p.u16()
                options.append(EDNSOption(code: code, data: try p.take(Int(try p.u16()))))
            }
            data = .opt(options)
        default:
            data = .unknown(try r.take(length))
        }
        r.at = end
        let isOPT = type == .opt
        return DNSResourceRecord(
            name: name, type: type, dnsClass: DNSClass(rawValue: isOPT ? rawClass : rawClass & 0x7FFF),
            cacheFlush: !isOPT && rawClass >= 0x8000, ttl: ttl, rdlength: length, data: data)
    }

    static func word(_ b: [UInt8], _ from: Int) -> UInt64 {
        b[from..<(from + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
