import WireFormat

/// A small streaming JSON writer that keeps key order (the output is a documented contract,
/// and a stable order keeps golden files and diffs readable).
public struct JSONWriter {
    /// The JSON text written so far, as UTF-8 (bytes are several times cheaper to append than
    /// a `String`, which shows on reports of a few megabytes).
    public var bytes: [UInt8] { buffer.array }
    /// The JSON text written so far.
    public var output: String { String(decoding: bytes, as: UTF8.self) }
    /// The bytes, in memory of its own: an `Array`'s `append(contentsOf:)` cost about 100
    /// instructions a call, a third of a pretty report's writing (indentation, keys, strings).
    private var buffer = JSONBytes()
    private var first: [Bool] = [true]
    private var afterKey = false
    /// Room for a number or a timestamp being formatted (reused, not allocated per value).
    private var scratch: [UInt8] = []
    /// Indented output: two spaces per level, one member or element per line, `": "` after
    /// keys, empty containers as `{}` and `[]`.
    public let pretty: Bool

    /// A writer of compact JSON, or of indented JSON when `pretty`.
    public init(pretty: Bool = false) { self.pretty = pretty }

    /// The buffer, copied first if another writer shares it (a writer is a value).
    private var out: JSONBytes {
        mutating get {
            if !isKnownUniquelyReferenced(&buffer) { buffer = buffer.copy() }
            return buffer
        }
    }

    private mutating func newline(_ depth: Int) {
        let b = out
        b.append(0x0A)
        b.append(0x20, count: depth * 2)
    }

    /// Ends the text with a newline (after the top-level value).
    public mutating func appendNewline() { out.append(0x0A) }

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        let depth = first.count - 1
        if !first[depth] {
            out.append(0x2C)
            if pretty { newline(depth) }
        } else if pretty, depth > 0 {
            newline(depth)
        }
        first[depth] = false
    }

    private mutating func key(_ k: String) {
        beginValue()
        Self.appendString(k, to: out)
        out.append(0x3A)
        if pretty { out.append(0x20) }
        afterKey = true
    }

    private mutating func end(_ close: UInt8) {
        let empty = first.removeLast()
        if pretty, !empty { newline(first.count - 1) }
        out.append(close)
    }

    /// Starts an object: a value in an array, or the value of `key` in an object.
    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        out.append(0x7B)
        first.append(true)
    }

    /// Ends the current object.
    public mutating func endObject() { end(0x7D) }

    /// Starts an array.
    public mutating func beginArray(_ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        out.append(0x5B)
        first.append(true)
    }

    /// Ends the current array.
    public mutating func endArray() { end(0x5D) }

    /// Writes a string (or `null`).
    public mutating func string(_ value: String?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { Self.appendString(value, to: out) } else { out.append(Self.null) }
    }

    /// Writes an integer (or `null`).
    public mutating func int<I: BinaryInteger>(_ value: I?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        guard let value else { return out.append(Self.null) }
        if let small = Int64(exactly: value) {
            // Digits written directly (most numbers in a report are counts and frame numbers).
            out.appendDecimal(small)
        } else {
            out.append(Array(String(value).utf8))
        }
    }

    /// Writes a Boolean (or `null`).
    public mutating func bool(_ value: Bool?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        if let value { out.append(value ? Self.true : Self.false) } else { out.append(Self.null) }
    }

    /// Writes a number already formatted as JSON (fixed decimals, say).
    public mutating func rawNumber(_ text: String, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        var text = text
        text.withUTF8 { out.append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a timestamp as ``TimeFormat/rfc3339Micro(_:)`` writes it, digits straight into
    /// the text (no `String` made: the report has one per query).
    mutating func timestamp(_ t: Timestamp?, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        guard let t else { return out.append(Self.null) }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(0x22)
        TimeFormat.appendRFC3339Micro(t, to: &scratch)
        scratch.append(0x22)
        let b = out
        scratch.withUnsafeBytes { b.append($0) }
    }

    /// Writes a number as ``AnalysisJSON/milliseconds(_:)`` formats it, without a `String`.
    mutating func milliseconds(_ ms: Double, _ key: String? = nil) {
        if let key { self.key(key) }
        beginValue()
        scratch.removeAll(keepingCapacity: true)
        AnalysisJSON.appendMilliseconds(ms, to: &scratch)
        let b = out
        scratch.withUnsafeBytes { b.append($0) }
    }

    private static let null: [UInt8] = Array("null".utf8)
    private static let `true`: [UInt8] = Array("true".utf8)
    private static let `false`: [UInt8] = Array("false".utf8)

    /// Appends `s` as a JSON string literal to UTF-8 bytes (see ``appendString(_:to:)-(_,String)``).
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        let b = JSONBytes()
        appendString(s, to: b)
        out += b.array
    }

    /// Appends `s` as a JSON string literal to the writer's bytes.
    private static func appendString(_ s: String, to out: JSONBytes) {
        var s = s
        s.withUTF8 { utf8 in
            // Fast path: printable ASCII without quotes or backslashes is copied as is.
            for b in utf8 where b < 0x20 || b >= 0x7F || b == 0x22 || b == 0x5C {
                var text = ""
                appendString(String(decoding: utf8, as: UTF8.self), to: &text)
                text.withUTF8 { out.append(UnsafeRawBufferPointer($0)) }
                return
            }
            out.append(0x22)
            out.append(UnsafeRawBufferPointer(utf8))
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
