import PcapCapture
import Testing

// FileKind.describe: what the first bytes of a file that is no capture look like.

@Suite("What a file looks like")
struct FileKindTests {
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    static let cases: [(bytes: [UInt8], kind: String)] = [
        ([], "an empty file"),
        (
            [0x1F, 0x8B, 0x08, 0x00],
            "gzip data inside another compressed layer (one is read: decompress the file once first)"
        ),
        (
            [0x28, 0xB5, 0x2F, 0xFD, 0x24],
            "zstd data inside another compressed layer (one is read: decompress the file once first)"
        ),
        (
            [0x04, 0x22, 0x4D, 0x18, 0x64],
            "lz4 data inside another compressed layer (one is read: decompress the file once first)"
        ),
        ([0x02, 0x21, 0x4C, 0x18, 0, 0], "lz4 legacy-format data (not read: decompress it first)"),
        (ascii("BZh91AY&SY"), "bzip2 data (not read: decompress it first)"),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04], "xz data (not read: decompress it first)"),
        (ascii("PK\u{3}\u{4}\u{14}\0\0\0"), "a zip archive (not read: unzip it first)"),
        ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4], "a 7z archive (not read: extract it first)"),
        (ascii("%PDF-1.7\n"), "a PDF document"),
        ([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0], "an ELF program"),
        (
            ascii("snoop\0\0\0") + [0, 0, 0, 2, 0, 0, 0, 4],
            "a snoop capture (Solaris; convert it: editcap -F pcap FILE OUT.pcap)"
        ),
        (ascii("GMBU") + [0, 2], "a Microsoft Network Monitor capture (convert it: editcap -F pcap FILE OUT.pcap)"),
        (ascii("RTSS") + [0, 1], "a Microsoft Network Monitor capture (convert it: editcap -F pcap FILE OUT.pcap)"),
        (ascii("btsnoop\0") + [0, 0, 0, 1], "a btsnoop Bluetooth HCI log (not a network capture)"),
        (
            [0x34, 0xCD, 0xB2, 0xA1, 2, 0, 4, 0],
            "a modified (Kuznetsov) pcap capture (convert it: editcap -F pcap FILE OUT.pcap)"
        ),
        ([0xD4, 0xC3, 0xB2, 0xA1, 2, 0], "a pcap file header"),
        ([0x0A, 0x0D, 0x0D, 0x0A, 0x1C, 0, 0, 0], "a pcapng section header"),
        (etlHeader, "a Windows event trace (ETL: convert it with etl2pcapng, or pktmon etl2pcap)"),
        (ascii("<!DOCTYPE html>\n<html lang=en>"), "HTML"),
        (ascii("\n  <html><head><title>Download"), "HTML"),
        (ascii("<?xml version=\"1.0\"?>\n<pdml>"), "XML"),
        (ascii("[\n  {\n    \"_index\": \"packets-2026\""), "JSON"),
        (ascii("{\"timestamp\":\"1800000000\"}"), "JSON"),
        (ascii("Frame 1: 60 bytes on wire (480 bits)"), "text (\"Frame 1: 60 bytes on wir…\")"),
        (ascii("12:00:01.5 IP 1"), "text (\"12:00:01.5 IP 1\")"),
        // The terminal sees no escape sequence, quote or bidirectional override from the file.
        (ascii("\u{1B}]0;pwned\u{7}"), "bytes 1b 5d 30 3b 70 77 6e 65…"),
        (ascii("a\"b\\c\td\u{202E}é"), "text (\"a\\\"b\\\\c\\td\\u{202e}é\")"),
        // A character cut by the end of the prefix is still text.
        (ascii("caf") + [0xC3], "text (\"caf\")"),
        ([0xFF, 0xFE, 0x41, 0x00], "UTF-16 text"),
        ([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09], "bytes 00 01 02 03 04 05 06 07…"),
        ([0xC0, 0xFF, 0xEE], "bytes c0 ff ee"),
    ]

    /// What netsh and pktmon write: a 64 KiB buffer header, its first event's marker at 0x4B.
    static var etlHeader: [UInt8] {
        var b = [UInt8](repeating: 0, count: 0x60)
        b[2] = 0x01  // BufferSize 0x10000
        b[8] = 0xD0  // CurrentOffset 0x2D0
        b[9] = 0x02
        b[0x48] = 0x02
        b[0x4A] = 0x15
        b[0x4B] = 0xC0
        return b
    }

    @Test(arguments: cases.indices)
    func describes(_ index: Int) {
        let (bytes, kind) = Self.cases[index]
        #expect(FileKind.describe(bytes) == kind)
    }

    /// The ETL check needs all its signs: a size that is no power of two is just bytes.
    @Test func etlNeedsEverySign() {
        var b = Self.etlHeader
        b[0] = 1
        #expect(FileKind.describe(b).hasPrefix("bytes "))
        b = Self.etlHeader
        b[0x4B] = 0
        #expect(FileKind.describe(b).hasPrefix("bytes "))
    }

    /// Only the first bytes are looked at, however many are given.
    @Test func longPrefix() {
        let text = Array(String(repeating: "abc ", count: 1000).utf8) + [0x00]
        #expect(FileKind.describe(text) == "text (\"abc abc abc abc abc abc …\")")
    }
}
