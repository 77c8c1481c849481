import Foundation
import Testing

@testable import CastDiscovery

/// The documentation's table of user-set limits is the `Limit` table, row for row: a limit
/// added, renamed or given another default in the code without the docs fails here.
@Suite struct LimitTableDocTests {
    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/fuzzing.md")

    /// The table as the code says it should read.
    static func expectedRows() -> [String] {
        Limit.allCases.map { "| `--\($0.name)` | \($0.defaultValue) | \($0.summary) |" }
    }

    @Test func docsTableMatchesTheLimitTable() throws {
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- limits:begin"))
        let end = try #require(text.range(of: "<!-- limits:end -->"))
        let rows = text[begin.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("| `--") }
        #expect(
            rows == Self.expectedRows(),
            "docs/fuzzing.md's limits table; it should read:\n\(Self.expectedRows().joined(separator: "\n"))")
    }

    @Test func everyLimitHasADistinctNameAndADefaultItAllows() {
        #expect(Set(Limit.allCases.map(\.name)).count == Limit.allCases.count)
        for limit in Limit.allCases { #expect(Limit.allowedValues.contains(limit.defaultValue), "\(limit)") }
    }

    @Test func settingALimitChangesOnlyItsOwnValue() {
        for limit in Limit.allCases {
            var c = TrackerCapacity()
            c[keyPath: limit.keyPath] = 7
            for other in Limit.allCases where other != limit {
                #expect(c[keyPath: other.keyPath] == other.defaultValue, "\(limit) changed \(other)")
            }
            #expect(c[keyPath: limit.keyPath] == 7)
        }
    }
}
