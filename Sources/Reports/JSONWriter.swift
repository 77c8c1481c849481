/// A small streaming JSON writer that keeps key order (the output is a documented contract,
/// and a stable order keeps golden files and diffs readable).
public struct JSONWriter {
    /// The JSON text written so far, as UTF-8 (appending bytes is several times cheaper than
    /// appending to a `String`, which shows on reports of a few megabytes).
    public private(set) var bytes: [UInt8] = []
    /// The JSON text written so far.
    public var output: String { String(decoding: bytes, as: UTF8.self) }
    private var first: [Bool] = [true]
    private var afterKey = false
    /// Indented output: two spaces per level, one member or element per line, `": "` after
    /// keys, empty containers as `{}` and `[]`.
    public let pretty: Bool

    /// A writer of compact JSON, or of indented JSON when `pretty`.
    public init(pretty: Bool = false) { self.pretty = pretty }

    private mutating func newline(_ depth: Int) {
        bytes.append(0x0A)
        let width = depth * 2
        if width <= Self.spaces.count {
            bytes.append(contentsOf: Self.spaces[..<width])
        } else {
            bytes.append(contentsOf: repeatElement(0x20, count: width))
        }
    }

    private static let spaces = [UInt8](repeating: 0x20, count: 64)

    /// Ends the text with a newline (after the top-level value).
    public mutating func appendNewline() { bytes.append(0x0A) }

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        let depth = first.count - 1
        if !first[depth] {
            bytes.append(0x2C)
            if pretty { newline(depth) }
        } else if pretty, depth > 0 {
            newline(depth)
        }
        first[depth] = false
    }

    private mutating func key(_ k: String) {
        beginValue()
        Self.appendString(k, to: &bytes)
        bytes.append(0x3A)
        if pretty { bytes.append(0x20) }
        afterKey = true
    }

    private mutating func end(_ close: UInt8) {
        let empty = first.removeLast()
        if pretty, !empty { newline(first.count - 1) }
        bytes.append(close)
    }

    /// Starts an object: a value in an array, or the value of `key` in an object.
    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        bytes.append(0x7B)
        first.append(true)
    }

    /// Ends the current object.
    public mutating func endObject() { end(0x7D) }

    /// Starts an array.
    public mutating func beginArray(_ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        bytes.append(0x5B)
        first.append(true)
    }

    /// Ends the current array.
    public mutating func endArray() { end(0x5D) }

    /// Writes a string (or `null`).
    public mutating func string(_ value: String?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { Self.appendString(value, to: &bytes) } else { bytes += Self.null }
    }

    /// Writes an integer (or `null`).
    public mutating func int<I: BinaryInteger>(_ value: I?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        guard let value else {
            bytes += Self.null
            return
        }
        if let small = Int64(exactly: value) {
            // Digits written directly (most numbers in a report are counts and frame numbers).
            TimeFormat.appendDecimal(small, to: &bytes)
        } else {
            bytes += String(value).utf8
        }
    }

    /// Writes a Boolean (or `null`).
    public mutating func bool(_ value: Bool?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { bytes += (value ? "true" : "false").utf8 } else { bytes += Self.null }
    }

    /// Writes a number already formatted as JSON (fixed decimals, say).
    public mutating func rawNumber(_ text: String, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        bytes += text.utf8
    }

    private static let null: [UInt8] = Array("null".utf8)

    /// Appends `s` as a JSON string literal to UTF-8 bytes (see ``appendString(_:to:)-(_,String)``).
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { utf8 in
            // Fast path: printable ASCII without quotes or backslashes is copied as is.
            for b in utf8 where b < 0x20 || b >= 0x7F || b == 0x22 || b == 0x5C {
                var text = ""
                appendString(String(decoding: utf8, as: UTF8.self), to: &text)
                out += text.utf8
                return
            }
            out.append(0x22)
            out.append(contentsOf: utf8)
            out.append(0x22)
        }
    }

    /// Appends `s` as a JSON string literal: RFC 8259 escaping, with C0/C1 controls, DEL and
    /// the line/paragraph separators as `\u` escapes so no consumer can be confused by them.
    public static func appendString(_ s: String, to out: inout String) {
        // Fast path: printable ASCII without quotes or backslashes is copied as is.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _
            where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029:
                let h = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
