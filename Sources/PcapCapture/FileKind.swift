// What a file that is not a capture looks like, from its first bytes: the one-line "not a
// capture" error names it (`its first bytes look like HTML`), because the usual mistakes are a
// file of another kind (a download page saved as .pcap, a tshark text export, an archive, a
// Windows trace), not a damaged capture.

/// Names what a file that is not a capture looks like, from its first bytes, for the one-line
/// error (`its first bytes look like HTML`).
public enum FileKind {
    /// A short noun phrase: `an empty file`, `gzip data inside another compressed layer…`,
    /// `text ("Frame 1: 60 bytes…")`, `HTML`, `bytes 12 34 56 78 9a bc de f0…`. Formats castscope
    /// does not read say what to do (`bzip2 data (not read: decompress it first)`).
    /// - Parameter prefix: the file's first bytes (after the one layer of decompression read);
    ///   64 or more give the best answer (text and HTML are told apart on up to 512).
    public static func describe(_ prefix: [UInt8]) -> String {
        if prefix.isEmpty { return "an empty file" }
        if let kind = magic(prefix) { return kind }
        if let kind = text(prefix) { return kind }
        return "bytes " + prefix.prefix(8).map { hex($0) }.joined(separator: " ") + (prefix.count > 8 ? "…" : "")
    }

    /// Formats told by a fixed signature.
    private static func magic(_ p: [UInt8]) -> String? {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            p.count >= offset + bytes.count && Array(p[offset..<offset + bytes.count]) == bytes
        }
        func starts(_ ascii: String, at offset: Int = 0) -> Bool { starts(Array(ascii.utf8), at: offset) }
        let again = "inside another compressed layer (one is read: decompress the file once first)"
        switch true {
        case starts([0x1F, 0x8B]): return "gzip data " + again
        case starts([0x28, 0xB5, 0x2F, 0xFD]): return "zstd data " + again
        case starts([0x04, 0x22, 0x4D, 0x18]): return "lz4 data " + again
        case starts([0x02, 0x21, 0x4C, 0x18]): return "lz4 legacy-format data (not read: decompress it first)"
        case starts("BZh") && p.count > 3 && (0x31...0x39).contains(p[3]):
            return "bzip2 data (not read: decompress it first)"
        case starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]): return "xz data (not read: decompress it first)"
        case starts([0x5D, 0x00, 0x00]) && p.count >= 13: return "perhaps lzma data (not read: decompress it first)"
        case starts("PK\u{3}\u{4}"), starts("PK\u{5}\u{6}"), starts("PK\u{7}\u{8}"):
            return "a zip archive (not read: unzip it first)"
        case starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]): return "a 7z archive (not read: extract it first)"
        case starts("Rar!\u{1A}\u{7}"): return "a RAR archive (not read: extract it first)"
        case starts("ustar", at: 257): return "a tar archive (not read: extract it first)"
        case starts("%PDF-"): return "a PDF document"
        case starts([0x7F, 0x45, 0x4C, 0x46]): return "an ELF program"
        case starts("snoop\0\0\0"): return "a snoop capture (Solaris; convert it: editcap -F pcap FILE OUT.pcap)"
        case starts("GMBU"), starts("RTSS"):
            return "a Microsoft Network Monitor capture (convert it: editcap -F pcap FILE OUT.pcap)"
        case starts("btsnoop\0"): return "a btsnoop Bluetooth HCI log (not a network capture)"
        case starts("TRSNIFF data"), starts("XCP\0"):
            return "a Sniffer or NetXRay capture (convert it: editcap -F pcap FILE OUT.pcap)"
        case starts([0xA1, 0xB2, 0xCD, 0x34]), starts([0x34, 0xCD, 0xB2, 0xA1]):
            return "a modified (Kuznetsov) pcap capture (convert it: editcap -F pcap FILE OUT.pcap)"
        case starts([0xA1, 0xB2, 0xC3, 0xD4]), starts([0xD4, 0xC3, 0xB2, 0xA1]), starts([0xA1, 0xB2, 0x3C, 0x4D]),
            starts([0x4D, 0x3C, 0xB2, 0xA1]):
            return "a pcap file header"
        case starts([0x0A, 0x0D, 0x0D, 0x0A]): return "a pcapng section header"
        case eventTrace(p):
            return "a Windows event trace (ETL: convert it with etl2pcapng, or pktmon etl2pcap)"
        default: return nil
        }
    }

    /// A Windows ETW log (netsh trace, pktmon): no magic number, but its first buffer header
    /// starts with the buffer size (a power of two, 64 KiB as written) and the offset used in
    /// it, and its first event header at 0x48 carries the trace-header marker flags (0xC0).
    private static func eventTrace(_ p: [UInt8]) -> Bool {
        guard p.count >= 0x4C else { return false }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(p[at + $1]) << (8 * UInt32($1)) } }
        let size = u32(0)
        return size >= 4096 && size <= 1 << 26 && size & (size - 1) == 0 && u32(8) <= size && u32(8) >= 0x48
            && p[0x4B] & 0xC0 == 0xC0
    }

    /// Printable UTF-8 (a tshark or tcpdump text export, a log, a web page), named and quoted.
    private static func text(_ p: [UInt8]) -> String? {
        if p.count >= 2 && (p[0] == 0xFF && p[1] == 0xFE || p[0] == 0xFE && p[1] == 0xFF) { return "UTF-16 text" }
        var bytes = p.prefix(512)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // A multi-byte character may be cut at the end of the prefix: drop an incomplete one.
        var cut = bytes.endIndex
        var lead = cut
        while lead > bytes.startIndex && cut - lead < 3 && bytes[lead - 1] & 0xC0 == 0x80 { lead -= 1 }
        if lead > bytes.startIndex {
            let first = bytes[lead - 1]
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            if cut - (lead - 1) < length { cut = lead - 1 }
        }
        var scalars: [Unicode.Scalar] = []
        var decoder = UTF8()
        var iterator = bytes[..<cut].makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s):
                guard s == "\t" || s == "\n" || s == "\r" || s == "\u{C}" || !isControl(s) else { return nil }
                scalars.append(s)
            case .emptyInput: break decoding
            case .error: return nil
            }
        }
        guard !scalars.isEmpty else { return nil }
        let start = String(String.UnicodeScalarView(scalars.drop { $0.properties.isWhitespace }).prefix(16))
            .lowercased()
        if start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.hasPrefix("<head") { return "HTML" }
        if start.hasPrefix("<?xml") { return start.contains("<html") ? "XHTML" : "XML" }
        if start.hasPrefix("{") || start.hasPrefix("[") { return "JSON" }
        return "text (\(quoted(scalars)))"
    }

    /// The first characters between quotes, every control, format or unassigned character
    /// escaped, so that nothing from the file acts on the terminal.
    static func quoted(_ scalars: [Unicode.Scalar], limit: Int = 24) -> String {
        var out = "\""
        for s in scalars.prefix(limit) {
            switch s {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if isControl(s) || s.value > 0x7E && !isVisible(s) {
                    out += "\\u{" + String(s.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(s)
                }
            }
        }
        return out + (scalars.count > limit ? "…\"" : "\"")
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value)
    }

    /// Letters, marks, numbers, punctuation, symbols and the plain space: not format characters
    /// (bidirectional overrides, zero-width joiners), separators or private and unassigned ones.
    private static func isVisible(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .format, .control, .privateUse, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default: return true
        }
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
