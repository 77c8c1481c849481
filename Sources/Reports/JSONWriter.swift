/// A small streaming JSON writer that keeps key order (the output is a documented contract,
/// and a stable order keeps golden files and diffs readable).
public struct JSONWriter {
    /// The JSON text written so far.
    public var output = ""
    private var first: [Bool] = [true]
    private var afterKey = false

    public init() {}

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if !first[first.count - 1] { output += "," }
        first[first.count - 1] = false
    }

    private mutating func key(_ k: String) {
        beginValue()
        Self.appendString(k, to: &output)
        output += ":"
        afterKey = true
    }

    /// Starts an object: a value in an array, or the value of `key` in an object.
    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        output += "{"
        first.append(true)
    }

    /// Ends the current object.
    public mutating func endObject() {
        first.removeLast()
        output += "}"
    }

    /// Starts an array.
    public mutating func beginArray(_ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        output += "["
        first.append(true)
    }

    /// Ends the current array.
    public mutating func endArray() {
        first.removeLast()
        output += "]"
    }

    /// Writes a string (or `null`).
    public mutating func string(_ value: String?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { Self.appendString(value, to: &output) } else { output += "null" }
    }

    /// Writes an integer (or `null`).
    public mutating func int<I: BinaryInteger>(_ value: I?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { output += String(value) } else { output += "null" }
    }

    /// Writes a Boolean (or `null`).
    public mutating func bool(_ value: Bool?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { output += value ? "true" : "false" } else { output += "null" }
    }

    /// Writes a number already formatted as JSON (fixed decimals, say).
    public mutating func rawNumber(_ text: String, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        output += text
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
