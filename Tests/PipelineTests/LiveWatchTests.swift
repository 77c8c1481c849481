import CastDiscovery
import Foundation
import PcapCapture
import Testing
import WireFormat

@testable import Pipeline

// `live --metrics` over many analysis windows, without an interface: a bundled capture replayed
// several times, shifted in time, through the live ingest and its two trackers, with the clock
// the packets give. The counters must add up to what `analyze` counts in one capture times the
// replays, findings must clear once their cause is older than a window, devices must go at
// their TTL and leave after --metrics-forget.

@Suite struct LiveWatchTests {
    typealias S = PipelineSupport

    struct Frame {
        var time: Timestamp
        var bytes: [UInt8]
        var originalLength: Int
    }

    static func frames(_ name: String) throws -> (LinkType, String, [Frame]) {
        let file = try CaptureFile(path: S.path(name))
        var out: [Frame] = []
        file.forEachRecord { _, header, bytes in
            out.append(Frame(time: header.timestamp, bytes: Array(bytes), originalLength: header.originalLength))
        }
        return (file.linkType, file.linkTypeName, out)
    }

    static func options(gap: Double) -> AnalysisOptions {
        var o = AnalysisOptions()
        o.sessionGapNanoseconds = Int64(gap * 1e9)
        o.collectEvents = true
        return o
    }

    static func at(_ t: Timestamp, plus seconds: Double) -> Timestamp {
        Timestamp(seconds: t.seconds, nanoseconds: Int64(t.nanoseconds) + Int64(seconds * 1e9))
    }

    /// Feeds `name` `times` times, `period` seconds apart, ticking the watch at every packet.
    static func replay(
        _ name: String, times: Int, period: Double, window: Double, gap: Double,
        settings: DiscoveryWatch.Settings = DiscoveryWatch.Settings()
    ) throws -> (watch: LiveWatch, ingest: LiveIngest, end: Timestamp) {
        let (linkType, linkName, frames) = try Self.frames(name)
        let start = try #require(frames.first).time
        var ingest = LiveIngest(linkTypes: [linkType], analysis: options(gap: gap), writer: nil)
        var s = settings
        s.sessionGapSeconds = gap
        var watch = LiveWatch(windowSeconds: window, settings: s, linkTypeName: linkName, now: start)
        var last = start
        for k in 0..<times {
            for f in frames {
                let t = at(f.time, plus: Double(k) * period)
                f.bytes.withUnsafeBytes { ingest.ingest(0, timestamp: t, bytes: $0, originalLength: f.originalLength) }
                let events = ingest.tracker.drainEvents()
                _ = ingest.younger?.drainEvents()
                watch.tick(&ingest, events: events, now: t, dropped: (0, 0))
                last = t
            }
        }
        return (watch, ingest, last)
    }

    /// Moves the clock on without packets, ticking once a second.
    static func idle(_ w: inout LiveWatch, _ ingest: inout LiveIngest, from t: Timestamp, seconds: Int) -> Timestamp {
        var now = t
        for _ in 0..<seconds {
            now = at(now, plus: 1)
            ingest.advance(to: now)
            let events = ingest.tracker.drainEvents()
            _ = ingest.younger?.drainEvents()
            w.tick(&ingest, events: events, now: now, dropped: (0, 0))
        }
        return now
    }

    static func analyze(_ name: String, gap: Double) throws -> AnalysisReport {
        var o = AnalysisRun.Options(files: [S.path(name)])
        o.analysis.sessionGapNanoseconds = Int64(gap * 1e9)
        return try #require(S.run(o).0)
    }

    @Test(arguments: [
        "healthy-ipv4.pcap", "multi-device.pcap", "query-storm.pcap", "probe-group.pcap", "ipv6.pcap",
        "own-queries-dropped.pcap", "app-id-unanswered.pcap", "device-expired.pcap",
    ])
    func countersAddUpOverManyWindows(name: String) throws {
        let gap = 5.0
        let one = try Self.analyze(name, gap: gap)
        let times = 9
        // 9 replays 20 s apart with a 30 s window: the trackers take over from each other 11 times.
        var (w, ingest, end) = try Self.replay(name, times: times, period: 20, window: 30, gap: gap)
        let m = w.metrics(ingest, now: Self.at(end, plus: 0.5), dropped: (0, 0))
        let queries = one.clients.map(\.queries).reduce(0, +)
        #expect(queries > 0)
        #expect(m.watch.queries == times * queries)
        #expect(m.watch.clients.values.map(\.queries).reduce(0, +) == times * queries)
        // Series are per address; a host's addresses (analyze joins them) add up to its count.
        for c in one.clients where c.queries > 0 {
            let perAddress = m.watch.clients.values.filter { c.allAddresses.contains($0.address) }
            #expect(perAddress.map(\.queries).reduce(0, +) == times * c.queries, "\(c.address)")
        }
        // Unanswered queries are filed under the same hosts as the queries (an event names the
        // query's source address, a report the host's primary one).
        #expect(m.watch.clients.values.map(\.unanswered).reduce(0, +) == m.watch.unanswered)
        let addresses = Set(one.clients.flatMap(\.allAddresses))
        #expect(m.watch.clients.values.allSatisfy { addresses.contains($0.address) })
        #expect(m.packetsRead == times * (try Self.frames(name)).2.count)
        // Every session after the first replay's opening one is counted once: the first
        // replay's sessions that began within a session gap of the start are not known to be
        // starts (the watch came up in the middle of something).
        let start = try #require(one.captures.first?.start)
        for d in one.devices where d.via.contains("mdns") {
            let rows = one.latency.filter { $0.deviceID == d.id && $0.via == .mdns }
            let first = rows.filter { $0.firstAnswerMs != nil }
            let firstInFirst = first.filter { $0.sessionStart.seconds(since: start) >= gap }
            let counted = try #require(m.watch.devices[d.id]).firstAnswer.count
            #expect(counted == (times - 1) * first.count + firstInFirst.count, "\(d.id)")
            let resolved = rows.filter { $0.resolvedMs != nil }
            let resolvedInFirst = resolved.filter { $0.sessionStart.seconds(since: start) >= gap }
            #expect(
                m.watch.devices[d.id]!.resolution.count == (times - 1) * resolved.count + resolvedInFirst.count)
        }
    }

    @Test func findingsClearAndDevicesGoAndAreForgotten() throws {
        var settings = DiscoveryWatch.Settings()
        settings.forgetSeconds = 300
        var (w, ingest, end) = try Self.replay(
            "query-storm.pcap", times: 2, period: 20, window: 30, gap: 5, settings: settings)
        var m = w.metrics(ingest, now: end, dropped: (0, 0))
        let active = Set(m.watch.findings.values.filter(\.isActive).map(\.code))
        #expect(active.contains(.queryStorm))
        let device = try #require(m.watch.devices.values.first)
        #expect(device.isUp(at: end))
        #expect(m.watch.devicesVisible(at: end) == 1)
        #expect(m.watch.clientsActive == 1)

        // A whole window of silence later the storm is over, and the device's records ran out.
        var now = Self.idle(&w, &ingest, from: end, seconds: 31)
        m = w.metrics(ingest, now: now, dropped: (0, 0))
        let storm = try #require(m.watch.findings.values.first { $0.code == .queryStorm })
        #expect(!storm.isActive)
        #expect(m.watch.devicesVisible(at: now) == 0 || now.seconds(since: device.lastHeard) < Double(device.ttl))
        #expect(m.watch.clientsActive == 0)
        now = Self.at(device.lastHeard, plus: Double(device.ttl) + 1)
        m = w.metrics(ingest, now: now, dropped: (0, 0))
        #expect(m.watch.devices[device.id]?.isUp(at: now) == false)
        #expect(m.watch.devicesVisible(at: now) == 0)

        // After --metrics-forget, gone from the exposition; the totals stay.
        let queries = m.watch.queries
        now = Self.at(now, plus: 301)
        m = w.metrics(ingest, now: now, dropped: (0, 0))
        #expect(m.watch.devices.isEmpty)
        #expect(m.watch.clients.isEmpty)
        #expect(m.watch.findings.values.allSatisfy { $0.code != .queryStorm })
        #expect(m.watch.queries == queries)
    }

    @Test func aGoodbyeTakesTheDeviceDownAtOnce() throws {
        // goodbye.pcap: the device answers, then says goodbye a second before the end.
        var (w, ingest, end) = try Self.replay("goodbye.pcap", times: 1, period: 20, window: 30, gap: 5)
        let m = w.metrics(ingest, now: end, dropped: (0, 0))
        let d = try #require(m.watch.devices.values.first)
        #expect(d.leftAt != nil)
        #expect(end.seconds(since: d.lastHeard) < Double(d.ttl))
        #expect(!d.isUp(at: end))
        #expect(m.watch.devicesVisible(at: end) == 0)
    }

    @Test func seriesStayWithinTheLimitsAndTheDropsAreCounted() throws {
        var settings = DiscoveryWatch.Settings()
        settings.maximumClients = 1
        settings.maximumDevices = 1
        let one = try Self.analyze("multi-device.pcap", gap: 5)
        #expect(one.devices.count > 1)
        var (w, ingest, end) = try Self.replay(
            "multi-device.pcap", times: 3, period: 20, window: 30, gap: 5, settings: settings)
        let m = w.metrics(ingest, now: end, dropped: (0, 0))
        #expect(m.watch.devices.count == 1)
        #expect(m.watch.clients.count <= 1)
        #expect((m.watch.seriesDropped[.device] ?? 0) > 0)
        // The totals count every client, kept or not.
        #expect(m.watch.queries == 3 * one.clients.map(\.queries).reduce(0, +))
    }

    @Test func eachTrackerSeesAtMostAWindowOfTraffic() throws {
        let (w, ingest, end) = try Self.replay("healthy-ipv4.pcap", times: 12, period: 20, window: 30, gap: 5)
        // The live analysis is of the current window only: between half a window and a window.
        let age = end.seconds(since: w.current.start)
        #expect(age >= 15 && age <= 30, "\(age)")
        #expect(ingest.younger != nil)
        let next = try #require(w.next)
        #expect(end.seconds(since: next.start) < 15)
    }
}
