/// Did-you-mean: the known name closest to a mistyped one, by edit distance.
enum Suggest {
    /// The candidate closest to `word`, if it is close enough to be what was meant: at most
    /// one edit per three letters (a swap of two neighbours counts as one), or the only
    /// candidate that starts with `word`.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let letters = word.drop { $0 == "-" }.count
        guard letters > 0 else { return nil }
        let limit = max(1, letters / 3)
        let scored = candidates.map { (name: $0, distance: distance(word, $0)) }
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit, best.distance > 0 {
            return best.name
        }
        let prefixed = candidates.filter { $0.hasPrefix(word) && $0 != word }
        return letters >= 2 && prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps
    /// of adjacent characters, each costing one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, rows[i - 2][j - 2] + 1) }
                rows[i][j] = d
            }
        }
        return rows[a.count][b.count]
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + last : last
    }
}
