import CastDiscovery
import Testing
import WireFormat

@testable import CastDiscovery

// Floods whose cost is a product (issue 7): many clients × many devices, or one client asking
// for many names. Each table in between is bounded (sessions taking responses, client × device
// pairs, rows, findings per code), and membership tests stay linear (NameSet, NameMap).

@Suite("Floods of clients × devices and of names")
struct ProductFloodTests {
    static func query(_ names: [String]) -> DNSMessage {
        var q = DNSMessage()
        q.questions = names.map { DNSQuestion(name: DNSName($0), type: .ptr) }
        return q
    }

    static func client(_ i: Int) -> IPAddress { .v4(IPv4Address(192, 0, 2, UInt8(100 + i))) }

    @Test("clients × devices: sessions, pairs, rows and findings stay within their limits, and say so")
    func clientsTimesDevices() {
        var options = AnalysisOptions()
        options.capacity.sessions = 8
        options.capacity.pairs = 500
        options.capacity.rows = 100
        var tracker = DiscoveryTracker(options: options)
        var frame = 0
        for i in 0..<40 {
            frame += 1
            tracker.ingest(
                Flood.packet(frame, at: Double(i), from: Self.client(i), Self.query([Flood.castType.description])),
                capture: 0)
        }
        for i in 0..<200 {
            frame += 1
            tracker.ingest(
                Flood.packet(frame, at: 40 + Double(i) / 100, from: .v4(IPv4Address(192, 0, 2, 66)), Flood.fakePTR(i)),
                capture: 0)
        }
        frame += 1
        tracker.ingest(
            Flood.packet(frame, at: 45, from: .v4(IPv4Address(192, 0, 2, 50)), Flood.realDevice()), capture: 0)
        // Three clients go on querying: the per-query table stops at `rows` entries in all.
        for k in 0..<60 {
            for c in 37..<40 {
                frame += 1
                tracker.ingest(
                    Flood.packet(
                        frame, at: 46 + Double(k), from: Self.client(c), Self.query([Flood.castType.description])),
                    capture: 0)
            }
        }
        let report = Flood.report(&tracker, options)

        #expect(report.devices.contains { $0.id == "0a1b2c3d4e5f" })
        #expect(report.limitDrops.sessions == 32)  // 40 clients, 8 taking responses at once
        #expect(report.limitDrops.pairs > 0)
        #expect(report.latency.count <= 100 && report.responses.count <= 100)
        #expect(report.limitDrops.latencyRows > 0)
        #expect(report.queries.count == 100 && report.limitDrops.queries > 0)
        #expect(report.queries.allSatisfy { $0.missed.count <= QueryOutcome.maximumDevicesListed })
        var perCode: [FindingCode: Int] = [:]
        for f in report.findings { perCode[f.code, default: 0] += 1 }
        #expect(perCode.values.allSatisfy { $0 <= Diagnosis.maximumFindingsPerCode }, "\(perCode)")
        let limit = report.findings.first { $0.code == .limitReached }
        for flag in ["--max-sessions", "--max-pairs", "--max-rows"] {
            #expect(limit?.detail.contains(flag) == true, "\(flag) in \(limit?.detail ?? "no LIMIT_REACHED")")
        }
        // The clients that queried last are the ones whose sessions took the answers.
        let answeredClients = Set(report.latency.filter { $0.firstAnswerMs != nil }.map(\.client))
        #expect(!answeredClients.isEmpty)
        #expect(answeredClients.allSatisfy { c in (32..<40).contains { Self.client($0) == c } }, "\(answeredClients)")
    }

    @Test("one client asking 40 app-ID subtypes: the answered one is found among them")
    func manyNames() {
        let apps = (0..<40).map { String(format: "%08X", 0xA000 + $0) }
        var tracker = DiscoveryTracker()
        let names = apps.map { "_\($0)._sub._googlecast._tcp.local" }
        tracker.ingest(Flood.packet(1, at: 0, from: Self.client(1), Self.query(names)), capture: 0)
        // A device answers the 35th subtype within the window.
        var answer = Flood.realDevice()
        answer.answers[0].name = DNSName(names[34])
        tracker.ingest(Flood.packet(2, at: 0.1, from: .v4(IPv4Address(192, 0, 2, 50)), answer), capture: 0)
        let report = Flood.report(&tracker, AnalysisOptions())
        let c = report.clients.first
        #expect(c?.appIDsQueried.count == 40)
        #expect(c?.appIDsAnswered == [apps[34]])
        #expect(report.queries.first?.answered.map(\.deviceID) == ["0a1b2c3d4e5f"])
    }

    @Test("one device announced from 200 source addresses with 200 address records keeps 64 of each")
    func manyAddresses() {
        var tracker = DiscoveryTracker()
        for i in 1...200 {
            var m = Flood.realDevice()
            m.additionals[2].data = .a(IPv4Address(192, 0, 2, UInt8(i)))
            tracker.ingest(Flood.packet(i, at: Double(i), from: .v4(IPv4Address(192, 0, 2, UInt8(i))), m), capture: 0)
        }
        let report = Flood.report(&tracker, AnalysisOptions())
        let d = report.devices.first { $0.id == "0a1b2c3d4e5f" }
        #expect(d?.addresses.count == TrackerLimits.maximumAddressesKept)
        #expect(d?.sourceFrames.count == TrackerLimits.maximumAddressesKept)
        #expect(d?.sources.count == TrackerLimits.maximumAddressesKept)
    }

    @Test("NameSet and NameMap answer the same past the switch to hashing, and keep their budget")
    func nameSetAndMap() {
        var set = NameSet()
        var map = NameMap<Int>()
        var budget = 50
        for i in 0..<100 {
            let inserted = set.insert(NameID(raw: Int32(i)))
            #expect(inserted)
            map.modify(NameID(raw: Int32(i)), budget: &budget, default: { 0 }) { $0 += i }
        }
        let again = set.insert(NameID(raw: 7))
        #expect(!again)
        #expect(set.count == 100 && set.members == (0..<100).map { NameID(raw: Int32($0)) })
        #expect((0..<100).allSatisfy { set.contains(NameID(raw: Int32($0))) } && !set.contains(NameID(raw: 100)))
        // Only 50 entries fit the budget; existing ones can still be changed with none left.
        #expect(budget == 0 && map.count == 50)
        #expect(map[NameID(raw: 49)] == 49 && map[NameID(raw: 50)] == nil)
        let changed = map.modify(NameID(raw: 3), budget: &budget, default: { 0 }) { $0 += 1 }
        let added = map.modify(NameID(raw: 60), budget: &budget, default: { 0 }) { $0 += 1 }
        #expect(changed && !added)
        #expect(map[NameID(raw: 3)] == 4)
    }
}
