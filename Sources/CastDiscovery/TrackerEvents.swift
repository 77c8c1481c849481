import WireFormat

/// A device as an event shows it.
public struct DeviceSnapshot: Hashable, Sendable {
    public var id: String
    public var instance: String
    public var friendlyName: String?
    public var model: String?
    public var kind: DeviceKind
    public var status: String?
    public var runningApp: String?
    public var addresses: [IPAddress]
    public var port: Int?

    /// The friendly name, else the instance.
    public var name: String { friendlyName ?? instance }
}

/// Something that happened, reported as it happens by `castscope live`.
public enum TrackerEvent: Hashable, Sendable {
    /// A client started a discovery session (its first Cast query after the session gap).
    case sessionStarted(client: IPAddress, time: Timestamp, frame: FrameRef, names: [String])
    /// A device became fully known (TXT, SRV and an address); `client` is the client whose
    /// session got the first answer, `afterMs` how long after its session started.
    case deviceAppeared(DeviceSnapshot, time: Timestamp, frame: FrameRef, client: IPAddress?, afterMs: Double?)
    /// Its TXT, status, port or addresses changed (`changes` says what, `old → new`).
    case deviceChanged(DeviceSnapshot, time: Timestamp, frame: FrameRef, changes: [String])
    /// It sent a goodbye.
    case deviceLeft(DeviceSnapshot, time: Timestamp, frame: FrameRef)
    /// Its records expired: no refresh within its shortest TTL after it was last heard.
    case deviceExpired(DeviceSnapshot, time: Timestamp, lastSeen: Timestamp, ttl: UInt32)
    /// A client's query got no answer from devices that should have answered, within the
    /// response window.
    case queryUnanswered(client: IPAddress, time: Timestamp, frame: FrameRef, devices: [DeviceSnapshot])

    /// When it happened.
    public var time: Timestamp {
        switch self {
        case .sessionStarted(_, let t, _, _), .deviceAppeared(_, let t, _, _, _), .deviceChanged(_, let t, _, _),
            .deviceLeft(_, let t, _), .deviceExpired(_, let t, _, _), .queryUnanswered(_, let t, _, _):
            return t
        }
    }

    /// The event's name in JSON lines.
    public var name: String {
        switch self {
        case .sessionStarted: return "sessionStarted"
        case .deviceAppeared: return "deviceAppeared"
        case .deviceChanged: return "deviceChanged"
        case .deviceLeft: return "deviceLeft"
        case .deviceExpired: return "deviceExpired"
        case .queryUnanswered: return "queryUnanswered"
        }
    }
}

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
        for address in clientOrder where pendingSince[address] != nil { closeExpiredQuery(address, now: now) }
        guard options.collectEvents else { return }
        for key in instanceOrder {
            let i = instances[key]!
            guard i.announced, !i.expired, i.leftAt == nil, let ttl = Self.shortestTTL(i, hosts: addressTTLs),
                now.nanoseconds(since: i.lastSeen) > Int64(ttl) * 1_000_000_000
            else { continue }
            instances[key]!.expired = true
            instances[key]!.announced = false
            events.append(.deviceExpired(snapshot(key), time: now, lastSeen: i.lastSeen, ttl: ttl))
        }
    }

    static func shortestTTL(_ i: InstanceState, hosts: [NameKey: [String: Set<UInt32>]]) -> UInt32? {
        var all = i.ttls.values.flatMap { $0 }
        if let target = i.srvTarget, let h = hosts[NameKey(target)] { all += h.values.flatMap { $0 } }
        return all.filter { $0 > 0 }.min()
    }

    func snapshot(_ key: NameKey) -> DeviceSnapshot {
        let i = instances[key]!
        let caps = i.txt?.capabilityBits.map(CastCapabilities.init(rawValue:))
        return DeviceSnapshot(
            id: i.txt?.id.flatMap { $0.isEmpty ? nil : $0 } ?? i.label, instance: i.label,
            friendlyName: i.txt?.friendlyName, model: i.txt?.model,
            kind: DeviceKind(capabilities: caps, model: i.txt?.model), status: i.txt?.statusText,
            runningApp: i.txt?.runningApp, addresses: i.srvTarget.flatMap { hosts[NameKey($0)]?.addresses } ?? [],
            port: i.srvPort.map(Int.init))
    }

    /// After a response: appeared / changed / left events for the instances it touched.
    mutating func emitDeviceEvents(touched: Set<NameKey>, hostsTouched: Set<NameKey>, time: Timestamp, frame: FrameRef)
    {
        guard options.collectEvents else { return }
        for key in instanceOrder {
            let i = instances[key]!
            guard touched.contains(key) || i.srvTarget.map({ hostsTouched.contains(NameKey($0)) }) == true else {
                continue
            }
            if i.leftAt != nil {
                if i.announced || !i.leftReported {
                    instances[key]!.announced = false
                    instances[key]!.leftReported = true
                    events.append(.deviceLeft(snapshot(key), time: time, frame: frame))
                }
                continue
            }
            instances[key]!.leftReported = false
            instances[key]!.expired = false
            let now = snapshot(key)
            let complete = i.txt != nil && i.srvTarget != nil && !now.addresses.isEmpty
            guard complete else { continue }
            if !i.announced {
                instances[key]!.announced = true
                instances[key]!.lastSnapshot = now
                var seenBy: (IPAddress, Double)?
                for address in clientOrder {
                    guard let s = clients[address]!.current, let a = s.progress[key]?.firstAnswer else { continue }
                    seenBy = (address, Double(a.time.nanoseconds(since: s.start)) / 1e6)
                    break
                }
                events.append(
                    .deviceAppeared(now, time: time, frame: frame, client: seenBy?.0, afterMs: seenBy?.1))
            } else if let before = i.lastSnapshot, before != now {
                instances[key]!.lastSnapshot = now
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
