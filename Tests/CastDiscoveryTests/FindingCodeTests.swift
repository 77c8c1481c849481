import Foundation
import Testing

@testable import CastDiscovery

/// The repository root, from this file's path.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

private func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
}

/// The codes of a Markdown table's rows that start with a code: "| `QUERIES_UNANSWERED` | …".
private func documentedCodes(_ markdown: String) -> [String] {
    markdown.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("| `") else { return nil }
        let code = line.dropFirst(3).prefix { $0 != "`" }
        return code.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" } ? String(code) : nil
    }
}

@Suite("Finding codes and their catalogue")
struct FindingCodeTests {
    @Test("every known code is documented in docs/diagnostics.md, and every documented code is known")
    func catalogue() throws {
        let documented = documentedCodes(try text("docs/diagnostics.md"))
        let known = FindingCode.known.map(\.rawValue)
        #expect(Set(known).count == known.count, "a code is listed twice in FindingCode.known")
        #expect(Set(documented).count == documented.count, "a code is documented twice")
        #expect(Set(known).subtracting(documented).sorted() == [], "known but not in docs/diagnostics.md")
        #expect(Set(documented).subtracting(known).sorted() == [], "documented but not in FindingCode.known")
    }

    @Test("every FindingCode member is in FindingCode.known")
    func membersAreKnown() throws {
        // The members as declared in the source: `static let x = FindingCode(rawValue: "X")`.
        let source = try text("Sources/CastDiscovery/Diagnosis/FindingCode.swift")
        let marker = "FindingCode(rawValue: \""
        var declared: [String] = []
        var rest = Substring(source)
        while let start = rest.range(of: marker) {
            rest = rest[start.upperBound...]
            declared.append(String(rest.prefix { $0 != "\"" }))
        }
        #expect(declared.count > 20)
        #expect(Set(declared) == Set(FindingCode.known.map(\.rawValue)))
    }

    @Test("no document states a stale number of codes")
    func counts() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var stated: [String] = []
        for path in ["README.md"] + docs.sorted() {
            let words = try text(path).split(whereSeparator: \.isWhitespace)
            for (i, word) in words.enumerated().dropLast(2) where Int(word.trimmingCharacters(in: ["("])) != nil {
                let next = words[i + 1].lowercased()
                guard next.hasPrefix("diagnos") || next == "finding", words[i + 2].lowercased().hasPrefix("code")
                else { continue }
                stated.append("\(path): \(word) \(words[i + 1]) \(words[i + 2])")
                #expect(
                    Int(word.trimmingCharacters(in: ["("])) == FindingCode.known.count,
                    "\(path) says \(word) \(words[i + 1]) \(words[i + 2]); there are \(FindingCode.known.count)")
            }
        }
        #expect(!stated.isEmpty, "README.md states the number of codes")
    }

    @Test("a code is its raw value, in text and as a key")
    func rawValue() {
        #expect(FindingCode.limitReached.rawValue == "LIMIT_REACHED")
        #expect("\(FindingCode.deviceLeft)" == "DEVICE_LEFT")
        #expect(FindingCode(rawValue: "DEVICE_LEFT") == .deviceLeft)
        #expect(FindingCode(rawValue: "FROM_A_NEWER_VERSION").rawValue == "FROM_A_NEWER_VERSION")
    }
}
