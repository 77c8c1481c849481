import WireFormat

/// A small streaming JSON writer that keeps key order (the output is a documented contract,
/// and a stable order keeps golden files and diffs readable).
public struct JSONWriter {
    /// The JSON text written so far, as UTF-8 (bytes are several times cheaper to append than
    /// a `String`, which shows on reports of a few megabytes).
    public var bytes: [UInt8] { buffer.array }
    /// Calls `body` with the UTF-8 written so far, without copying it (valid only during the
    /// call): a report of megabytes goes to its file from here.
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withBytes(body)
    }
    /// The JSON text written so far.
    public var output: String { String(decoding: bytes, as: UTF8.self) }
    /// The bytes, in memory of its own: an `Array`'s `append(contentsOf:)` cost about 100
    /// instructions a call, a third of a pretty report's writing (indentation, keys, strings).
    /// Every public method makes it unique first (``makeUnique()``) and then appends to it
    /// directly: reading it through a getter retained and released it at every append.
    private var buffer = JSONBytes()
    /// Whether the container at each depth has no member yet: bit `d` for depth `d` < 64,
    /// then `deeper` (a report nests a few levels; the array is there for any JSON at all).
    private var firstBits: UInt64 = 1
    private var deeper: [Bool] = []
    /// The depth of the container being written (0: top level).
    private var depth = 0
    private var afterKey = false
    /// Indented output: two spaces per level, one member or element per line, `": "` after
    /// keys, empty containers as `{}` and `[]`.
    public let pretty: Bool

    /// A writer of compact JSON, or of indented JSON when `pretty`.
    public init(pretty: Bool = false) { self.pretty = pretty }

    /// Copies the buffer first if another writer shares it (a writer is a value).
    @inline(__always)
    private mutating func makeUnique() {
        if _slowPath(!isKnownUniquelyReferenced(&buffer)) { buffer = buffer.copy() }
    }

    @inline(__always)
    private func isFirst(_ d: Int) -> Bool { d < 64 ? firstBits & (1 << UInt64(d)) != 0 : deeper[d - 64] }

    @inline(__always)
    private mutating func setFirst(_ d: Int, _ value: Bool) {
        if d < 64 {
            if value { firstBits |= 1 << UInt64(d) } else { firstBits &= ~(1 << UInt64(d)) }
        } else {
            deeper[d - 64] = value
        }
    }

    /// Opens a level whose container has no member yet.
    @inline(__always)
    private mutating func push() {
        depth += 1
        if depth < 64 { firstBits |= 1 << UInt64(depth) } else { deeper.append(true) }
    }

    /// Closes the current level. - Returns: whether its container had no member.
    @inline(__always)
    private mutating func pop() -> Bool {
        let empty = isFirst(depth)
        if depth >= 64 { deeper.removeLast() }
        depth -= 1
        return empty
    }

    @inline(__always)
    private func newline(_ depth: Int) {
        buffer.append(0x0A)
        buffer.append(0x20, count: depth * 2)
    }

    /// Ends the text with a newline (after the top-level value).
    public mutating func appendNewline() {
        makeUnique()
        buffer.append(0x0A)
    }

    /// Ends a line of newline-delimited JSON: a newline after the top-level value, and the
    /// next value starts a text of its own (no comma before it).
    public mutating func endLine() {
        appendNewline()
        setFirst(0, true)
    }

    @inline(__always)
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if !isFirst(depth) {
            buffer.append(0x2C)
            if pretty { newline(depth) }
        } else {
            if pretty, depth > 0 { newline(depth) }
            setFirst(depth, false)
        }
    }

    @inline(__always)
    private mutating func key(_ k: String) {
        beginValue()
        Self.appendString(k, to: buffer)
        if pretty { buffer.append(0x3A, 0x20) } else { buffer.append(0x3A) }
        afterKey = true
    }

    /// A value's start: the buffer made unique, then the key (in an object) or the separator.
    @inline(__always)
    private mutating func start(_ key: String?) {
        makeUnique()
        if let key { self.key(key) }
        beginValue()
    }

    private mutating func end(_ close: UInt8) {
        makeUnique()
        let empty = pop()
        if pretty, !empty { newline(depth) }
        buffer.append(close)
    }

    /// Starts an object: a value in an array, or the value of `key` in an object.
    public mutating func beginObject(_ key: String? = nil) {
        start(key)
        buffer.append(0x7B)
        push()
    }

    /// Ends the current object.
    public mutating func endObject() { end(0x7D) }

    /// Starts an array.
    public mutating func beginArray(_ key: String? = nil) {
        start(key)
        buffer.append(0x5B)
        push()
    }

    /// Ends the current array.
    public mutating func endArray() { end(0x5D) }

    /// Writes a string (or `null`).
    public mutating func string(_ value: String?, _ key: String? = nil) {
        start(key)
        if let value { Self.appendString(value, to: buffer) } else { buffer.append(Self.null) }
    }

    /// Writes an integer (or `null`).
    public mutating func int<I: BinaryInteger>(_ value: I?, _ key: String? = nil) {
        start(key)
        guard let value else { return buffer.append(Self.null) }
        if let small = Int64(exactly: value) {
            // Digits written directly (most numbers in a report are counts and frame numbers).
            buffer.appendDecimal(small)
        } else {
            buffer.append(Array(String(value).utf8))
        }
    }

    /// Writes a Boolean (or `null`).
    public mutating func bool(_ value: Bool?, _ key: String? = nil) {
        start(key)
        if let value { buffer.append(value ? Self.true : Self.false) } else { buffer.append(Self.null) }
    }

    /// Writes a number already formatted as JSON (fixed decimals, say).
    public mutating func rawNumber(_ text: String, _ key: String? = nil) {
        start(key)
        var text = text
        text.withUTF8 { buffer.append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a timestamp as ``TimeFormat/rfc3339Micro(_:)`` writes it, digits straight into
    /// the text (no `String` made: the report has one per query).
    mutating func timestamp(_ t: Timestamp?, _ key: String? = nil) {
        start(key)
        guard let t else { return buffer.append(Self.null) }
        buffer.appendQuotedRFC3339Micro(t)
    }

    /// Writes a number as ``AnalysisJSON/milliseconds(_:)`` formats it, without a `String`
    /// (or `null`).
    mutating func milliseconds(_ ms: Double?, _ key: String? = nil) {
        start(key)
        guard let ms else { return buffer.append(Self.null) }
        buffer.appendMilliseconds(ms)
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
            if needsEscaping(UnsafeRawBufferPointer(utf8)) {
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

    /// Whether any byte of `bytes` is a control character, DEL, a quote, a backslash or not
    /// ASCII: eight bytes a step (each test below is exact for "some byte of the word is ...").
    @inline(__always)
    static func needsEscaping(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            // A byte below 0x20, or with its high bit set.
            if ((w &- ones &* 0x20) & ~w | w) & highs != 0 { return true }
            if hasZeroByte(w ^ (ones &* 0x7F)) || hasZeroByte(w ^ (ones &* 0x22)) || hasZeroByte(w ^ (ones &* 0x5C)) {
                return true
            }
            i += 8
        }
        while i < n {
            let b = bytes[i]
            if b < 0x20 || b >= 0x7F || b == 0x22 || b == 0x5C { return true }
            i += 1
        }
        return false
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
