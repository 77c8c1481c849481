// Events (live capture): draining them, moving the clock without a packet (expiry, closing
// queries), and the appeared / changed / left events a response causes.

import WireFormat

extension DiscoveryTracker {
    /// Takes the events collected since the last call (only when
    /// ``AnalysisOptions/collectEvents`` is on).
    public mutating func drainEvents() -> [TrackerEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Moves the clock to `now` without a packet: closes queries whose answer window has
    /// passed and expires devices whose records ran out. Called by live capture between packets.
    public mutating func advance(to now: Timestamp) {
        for index in clients.indices where pendingSince[index] != nil { closeExpiredQuery(index, now: now) }
        guard options.collectEvents else { return }
        reportTimedOutConnections(now: now)
        for slot in instances.indices {
            let i = instances[slot]
            guard i.announced, !i.expired, i.leftAt == nil, let ttl = shortestTTL(i),
                now.nanoseconds(since: i.lastSeen) > Int64(ttl) * 1_000_000_000
            else { continue }
            instances[slot].expired = true
            instances[slot].announced = false
            events.append(.deviceExpired(snapshot(i.key), time: now, lastSeen: i.lastSeen, ttl: ttl))
        }
    }

    /// The shortest non-zero TTL among an instance's records and its host's address records.
    func shortestTTL(_ i: InstanceState) -> UInt32? {
        var all = i.ptrTTLs + i.srvTTLs + i.txtTTLs
        if let h = i.srvHost.flatMap({ host($0) }) { all += h.aTTLs + h.aaaaTTLs }
        return all.filter { $0 > 0 }.min()
    }

    func snapshot(_ key: NameID) -> DeviceSnapshot {
        let i = instance(key)!
        let caps = i.txt?.capabilityBits.map(CastCapabilities.init(rawValue:))
        return DeviceSnapshot(
            id: i.txt?.id.flatMap { $0.isEmpty ? nil : $0 } ?? i.label, instance: i.label,
            friendlyName: i.txt?.friendlyName, model: i.txt?.model,
            kind: DeviceKind(capabilities: caps, model: i.txt?.model), status: i.txt?.statusText,
            runningApp: i.txt?.runningApp, addresses: i.srvHost.flatMap { host($0)?.addresses } ?? [],
            port: i.srvPort.map(Int.init))
    }

    /// After a response: appeared / changed / left events for the instances it touched.
    mutating func emitDeviceEvents(touched: [NameID], hostsTouched: [NameID], time: Timestamp, frame: FrameRef) {
        guard options.collectEvents else { return }
        for slot in instances.indices {
            let i = instances[slot]
            let key = i.key
            guard touched.contains(key) || i.srvHost.map({ hostsTouched.contains($0) }) == true else { continue }
            if i.leftAt != nil {
                if i.announced || !i.leftReported {
                    instances[slot].announced = false
                    instances[slot].leftReported = true
                    events.append(.deviceLeft(snapshot(key), time: time, frame: frame))
                }
                continue
            }
            instances[slot].leftReported = false
            instances[slot].expired = false
            let now = snapshot(key)
            let complete = i.txt != nil && i.srvTarget != nil && !now.addresses.isEmpty
            guard complete else { continue }
            if !i.announced {
                instances[slot].announced = true
                instances[slot].lastSnapshot = now
                var seenBy: (IPAddress, Double)?
                for c in clients {
                    guard let s = c.current, let a = s.progress(key)?.firstAnswer else { continue }
                    seenBy = (c.address, Double(a.time.nanoseconds(since: s.start)) / 1e6)
                    break
                }
                events.append(
                    .deviceAppeared(now, time: time, frame: frame, client: seenBy?.0, afterMs: seenBy?.1))
            } else if let before = i.lastSnapshot, before != now {
                instances[slot].lastSnapshot = now
                var changes: [String] = []
                func diff(_ label: String, _ a: String?, _ b: String?) {
                    if a != b {
                        changes.append("\(label) \(a.map { "\"\($0)\"" } ?? "-") → \(b.map { "\"\($0)\"" } ?? "-")")
                    }
                }
                diff("name", before.friendlyName, now.friendlyName)
                diff("model", before.model, now.model)
                diff("status", before.status, now.status)
                diff("app", before.runningApp, now.runningApp)
                diff("port", before.port.map(String.init), now.port.map(String.init))
                diff(
                    "addresses", before.addresses.map(\.description).joined(separator: ","),
                    now.addresses.map(\.description).joined(separator: ","))
                if !changes.isEmpty { events.append(.deviceChanged(now, time: time, frame: frame, changes: changes)) }
            }
        }
    }
}
