/// A value of an OpenStep ("old-style ASCII") property list, the format of Xcode's
/// `project.pbxproj`: `{ key = value; }`, `( a, b, )`, strings quoted or bare, `<hex>` data.
public indirect enum OpenStepValue: Sendable, Equatable {
    case string(String)
    case array([OpenStepValue])
    case dictionary([String: OpenStepValue])
    case data([UInt8])

    /// The string, when this is one.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The array, when this is one.
    public var array: [OpenStepValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The dictionary, when this is one.
    public var dictionary: [String: OpenStepValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    public subscript(key: String) -> OpenStepValue? { dictionary?[key] }
}

/// Why an OpenStep property list could not be read, with the line it happened on.
public struct OpenStepError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The byte offset.
    public let offset: Int
    /// The line (from 1).
    public let line: Int

    public var description: String { "line \(line): \(message)" }
}

/// A parser for OpenStep property lists (strict: what Xcode writes, with `//` and `/* */`
/// comments). Nesting is bounded, so a hostile file cannot exhaust the stack.
public struct OpenStepParser {
    let bytes: [UInt8]
    var i = 0
    let maximumDepth: Int

    /// Parses one value, which must be the whole text (comments and whitespace aside).
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = 64) throws(OpenStepError) -> OpenStepValue {
        var p = OpenStepParser(bytes: bytes, maximumDepth: maximumDepth)
        let value = try p.value(depth: 0)
        try p.skip()
        guard p.i == bytes.count else { throw p.error("unexpected text after the top-level value") }
        return value
    }

    func error(_ message: String) -> OpenStepError {
        let upTo = bytes[..<min(i, bytes.count)]
        return OpenStepError(message: message, offset: i, line: upTo.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 })
    }

    /// Skips whitespace and comments.
    mutating func skip() throws(OpenStepError) {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C {
                i += 1
            } else if b == 0x2F, i + 1 < bytes.count, bytes[i + 1] == 0x2F {
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
            } else if b == 0x2F, i + 1 < bytes.count, bytes[i + 1] == 0x2A {
                let start = i
                i += 2
                while i + 1 < bytes.count, !(bytes[i] == 0x2A && bytes[i + 1] == 0x2F) { i += 1 }
                guard i + 1 < bytes.count else {
                    i = start
                    throw error("a /* comment is not closed")
                }
                i += 2
            } else {
                return
            }
        }
    }

    static func isBare(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || b == 0x5F || b == 0x24 || b == 0x2B || b == 0x2F || b == 0x3A || b == 0x2E || b == 0x2D
    }

    mutating func value(depth: Int) throws(OpenStepError) -> OpenStepValue {
        try skip()
        guard i < bytes.count else { throw error("the file ends where a value should be") }
        guard depth < maximumDepth else { throw error("values are nested more than \(maximumDepth) deep") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var d: [String: OpenStepValue] = [:]
            while true {
                try skip()
                guard i < bytes.count else { throw error("a { dictionary is not closed") }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .dictionary(d)
                }
                guard case .string(let key) = try value(depth: depth + 1) else {
                    throw error("a dictionary key must be a string")
                }
                try skip()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw error("expected = after '\(key)'") }
                i += 1
                d[key] = try value(depth: depth + 1)
                try skip()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ";") else {
                    throw error("expected ; after the value of '\(key)'")
                }
                i += 1
            }
        case UInt8(ascii: "("):
            i += 1
            var a: [OpenStepValue] = []
            while true {
                try skip()
                guard i < bytes.count else { throw error("a ( array is not closed") }
                if bytes[i] == UInt8(ascii: ")") {
                    i += 1
                    return .array(a)
                }
                a.append(try value(depth: depth + 1))
                try skip()
                guard i < bytes.count else { throw error("a ( array is not closed") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                } else if bytes[i] != UInt8(ascii: ")") {
                    throw error("expected , or ) in an array")
                }
            }
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try quoted())
        case UInt8(ascii: "<"):
            i += 1
            var data: [UInt8] = []
            var high: UInt8?
            while i < bytes.count, bytes[i] != UInt8(ascii: ">") {
                let b = bytes[i]
                i += 1
                guard let nibble = Self.hex(b) else {
                    if b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D { continue }
                    throw error("a <data> value holds a character that is not hexadecimal")
                }
                if let h = high {
                    data.append(h << 4 | nibble)
                    high = nil
                } else {
                    high = nibble
                }
            }
            guard i < bytes.count else { throw error("a <data> value is not closed") }
            i += 1
            return .data(data)
        default:
            let start = i
            while i < bytes.count, Self.isBare(bytes[i]) { i += 1 }
            guard i > start else { throw error("unexpected character '\(Self.shown(bytes[start]))'") }
            return .string(String(decoding: bytes[start..<i], as: UTF8.self))
        }
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    static func shown(_ b: UInt8) -> String {
        (0x21..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
    }

    /// A quoted string with its escapes: `\n \t \r \" \\`, `\Uhhhh`, and octal `\ooo`.
    mutating func quoted() throws(OpenStepError) -> String {
        let quote = bytes[i]
        i += 1
        var out: [UInt8] = []
        while i < bytes.count, bytes[i] != quote {
            var b = bytes[i]
            i += 1
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                continue
            }
            guard i < bytes.count else { break }
            b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "U"), UInt8(ascii: "u"):
                var value: UInt32 = 0
                var n = 0
                while n < 4, i < bytes.count, let h = Self.hex(bytes[i]) {
                    value = value << 4 | UInt32(h)
                    i += 1
                    n += 1
                }
                out.append(contentsOf: Array(String(UnicodeScalar(value).map(Character.init) ?? "\u{FFFD}").utf8))
            case 0x30...0x37:
                var value = UInt32(b - 0x30)
                var n = 1
                while n < 3, i < bytes.count, (0x30...0x37).contains(bytes[i]) {
                    value = value << 3 | UInt32(bytes[i] - 0x30)
                    i += 1
                    n += 1
                }
                out.append(UInt8(truncatingIfNeeded: value))
            default: out.append(b)
            }
        }
        guard i < bytes.count else { throw error("a quoted string is not closed") }
        i += 1
        return String(decoding: out, as: UTF8.self)
    }
}
