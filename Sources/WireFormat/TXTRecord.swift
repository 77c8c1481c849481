/// The strings of a TXT record, with the RFC 6763 key=value view DNS-SD uses.
///
/// Strings are kept as bytes: values are binary-safe (RFC 6763 §6.5), and keys are compared
/// ASCII case-insensitively (§6.4). When a key appears more than once, only the first
/// occurrence counts; a string that starts with `=` has no key and is ignored.
public struct TXTRecord: Hashable, Sendable {
    /// The character-strings in wire order.
    public var strings: [[UInt8]]

    public init(strings: [[UInt8]]) { self.strings = strings }

    /// Creates a record from `key=value` texts (test and fixture convenience).
    public init(_ texts: [String]) { strings = texts.map { Array($0.utf8) } }

    /// One key with its value.
    public struct Entry: Hashable, Sendable {
        /// The key's bytes as written.
        public var key: [UInt8]
        /// The value's bytes, or `nil` for a boolean attribute written without `=`.
        public var value: [UInt8]?

        /// The key as text (keys are printable US-ASCII by RFC 6763; anything else is replaced).
        public var keyText: String { String(decoding: key, as: UTF8.self) }
        /// The value as UTF-8 text with invalid sequences replaced, or `nil`.
        public var valueText: String? { value.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The key=value view: one entry per distinct key, first occurrence wins, in wire order.
    public var entries: [Entry] {
        var seen: [[UInt8]] = []
        var out: [Entry] = []
        for s in strings {
            let split = s.firstIndex(of: 0x3D)  // "="
            let key = Array(s[..<(split ?? s.endIndex)])
            if key.isEmpty { continue }
            let folded = key.map(DNSText.lower)
            if seen.contains(folded) { continue }
            seen.append(folded)
            out.append(Entry(key: key, value: split.map { Array(s[s.index(after: $0)...]) }))
        }
        return out
    }

    /// The value for `key` (ASCII case-insensitive); `.some(nil)` for a key present without `=`.
    public func value(forKey key: String) -> [UInt8]?? {
        let wanted = Array(key.utf8).map(DNSText.lower)
        for s in strings {
            let split = s.firstIndex(of: 0x3D)
            let k = s[..<(split ?? s.endIndex)]
            if k.isEmpty { continue }
            if k.count == wanted.count, zip(k, wanted).allSatisfy({ DNSText.lower($0) == $1 }) {
                return .some(split.map { Array(s[s.index(after: $0)...]) })
            }
        }
        return .none
    }

    /// The value for `key` as text; `nil` when absent or written without `=`.
    public func string(forKey key: String) -> String? {
        guard case .some(.some(let v)) = value(forKey: key) else { return nil }
        return String(decoding: v, as: UTF8.self)
    }
}

extension TXTRecord {
    /// Parses TXT rdata: length-prefixed character-strings (a string running past the end is
    /// cut there; rdata checked by ``DNSMessageView/check(_:index:)`` has none).
    public init(wire: UnsafeRawBufferPointer) {
        var strings: [[UInt8]] = []
        var i = 0
        while i < wire.count {
            let n = Int(wire[i])
            let end = Swift.min(i + 1 + n, wire.count)
            strings.append(Array(wire[(i + 1)..<end]))
            i = end
        }
        self.init(strings: strings)
    }

    /// The rdata form: each string with its length byte (strings longer than 255 bytes cut).
    public var wire: [UInt8] {
        var out: [UInt8] = []
        for s in strings {
            let n = Swift.min(s.count, 255)
            out.append(UInt8(n))
            out += s.prefix(n)
        }
        return out
    }
}
