import CastDiscovery
import Foundation
import Testing
import WireFormat

@testable import Reports

// `castscope analyze --format rows` (docs/rows.md): newline-delimited JSON, one flat object per
// line, whose values are the JSON document's, on every bundled capture and on hostile text.

@Suite("Analysis rows")
struct AnalysisRowsTests {
    /// Every bundled capture's file name.
    static let captureNames: [String] = {
        let dir = ReportFixtures.repoRoot.appendingPathComponent("captures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".pcap") }.sorted()
    }()

    /// The report of one bundled capture, diagnosed as `castscope analyze` does.
    static func report(_ name: String) throws -> AnalysisReport {
        var r = try ReportFixtures.report([name])
        r.findings = Diagnosis.diagnose(r)
        return r
    }

    /// A row: its keys in order, the JSON type each value is written as (`nil` for null), and
    /// the values as JSONSerialization reads them.
    struct Row {
        var keys: [String]
        var types: [String: String?]
        var values: [String: Any]
        var type: String { values["type"] as? String ?? "" }
    }

    /// Parses `text` line by line; each line must be one JSON object whose values are scalars.
    static func rows(_ text: String) throws -> [Row] {
        #expect(text.isEmpty || text.hasSuffix("\n"), "the last line ends with a newline")
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
            let values = try #require(object as? [String: Any], "not an object: \(line)")
            let members = members(String(line))
            #expect(members.count == values.count, "keys read: \(members.map(\.key)) in \(line)")
            for (key, type) in members { #expect(type != "container", "\(key) is not a scalar in \(line)") }
            return Row(
                keys: members.map(\.key), types: Dictionary(members.map { ($0.key, $0.type) }) { a, _ in a },
                values: values)
        }
    }

    /// The members of a flat JSON object in the order written, each with the JSON type of its
    /// value as written (`string`, `number`, `boolean`, `container`; `nil` for null).
    static func members(_ line: String) -> [(key: String, type: String?)] {
        var members: [(key: String, type: String?)] = []
        let bytes = Array(line.utf8)
        var i = 1
        var expectKey = true
        func skipString(_ i: Int) -> Int {
            var j = i + 1
            while bytes[j] != 0x22 { j += bytes[j] == 0x5C ? 2 : 1 }
            return j + 1
        }
        while i < bytes.count {
            switch bytes[i] {
            case 0x22 where expectKey:
                let end = skipString(i)
                members.append((String(decoding: bytes[(i + 1)..<(end - 1)], as: UTF8.self), nil))
                expectKey = false
                i = end
            case 0x3A:
                i += 1
                let type: String? =
                    switch bytes[i] {
                    case 0x22: "string"
                    case UInt8(ascii: "t"), UInt8(ascii: "f"): "boolean"
                    case UInt8(ascii: "n"): nil
                    case UInt8(ascii: "{"), UInt8(ascii: "["): "container"
                    default: "number"
                    }
                members[members.count - 1].type = type
                i = bytes[i] == 0x22 ? skipString(i) : i + 1
            case 0x2C:
                expectKey = true
                i += 1
            default: i += 1
            }
        }
        return members
    }

    /// Whether a row's value is the document's: the same scalar, a frame's number, or a list of
    /// strings joined by a space.
    static func same(_ row: Any, _ doc: Any) -> Bool {
        switch (row, doc) {
        case (is NSNull, is NSNull): return true
        case (let r as NSNumber, let d as [String: Any]): return d["frame"] as? NSNumber == r
        case (let r as String, let d as [String]): return r == d.joined(separator: " ")
        case (let r as String, let d as String): return r == d
        case (let r as NSNumber, let d as NSNumber): return r == d
        default: return false
        }
    }

    /// The document's objects that the rows of `type` stand for, in order.
    static func documentObjects(_ type: String, _ doc: [String: Any]) -> [[String: Any]] {
        func list(_ key: String) -> [[String: Any]] { doc[key] as? [[String: Any]] ?? [] }
        switch type {
        case "capture": return list("captures")
        case "device": return list("devices")
        case "client": return list("clients")
        case "latency": return list("latency")
        case "response": return list("responses")
        case "connection": return list("connections")
        case "finding": return list("findings")
        case "evidence": return list("findings").flatMap { $0["evidence"] as? [[String: Any]] ?? [] }
        default: return []
        }
    }

    /// The columns whose value is the length of a list of the document's object.
    static let counts: [String: [String: String]] = [
        "device": ["instanceCount": "instances", "appIdCount": "appIds", "sourceCount": "sources"],
        "client": [
            "appIdCount": "appIdsQueried", "intervalCount": "intervalsMs",
            "localNamesOverDnsCount": "localNamesOverDns",
        ],
        "response": ["missedFrameCount": "missedFrames"],
        "finding": ["frameCount": "frames", "evidenceCount": "evidence"],
        "evidence": ["frameCount": "frames"],
    ]

    @Test(
        "every bundled capture: flat rows, one per document entry, with the document's values", arguments: captureNames)
    func bundledCapture(name: String) throws {
        let r = try Self.report(name)
        let rows = try Self.rows(AnalysisRows.render([r]))
        let doc = try #require(
            try JSONSerialization.jsonObject(with: Data(AnalysisJSON.renderUTF8(r))) as? [String: Any])
        for type in AnalysisRows.RowType.allCases.map(\.rawValue) {
            let typed = rows.filter { $0.type == type }
            let objects = Self.documentObjects(type, doc)
            #expect(typed.count == objects.count, "\(name): \(typed.count) \(type) rows, \(objects.count) in the JSON")
            for (row, object) in zip(typed, objects) {
                #expect(row.keys.prefix(3) == ["type", "capture", "captureStart"])
                #expect(row.values["capture"] as? String == "captures/\(name)")
                #expect(
                    Self.same(row.values["captureStart"]!, (doc["captures"] as? [[String: Any]])?[0]["start"] as Any))
                for key in row.keys.dropFirst(3) where object[key] != nil {
                    #expect(Self.same(row.values[key]!, object[key]!), "\(name) \(type).\(key)")
                }
                for (key, list) in Self.counts[type] ?? [:] {
                    #expect(row.values[key] as? Int == (object[list] as? [Any])?.count, "\(name) \(type).\(key)")
                }
            }
        }
        let verdict = try #require(doc["verdict"] as? [String: Any])
        let capture = try #require(rows.first)
        #expect(capture.type == "capture")
        #expect(capture.values["verdict"] as? String == verdict["status"] as? String)
        #expect(capture.values["headline"] as? String == verdict["headline"] as? String)
        for key in ["errors", "warnings", "notes"] { #expect(capture.values[key] as? Int == verdict[key] as? Int) }
        #expect(Self.same(capture.values["sessionGapMs"]!, doc["sessionGapMs"]!))
        for (column, list) in [("deviceCount", "devices"), ("clientCount", "clients"), ("findingCount", "findings")] {
            #expect(capture.values[column] as? Int == (doc[list] as? [Any])?.count)
        }
        // The evidence of a finding follows it and names it by code and severity.
        var finding: Row?
        for row in rows where row.type == "finding" || row.type == "evidence" {
            if row.type == "finding" {
                finding = row
            } else {
                #expect(row.values["code"] as? String == finding?.values["code"] as? String)
                #expect(row.values["severity"] as? String == finding?.values["severity"] as? String)
            }
        }
    }

    @Test("every row of a type has the same keys in the same order; a key has one JSON type in every type")
    func stableColumns() throws {
        var reports = try Self.captureNames.map(Self.report)
        reports.append(ReportFixtures.hostileReport(findings: [Self.hostileFinding()]))
        let unreadable = [UnreadableCapture(file: "gone.pcap", error: "open gone.pcap: No such file or directory")]
        let rows = try Self.rows(AnalysisRows.render(reports, unreadable: unreadable))
        var keysOfType: [String: [String]] = [:]
        var typeOfKey: [String: String] = [:]
        for row in rows {
            let known = keysOfType[row.type, default: row.keys]
            #expect(row.keys == known, "\(row.type): \(row.keys) differs from \(known)")
            keysOfType[row.type] = known
            #expect(Set(row.keys).count == row.keys.count, "a key twice in \(row.keys)")
            for (key, written) in row.types {
                guard let type = written else { continue }
                #expect(typeOfKey[key, default: type] == type, "\(key) is a \(type) in a \(row.type) row")
                typeOfKey[key] = type
            }
        }
        // Every row type occurs somewhere in the bundled captures.
        #expect(Set(keysOfType.keys) == Set(AnalysisRows.RowType.allCases.map(\.rawValue)))
        let gone = try #require(rows.last)
        #expect(gone.type == "capture" && gone.values["error"] as? String == unreadable[0].error)
        #expect(gone.values["verdict"] is NSNull && gone.values["packets"] is NSNull)
    }

    /// A finding whose words hold every character JSON must escape, with two subjects.
    static func hostileFinding() -> Finding {
        var f = ReportFixtures.finding(.warning)
        f.title =
            "quote \" backslash \\ newline \n tab \t cr \r nul \u{0} del \u{7F} nel \u{85} ls \u{2028} ps \u{2029}"
        f.evidence = [
            FindingEvidence(
                kind: .device, subject: "TV \"Salon\"\\\n", detail: "bell\u{7}",
                frames: [FrameRef(capture: 0, frame: 2)]),
            FindingEvidence(kind: .client, subject: "192.0.2.10", detail: "é ü 日本 🎉", frames: []),
        ]
        return f
    }

    @Test("text from the network and the command line is escaped: one line per row, the same strings back")
    func hostileText() throws {
        let f = Self.hostileFinding()
        var r = ReportFixtures.hostileReport(findings: [f])
        r.captures[0].file = "dir/\"odd\"\\name\n\u{1B}.pcap"
        let text = AnalysisRows.render([r])
        for scalar in text.unicodeScalars where scalar != "\n" {
            #expect(
                !(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029), "unescaped U+\(String(scalar.value, radix: 16)) in the rows")
        }
        let rows = try Self.rows(text)
        #expect(rows.count == text.split(separator: "\n").count)
        for row in rows { #expect(row.values["capture"] as? String == r.captures[0].file) }
        let finding = try #require(rows.first { $0.type == "finding" })
        #expect(finding.values["title"] as? String == f.title)
        #expect(finding.values["detail"] as? String == f.detail)
        let evidence = rows.filter { $0.type == "evidence" }
        #expect(evidence.map { $0.values["subject"] as? String } == f.evidence.map(\.subject))
        #expect(evidence.map { $0.values["detail"] as? String } == f.evidence.map(\.detail))
        #expect(evidence.map { $0.values["firstFrame"] as? Int } == [2, nil])
        let device = try #require(rows.first { $0.type == "device" })
        #expect(device.values["friendlyName"] as? String == r.devices[0].friendlyName)
        #expect(device.values["id"] as? String == "<script>alert(1)</script>")
        #expect(device.values["appIds"] as? String == "<b>APP</b>")
    }

    @Test("--merge: one timeline named by its files, starting at the first frame of any")
    func merged() throws {
        let a = try ReportFixtures.load("healthy-ipv4.pcap")
        let b = try ReportFixtures.load("ipv6.pcap")
        var tracker = DiscoveryTracker()
        let packets = (a.packets.map { ($0, 0) } + b.packets.map { ($0, 1) }).sorted { $0.0.timestamp < $1.0.timestamp }
        for (p, capture) in packets { tracker.ingest(p, capture: capture) }
        var r = AnalysisReport(
            captures: [a.info, b.info], timelines: [tracker.finish()], options: AnalysisOptions(), merged: true)
        r.findings = Diagnosis.diagnose(r)
        let rows = try Self.rows(AnalysisRows.render([r]))
        let capture = try #require(rows.first)
        #expect(capture.values["files"] as? Int == 2)
        #expect(capture.values["packets"] as? Int == a.info.packets + b.info.packets)
        #expect(capture.values["linkType"] as? String == "EN10MB")
        let start = TimeFormat.rfc3339Micro(try #require(a.info.start))
        let end = TimeFormat.rfc3339Micro(try #require(b.info.end))
        for row in rows {
            #expect(row.values["capture"] as? String == "captures/healthy-ipv4.pcap + captures/ipv6.pcap")
            #expect(row.values["captureStart"] as? String == start)
        }
        #expect(capture.values["captureEnd"] as? String == end)
        #expect(rows.filter { $0.type == "latency" }.count == r.latency.count)
    }

    @Test("several reports: each file's rows in turn, named by it")
    func severalReports() throws {
        let names = ["healthy-ipv4.pcap", "relayed-queries.pcap", "connect-refused.pcap"]
        let reports = try names.map(Self.report)
        let together = AnalysisRows.render(reports)
        #expect(together == reports.map { AnalysisRows.render([$0]) }.joined())
        let captures = try Self.rows(together).filter { $0.type == "capture" }
        #expect(captures.map { $0.values["capture"] as? String } == names.map { "captures/\($0)" })
    }
}
