// WireFormat: pure decoding, no Foundation and no libpcap: a bounds-checked cursor, link layers,
// IPv4/IPv6 with reassembly, UDP, DNS (one parser, the checked view) and SSDP. Frames are
// borrowed and decoded in place; only discovery packets become owned values.

/// A 48-bit IEEE 802 MAC address.
public struct MACAddress: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The six octets in the low 48 bits, first octet most significant.
    public var rawValue: UInt64

    /// Creates an address from its 48-bit value.
    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// The six octets at `offset` in `bytes`, which the caller has checked hold them.
    @inlinable
    init(loading bytes: UnsafeRawBufferPointer, at offset: Int) {
        let high = UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        let low = UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
        self.rawValue = high << 32 | low
    }

    /// Reads six octets from `cursor`.
    @inlinable
    public init(reading cursor: inout ByteCursor) throws(DecodeError) {
        let high = UInt64(try cursor.readUInt16())
        let low = UInt64(try cursor.readUInt32())
        self.rawValue = high << 32 | low
    }

    /// Whether the group bit is set (multicast or broadcast).
    public var isMulticast: Bool { (rawValue >> 40) & 1 == 1 }

    /// `aa:bb:cc:dd:ee:ff`.
    public var description: String {
        var parts: [String] = []
        for shift in stride(from: 40, through: 0, by: -8) {
            parts.append(hex(UInt8(truncatingIfNeeded: rawValue >> UInt64(shift))))
        }
        return parts.joined(separator: ":")
    }

    public static func < (a: MACAddress, b: MACAddress) -> Bool { a.rawValue < b.rawValue }
}

/// An IPv4 address.
public struct IPv4Address: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The address in host order (`192.0.2.1` is `0xC000_0201`).
    public var rawValue: UInt32
    /// Creates an address from its 32-bit value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Creates an address from four octets.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        rawValue = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }
    /// Parses dotted-quad text; `nil` if it is not exactly four decimal octets.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        rawValue = value
    }

    /// The mDNS group 224.0.0.251.
    public static let mdnsGroup = IPv4Address(224, 0, 0, 251)
    /// The SSDP group 239.255.255.250.
    public static let ssdpGroup = IPv4Address(239, 255, 255, 250)

    /// Whether this is in 224.0.0.0/4.
    public var isMulticast: Bool { rawValue >> 28 == 0xE }

    public var description: String {
        // Written as bytes: reports format thousands of addresses, and interpolation costs
        // about ten times as much.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { out in
            var n = 0
            for shift in stride(from: 24, through: 0, by: -8) {
                let octet = Int(truncatingIfNeeded: rawValue >> UInt32(shift)) & 0xFF
                if shift != 24 {
                    out[n] = 0x2E
                    n += 1
                }
                if octet >= 100 {
                    out[n] = UInt8(0x30 + octet / 100)
                    n += 1
                }
                if octet >= 10 {
                    out[n] = UInt8(0x30 + octet / 10 % 10)
                    n += 1
                }
                out[n] = UInt8(0x30 + octet % 10)
                n += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: out[..<n]), as: UTF8.self)
        }
    }
    public static func < (a: IPv4Address, b: IPv4Address) -> Bool { a.rawValue < b.rawValue }
}

/// An IPv6 address.
public struct IPv6Address: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The high 64 bits (first eight octets).
    public var high: UInt64
    /// The low 64 bits.
    public var low: UInt64
    /// Creates an address from its two halves.
    public init(high: UInt64, low: UInt64) { self.high = high; self.low = low }

    /// Reads sixteen octets from `cursor`.
    @inlinable
    public init(reading cursor: inout ByteCursor) throws(DecodeError) {
        high = try cursor.readUInt64()
        low = try cursor.readUInt64()
    }

    /// Parses RFC 4291 text (with `::`; an embedded dotted quad in the last 32 bits is accepted).
    public init?(_ text: some StringProtocol) {
        var groups: [UInt16] = []
        var tail: [UInt16] = []
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func parse(_ s: String, into out: inout [UInt16]) -> Bool {
            if s.isEmpty { return true }
            let pieces = s.split(separator: ":", omittingEmptySubsequences: false)
            for (i, p) in pieces.enumerated() {
                if i == pieces.count - 1, p.contains("."), let v4 = IPv4Address(p) {
                    out.append(UInt16(v4.rawValue >> 16))
                    out.append(UInt16(v4.rawValue & 0xFFFF))
                } else {
                    guard !p.isEmpty, p.count <= 4, let v = UInt16(p, radix: 16) else { return false }
                    out.append(v)
                }
            }
            return true
        }
        guard parse(halves[0], into: &groups) else { return nil }
        if halves.count == 2 {
            guard parse(halves[1], into: &tail), groups.count + tail.count <= 7 else { return nil }
            groups += Array(repeating: 0, count: 8 - groups.count - tail.count) + tail
        }
        guard groups.count == 8 else { return nil }
        var h: UInt64 = 0
        var l: UInt64 = 0
        for i in 0..<4 { h = h << 16 | UInt64(groups[i]) }
        for i in 4..<8 { l = l << 16 | UInt64(groups[i]) }
        high = h
        low = l
    }

    /// The mDNS group ff02::fb.
    public static let mdnsGroup = IPv6Address(high: 0xFF02_0000_0000_0000, low: 0xFB)

    /// Whether this is in ff00::/8.
    public var isMulticast: Bool { high >> 56 == 0xFF }
    /// Whether this is in fe80::/10.
    public var isLinkLocal: Bool { high >> 54 == 0x3FA }

    /// The eight 16-bit groups.
    public var groups: [UInt16] {
        (0..<4).map { UInt16(truncatingIfNeeded: high >> UInt64(48 - 16 * $0)) }
            + (0..<4).map { UInt16(truncatingIfNeeded: low >> UInt64(48 - 16 * $0)) }
    }

    /// RFC 5952 text: lower-case hex, the longest run of two or more zero groups (the first of
    /// equal runs) written `::`, and IPv4-mapped addresses as `::ffff:a.b.c.d`.
    public var description: String {
        let g = groups
        if high == 0, low >> 32 == 0xFFFF {
            return "::ffff:" + IPv4Address(rawValue: UInt32(truncatingIfNeeded: low)).description
        }
        var bestStart = -1
        var bestLength = 0
        var i = 0
        while i < 8 {
            if g[i] == 0 {
                var j = i
                while j < 8, g[j] == 0 { j += 1 }
                if j - i > bestLength { bestStart = i; bestLength = j - i }
                i = j
            } else {
                i += 1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        var out = ""
        i = 0
        while i < 8 {
            if i == bestStart {
                out += "::"
                i += bestLength
                continue
            }
            if !out.isEmpty, !out.hasSuffix(":") { out += ":" }
            out += String(g[i], radix: 16)
            i += 1
        }
        return out
    }

    public static func < (a: IPv6Address, b: IPv6Address) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// An IPv4 or IPv6 address.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible, Comparable {
    case v4(IPv4Address)
    case v6(IPv6Address)

    /// Parses either family's text form.
    public init?(_ text: some StringProtocol) {
        if let v4 = IPv4Address(text) {
            self = .v4(v4)
        } else if let v6 = IPv6Address(text) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// Whether this is a multicast group address.
    public var isMulticast: Bool {
        switch self {
        case .v4(let a): return a.isMulticast
        case .v6(let a): return a.isMulticast
        }
    }

    public var description: String {
        switch self {
        case .v4(let a): return a.description
        case .v6(let a): return a.description
        }
    }

    public static func < (a: IPAddress, b: IPAddress) -> Bool {
        switch (a, b) {
        case (.v4(let x), .v4(let y)): return x < y
        case (.v6(let x), .v6(let y)): return x < y
        case (.v4, .v6): return true
        case (.v6, .v4): return false
        }
    }
}

extension StringProtocol {
    fileprivate func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var current = ""
        var rest = Substring(self)
        while !rest.isEmpty {
            if rest.hasPrefix(separator) {
                result.append(current)
                current = ""
                rest = rest.dropFirst(separator.count)
            } else {
                current.append(rest.removeFirst())
            }
        }
        result.append(current)
        return result
    }
}
