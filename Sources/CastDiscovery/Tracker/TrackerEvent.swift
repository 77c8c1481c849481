// The events live capture reports as they happen, and the device snapshot they carry.

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
    /// A client's TCP connection to a device's address and port came out: established (with
    /// `afterMs`, SYN → SYN-ACK), refused, unreachable, or timed out (no answer 3 s after the
    /// first SYN). `device` is the device advertising that address and port, when one does.
    case connection(
        client: IPAddress, address: IPAddress, port: UInt16, outcome: ConnectionOutcome, time: Timestamp,
        frame: FrameRef, afterMs: Double?, device: DeviceSnapshot?)

    /// When it happened.
    public var time: Timestamp {
        switch self {
        case .sessionStarted(_, let t, _, _), .deviceAppeared(_, let t, _, _, _), .deviceChanged(_, let t, _, _),
            .deviceLeft(_, let t, _), .deviceExpired(_, let t, _, _), .queryUnanswered(_, let t, _, _),
            .connection(_, _, _, _, let t, _, _, _):
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
        case .connection: return "connection"
        }
    }
}
