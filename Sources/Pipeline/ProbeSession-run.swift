import CastDiscovery
import PcapCapture
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ProbeSession {
    /// The DIAL search Chrome sends (DOMAIN.md §2), with MX 1.
    static let mSearch = Array(
        ("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\n"
            + "ST: urn:dial-multiscreen-org:service:dial:1\r\nUSER-AGENT: castscope probe\r\n\r\n").utf8)
    /// M-SEARCH requests per probe, 1 s apart (Chrome sends 4 per cycle; the last would come
    /// after most probes end).
    static let mSearchCount = 3
    /// How long the capture goes on after the last connection closed, for its last segments.
    static let drainNanoseconds: Int64 = 300_000_000
    /// How long a device resolved to IPv6 only waits for its IPv4 address before the probe
    /// connects over IPv6.
    static let addressGraceNanoseconds: Int64 = 250_000_000

    /// Probes until the duration has passed and every connection has finished, or a signal.
    public func run() -> Outcome {
        var analysis = options.analysis
        analysis.collectEvents = false
        let linkTypes = capture.map { [$0.linkType] } ?? [LinkType.linuxSLL]
        var ingest = LiveIngest(linkTypes: linkTypes, analysis: analysis, writer: writer)
        var querier = CastQuerier(appIDs: options.appIDs)
        querier.wantsIPv4 = mdns4 != nil
        querier.wantsIPv6 = mdns6 != nil
        var connections: [String: ProbeConnection] = [:]
        var connectionOrder: [String] = []
        var firstQuery: Timestamp?
        var firstAnswer: [String: Timestamp] = [:]
        var synthesized = SynthesizedTCP()
        var resolvedSince: [String: Timestamp] = [:]

        liveStopSignal.pointee = 0
        signal(SIGINT) { _ in liveStopSignal.pointee = 1 }
        signal(SIGTERM) { _ in liveStopSignal.pointee = 2 }
        signal(SIGPIPE, SIG_IGN)

        let start = LiveSession.now()
        summary.started = start
        let firstDelay = Int64.random(in: 20_000_000...120_000_000)
        querier.start(at: start, firstDelayNanoseconds: firstDelay)
        var nextSearch: Timestamp? = ssdp != nil ? start.adding(nanoseconds: firstDelay) : nil
        let end = start.adding(nanoseconds: Int64(options.durationSeconds * 1e9))
        var drainUntil: Timestamp?

        /// A frame the sockets stand for (an IP packet), when there is no capture.
        func synthesize(_ ip: [UInt8], at time: Timestamp) {
            guard capture == nil, !ip.isEmpty else { return }
            // Sent by this host when its source address is one of the interface's.
            let sent: Bool
            switch ip[0] >> 4 {
            case 4: sent = ip.count >= 20 && interface.ipv4.contains(IPv4Address(ip[12], ip[13], ip[14], ip[15]))
            default:
                sent =
                    ip.count >= 40
                    && ip.withUnsafeBytes { raw in
                        var c = ByteCursor(UnsafeRawBufferPointer(rebasing: raw[8..<24]))
                        return (try? IPv6Address(reading: &c)).map { interface.ipv6.contains($0) } ?? false
                    }
            }
            let frame = ProbeFrames.cooked(
                ip, sentFrom: sent ? interface.mac ?? MACAddress(rawValue: 0x0200_0000_0001) : nil)
            frame.withUnsafeBytes { ingest.ingest(0, timestamp: time, bytes: $0, originalLength: $0.count) }
        }

        func send(_ messages: [DNSMessage], now: Timestamp) {
            for m in messages {
                let bytes = m.wireFormat()
                for (socket, group, family) in [
                    (mdns4, IPAddress.v4(.mdnsGroup), "ipv4"), (mdns6, IPAddress.v6(.mdnsGroup), "ipv6"),
                ] {
                    guard let socket else { continue }
                    _ = socket.send(bytes, to: group, port: 5353)
                    if firstQuery == nil { firstQuery = now }
                    summary.queries.append(
                        ProbeSummary.Query(
                            time: now, family: family, unicastResponse: m.questions.contains { $0.unicastResponse },
                            questions: m.questions.map { "\($0.name) \($0.type)" }, knownAnswers: m.answers.count,
                            truncated: m.flags & 0x0200 != 0))
                    if let own = ownAddress(toward: group) {
                        synthesize(
                            ProbeFrames.udp(
                                source: own, destination: group, sourcePort: 5353, destinationPort: 5353, hopLimit: 255,
                                payload: bytes), at: now)
                    }
                }
            }
        }

        func receive(_ socket: ProbeSocket?, port: UInt16) {
            guard let socket else { return }
            while let d = socket.receive() {
                // Our own queries come back through multicast loopback.
                if isOwn(d.source), d.sourcePort == 5353 || port != 5353 { continue }
                if let destination = d.destination ?? ownAddress(toward: d.source) {
                    synthesize(
                        ProbeFrames.udp(
                            source: d.source, destination: destination, sourcePort: d.sourcePort,
                            destinationPort: port == 0 ? socket.localPort : port, hopLimit: d.hopLimit ?? 255,
                            payload: d.bytes), at: d.time)
                }
                if port == 5353 {
                    let message = d.bytes.withUnsafeBytes { DNSMessage.decodePartial(ByteCursor($0)).message }
                    if let message, message.isResponse {
                        // Instances are only ever appended: the new ones are those past the old count.
                        let known = querier.instances.count
                        querier.ingest(message, at: d.time)
                        for i in querier.instances[known...] { firstAnswer[CastQuerier.key(i.name)] = d.time }
                    }
                } else if d.bytes.starts(with: Array("HTTP/1.1 200".utf8))
                    || d.bytes.starts(with: Array("HTTP/1.0 200".utf8))
                {
                    summary.ssdpAnswers += 1
                }
            }
        }

        loop: while true {
            let now = LiveSession.now()
            if liveStopSignal.pointee != 0 {
                summary.interrupted = true
                break
            }
            let active = connections.values.contains { $0.state != .done }
            if now >= end, !active {
                if drainUntil == nil { drainUntil = now.adding(nanoseconds: Self.drainNanoseconds) }
                if now >= drainUntil! { break }
            }
            if now < end {
                send(querier.scheduledQuery(now: now), now: now)
                if let m = querier.followUp(now: now) { send([m], now: now) }
                if let due = nextSearch, now >= due, let ssdp, summary.mSearches < Self.mSearchCount {
                    _ = ssdp.send(Self.mSearch, to: .v4(.ssdpGroup), port: 1900)
                    summary.mSearches += 1
                    if let own = ownAddress(toward: .v4(.ssdpGroup)) {
                        synthesize(
                            ProbeFrames.udp(
                                source: own, destination: .v4(.ssdpGroup), sourcePort: ssdp.localPort,
                                destinationPort: 1900, hopLimit: 2, payload: Self.mSearch), at: now)
                    }
                    nextSearch = summary.mSearches < Self.mSearchCount ? due.adding(nanoseconds: 1_000_000_000) : nil
                }
                if options.connect {
                    for instance in querier.instances where querier.isResolved(instance) {
                        let key = CastQuerier.key(instance.name)
                        guard connections[key] == nil, let address = querier.addresses(of: instance).first,
                            let port = instance.port
                        else { continue }
                        // IPv4 first, as Chrome connects: an AAAA answered first waits a moment for
                        // the A of the IPv4 answer.
                        let since = resolvedSince[key] ?? now
                        resolvedSince[key] = since
                        if !address.isIPv4, querier.wantsIPv4,
                            now.nanoseconds(since: since) < Self.addressGraceNanoseconds
                        {
                            continue
                        }
                        let c = ProbeConnection(
                            address: address, port: port, interfaceIndex: interface.index,
                            timeoutNanoseconds: Int64(options.connectTimeoutSeconds * 1e9))
                        connections[key] = c
                        connectionOrder.append(key)
                        if capture == nil {
                            synthesized.opened(c, own: ownAddress(toward: address), now: now, into: synthesize)
                        }
                    }
                }
            }

            // Wait for the first of: a packet, a socket, a connection, the next thing due.
            var fds: [pollfd] = []
            if let capture { fds.append(pollfd(fd: capture.selectableDescriptor, events: Int16(POLLIN), revents: 0)) }
            for s in [mdns4, mdns6, ssdp] {
                if let s { fds.append(pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0)) }
            }
            let open = connectionOrder.compactMap { connections[$0] }.filter { $0.state != .done }
            for c in open { fds.append(pollfd(fd: c.descriptor, events: c.events, revents: 0)) }
            var wake = now.adding(nanoseconds: 100_000_000)
            if now < end {
                // A device waiting for its IPv4 address is connected to when the wait ends.
                let graceEnds = resolvedSince.filter { connections[$0.key] == nil }.map {
                    $0.value.adding(nanoseconds: Self.addressGraceNanoseconds)
                }
                for t in [querier.nextQueryAt, querier.nextFollowUpAt(), nextSearch, end].compactMap({ $0 }) + graceEnds
                where t < wake {
                    wake = t
                }
            }
            for c in open where c.deadline < wake { wake = c.deadline }
            let timeout = max(0, Int32(wake.nanoseconds(since: now) / 1_000_000) + 1)
            _ = poll(&fds, nfds_t(fds.count), min(timeout, 100))

            if let capture {
                let handled = capture.dispatch(limit: 1000) { header, bytes in
                    ingest.ingest(0, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
                }
                if handled == nil {
                    summary.captureNote =
                        "the capture on \(interface.name) failed (\(capture.lastError ?? "unknown error")); the probe "
                        + "stopped there"
                    summary.interrupted = true
                    break loop
                }
            }
            receive(mdns4, port: 5353)
            receive(mdns6, port: 5353)
            receive(ssdp, port: 0)
            let later = LiveSession.now()
            for c in open {
                let before = c.state
                c.advance(now: later)
                if capture == nil {
                    synthesized.advanced(
                        c, from: before, own: ownAddress(toward: c.address), now: later, into: synthesize)
                }
            }
            ingest.tracker.advance(to: later)
        }
        writer?.flush()

        summary.devices = querier.instances.map { instance in
            let key = CastQuerier.key(instance.name)
            let txt = Dictionary(
                (instance.txt?.entries ?? []).map { ($0.keyText.lowercased(), $0.valueText ?? "") },
                uniquingKeysWith: { first, _ in first })
            var connect = connections[key]?.result
            if options.connect, connect == nil, let at = firstAnswer[key] {
                var missing: [String] = []
                if instance.target == nil { missing.append("SRV") }
                if instance.txt == nil { missing.append("TXT") }
                if instance.target != nil, querier.addresses(of: instance).isEmpty { missing.append("an address") }
                connect = ProbeConnectResult(
                    address: querier.addresses(of: instance).first, port: instance.port, outcome: .notResolved,
                    started: at,
                    error: missing.isEmpty
                        ? "resolved too late to connect before the probe ended"
                        : "its PTR came, its " + missing.joined(separator: " and ") + " never did")
            }
            let answerMs = firstQuery.flatMap { q in firstAnswer[key].map { Double($0.nanoseconds(since: q)) / 1e6 } }
            var device = ProbeSummary.Device(
                instance: instance.name.description, name: txt["fn"], id: txt["id"], model: txt["md"],
                addresses: querier.addresses(of: instance), port: instance.port, resolved: querier.isResolved(instance),
                firstAnswerMs: answerMs.flatMap { $0 >= 0 ? $0 : nil },
                foundUnder: instance.browseNames.sorted().map(Self.label),
                connect: connect)
            device.announcedBeforeQuery = firstQuery == nil || (answerMs ?? 0) < 0
            return device
        }

        var dropped: (kernel: UInt64, interface: UInt64) = (0, 0)
        if let s = capture?.statistics() { dropped = (UInt64(s.dropped), UInt64(s.interfaceDropped)) }
        let name = "probe: \(interface.name)" + (capture == nil ? " (frames made from the probe's sockets)" : "")
        let report = ingest.finish(
            name: name, linkTypeName: capture?.linkTypeName ?? "LINUX_SLL", dropped: dropped)
        return Outcome(report: report, summary: summary)
    }

    /// `media` for the media criterion, the app ID for a subtype, `_googlecast._tcp` itself.
    static func label(_ browseKey: String) -> String {
        switch CastName(DNSName(browseKey)) {
        case .mediaCriterion: return "media"
        case .subtype(let appID): return appID.uppercased()
        default: return "_googlecast._tcp"
        }
    }
}

/// The TCP segments that stand for a connection's socket events when the probe cannot capture:
/// SYN when it starts, SYN-ACK or RST when it connects or is refused, the TLS hellos, and a
/// FIN when it closes.
struct SynthesizedTCP {
    var localPorts: [ObjectIdentifier: UInt16] = [:]
    var nextPort: UInt16 = 49152

    mutating func opened(
        _ c: ProbeConnection, own: IPAddress?, now: Timestamp, into emit: ([UInt8], Timestamp) -> Void
    ) {
        guard let own else { return }
        let port = nextPort
        nextPort &+= 1
        localPorts[ObjectIdentifier(c)] = port
        emit(segment(c, own: own, port: port, fromDevice: false, flags: 0x02), now)
        if c.state != .connecting { advanced(c, from: .connecting, own: own, now: now, into: emit) }
    }

    func advanced(
        _ c: ProbeConnection, from before: ProbeConnection.State, own: IPAddress?, now: Timestamp,
        into emit: ([UInt8], Timestamp) -> Void
    ) {
        guard let own, let port = localPorts[ObjectIdentifier(c)], before != c.state else { return }
        let r = c.result
        if before == .connecting {
            if r.connectMs != nil {
                emit(segment(c, own: own, port: port, fromDevice: true, flags: 0x12), now)
                emit(
                    segment(c, own: own, port: port, fromDevice: false, flags: 0x18, payload: ProbeFrames.tlsHello(1)),
                    now)
            } else if r.outcome == .refused {
                emit(segment(c, own: own, port: port, fromDevice: true, flags: 0x14), now)
            }
        }
        if r.tlsMs != nil, before == .handshaking || (before == .connecting && c.state != .handshaking) {
            emit(segment(c, own: own, port: port, fromDevice: true, flags: 0x18, payload: ProbeFrames.tlsHello(2)), now)
        }
        if c.state == .done, r.connectMs != nil {
            emit(segment(c, own: own, port: port, fromDevice: false, flags: 0x11), now)
        }
    }

    func segment(
        _ c: ProbeConnection, own: IPAddress, port: UInt16, fromDevice: Bool, flags: UInt8, payload: [UInt8] = []
    ) -> [UInt8] {
        let device = c.address
        return ProbeFrames.tcp(
            source: fromDevice ? device : own, destination: fromDevice ? own : device,
            sourcePort: fromDevice ? c.port : port, destinationPort: fromDevice ? port : c.port,
            flags: flags, sequence: fromDevice ? 2000 : 1000, acknowledgment: flags & 0x10 != 0 ? 1 : 0,
            payload: payload)
    }
}
