import Foundation
import PcapCapture
import Testing
import WireFormat

@testable import CastDiscovery

/// Live events, from real captures fed packet by packet as `castscope live` does.
@Suite("Tracker events (castscope live)")
struct TrackerEventTests {
    static func events(_ name: String, advanceTo extra: Int64 = 0) throws -> [TrackerEvent] {
        var options = AnalysisOptions()
        options.collectEvents = true
        var tracker = DiscoveryTracker(options: options)
        let file = try CaptureFile(path: DiagnosisSupport.path(name))
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        var events: [TrackerEvent] = []
        var last: Timestamp?
        file.forEachRecord { frame, header, bytes in
            if let p = decoder.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                tracker.ingest(p, capture: 0)
            }
            tracker.advance(to: header.timestamp)
            last = header.timestamp
            events += tracker.drainEvents()
        }
        if extra > 0, let last {
            tracker.advance(to: Timestamp(seconds: last.seconds, nanoseconds: Int64(last.nanoseconds) + extra))
            events += tracker.drainEvents()
        }
        _ = tracker.finish()
        events += tracker.drainEvents()
        return events
    }

    @Test("goodbye: session, the device appears with its first-answer delay, then leaves")
    func goodbye() throws {
        let e = try Self.events("goodbye.pcap")
        let names = e.map(\.name)
        let session = try #require(names.firstIndex(of: "sessionStarted"))
        let appeared = try #require(names.firstIndex(of: "deviceAppeared"))
        let left = try #require(names.firstIndex(of: "deviceLeft"))
        #expect(appeared < left)
        #expect(e.map(\.time) == e.map(\.time).sorted())
        guard case .deviceAppeared(let d, _, _, let client, let after) = e[appeared] else { return }
        #expect(
            d.friendlyName == "Living Room TV" && d.port == 8009 && d.addresses == [.v4(IPv4Address(192, 0, 2, 21))])
        // Announced before the client asked: appears without a client; the client's session
        // starts later.
        if appeared < session {
            #expect(client == nil && after == nil)
        } else {
            #expect(client == .v4(IPv4Address(192, 0, 2, 10)))
            #expect(after != nil)
        }
        guard case .deviceLeft(_, _, let frame) = e[left] else { return }
        #expect(frame.frame == 26)
    }

    @Test("healthy: the device appears as the answer to the client's session, 118.03 ms after it started")
    func healthy() throws {
        let e = try Self.events("healthy-ipv4.pcap")
        #expect(e.first?.name == "sessionStarted")
        let appeared = e.compactMap { ev -> (DeviceSnapshot, IPAddress?, Double?)? in
            if case .deviceAppeared(let d, _, _, let c, let a) = ev { return (d, c, a) }
            return nil
        }
        #expect(appeared.count == 1)
        #expect(appeared.first?.1 == .v4(IPv4Address(192, 0, 2, 10)))
        #expect(abs((appeared.first?.2 ?? -1) - 118.030638) < 0.001)
    }

    @Test("address change: deviceChanged names the old and new addresses")
    func addressChanged() throws {
        let e = try Self.events("address-changed.pcap")
        let changes = e.compactMap { ev -> [String]? in
            if case .deviceChanged(_, _, _, let c) = ev { return c }
            return nil
        }
        #expect(changes.flatMap { $0 }.contains { $0.contains("192.0.2.21") && $0.contains("192.0.2.31") })
    }

    @Test("own queries dropped: each unanswered query of the sender is an event")
    func unanswered() throws {
        let e = try Self.events("own-queries-dropped.pcap")
        let clients = e.compactMap { ev -> IPAddress? in
            if case .queryUnanswered(let c, _, _, let d) = ev, d.map(\.friendlyName) == ["Living Room TV"] { return c }
            return nil
        }
        #expect(clients == Array(repeating: .v4(IPv4Address(192, 0, 2, 10)), count: 3))
    }

    @Test("device expired: after its 10 s TTL with no refresh, an expiry event (no goodbye)")
    func expired() throws {
        let e = try Self.events("device-expired.pcap")
        #expect(e.contains { $0.name == "deviceExpired" })
        #expect(!e.contains { $0.name == "deviceLeft" })
        if case .deviceExpired(_, let t, let last, let ttl)? = e.first(where: { $0.name == "deviceExpired" }) {
            #expect(ttl == 10)
            #expect(t.nanoseconds(since: last) > 10_000_000_000)
        }
    }

    @Test("offline analysis collects no events (memory stays flat)")
    func offline() throws {
        var tracker = DiscoveryTracker()
        let file = try CaptureFile(path: DiagnosisSupport.path("goodbye.pcap"))
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        file.forEachRecord { frame, header, bytes in
            if let p = decoder.decode(
                frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            {
                tracker.ingest(p, capture: 0)
            }
        }
        #expect(tracker.drainEvents().isEmpty)
    }
}
