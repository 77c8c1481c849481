/// Makes text safe for HTML (and XHTML, and SVG inside HTML): element content and quoted
/// attribute values alike.
public enum HTMLText {
    /// Escapes `& < > " '` as character references, and replaces what could hide or reorder
    /// text (C0/C1 control characters except tab and newline, DEL, Unicode bidi overrides and
    /// isolates, the non-characters U+FFFE/U+FFFF) with visible `\DDD` or `\u{…}` escapes, as
    /// ``TerminalText/sanitize(_:)`` does. The result is also valid XML 1.0 character data.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x26: out += "&amp;"
            case 0x3C: out += "&lt;"
            case 0x3E: out += "&gt;"
            case 0x22: out += "&quot;"
            case 0x27: out += "&#39;"
            case 0x09, 0x0A: out.unicodeScalars.append(scalar)
            case 0..<0x20, 0x7F:
                let d = String(v)
                out += "\\" + String(repeating: "0", count: 3 - d.count) + d
            case 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069, 0xFFFE, 0xFFFF:
                out += "\\u{" + String(v, radix: 16) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The findings' prose, escaped, with its two kinds of inline Markdown rendered: `` `code` ``
    /// spans as `<code>` and `**bold**` as `<strong>` (code spans inside bold too). Everything
    /// else, and every character inside the spans, goes through ``escape(_:)``; a backtick or a
    /// `**` without its closing partner stays as written.
    public static func inlineMarkdown(_ s: String) -> String {
        var out = ""
        var rest = Substring(s)
        while let open = rest.firstIndex(where: { $0 == "`" || $0 == "*" }) {
            out += escape(String(rest[..<open]))
            rest = rest[open...]
            if rest.hasPrefix("`"), let close = rest.dropFirst().firstIndex(of: "`") {
                out += "<code>" + escape(String(rest[rest.index(after: rest.startIndex)..<close])) + "</code>"
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("**"), let close = rest.dropFirst(2).firstRange(of: "**"),
                close.lowerBound > rest.index(rest.startIndex, offsetBy: 2)
            {
                let inner = rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]
                out += "<strong>" + inlineMarkdown(String(inner)) + "</strong>"
                rest = rest[close.upperBound...]
            } else {
                out += escape(String(rest.prefix(1)))
                rest = rest.dropFirst()
            }
        }
        return out + escape(String(rest))
    }

    /// The first `limit` characters of `s` (then `…`), escaped: for labels in charts, where
    /// the full text goes into a tooltip.
    public static func clipped(_ s: String, _ limit: Int) -> String {
        escape(s.count > limit ? String(s.prefix(Swift.max(1, limit - 1))) + "…" : s)
    }
}
