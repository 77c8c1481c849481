/// Writing a ``DNSMessage`` in wire format (RFC 1035 §4), without name compression.
///
/// The analysis reads every message through ``DNSMessageView``; a message built as a value (a
/// test's fixture, a query castscope will send) is written here first and then read back the
/// same way, so there is one parser. The header counts are those of the sections, not
/// ``DNSMessage/counts`` (which may record what a malformed message claimed).
extension DNSMessage {
    /// The message in wire format.
    public func wireFormat() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        Self.put16(id, &out)
        Self.put16(flags, &out)
        for n in [questions.count, answers.count, authorities.count, additionals.count] {
            Self.put16(UInt16(truncatingIfNeeded: n), &out)
        }
        for q in questions {
            Self.putName(q.name, &out)
            Self.put16(q.type.rawValue, &out)
            Self.put16(q.dnsClass.rawValue | (q.unicastResponse ? 0x8000 : 0), &out)
        }
        for r in answers + authorities + additionals { Self.putRecord(r, &out) }
        return out
    }

    static func putRecord(_ r: DNSResourceRecord, _ out: inout [UInt8]) {
        putName(r.name, &out)
        put16(r.type.rawValue, &out)
        put16(r.dnsClass.rawValue | (r.cacheFlush ? 0x8000 : 0), &out)
        put32(r.ttl, &out)
        let lengthAt = out.count
        put16(0, &out)
        switch r.data {
        case .a(let a): put32(a.rawValue, &out)
        case .aaaa(let a):
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: a.high >> shift)) }
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: a.low >> shift)) }
        case .name(let n): putName(n, &out)
        case .srv(let priority, let weight, let port, let target):
            put16(priority, &out)
            put16(weight, &out)
            put16(port, &out)
            putName(target, &out)
        case .txt(let txt): out += txt.wire
        case .nsec(let next, let types):
            putName(next, &out)
            putTypeBitmap(types, &out)
        case .opt(let options):
            for o in options {
                put16(o.code, &out)
                put16(UInt16(truncatingIfNeeded: o.data.count), &out)
                out += o.data
            }
        case .hinfo(let cpu, let os):
            out.append(UInt8(truncatingIfNeeded: cpu.count))
            out += cpu
            out.append(UInt8(truncatingIfNeeded: os.count))
            out += os
        case .unknown(let bytes): out += bytes
        }
        let length = out.count - lengthAt - 2
        out[lengthAt] = UInt8(truncatingIfNeeded: length >> 8)
        out[lengthAt + 1] = UInt8(truncatingIfNeeded: length)
    }

    /// NSEC's type bitmap (RFC 4034 §4.1.2): one block per window of 256 types that has any.
    static func putTypeBitmap(_ types: [DNSRecordType], _ out: inout [UInt8]) {
        let values = Set(types.map(\.rawValue)).sorted()
        var i = 0
        while i < values.count {
            let window = values[i] >> 8
            var bitmap = [UInt8](repeating: 0, count: 32)
            var used = 0
            while i < values.count, values[i] >> 8 == window {
                let low = Int(values[i] & 0xFF)
                bitmap[low / 8] |= 0x80 >> UInt8(low % 8)
                used = low / 8 + 1
                i += 1
            }
            out.append(UInt8(window))
            out.append(UInt8(used))
            out += bitmap[0..<used]
        }
    }

    static func putName(_ name: DNSName, _ out: inout [UInt8]) {
        out += name.wire
        out.append(0)
    }

    static func put16(_ v: UInt16, _ out: inout [UInt8]) {
        out.append(UInt8(v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    static func put32(_ v: UInt32, _ out: inout [UInt8]) {
        put16(UInt16(v >> 16), &out)
        put16(UInt16(truncatingIfNeeded: v), &out)
    }
}
