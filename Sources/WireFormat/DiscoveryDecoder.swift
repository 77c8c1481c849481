/// Counts kept while decoding one capture.
public struct DecodeStatistics: Hashable, Sendable {
    /// Frames handed to the decoder.
    public var frames = 0
    /// Discovery packets produced (mDNS + SSDP), malformed ones included.
    public var discoveryPackets = 0
    /// mDNS packets.
    public var mdnsPackets = 0
    /// SSDP packets.
    public var ssdpPackets = 0
    /// Unicast DNS (port 53) queries and answers whose question is a `.local` name: a sender
    /// resolving an mDNS name through its DNS server (counted among `discoveryPackets`, not
    /// among `mdnsPackets`).
    public var unicastDNSPackets = 0
    /// Packets of the connection phase handed on (not discovery packets, not counted above):
    /// TCP segments with SYN, RST or FIN or a TLS hello, and ICMP destination unreachables
    /// quoting TCP or a discovery port.
    public var connectionPackets = 0
    /// Discovery packets with a decoding fault.
    public var malformedPackets = 0
    /// Frames whose link or IP header could not be decoded (they may or may not have been
    /// discovery traffic).
    public var undecodableFrames = 0
    /// 802.11 data frames seen (Wi-Fi captures only).
    public var wifiDataFrames = 0
    /// 802.11 data frames with the Protected bit: their contents cannot be read.
    public var protectedWiFiFrames = 0
    /// Ethernet-labelled frames that were really raw IP.
    public var rawIPInEthernetFrames = 0
    /// UDP payloads cut short by the snap length.
    public var snapLengthTruncated = 0
    /// IP reassembly counters.
    public var reassembly = ReassemblyStatistics()
    public init() {}

    /// The packet and frame counts (every count but the reassembly's).
    static var counts: [WritableKeyPath<DecodeStatistics, Int>] {
        [
            \.frames, \.discoveryPackets, \.mdnsPackets, \.ssdpPackets, \.unicastDNSPackets, \.connectionPackets,
            \.malformedPackets, \.undecodableFrames, \.wifiDataFrames, \.protectedWiFiFrames, \.rawIPInEthernetFrames,
            \.snapLengthTruncated,
        ]
    }

    /// Adds another decoder's packet and frame counts (several live interfaces).
    public static func += (a: inout DecodeStatistics, b: DecodeStatistics) {
        for k in counts { a[keyPath: k] += b[keyPath: k] }
    }

    /// The counts since `b` was taken (a live analysis window), reassembly as `a` has it.
    public static func - (a: DecodeStatistics, b: DecodeStatistics) -> DecodeStatistics {
        var d = a
        for k in counts { d[keyPath: k] -= b[keyPath: k] }
        return d
    }
}

/// Turns captured frames into ``DiscoveryPacket`` values.
///
/// One decoder serves one capture (one link type). It keeps the state that spans frames:
/// IP fragment reassembly, and the M-SEARCH senders whose unicast SSDP answers arrive on
/// ephemeral ports. Frames are decoded in place; nothing is allocated for a frame that turns
/// out not to be discovery traffic (apart from bounded fragment buffers).
public struct DiscoveryDecoder {
    /// The mDNS port.
    public static let mdnsPort: UInt16 = 5353
    /// The SSDP port.
    public static let ssdpPort: UInt16 = 1900
    /// The unicast DNS port: kept only for questions about `.local` names.
    public static let dnsPort: UInt16 = 53

    /// How long after an M-SEARCH its sender's port is watched for answers (capture time).
    public static let searchAnswerWindowNanoseconds: Int64 = 60_000_000_000
    /// How many M-SEARCH senders are watched at once.
    public static let maximumWatchedSearchers = 256

    /// The link type of the frames. A pcapng file's interfaces may differ: the reader sets it
    /// before each frame of another interface.
    public var linkType: LinkType
    /// What was counted so far.
    public var statistics: DecodeStatistics {
        var s = counts
        s.reassembly = reassembler.statistics
        s.reassembly.incomplete = reassembler.incompleteDatagrams
        return s
    }

    struct SearcherKey: Hashable {
        var address: IPAddress
        var port: UInt16
    }

    var counts = DecodeStatistics()
    var reassembler: FragmentReassembler
    /// Reused for every mDNS message checked in place.
    let messageIndex = DNSMessageIndex()
    var searchers: [SearcherKey: (frame: Int, time: Timestamp)] = [:]

    /// Creates a decoder for frames of `linkType`.
    public init(linkType: LinkType, reassemblyLimits: ReassemblyLimits = ReassemblyLimits()) {
        self.linkType = linkType
        reassembler = FragmentReassembler(limits: reassemblyLimits)
    }

    /// Decodes one frame, materialising its message: an mDNS message is checked in place as
    /// by ``decodeInPlace(frame:timestamp:bytes:originalLength:_:)``, then copied out into a
    /// ``DNSMessage`` (``DNSMessage/init(_:)``), and its bytes are kept with the packet
    /// (``DiscoveryPacket/withMessageView(index:_:)``).
    /// - Parameters:
    ///   - frame: its 1-based frame number.
    ///   - timestamp: when it was captured.
    ///   - bytes: the captured bytes (borrowed; only valid during the call).
    ///   - originalLength: its length on the wire.
    /// - Returns: the discovery packet, or `nil` for any other frame.
    public mutating func decode(
        frame: Int, timestamp: Timestamp, bytes: UnsafeRawBufferPointer, originalLength: Int
    ) -> DiscoveryPacket? {
        var result: DiscoveryPacket?
        decodeFrame(frame: frame, timestamp: timestamp, bytes: bytes, originalLength: originalLength, materialize: true)
        { packet, _ in result = packet }
        return result
    }

    /// Decodes one frame without materialising its mDNS message: the analysis hot path.
    ///
    /// For a discovery frame, `body` gets the packet and, for mDNS with a whole header, a
    /// ``DNSMessageView`` over the message checked in place (``DNSMessageView/check(_:index:)``
    /// finds the same faults as the full decode, so `packet.error` and the statistics are the
    /// same). The packet's mDNS payload is left undecoded (`.mdns(nil)`): read the message
    /// through the view, which is only valid during the call. SSDP is decoded as usual.
    public mutating func decodeInPlace(
        frame: Int, timestamp: Timestamp, bytes: UnsafeRawBufferPointer, originalLength: Int,
        _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        decodeFrame(
            frame: frame, timestamp: timestamp, bytes: bytes, originalLength: originalLength, materialize: false, body)
    }

    @inline(__always)
    mutating func decodeFrame(
        frame: Int, timestamp: Timestamp, bytes: UnsafeRawBufferPointer, originalLength: Int, materialize: Bool,
        _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        counts.frames += 1
        let link: LinkFrame
        do throws(DecodeError) {
            link = try LinkLayer.decode(linkType, frame: ByteCursor(bytes), originalLength: originalLength)
        } catch {
            counts.undecodableFrames += 1
            return
        }
        if link.protectedWiFi {
            counts.wifiDataFrames += 1
            counts.protectedWiFiFrames += 1
            return
        }
        if linkType.isWiFi, link.etherType != .none { counts.wifiDataFrames += 1 }
        if link.rawIPInEthernet { counts.rawIPInEthernetFrames += 1 }
        guard link.etherType == .ipv4 || link.etherType == .ipv6 else { return }
        let ip: IPPacket
        do throws(DecodeError) {
            ip = try IPPacket.decode(link.etherType, link.payload)
        } catch {
            counts.undecodableFrames += 1
            return
        }
        guard ip.proto == .udp else {
            if ip.fragment == nil {
                decodeConnection(ip, link: link, frame: frame, timestamp: timestamp, body)
            }
            return
        }

        if let fragment = ip.fragment {
            let key = FragmentReassembler.Key(
                source: ip.source, destination: ip.destination, identification: fragment.identification,
                proto: ip.proto.rawValue)
            let watched = searchers
            let outcome = reassembler.add(
                key: key, fragment: fragment, payload: ip.payload, ttl: ip.ttl, frame: frame, time: timestamp
            ) { first in
                guard let ports = UDPDatagram.ports(first) else { return false }
                return Self.isDiscovery(
                    sourcePort: ports.source, destination: ip.destination, destinationPort: ports.destination,
                    time: timestamp, searchers: watched)
            }
            guard case .complete(let datagram) = outcome else { return }
            datagram.payload.withUnsafeBytes { raw in
                decodeUDP(
                    ByteCursor(raw), ip: ip, ttl: datagram.ttl, link: link, frame: frame, timestamp: timestamp,
                    fragmentFrames: datagram.frames, materialize: materialize, body)
            }
            return
        }
        decodeUDP(
            ip.payload, ip: ip, ttl: ip.ttl, link: link, frame: frame, timestamp: timestamp, fragmentFrames: [],
            materialize: materialize, body)
    }

    /// Whether a UDP datagram with these ports is discovery traffic.
    static func isDiscovery(
        sourcePort: UInt16, destination: IPAddress, destinationPort: UInt16, time: Timestamp,
        searchers: [SearcherKey: (frame: Int, time: Timestamp)]
    ) -> Bool {
        if sourcePort == mdnsPort || destinationPort == mdnsPort { return true }
        if sourcePort == ssdpPort || destinationPort == ssdpPort { return true }
        return watchedSearch(destination: destination, port: destinationPort, time: time, searchers: searchers) != nil
    }

    /// Whether a UDP datagram with these ports, seen at `time`, is discovery traffic by the
    /// decoder's own test: a discovery port, or an answer to an M-SEARCH this decoder has seen
    /// sent from that address and port (within ``searchAnswerWindowNanoseconds``). `extract`
    /// asks it of first fragments it holds, so it keeps exactly what the decoder would.
    public func isDiscoveryDatagram(
        sourcePort: UInt16, destination: IPAddress, destinationPort: UInt16, time: Timestamp
    ) -> Bool {
        Self.isDiscovery(
            sourcePort: sourcePort, destination: destination, destinationPort: destinationPort, time: time,
            searchers: searchers)
    }

    static func watchedSearch(
        destination: IPAddress, port: UInt16, time: Timestamp, searchers: [SearcherKey: (frame: Int, time: Timestamp)]
    ) -> Int? {
        guard let s = searchers[SearcherKey(address: destination, port: port)],
            time.nanoseconds(since: s.time) <= Self.searchAnswerWindowNanoseconds
        else { return nil }
        return s.frame
    }

    mutating func decodeUDP(
        _ cursor: ByteCursor, ip: IPPacket, ttl: UInt8, link: LinkFrame, frame: Int, timestamp: Timestamp,
        fragmentFrames: [Int], materialize: Bool, _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        let udp: UDPDatagram
        do throws(DecodeError) {
            udp = try UDPDatagram.decode(cursor)
        } catch {
            // Only report it if the ports say it was discovery traffic.
            guard let ports = UDPDatagram.ports(cursor),
                Self.isDiscovery(
                    sourcePort: ports.source, destination: ip.destination, destinationPort: ports.destination,
                    time: timestamp, searchers: searchers)
            else {
                counts.undecodableFrames += 1
                return
            }
            let isMDNS = ports.source == Self.mdnsPort || ports.destination == Self.mdnsPort
            var packet = makePacket(
                frame: frame, timestamp: timestamp, link: link, ip: ip, ttl: ttl, sourcePort: ports.source,
                destinationPort: ports.destination, payload: isMDNS ? .mdns(nil) : .ssdp(nil),
                fragmentFrames: fragmentFrames)
            packet.error = PacketError(layer: .udp, error: error)
            count(packet)
            body(packet, nil)
            return
        }
        let isMDNS = udp.sourcePort == Self.mdnsPort || udp.destinationPort == Self.mdnsPort
        // Port 53 first (a compare), the name only then: a `.local` question over unicast DNS.
        let isUnicastDNS =
            !isMDNS && (udp.sourcePort == Self.dnsPort || udp.destinationPort == Self.dnsPort)
            && Self.asksLocalName(udp.payload)
        var answersSearch: Int?
        if !isMDNS, !isUnicastDNS, udp.sourcePort != Self.ssdpPort, udp.destinationPort != Self.ssdpPort {
            // Not a well-known port: only an answer to a watched M-SEARCH qualifies.
            guard
                let search = Self.watchedSearch(
                    destination: ip.destination, port: udp.destinationPort, time: timestamp, searchers: searchers),
                SSDPMessage.looksLikeResponse(udp.payload)
            else { return }
            answersSearch = search
        }
        var packet = makePacket(
            frame: frame, timestamp: timestamp, link: link, ip: ip, ttl: ttl, sourcePort: udp.sourcePort,
            destinationPort: udp.destinationPort, payload: .mdns(nil), fragmentFrames: fragmentFrames)
        packet.truncatedBySnapLength = udp.truncated || ip.truncated
        if udp.truncated || ip.truncated { counts.snapLengthTruncated += 1 }
        packet.answersSearchFrame = answersSearch
        // A DNS message's compression offsets are relative to its own first byte.
        let message = ByteCursor(
            UnsafeRawBufferPointer(rebasing: udp.payload.bytes[udp.payload.offset...]), base: udp.payload.position)
        var view: DNSMessageView?
        if isMDNS || isUnicastDNS {
            let (checked, error) = DNSMessageView.check(message, index: messageIndex)
            if let error { packet.error = PacketError(layer: .dns, error: error) }
            if let checked {
                if materialize { packet.setMDNS(DNSMessage(checked), bytes: message) }
                packet.legacyUnicast =
                    isUnicastDNS
                    ? false
                    : checked.isResponse
                        ? udp.sourcePort == Self.mdnsPort && udp.destinationPort != Self.mdnsPort
                        : udp.sourcePort != Self.mdnsPort
            }
            view = checked
        } else {
            do throws(DecodeError) {
                let ssdp = try SSDPMessage.decode(message)
                packet.payload = .ssdp(ssdp)
                if ssdp.kind == .mSearch, udp.sourcePort != Self.ssdpPort {
                    watchSearcher(SearcherKey(address: ip.source, port: udp.sourcePort), frame: frame, time: timestamp)
                }
            } catch {
                packet.payload = .ssdp(nil)
                packet.error = PacketError(layer: .ssdp, error: error)
            }
        }
        count(packet)
        body(packet, view)
    }

    /// A TCP segment or ICMP message of the connection phase: handed on when ``TCPSummary/isKept``,
    /// or when it is a destination unreachable quoting TCP or a UDP discovery port. Anything
    /// else returns without allocating.
    mutating func decodeConnection(
        _ ip: IPPacket, link: LinkFrame, frame: Int, timestamp: Timestamp,
        _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        if ip.proto == .tcp {
            guard let segment = try? TCPSegment.decode(ip.payload) else { return }
            let http = HTTPHead.startsMessage(segment.payload)
            let summary = TCPSummary(
                flags: segment.flags, sequence: segment.sequence, acknowledgment: segment.acknowledgment,
                payloadLength: segment.payload.remaining, hello: TLSHandshakeType.hello(in: segment.payload),
                http: http,
                castHTTPData: !http && segment.sourcePort == TCPSummary.castHTTPPort && segment.flags.contains(.psh)
                    && segment.payload.remaining > 0)
            guard summary.isKept else { return }
            var packet = makePacket(
                frame: frame, timestamp: timestamp, link: link, ip: ip, ttl: ip.ttl, sourcePort: segment.sourcePort,
                destinationPort: segment.destinationPort, payload: .tcp(summary), fragmentFrames: [])
            if summary.http || summary.castHTTPData {
                packet.tcpPayload = Array(
                    segment.payload.bytes[segment.payload.offset...].prefix(TCPSummary.maximumHTTPBytes))
            }
            counts.connectionPackets += 1
            body(packet, nil)
            return
        }
        let version: UInt8
        switch ip.proto {
        case .icmp where ip.version == 4: version = 4
        case .icmpv6 where ip.version == 6: version = 6
        default: return
        }
        guard let unreachable = ICMPUnreachable.decode(ip.payload, version: version) else { return }
        let ports = [unreachable.quotedSourcePort ?? 0, unreachable.quotedDestinationPort ?? 0]
        let quotesDiscovery =
            unreachable.quotedProtocol == .udp && (ports.contains(Self.mdnsPort) || ports.contains(Self.ssdpPort))
        guard unreachable.quotedProtocol == .tcp || quotesDiscovery else { return }
        let packet = makePacket(
            frame: frame, timestamp: timestamp, link: link, ip: ip, ttl: ip.ttl, sourcePort: 0, destinationPort: 0,
            payload: .icmp(unreachable), fragmentFrames: [])
        counts.connectionPackets += 1
        body(packet, nil)
    }

    mutating func watchSearcher(_ key: SearcherKey, frame: Int, time: Timestamp) {
        if searchers[key] == nil, searchers.count >= Self.maximumWatchedSearchers {
            // Forget expired senders first, then the oldest one.
            searchers = searchers.filter {
                time.nanoseconds(since: $0.value.time) <= Self.searchAnswerWindowNanoseconds
            }
            if searchers.count >= Self.maximumWatchedSearchers,
                let oldest = searchers.min(by: { $0.value.time < $1.value.time })
            {
                searchers[oldest.key] = nil
            }
        }
        searchers[key] = (frame, time)
    }

    /// Whether a DNS message's first question is a name under `local` (`<uuid>.local`; not
    /// `local` itself, which resolvers ask as SOA to learn whether a unicast `local` domain
    /// exists). Its first name cannot be compressed: nothing precedes it. Read from the raw
    /// bytes, nothing allocated.
    static func asksLocalName(_ payload: ByteCursor) -> Bool {
        let bytes = payload.bytes
        var i = payload.offset
        guard bytes.count - i >= 17, bytes[i + 4] != 0 || bytes[i + 5] != 0 else { return false }  // QDCOUNT
        i += 12
        var last = -1
        var labels = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            if length == 0 { break }
            guard length < 64, i + 1 + length < bytes.count else { return false }
            last = i
            labels += 1
            i += 1 + length
        }
        guard labels >= 2, i < bytes.count, bytes[last] == 5 else { return false }
        let local: [UInt8] = [0x6C, 0x6F, 0x63, 0x61, 0x6C]  // "local"
        for k in 0..<5 where bytes[last + 1 + k] | 0x20 != local[k] { return false }
        return true
    }

    @inline(__always)
    mutating func count(_ packet: borrowing DiscoveryPacket) {
        counts.discoveryPackets += 1
        if packet.isUnicastDNS {
            counts.unicastDNSPackets += 1
        } else if packet.isMDNS {
            counts.mdnsPackets += 1
        } else {
            counts.ssdpPackets += 1
        }
        if packet.error != nil { counts.malformedPackets += 1 }
    }

    func makePacket(
        frame: Int, timestamp: Timestamp, link: LinkFrame, ip: IPPacket, ttl: UInt8, sourcePort: UInt16,
        destinationPort: UInt16, payload: DiscoveryPayload, fragmentFrames: [Int]
    ) -> DiscoveryPacket {
        var p = DiscoveryPacket(
            frame: frame, timestamp: timestamp, ipVersion: ip.version, source: ip.source, destination: ip.destination,
            ttl: ttl, sourcePort: sourcePort, destinationPort: destinationPort, payload: payload)
        p.sourceMAC = link.sourceMAC
        p.destinationMAC = link.destinationMAC
        if link.vlan.count > 0 { p.vlanIDs = link.vlan.array }
        if let pktap = link.pktap { p.pktap = pktap.materialize() }
        p.rawIPInEthernet = link.rawIPInEthernet
        p.interfaceIndex = link.interfaceIndex
        if !fragmentFrames.isEmpty { p.fragmentFrames = fragmentFrames }
        return p
    }
}
