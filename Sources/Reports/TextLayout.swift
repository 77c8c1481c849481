import WireFormat

/// How wide the terminal rendering may be, and what it does with text that is wider: it never
/// cuts. Paragraphs wrap at ``columns``; a table either grows to fit its longest cell (a file
/// or a pipe: ``fitsTables`` false) or, for a terminal, wraps its widest cells onto more lines
/// so that the rows fit ``columns``.
public struct TextWidth: Hashable, Sendable {
    /// The width paragraphs wrap at (and tables fit, when ``fitsTables``).
    public var columns: Int
    /// Whether tables are made to fit ``columns`` by wrapping cells.
    public var fitsTables: Bool

    /// The narrowest layout honoured: below it, lines would hold a word or two.
    public static let minimumColumns = 40

    /// - Parameter columns: clamped to at least ``minimumColumns``.
    public init(columns: Int, fitsTables: Bool) {
        self.columns = Swift.max(columns, Self.minimumColumns)
        self.fitsTables = fitsTables
    }

    /// Not a terminal (a file, a pipe, the golden outputs): paragraphs wrap at 100 columns,
    /// tables are as wide as their longest cells.
    public static let file = TextWidth(columns: 100, fitsTables: false)

    /// A terminal (or `COLUMNS`) `columns` wide: everything fits, by wrapping.
    public static func terminal(_ columns: Int) -> TextWidth { TextWidth(columns: columns, fitsTables: true) }
}

/// The table and paragraph layout of the terminal rendering, at one ``TextWidth``.
struct TextLayout {
    var width: TextWidth

    /// A left-aligned table with two leading spaces and two spaces between columns, every cell
    /// sanitised, in the widths of ``columnWidths(_:)``: cells wider than their column wrap
    /// onto more lines (``lines(_:width:)``). Nothing is cut.
    func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = ([header] + rows).map { $0.map(TerminalText.sanitize) }
        let widths = columnWidths(all)
        var out = ""
        for row in all {
            let lines = row.enumerated().map { i, cell in Self.lines(cell, width: widths[i]) }
            let height = lines.map(\.count).max() ?? 1
            for n in 0..<height {
                let cells = lines.enumerated().map { i, cellLines in
                    let text = n < cellLines.count ? cellLines[n] : ""
                    return text + String(repeating: " ", count: widths[i] - text.count)
                }
                var line = "  " + cells.joined(separator: "  ")
                while line.hasSuffix(" ") { line.removeLast() }
                out += line + "\n"
            }
        }
        if rows.isEmpty { out += "  (none)\n" }
        return out
    }

    /// The width of each column of `rows` (the header first). Each column is as wide as its
    /// longest cell. When the table must fit (a terminal) and does not, the widest column gives
    /// way, one character at a time, down to a floor: first its header's longest word and its
    /// cells' longest word up to 16 characters (an IPv4 address, a port, a time); then, should
    /// that not fit, the cells' words alone (headers break before facts do); then 3 characters,
    /// rather than let the terminal break the lines.
    func columnWidths(_ rows: [[String]]) -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: count)
        var cellWords = [Int](repeating: 3, count: count)
        var headerWords = [Int](repeating: 6, count: count)
        for (n, row) in rows.enumerated() {
            for (i, cell) in row.enumerated() {
                widths[i] = Swift.max(widths[i], cell.count)
                let word = Self.longestWord(cell)
                if n == 0 {
                    headerWords[i] = Swift.max(headerWords[i], word)
                } else {
                    cellWords[i] = Swift.max(cellWords[i], Swift.min(word, 16))
                }
            }
        }
        guard width.fitsTables else { return widths }
        let available = width.columns - 2 - 2 * Swift.max(count - 1, 0)
        let floors = [
            zip(headerWords, cellWords).map { Swift.max($0, $1) }, cellWords, Array(repeating: 3, count: count),
        ]
        for minimum in floors {
            while widths.reduce(0, +) > available {
                let shrinkable = widths.indices.filter { widths[$0] > minimum[$0] }
                guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }) else { break }
                widths[widest] -= 1
            }
        }
        return widths
    }

    /// The longest run of characters ``lines(_:width:)`` does not break: between spaces, and
    /// after commas.
    static func longestWord(_ cell: String) -> Int {
        var longest = 0
        var run = 0
        for ch in cell {
            if ch == " " {
                run = 0
                continue
            }
            run += 1
            longest = Swift.max(longest, run)
            if ch == "," { run = 0 }
        }
        return longest
    }

    /// `cell` in lines of at most `width` characters: broken at a space, else after a comma
    /// or a colon (IPv6 addresses) when one is in reach, else hard at the width. The characters all stay (spaces at a break
    /// are dropped).
    static func lines(_ cell: String, width: Int) -> [String] {
        let width = Swift.max(width, 1)
        var rest = Substring(cell)
        var out: [String] = []
        while rest.count > width {
            let head = rest.prefix(width + 1)
            if let space = head.lastIndex(of: " "), space > rest.startIndex {
                out.append(String(rest[..<space]))
                rest = rest[rest.index(after: space)...]
            } else if let comma = head.dropLast().lastIndex(where: { $0 == "," || $0 == ":" }),
                comma > rest.startIndex
            {
                let end = rest.index(after: comma)
                out.append(String(rest[..<end]))
                rest = rest[end...]
            } else {
                let end = rest.index(rest.startIndex, offsetBy: width)
                out.append(String(rest[..<end]))
                rest = rest[end...]
            }
            while rest.first == " " { rest.removeFirst() }
        }
        out.append(String(rest))
        return out
    }

    /// Words joined by spaces, wrapped at the width: the first line starts with `first`, the
    /// others with `rest`. A word longer than a line gets a line of its own, whole; for a
    /// terminal (``TextWidth/fitsTables``) it is broken into pieces that fit, as the terminal
    /// would otherwise break it without the indent.
    func wrap(_ words: [String], first: String = "  ", rest: String = "    ") -> String {
        var out = ""
        var line = first
        var empty = true
        let room = Swift.max(width.columns - rest.count, 1)
        var pieces: [String] = []
        for word in words.map(TerminalText.sanitize) where !word.isEmpty {
            if width.fitsTables, word.count > room {
                pieces += Self.lines(word, width: room)
            } else {
                pieces.append(word)
            }
        }
        for word in pieces {
            if !empty, line.count + 1 + word.count > width.columns {
                out += line + "\n"
                line = rest
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        return out + line + "\n"
    }

    /// A sentence wrapped at the width (``wrap(_:first:rest:)`` of its words).
    func paragraph(_ text: String, first: String = "", rest: String = "  ") -> String {
        wrap(text.split(separator: " ").map(String.init), first: first, rest: rest)
    }
}
