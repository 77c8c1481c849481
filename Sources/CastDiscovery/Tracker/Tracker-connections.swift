// The connection phase (issue 15): TCP connections from clients to the ports Cast devices listen
// on, what came back (SYN-ACK, RST, ICMP unreachable), the TLS hellos on them, and ICMP
// port-unreachables for discovery datagrams. Devices are joined to the attempts at the end of
// the run (AnalysisReport), by advertised address and port: a sender may connect from a cache
// before the capture shows the device's records.

import WireFormat

/// One TCP connection attempt, client address:port → server address:port, as the capture shows
/// it: the SYN and its retransmissions, and what answered.
public struct ConnectionAttempt: Hashable, Sendable {
    public var client: IPAddress
    public var clientPort: UInt16
    public var server: IPAddress
    public var serverPort: UInt16
    /// The MAC the first SYN came from, when the link layer has one: joins a connection from
    /// an address the host never queried from (its global IPv6 address) to the host.
    public var clientMAC: MACAddress?
    /// SYNs sent (the first and its retransmissions).
    public var syns = 1
    /// The frames of the first ``DiscoveryTracker/maximumSYNFrames`` SYNs.
    public var synFrames: [FrameRef]
    public var firstSYN: Timestamp
    public var lastSYN: Timestamp
    /// The server's SYN-ACK.
    public var synAck: TimedFrame?
    /// A RST from the server before any SYN-ACK: nothing listens (or a firewall rejects).
    public var reset: TimedFrame?
    /// An ICMP destination unreachable quoting the SYN, and its reason.
    public var unreachable: TimedFrame?
    public var unreachableReason: String?
    /// The client's ClientHello and the server's ServerHello (the first of each).
    public var clientHello: TimedFrame?
    public var serverHello: TimedFrame?
    /// The first FIN or RST once established.
    public var closed: TimedFrame?

    /// Its outcome as far as the capture shows, given when the capture ended.
    public func outcome(captureEnd: Timestamp) -> ConnectionOutcome {
        if synAck != nil { return .established }
        if reset != nil { return .refused }
        if unreachable != nil { return .unreachable }
        // Linux retransmits an unanswered SYN after 1 s and Apple and Windows stacks after
        // about 1 s too: a retransmission, or 3 s of silence, is a timeout; less is too early
        // to tell.
        if syns > 1 || captureEnd.nanoseconds(since: firstSYN) >= ConnectionAttempt.timeoutNanoseconds {
            return .timeout
        }
        return .captureEnded
    }

    /// An unanswered SYN this long before the end of the capture has timed out.
    public static let timeoutNanoseconds: Int64 = 3_000_000_000
}

/// A time and the frame it came from.
public struct TimedFrame: Hashable, Sendable {
    public var time: Timestamp
    public var frame: FrameRef
    public init(time: Timestamp, frame: FrameRef) {
        self.time = time
        self.frame = frame
    }
}

/// How a connection to a device came out (the JSON's `connections[].outcome`).
public enum ConnectionOutcome: String, Hashable, Sendable, CaseIterable {
    /// SYN-ACK received.
    case established
    /// The device (or a firewall in its name) answered RST.
    case refused
    /// SYNs retransmitted, or unanswered for 3 s.
    case timeout
    /// ICMP destination unreachable.
    case unreachable
    /// The client discovered the device and never tried to connect (in a capture that holds TCP).
    case notAttempted
    /// One SYN, unanswered, less than 3 s before the capture ended: too early to tell.
    case captureEnded
}

/// An ICMP port unreachable answering a discovery datagram (UDP 5353 or 1900): a host whose
/// firewall turns mDNS or SSDP away.
public struct DiscoveryPortUnreachable: Hashable, Sendable {
    /// The host that sent the ICMP (the one refusing).
    public var refuser: IPAddress
    /// The quoted datagram's source (whose packet was refused) and destination.
    public var sender: IPAddress
    public var destination: IPAddress
    /// The quoted destination port (5353 or 1900).
    public var port: UInt16
    public var frame: FrameRef
    public var time: Timestamp
    /// The ICMP code in words (`port unreachable`, `administratively prohibited`).
    public var reason = "port unreachable"
}

extension DiscoveryTracker {
    /// Connection attempts kept per timeline; more are counted in `connectionsDropped`.
    public static let maximumConnections = 4096
    /// SYN frames kept per attempt.
    public static let maximumSYNFrames = 8
    /// Ports every Cast device serves: the Cast channel (8009), its HTTP setup API and DIAL
    /// (8008), and the HTTPS setup API (8443). Others count once a device advertises them.
    static let castPorts: [UInt16] = [8009, 8008, 8443]

    /// Remembers a port a device advertised in SRV (a group's 32xxx/42xxx), so that
    /// connections to it are followed.
    @inline(__always)
    mutating func noteAdvertisedPort(_ port: UInt16) {
        guard port != 0, !Self.castPorts.contains(port), !advertisedPorts.contains(port),
            advertisedPorts.count < 256
        else { return }
        advertisedPorts.append(port)
    }

    /// Whether connections to `port` are followed.
    @inline(__always)
    func followsPort(_ port: UInt16) -> Bool {
        Self.castPorts.contains(port) || advertisedPorts.contains(port)
    }

    /// A TCP segment or ICMP message of the connection phase.
    mutating func ingestConnection(_ packet: DiscoveryPacket, frame: FrameRef) {
        if let tcp = packet.tcp {
            // TCP shows the capture was not filtered to discovery (an ICMP alone does not).
            sawConnectionPhase = true
            ingestTCP(tcp, packet: packet, frame: frame)
        } else if let icmp = packet.icmp {
            ingestICMP(icmp, packet: packet, frame: frame)
        }
    }

    mutating func ingestTCP(_ tcp: TCPSummary, packet: DiscoveryPacket, frame: FrameRef) {
        let at = TimedFrame(time: packet.timestamp, frame: frame)
        let flags = tcp.flags
        if tcp.http || tcp.castHTTPData {
            ingestHTTP(tcp, packet: packet, frame: frame)
            // A FIN may come with the last data: go on to note it.
            guard flags.rawValue & 0x07 != 0 else { return }
        }
        if flags.contains(.syn), !flags.contains(.ack) {
            guard followsPort(packet.destinationPort) else { return }
            let key = ConnectionKey(
                client: packet.source, clientPort: packet.sourcePort, server: packet.destination,
                serverPort: packet.destinationPort)
            if let i = connectionSlot[key], connections[i].synAck == nil, connections[i].reset == nil {
                connections[i].syns += 1
                connections[i].lastSYN = packet.timestamp
                if connections[i].synFrames.count < Self.maximumSYNFrames { connections[i].synFrames.append(frame) }
                return
            }
            // A publicly routable IPv4 destination is a Cast device only if one advertised it:
            // servers on the Internet that happen to listen on 8009 or 8443 must not fill the table.
            if case .v4(let v4) = packet.destination, AddressScope(v4) == .publicRoutable,
                !hosts.contains(where: { $0.addresses.contains(packet.destination) })
            {
                return
            }
            guard connections.count < Self.maximumConnections else {
                connectionsDropped += 1
                return
            }
            connectionSlot[key] = connections.count
            connectionReported.append(false)
            connections.append(
                ConnectionAttempt(
                    client: packet.source, clientPort: packet.sourcePort, server: packet.destination,
                    serverPort: packet.destinationPort, clientMAC: packet.sourceMAC, synFrames: [frame],
                    firstSYN: packet.timestamp, lastSYN: packet.timestamp))
            return
        }
        // Everything else belongs to an attempt already seen, in one direction or the other.
        let fromServer = followsPort(packet.sourcePort)
        let fromClient = followsPort(packet.destinationPort)
        guard fromServer || fromClient else { return }
        if fromServer,
            let i = connectionSlot[
                ConnectionKey(
                    client: packet.destination, clientPort: packet.destinationPort, server: packet.source,
                    serverPort: packet.sourcePort)]
        {
            var c = connections[i]
            if flags.contains(.syn), flags.contains(.ack) {
                if c.synAck == nil, c.reset == nil { c.synAck = at }
            } else if flags.contains(.rst), c.synAck == nil {
                if c.reset == nil { c.reset = at }
            } else if flags.contains(.rst) || flags.contains(.fin) {
                if c.closed == nil { c.closed = at }
            }
            if tcp.hello == .serverHello, c.serverHello == nil { c.serverHello = at }
            connections[i] = c
            reportConnection(i, now: packet.timestamp, frame: frame)
            return
        }
        if fromClient,
            let i = connectionSlot[
                ConnectionKey(
                    client: packet.source, clientPort: packet.sourcePort, server: packet.destination,
                    serverPort: packet.destinationPort)]
        {
            if tcp.hello == .clientHello, connections[i].clientHello == nil { connections[i].clientHello = at }
            if flags.contains(.rst) || flags.contains(.fin), connections[i].synAck != nil,
                connections[i].closed == nil
            {
                connections[i].closed = at
            }
        }
    }

    mutating func ingestICMP(_ icmp: ICMPUnreachable, packet: DiscoveryPacket, frame: FrameRef) {
        let at = TimedFrame(time: packet.timestamp, frame: frame)
        if icmp.quotedProtocol == .tcp, let source = icmp.quotedSourcePort,
            let destination = icmp.quotedDestinationPort,
            let i = connectionSlot[
                ConnectionKey(
                    client: icmp.quotedSource, clientPort: source, server: icmp.quotedDestination,
                    serverPort: destination)]
        {
            if connections[i].synAck == nil, connections[i].unreachable == nil {
                connections[i].unreachable = at
                connections[i].unreachableReason = icmp.reason
            }
            reportConnection(i, now: packet.timestamp, frame: frame)
            return
        }
        guard icmp.quotedProtocol == .udp, icmp.isRefusal, let port = icmp.quotedDestinationPort,
            port == DiscoveryDecoder.mdnsPort || port == DiscoveryDecoder.ssdpPort
        else { return }
        discoveryPortUnreachableCount += 1
        guard discoveryPortUnreachable.count < Self.maximumEvidenceFrames else { return }
        discoveryPortUnreachable.append(
            DiscoveryPortUnreachable(
                refuser: packet.source, sender: icmp.quotedSource, destination: icmp.quotedDestination, port: port,
                frame: frame, time: packet.timestamp, reason: icmp.reason))
    }
}

extension DiscoveryTracker {
    /// Live capture: reports attempt `i` once its outcome is known (established, refused,
    /// unreachable; or timed out, from ``reportTimedOutConnections(now:)``).
    mutating func reportConnection(_ i: Int, now: Timestamp, frame: FrameRef?) {
        guard options.collectEvents, !connectionReported[i] else { return }
        let c = connections[i]
        let outcome = c.outcome(captureEnd: now)
        guard outcome != .captureEnded else { return }
        connectionReported[i] = true
        let answer = c.synAck ?? c.reset ?? c.unreachable
        events.append(
            .connection(
                client: c.client, address: c.server, port: c.serverPort, outcome: outcome,
                time: answer?.time ?? now, frame: answer?.frame ?? frame ?? c.synFrames[0],
                afterMs: c.synAck.map { Double($0.time.nanoseconds(since: c.firstSYN)) / 1e6 },
                device: deviceSnapshot(at: c.server, port: c.serverPort)))
    }

    /// Live capture: attempts with no answer 3 s after their first SYN are reported as timed out.
    mutating func reportTimedOutConnections(now: Timestamp) {
        guard options.collectEvents else { return }
        for i in connections.indices where !connectionReported[i] {
            guard now.nanoseconds(since: connections[i].firstSYN) >= ConnectionAttempt.timeoutNanoseconds else {
                continue
            }
            reportConnection(i, now: now, frame: nil)
        }
    }

    /// The device advertising `address` (and `port`, or a Cast port), for an event.
    func deviceSnapshot(at address: IPAddress, port: UInt16) -> DeviceSnapshot? {
        for i in instances {
            guard let hostID = i.srvHost, let h = host(hostID), h.addresses.contains(address),
                i.srvPort == port || Self.castPorts.contains(port)
            else { continue }
            return snapshot(i.key)
        }
        return nil
    }
}

/// A TCP connection's two ends, as the tracker looks attempts up.
struct ConnectionKey: Hashable {
    var client: IPAddress
    var clientPort: UInt16
    var server: IPAddress
    var serverPort: UInt16
}
