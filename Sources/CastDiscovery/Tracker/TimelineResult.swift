// What the tracker hands over at the end of a timeline: devices not yet merged across timelines,
// clients, latency, response and per-query rows, evidence, and what limits dropped.

import WireFormat

/// What one timeline (one capture, or several merged) showed, before devices are merged by id
/// across timelines.
public struct TimelineResult: Sendable {
    struct DevicePart {
        var id: String
        var instances: [String]
        var txt: CastTXT?
        var host: String?
        var port: Int?
        var addresses: [IPAddress]
        var appIDs: Set<String>
        var browseNames: Set<String>
        var firstSeen: Timestamp
        var lastSeen: Timestamp
        var firstFrame: FrameRef
        var lastFrame: FrameRef
        var leftAt: Timestamp?
        var leftFrame: FrameRef?
        var ttls: [String: Set<UInt32>]
        var sources: Set<IPAddress>
        var addressFrames: [(address: IPAddress, frame: FrameRef)]
        var sourceFrames: [(address: IPAddress, frame: FrameRef)]
        var senders: [RecordSender] = []
        var vlans: [UInt16] = []
        var lastMulticast: (time: Timestamp, frame: FrameRef)?
        /// When each of its instance names was alive (every instance of every timeline).
        var instanceSpans: [InstanceSpan] = []
    }

    struct ClientPart {
        var client: Client
        var intervalCount: Int
    }

    struct ResponsePart {
        var client: IPAddress
        var deviceID: String
        var counter: DiscoveryTracker.ResponseCounter
    }

    var devices: [DevicePart]
    var dial: [DIALInfo]
    /// The tracker's key of each DIAL device (parallel to `dial`).
    var dialKeys: [String]
    /// DIAL latency rows, the device named by its DIAL key.
    var dialLatency: [LatencyRow]
    var clients: [ClientPart]
    var latency: [LatencyRow]
    var responses: [ResponsePart]
    var queries: [QueryOutcome]
    var malformed: [(frame: FrameRef, reason: String)]
    var malformedCount: Int
    var reflected: [FrameRef]
    var reflectedCount: Int
    var reflectedTTLs: Set<UInt8>
    /// The IPv4 sources each link address sent mDNS from.
    var linkSources: [MACAddress: [IPAddress]] = [:]
    /// What was dropped to stay within the tracker's capacity.
    var drops = LimitDrops()
    /// Searchers `--client` left out (the first few).
    var clientsLeftOut: [IPAddress] = []
    /// The connection phase: TCP attempts to Cast ports, how many were not kept, ICMP port
    /// unreachables for discovery datagrams (the first few, and how many), and whether any
    /// packet of the connection phase was seen.
    var connections: [ConnectionAttempt] = []
    var connectionsDropped = 0
    var discoveryPortUnreachable: [DiscoveryPortUnreachable] = []
    var discoveryPortUnreachableCount = 0
    var sawConnectionPhase = false
}

extension TimelineResult.DevicePart {
    /// Merges another instance (or another timeline's view) of the same device.
    mutating func absorb(_ other: TimelineResult.DevicePart) {
        for i in other.instances where !instances.contains(i) { instances.append(i) }
        if txt == nil || (other.lastSeen > lastSeen && other.txt != nil) { txt = other.txt ?? txt }
        if host == nil || other.lastSeen > lastSeen, other.host != nil {
            host = other.host
            port = other.port
        }
        for a in other.addresses where !addresses.contains(a) { addresses.append(a) }
        appIDs.formUnion(other.appIDs)
        browseNames.formUnion(other.browseNames)
        if other.firstSeen < firstSeen {
            firstSeen = other.firstSeen
            firstFrame = other.firstFrame
        }
        for (a, f) in other.addressFrames where !addressFrames.contains(where: { $0.address == a }) {
            addressFrames.append((a, f))
        }
        for (a, f) in other.sourceFrames where !sourceFrames.contains(where: { $0.address == a }) {
            sourceFrames.append((a, f))
        }
        if other.lastSeen > lastSeen {
            lastSeen = other.lastSeen
            lastFrame = other.lastFrame
            leftAt = other.leftAt
            leftFrame = other.leftFrame
        } else if leftAt == nil, other.leftAt != nil, other.lastSeen == lastSeen {
            leftAt = other.leftAt
            leftFrame = other.leftFrame
        }
        for (type, values) in other.ttls { ttls[type, default: []].formUnion(values) }
        sources.formUnion(other.sources)
        senders.absorb(other.senders)
        for v in other.vlans where !vlans.contains(v) { vlans.append(v) }
        if let m = other.lastMulticast, lastMulticast.map({ m.time > $0.time }) ?? true { lastMulticast = m }
        instanceSpans += other.instanceSpans
    }
}
