import CastDiscovery

/// A report meant to be shared (`castscope report`) names capture files without their
/// directories: a local path says who ran it and where, and is of no use to the reader.
enum ReportFileNames {
    /// `capture.pcap` for `/home/me/traces/capture.pcap`; the text itself when it has no `/`.
    static func fileName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let name = path[path.index(after: slash)...]
        return name.isEmpty ? path : String(name)
    }

    /// `r` with every capture, and every unreadable file, named by its file name, and those
    /// paths replaced by the file names in the findings' text too (a finding about a capture
    /// names it).
    static func stripped(_ r: AnalysisReport) -> AnalysisReport {
        var r = r
        var replacements: [(String, String)] = []
        func strip(_ path: String) -> String {
            let name = fileName(path)
            if name != path, !replacements.contains(where: { $0.0 == path }) { replacements.append((path, name)) }
            return name
        }
        for i in r.captures.indices { r.captures[i].file = strip(r.captures[i].file) }
        for i in r.unreadable.indices { r.unreadable[i].file = strip(r.unreadable[i].file) }
        guard !replacements.isEmpty else { return r }
        // Longest paths first, so that `/a/b.pcap` is not half-replaced by a shorter `/a/b`.
        replacements.sort { $0.0.count > $1.0.count }
        for i in r.unreadable.indices {
            for (path, name) in replacements { r.unreadable[i].error = replace(r.unreadable[i].error, path, name) }
        }
        for i in r.findings.indices {
            for (path, name) in replacements {
                r.findings[i].title = replace(r.findings[i].title, path, name)
                r.findings[i].detail = replace(r.findings[i].detail, path, name)
                r.findings[i].advice = replace(r.findings[i].advice, path, name)
            }
        }
        return r
    }

    /// `text` with every occurrence of `target` replaced by `replacement` (no Foundation).
    static func replace(_ text: String, _ target: String, _ replacement: String) -> String {
        guard !target.isEmpty, text.contains(target) else { return text }
        var out = ""
        var rest = Substring(text)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
