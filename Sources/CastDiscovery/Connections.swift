// The connection phase in the report: the tracker's TCP attempts joined to the devices whose
// advertised address and port they went to, per client host, with the time from the client's
// discovery of the device (issue 15, JSON `connections`).

import WireFormat

/// A client's connections to one device at one address and port: how many attempts, how they
/// came out, and the times that matter.
public struct Connection: Hashable, Sendable {
    /// The client host (its primary address).
    public var client: IPAddress
    public var deviceID: String
    public var address: IPAddress
    public var port: Int
    /// Established when any attempt was; else the last attempt's outcome.
    public var outcome: ConnectionOutcome
    /// TCP connections tried (each with its SYN and retransmissions).
    public var attempts: Int
    /// SYNs sent in all, retransmissions included.
    public var syns: Int
    /// The first SYN of the first attempt.
    public var firstAttempt: TimedFrame?
    /// SYN frames (the first few of each attempt).
    public var synFrames: [FrameRef] = []
    /// What answered: the SYN-ACK, the RST or the ICMP unreachable of the attempt the outcome
    /// comes from.
    public var answer: TimedFrame?
    /// For `unreachable`: the ICMP's reason (`port unreachable`, `administratively prohibited`).
    public var unreachableReason: String?
    /// First SYN → SYN-ACK of the first established attempt.
    public var connectMs: Double?
    /// ClientHello → ServerHello on it.
    public var tlsMs: Double?
    /// Its ClientHello (present: the client started TLS) and ServerHello.
    public var clientHello: TimedFrame?
    public var serverHello: TimedFrame?
    /// The first FIN or RST after it was established.
    public var closed: TimedFrame?
    /// The client's discovery of the device (its last resolution before the first SYN) → the
    /// first SYN; `nil` when the capture does not show the client resolving it first.
    public var fromDiscoveryMs: Double?
    /// The session start → the first SYN.
    public var fromSessionStartMs: Double?
    /// The timeline the attempts were in: captures analysed each on its own (not merged) get
    /// rows of their own, so that one capture's success does not hide another's failure.
    public var timeline = 0

    /// `192.0.2.21:8009`, `[2001:db8::21]:8009`.
    public var endpoint: String { address.isIPv4 ? "\(address):\(port)" : "[\(address)]:\(port)" }

    /// Whether the TLS handshake started and no ServerHello followed.
    public var tlsStalled: Bool { outcome == .established && clientHello != nil && serverHello == nil }
}

extension AnalysisReport {
    /// The connection rows: each attempt to an address a device advertised, on the device's
    /// SRV port or a Cast port (8008, 8009, 8443), grouped by client host, device, address and
    /// port; then, when the captures hold the connection phase at all, a `notAttempted` row
    /// for each device a client resolved and never connected to.
    static func connectionRows(
        _ timelines: [TimelineResult], devices: [Device], clients: [Client], latency: [LatencyRow],
        primary: [IPAddress: IPAddress], captureEnds: [Timestamp?], merged: Bool
    ) -> [Connection] {
        var deviceAt: [IPAddress: [Int]] = [:]
        for (i, d) in devices.enumerated() {
            for a in d.addresses where !(deviceAt[a]?.contains(i) ?? false) { deviceAt[a, default: []].append(i) }
        }
        struct RowKey: Hashable {
            var client: IPAddress
            var deviceID: String
            var address: IPAddress
            var port: UInt16
            var timeline: Int
        }
        var groups: [RowKey: [ConnectionAttempt]] = [:]
        var order: [RowKey] = []
        for (t, timeline) in timelines.enumerated() {
            for a in timeline.connections {
                // The device whose SRV names this port (a speaker and the group it leads share an
                // address); else, on a Cast port, the first device at the address.
                let candidates = deviceAt[a.server] ?? []
                guard
                    let i = candidates.first(where: { devices[$0].port == Int(a.serverPort) })
                        ?? (DiscoveryTracker.castPorts.contains(a.serverPort) ? candidates.first : nil)
                else { continue }
                let key = RowKey(
                    client: primary[a.client] ?? hostOfMAC(a, clients) ?? a.client, deviceID: devices[i].id,
                    address: a.server, port: a.serverPort, timeline: t)
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(a)
            }
        }
        // When each client resolved each device over mDNS (session start + resolution), or had
        // its DIAL answer.
        var resolvedAt: [String: [(time: Timestamp, start: Timestamp)]] = [:]
        for row in latency {
            guard let ms = row.resolvedMs ?? row.firstAnswerMs else { continue }
            let time = Timestamp(
                seconds: row.sessionStart.seconds, nanoseconds: Int64(row.sessionStart.nanoseconds) + Int64(ms * 1e6))
            resolvedAt["\(row.client) \(row.deviceID)", default: []].append((time, row.sessionStart))
        }
        let zero = Timestamp(seconds: 0, nanoseconds: 0)
        let lastEnd = captureEnds.compactMap { $0 }.max() ?? zero
        var rows: [Connection] = []
        for key in order {
            let attempts = groups[key]!.sorted { $0.firstSYN < $1.firstSYN }
            // The end of the capture the attempts are in (of all of them, merged).
            let capture = attempts[0].synFrames[0].capture
            let end = merged || capture >= captureEnds.count ? lastEnd : captureEnds[capture] ?? lastEnd
            let outcomes = attempts.map { $0.outcome(captureEnd: end) }
            let chosen = outcomes.firstIndex(of: .established) ?? attempts.count - 1
            let a = attempts[chosen]
            let first = attempts[0]
            var row = Connection(
                client: key.client, deviceID: key.deviceID, address: key.address, port: Int(key.port),
                outcome: outcomes[chosen], attempts: attempts.count, syns: attempts.reduce(0) { $0 + $1.syns },
                firstAttempt: TimedFrame(time: first.firstSYN, frame: first.synFrames[0]))
            row.synFrames = Array(attempts.flatMap(\.synFrames).prefix(Finding.maximumFrames))
            row.answer = a.synAck ?? a.reset ?? a.unreachable
            row.unreachableReason = a.synAck == nil && a.reset == nil ? a.unreachableReason : nil
            if let synAck = a.synAck { row.connectMs = Double(synAck.time.nanoseconds(since: a.firstSYN)) / 1e6 }
            row.clientHello = a.clientHello
            row.serverHello = a.serverHello
            if let hello = a.clientHello, let reply = a.serverHello {
                row.tlsMs = Double(reply.time.nanoseconds(since: hello.time)) / 1e6
            }
            row.closed = a.closed
            row.timeline = key.timeline
            if let found = resolvedAt["\(key.client) \(key.deviceID)"]?.filter({ $0.time <= first.firstSYN })
                .max(by: { $0.time < $1.time })
            {
                row.fromDiscoveryMs = Double(first.firstSYN.nanoseconds(since: found.time)) / 1e6
                row.fromSessionStartMs = Double(first.firstSYN.nanoseconds(since: found.start)) / 1e6
            }
            rows.append(row)
        }
        guard timelines.contains(where: \.sawConnectionPhase) else { return rows }
        // Devices a client resolved and never tried: one row per device, at its first address
        // (IPv4 first, as Chrome connects) and SRV port.
        let tried = Set(rows.map { "\($0.client) \($0.deviceID)" })
        var seen: Set<String> = []
        let byID = Dictionary(devices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for row in latency where row.via == .mdns && row.resolvedMs != nil {
            let pair = "\(row.client) \(row.deviceID)"
            guard !tried.contains(pair), seen.insert(pair).inserted, let device = byID[row.deviceID],
                let address = device.addresses.first(where: \.isIPv4) ?? device.addresses.first
            else { continue }
            rows.append(
                Connection(
                    client: row.client, deviceID: row.deviceID, address: address, port: device.port ?? 8009,
                    outcome: .notAttempted, attempts: 0, syns: 0))
        }
        return rows
    }
}

extension AnalysisReport {
    /// The host a connection from an address that never queried belongs to: the client host
    /// whose addresses share the SYN's MAC, when the connection's address is of a kind the host
    /// has none of (its global IPv6 address beside the link-local one it queried from). A MAC
    /// behind which several hosts' addresses of one kind appear (a router) joins nothing, as in
    /// ``HostGrouping``.
    static func hostOfMAC(_ a: ConnectionAttempt, _ clients: [Client]) -> IPAddress? {
        guard let mac = a.clientMAC, !mac.isMulticast else { return nil }
        let hosts = clients.filter { $0.mac == mac }
        guard hosts.count == 1, let host = hosts.first else { return nil }
        let addresses = host.addresses.isEmpty ? [host.address] : host.addresses
        guard HostGrouping.oneHost(addresses + [a.client]) else { return nil }
        return host.address
    }
}
