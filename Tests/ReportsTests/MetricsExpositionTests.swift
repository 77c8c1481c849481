import CastDiscovery
import Testing
import WireFormat

@testable import Reports

// The Prometheus text format (0.0.4) of `live --metrics`: every sample after its family's
// HELP and TYPE, label values escaped so that a device name from the network reads back
// exactly, cumulative histogram buckets that end in +Inf = _count, numbers as Go reads them.

@Suite struct MetricsExpositionTests {
    static let hostileName = "Say \"hi\" \\ back\nslash, café 📺"

    /// A watch that has seen one query from 192.0.2.10 at t = 100 s and one device answering
    /// 42 ms later (TTL 120 s), whose friendly name is hostile.
    static func watch(now: Timestamp) -> LiveMetrics {
        let (timeline, report) = AnalysisRenderingTests.castExchange(
            instance: "Chromecast-1",
            txt: ["id=0123456789abcdef0123456789abcdef", "fn=\(hostileName)", "md=Chromecast", "ca=4101"],
            txtTTL: 120, client: .v4(IPv4Address(192, 0, 2, 10)), device: .v4(IPv4Address(192, 0, 2, 21)), file: "live")
        var watch = DiscoveryWatch()
        watch.absorb(report, timeline: timeline, windowStart: Timestamp(seconds: 0, nanoseconds: 0), now: now)
        return LiveMetrics(
            watch: watch, packetsRead: 2, packetsDecoded: 2, packetsMalformed: 0, droppedKernel: 0, droppedInterface: 0,
            started: Timestamp(seconds: 90, nanoseconds: 500_000_000), now: now, windowSeconds: 600)
    }

    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// A strict reader of the text format: comments, then `name{k="v",…} value` lines.
    static func parse(_ text: String) -> (samples: [Sample], types: [String: String], errors: [String]) {
        var samples: [Sample] = []
        var types: [String: String] = [:]
        var errors: [String] = []
        var seen: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("# HELP ") { continue }
            var chars = Array(line.unicodeScalars)[...]
            var name = ""
            while let c = chars.first, c.properties.isAlphabetic || c == "_" || c == ":" || ("0"..."9").contains(c) {
                name.unicodeScalars.append(c)
                chars = chars.dropFirst()
            }
            var labels: [String: String] = [:]
            if chars.first == "{" {
                chars = chars.dropFirst()
                while chars.first != "}" {
                    var key = ""
                    while let c = chars.first, c != "=" {
                        key.unicodeScalars.append(c)
                        chars = chars.dropFirst()
                    }
                    chars = chars.dropFirst()
                    guard chars.first == "\"" else {
                        errors.append("no quote: \(line)")
                        break
                    }
                    chars = chars.dropFirst()
                    var value = ""
                    while let c = chars.first, c != "\"" {
                        chars = chars.dropFirst()
                        if c == "\n" { errors.append("raw newline: \(line)") }
                        if c == "\\" {
                            let e = chars.first
                            chars = chars.dropFirst()
                            switch e {
                            case "\\": value += "\\"
                            case "\"": value += "\""
                            case "n": value += "\n"
                            default: errors.append("bad escape: \(line)")
                            }
                        } else {
                            value.unicodeScalars.append(c)
                        }
                    }
                    chars = chars.dropFirst()
                    labels[key] = value
                    if chars.first == "," { chars = chars.dropFirst() }
                }
                chars = chars.dropFirst()
            }
            guard chars.first == " ",
                let v = Double(String(String.UnicodeScalarView(chars.dropFirst())))
                    ?? (chars.dropFirst().elementsEqual("+Inf".unicodeScalars) ? .infinity : nil)
            else {
                errors.append("bad sample: \(line)")
                continue
            }
            let family =
                ["_bucket", "_sum", "_count"].first {
                    name.hasSuffix($0) && types[String(name.dropLast($0.count))] == "histogram"
                }
                .map { String(name.dropLast($0.count)) } ?? name
            if types[family] == nil { errors.append("sample before its TYPE: \(line)") }
            let series = name + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            if !seen.insert(series).inserted { errors.append("series twice: \(line)") }
            samples.append(Sample(name: name, labels: labels, value: v))
        }
        return (samples, types, errors)
    }

    @Test func everySampleParsesAndTheDeviceNameReadsBackExactly() throws {
        let now = Timestamp(seconds: 101, nanoseconds: 0)
        let text = MetricsExposition.render(Self.watch(now: now), version: "9.9\"x")
        let (samples, types, errors) = Self.parse(text)
        #expect(errors.isEmpty, "\(errors)")
        let up = try #require(samples.first { $0.name == "castscope_device_up" })
        // The name as the analysis shows it (control characters written out as \ooo, a
        // backslash doubled), escaped once more for the format, reads back unchanged.
        #expect(up.labels["name"] == #"Say "hi" \\ back\010slash, café 📺"#)
        #expect(up.labels["id"] == "0123456789abcdef0123456789abcdef")
        #expect(up.labels["model"] == "Chromecast")
        #expect(up.labels["kind"] == "video")
        #expect(up.value == 1)
        #expect(samples.first { $0.name == "castscope_build_info" }?.labels["version"] == "9.9\"x")
        #expect(samples.first { $0.name == "castscope_devices_visible" }?.value == 1)
        #expect(samples.first { $0.name == "castscope_device_last_heard_age_seconds" }?.value == 0.958)
        #expect(
            samples.first { $0.name == "castscope_client_queries_total" }?.labels == [
                "client": "192.0.2.10", "mac": "",
            ])
        #expect(samples.first { $0.name == "castscope_client_queries_total" }?.value == 1)
        #expect(samples.first { $0.name == "castscope_start_time_seconds" }?.value == 90.5)
        #expect(types["castscope_first_answer_seconds"] == "histogram")
        #expect(types["castscope_packets_read_total"] == "counter")
        #expect(types["castscope_findings_active"] == "gauge")
        // Names follow the conventions: counters end in _total, nothing else does.
        for (name, type) in types {
            #expect(name.hasPrefix("castscope_"))
            #expect((type == "counter") == name.hasSuffix("_total"), "\(name)")
        }
    }

    @Test func histogramsAreCumulativeAndEndAtTheCount() throws {
        let (samples, _, _) = Self.parse(
            MetricsExposition.render(Self.watch(now: Timestamp(seconds: 101, nanoseconds: 0)), version: "1"))
        let buckets = samples.filter { $0.name == "castscope_first_answer_seconds_bucket" }
        #expect(
            buckets.map { $0.labels["le"]! } == [
                "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf",
            ])
        // One answer 42 ms after the query: in every bucket from 0.05 up.
        #expect(buckets.map(\.value) == [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        #expect(samples.first { $0.name == "castscope_first_answer_seconds_count" }?.value == 1)
        let sum = try #require(samples.first { $0.name == "castscope_first_answer_seconds_sum" }?.value)
        #expect(abs(sum - 0.042) < 1e-9)
    }

    @Test func aDeviceIsDownOnceItsRecordsRanOut() {
        let later = Timestamp(seconds: 100 + 121, nanoseconds: 0)
        let (samples, _, _) = Self.parse(MetricsExposition.render(Self.watch(now: later), version: "1"))
        #expect(samples.first { $0.name == "castscope_devices_visible" }?.value == 0)
        #expect(samples.first { $0.name == "castscope_device_up" }?.value == 0)
    }

    @Test(arguments: [
        (1.0, "1"), (0.005, "0.005"), (90.5, "90.5"), (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"),
        (Double.nan, "NaN"), (0, "0"), (1e20, "1e+20"),
    ])
    func numbersAreWrittenAsGoReadsThem(value: Double, text: String) {
        #expect(ExpositionWriter.number(value) == text)
    }

    @Test func labelValuesEscapeOnlyWhatTheFormatSays() {
        #expect(ExpositionWriter.escapeLabel("a\\b\"c\nd\te") == "a\\\\b\\\"c\\nd\te")
        #expect(ExpositionWriter.escapeHelp("a\\b\"c\nd") == "a\\\\b\"c\\nd")
    }
}
