/// A domain name, decompressed and owned.
///
/// Stored as one array of length-prefixed labels (without the final zero), so a name costs a
/// single allocation. Labels are arbitrary bytes: DNS-SD instance names are UTF-8 and may
/// contain dots and spaces.
public struct DNSName: Hashable, Sendable, CustomStringConvertible {
    /// Length-prefixed labels, without the terminating root label.
    public private(set) var wire: [UInt8]

    /// The root name (`.`).
    public static let root = DNSName(wire: [])

    /// Creates a name from length-prefixed labels (the caller guarantees the format).
    public init(wire: [UInt8]) { self.wire = wire }

    /// Creates a name from labels.
    public init(labels: [[UInt8]]) {
        var w: [UInt8] = []
        for l in labels {
            w.append(UInt8(l.count))
            w += l
        }
        wire = w
    }

    /// Creates a name from dotted text; no escapes are interpreted (test convenience).
    public init(_ dotted: String) {
        self.init(labels: dotted.split(separator: ".").map { Array($0.utf8) })
    }

    /// The labels, leftmost first.
    public var labels: [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var i = 0
        while i < wire.count {
            let n = Int(wire[i])
            out.append(wire[(i + 1)..<(i + 1 + n)])
            i += 1 + n
        }
        return out
    }

    /// Whether this is the root name.
    public var isRoot: Bool { wire.isEmpty }

    /// Presentation format without the final dot (`_googlecast._tcp.local`; `.` for the root):
    /// a dot inside a label is `\.`, a backslash `\\`, control characters and bytes that are
    /// not valid UTF-8 `\DDD`. Valid UTF-8 is kept as is.
    public var description: String {
        if wire.isEmpty { return "." }
        if let plain = plainText { return plain }
        var out = ""
        var first = true
        for label in labels {
            if !first { out += "." }
            first = false
            out += DNSText.escape(label, quote: false, escapeDot: true)
        }
        return out
    }

    /// The text of a name whose labels are printable ASCII with nothing to escape (the usual
    /// case, done byte by byte); `nil` for any other name.
    private var plainText: String? {
        wire.withUnsafeBufferPointer { w -> String? in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: w.count) { out in
                var n = 0
                var i = 0
                while i < w.count {
                    let length = Int(w[i])
                    guard length > 0, length < 64, i + 1 + length <= w.count else { return nil }
                    if n > 0 {
                        out[n] = 0x2E
                        n += 1
                    }
                    for k in (i + 1)...(i + length) {
                        let x = w[k]
                        guard x >= 0x20, x < 0x7F, x != 0x5C, x != 0x2E else { return nil }
                        out[n] = x
                        n += 1
                    }
                    i += 1 + length
                }
                return String(decoding: UnsafeBufferPointer(rebasing: out[..<n]), as: UTF8.self)
            }
        }
    }

    /// ASCII case-insensitive equality (RFC 4343), as DNS compares names.
    public func equalsIgnoringCase(_ other: DNSName) -> Bool {
        guard wire.count == other.wire.count else { return false }
        for i in 0..<wire.count where DNSText.lower(wire[i]) != DNSText.lower(other.wire[i]) {
            return false
        }
        return true
    }

    /// Whether `suffix` is this name or an ancestor of it (case-insensitive).
    public func hasSuffix(_ suffix: DNSName) -> Bool {
        let mine = labels
        let theirs = suffix.labels
        guard theirs.count <= mine.count else { return false }
        for (a, b) in zip(mine.suffix(theirs.count), theirs) {
            guard a.count == b.count, zip(a, b).allSatisfy({ DNSText.lower($0) == DNSText.lower($1) }) else {
                return false
            }
        }
        return true
    }

    /// The maximum wire length of a name, root label included (RFC 1035 §2.3.4).
    public static let maximumWireLength = 255

    /// Decodes a possibly compressed name at the cursor's position: ``skip(_:)`` checks it,
    /// then ``expand(at:in:into:)`` copies its labels out.
    ///
    /// `message` must span the whole DNS message (pointers are offsets into it); on return it
    /// is positioned after the name's bytes at its original location.
    public static func decode(_ message: inout ByteCursor) throws(DecodeError) -> DNSName {
        let start = message.offset
        try skip(&message)
        return DNSName(checkedAt: start, in: message)
    }

    /// The name at `offset` of `message`, already checked by ``skip(_:)``.
    init(checkedAt offset: Int, in message: ByteCursor) {
        // Expanded on the stack, then copied once at its exact length.
        wire = withUnsafeTemporaryAllocation(byteCount: DNSName.maximumWireLength, alignment: 8) { scratch in
            let n = DNSName.expand(at: offset, in: message, into: scratch)
            return Array(UnsafeRawBufferPointer(rebasing: scratch[..<n]))
        }
    }

    /// Checks a possibly compressed name at the cursor's position and moves past it, without
    /// building it: the one place where names are checked.
    ///
    /// `message` must span the whole DNS message (pointers are offsets into it); on return it
    /// is positioned after the name's bytes at its original location.
    ///
    /// Loop protection is tcpdump's rule: every compression pointer must point strictly before
    /// the lowest offset visited so far, starting with the name's own start, so checking always
    /// terminates. The expanded name may not exceed 255 octets, and the reserved label types
    /// `01` and `10` are rejected.
    public static func skip(_ message: inout ByteCursor) throws(DecodeError) {
        // Written out over the raw bytes rather than through cursor reads: this checks every
        // name of every mDNS packet.
        let bytes = message.bytes
        let base = message.base
        let nameStart = message.offset
        var at = nameStart
        var wireLength = 1  // the root label
        var lowestVisited = nameStart
        var jumped = false
        while true {
            guard at >= 0, at < bytes.count else {
                throw .truncated(offset: base &+ at, needed: 1, available: Swift.max(bytes.count &- at, 0))
            }
            let length = bytes[at]
            switch length & 0xC0 {
            case 0x00:
                if length == 0 {
                    if !jumped { message.offset = at &+ 1 }
                    return
                }
                wireLength &+= Int(length) &+ 1
                guard wireLength <= maximumWireLength else { throw .nameTooLong(offset: base &+ nameStart) }
                let labelStart = at &+ 1
                guard Int(length) <= bytes.count &- labelStart else {
                    throw .truncated(
                        offset: base &+ labelStart, needed: Int(length),
                        available: Swift.max(bytes.count &- labelStart, 0))
                }
                at = labelStart &+ Int(length)
            case 0xC0:
                guard at &+ 1 < bytes.count else {
                    throw .truncated(
                        offset: base &+ at &+ 1, needed: 1, available: Swift.max(bytes.count &- at &- 1, 0))
                }
                let target = Int(length & 0x3F) << 8 | Int(bytes[at &+ 1])
                guard target < lowestVisited else { throw .badPointer(offset: base &+ at, target: target) }
                if !jumped {
                    message.offset = at &+ 2
                    jumped = true
                }
                lowestVisited = target
                at = target
            default:
                throw .reservedLabelType(offset: base &+ at, byte: length)
            }
        }
    }

    /// Decompresses the name at `offset` of `message` into `buffer` (at least
    /// ``maximumWireLength`` bytes) as length-prefixed labels without the root label, and
    /// returns its length. For names already checked by ``skip(_:)``; a name that would fail is
    /// cut where it fails.
    public static func expand(at offset: Int, in message: ByteCursor, into buffer: UnsafeMutableRawBufferPointer) -> Int
    {
        // Every name read out of a message comes through here (the tracker interning it, a
        // DNSMessage materialising it). The name has been checked, but every read is still
        // bounded so a wrong call cannot overrun.
        let src = message.bytes
        guard let from = src.baseAddress, let to = buffer.baseAddress else { return 0 }
        var at = offset
        var lowest = offset
        var n = 0
        while at < src.count {
            let length = Int(src[at])
            if length == 0 { return n }
            if length & 0xC0 == 0xC0 {
                guard at + 1 < src.count else { return n }
                let target = (length & 0x3F) << 8 | Int(src[at + 1])
                guard target < lowest else { return n }
                lowest = target
                at = target
                continue
            }
            guard length & 0xC0 == 0, at + 1 + length <= src.count, n + 1 + length <= buffer.count else { return n }
            to.storeBytes(of: UInt8(length), toByteOffset: n, as: UInt8.self)
            var k = 0
            // Whole words, the last one possibly running past the label (into bytes the next
            // label overwrites) when both buffers go on that far.
            while k < length, at + 1 + k + 8 <= src.count, n + 1 + k + 8 <= buffer.count {
                to.storeBytes(
                    of: from.loadUnaligned(fromByteOffset: at + 1 + k, as: UInt64.self), toByteOffset: n + 1 + k,
                    as: UInt64.self)
                k += 8
            }
            while k < length {
                to.storeBytes(of: src[at + 1 + k], toByteOffset: n + 1 + k, as: UInt8.self)
                k += 1
            }
            n += 1 + length
            at += 1 + length
        }
        return n
    }
}

/// Escaping of bytes that came from the network, for names and TXT strings.
public enum DNSText {
    @inlinable
    static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// Escapes `bytes` for display: `\\`, `\"` (when `quote`), `\.` (when `escapeDot`), and
    /// `\DDD` for C0/C1 controls, DEL, and every byte of an invalid UTF-8 sequence. Valid UTF-8
    /// text is kept. The output can never contain a terminal control character.
    public static func escape(_ bytes: some Collection<UInt8>, quote: Bool, escapeDot: Bool) -> String {
        Array(bytes).withUnsafeBufferPointer { escape(buffer: $0, quote: quote, escapeDot: escapeDot) }
    }

    /// ``escape(_:quote:escapeDot:)`` for an array (no generic dispatch).
    public static func escape(_ bytes: [UInt8], quote: Bool, escapeDot: Bool) -> String {
        bytes.withUnsafeBufferPointer { escape(buffer: $0, quote: quote, escapeDot: escapeDot) }
    }

    /// ``escape(_:quote:escapeDot:)`` for an array slice (no generic dispatch).
    public static func escape(_ bytes: ArraySlice<UInt8>, quote: Bool, escapeDot: Bool) -> String {
        bytes.withUnsafeBufferPointer { escape(buffer: $0, quote: quote, escapeDot: escapeDot) }
    }

    static func escape(buffer bytes: UnsafeBufferPointer<UInt8>, quote: Bool, escapeDot: Bool) -> String {
        // Fast path: printable ASCII with nothing to escape is the text itself.
        var plain = true
        for x in bytes where x < 0x20 || x >= 0x7F || x == 0x5C || (quote && x == 0x22) || (escapeDot && x == 0x2E) {
            plain = false
            break
        }
        if plain { return String(decoding: bytes, as: UTF8.self) }
        var out = ""
        out.reserveCapacity(bytes.count)
        let b = Array(bytes)
        var i = 0
        func ddd(_ x: UInt8) {
            out += "\\"
            let s = String(x)
            out += String(repeating: "0", count: 3 - s.count) + s
        }
        while i < b.count {
            let x = b[i]
            if x < 0x80 {
                switch x {
                case 0x5C: out += "\\\\"
                case 0x22 where quote: out += "\\\""
                case 0x2E where escapeDot: out += "\\."
                case 0x00..<0x20, 0x7F: ddd(x)
                default: out.unicodeScalars.append(Unicode.Scalar(x))
                }
                i += 1
                continue
            }
            // Multi-byte UTF-8: validate one scalar.
            let need: Int
            switch x {
            case 0xC2...0xDF: need = 1
            case 0xE0...0xEF: need = 2
            case 0xF0...0xF4: need = 3
            default: need = -1
            }
            if need > 0, let scalar = decodeScalar(b, at: i, continuation: need) {
                if scalar.value >= 0x80 && scalar.value < 0xA0 {  // C1 controls
                    for k in 0...need { ddd(b[i + k]) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
                i += need + 1
            } else {
                ddd(x)
                i += 1
            }
        }
        return out
    }

    static func decodeScalar(_ b: [UInt8], at i: Int, continuation: Int) -> Unicode.Scalar? {
        guard i + continuation < b.count else { return nil }
        var value: UInt32
        switch continuation {
        case 1: value = UInt32(b[i] & 0x1F)
        case 2: value = UInt32(b[i] & 0x0F)
        default: value = UInt32(b[i] & 0x07)
        }
        for k in 1...continuation {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(c & 0x3F)
        }
        // Reject overlong forms and surrogates.
        let minimum: UInt32 = continuation == 1 ? 0x80 : (continuation == 2 ? 0x800 : 0x10000)
        guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return nil }
        return Unicode.Scalar(value)
    }
}
