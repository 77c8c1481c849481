import WireFormat

/// JSON lines for decoded discovery packets (`castscope dump --format jsonl`), as documented
/// in `docs/dump-format.md`.
public enum PacketJSON {
    /// One packet as a single-line JSON object (no trailing newline).
    /// - Parameters:
    ///   - packet: the packet.
    ///   - file: the capture's name as given.
    ///   - linkType: libpcap's link-type name.
    ///   - start: the file's first timestamp.
    /// - Parameters:
    ///   - linkType: the link type of the packet's interface.
    ///   - interface: the capture interface's name, for a file with several interfaces (`nil`:
    ///     the `interface` and `interfaceName` keys are left out).
    public static func render(
        _ packet: DiscoveryPacket, file: String, linkType: String, start: Timestamp, interface: String? = nil
    ) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.string(file, "file")
        w.int(packet.frame, "frame")
        w.string(TimeFormat.rfc3339(packet.timestamp), "time")
        w.string(TimeFormat.epoch(packet.timestamp), "epoch")
        w.rawNumber(TimeFormat.relative(packet.timestamp.nanoseconds(since: start), sign: false), "relative")
        w.string(linkType, "linkType")
        if let interface {
            w.int(packet.captureInterface, "interface")
            w.string(interface, "interfaceName")
        }
        if let m = packet.sourceMAC { w.string(m.description, "srcMAC") }
        if let m = packet.destinationMAC { w.string(m.description, "dstMAC") }
        if !packet.vlanIDs.isEmpty {
            w.beginArray("vlan")
            for v in packet.vlanIDs { w.int(v) }
            w.endArray()
        }
        if let p = packet.pktap {
            w.beginObject("pktap")
            w.string(p.interface, "ifname")
            w.int(p.pid, "pid")
            w.string(p.process, "process")
            w.int(p.effectivePID, "epid")
            w.string(p.effectiveProcess, "eprocess")
            w.string(p.direction?.rawValue, "direction")
            w.endObject()
        }
        if packet.rawIPInEthernet { w.bool(true, "rawIPInEthernet") }
        w.int(packet.ipVersion, "ipVersion")
        w.string(packet.source.description, "src")
        w.string(packet.destination.description, "dst")
        w.int(packet.sourcePort, "srcPort")
        w.int(packet.destinationPort, "dstPort")
        w.int(packet.ttl, "ttl")
        if !packet.fragmentFrames.isEmpty {
            w.beginArray("fragments")
            for f in packet.fragmentFrames { w.int(f) }
            w.endArray()
        }
        if packet.truncatedBySnapLength { w.bool(true, "truncatedBySnapLength") }
        switch packet.payload {
        case .mdns(let m):
            w.string(packet.isUnicastDNS ? "dns" : "mdns", "protocol")
            w.bool(packet.legacyUnicast, "legacyUnicast")
            if let m { message(m, into: &w) }
        case .ssdp(let s):
            w.string("ssdp", "protocol")
            if let s { ssdp(s, answers: packet.answersSearchFrame, into: &w) }
        case .tcp(let t):
            w.string("tcp", "protocol")
            w.beginObject("tcp")
            w.string(t.flags.description, "flags")
            w.int(t.flags.rawValue, "flagsCode")
            w.int(t.sequence, "seq")
            w.int(t.acknowledgment, "ack")
            w.int(t.payloadLength, "payloadLength")
            if let line = httpStartLine(packet.tcpPayload) { w.string(line, "httpStartLine") }
            if let hello = t.hello { w.string(hello == .clientHello ? "clientHello" : "serverHello", "tlsHello") }
            w.endObject()
        case .icmp(let i):
            w.string(i.version == 4 ? "icmp" : "icmpv6", "protocol")
            w.beginObject("icmp")
            w.int(i.version == 4 ? 3 : 1, "type")
            w.int(i.code, "code")
            w.string(i.reason, "reason")
            w.beginObject("quoted")
            w.string(i.quotedSource.description, "src")
            w.string(i.quotedDestination.description, "dst")
            w.int(i.quotedProtocol.rawValue, "protocol")
            if let port = i.quotedSourcePort { w.int(port, "srcPort") }
            if let port = i.quotedDestinationPort { w.int(port, "dstPort") }
            w.endObject()
            w.endObject()
        }
        if let e = packet.error {
            w.beginObject("error")
            w.string(e.error.reason, "reason")
            w.int(e.error.offset, "offset")
            w.string(e.layer.rawValue, "layer")
            w.endObject()
        }
        w.endObject()
        return w.output
    }

    static func message(_ m: DNSMessage, into w: inout JSONWriter) {
        w.beginObject("mdns")
        w.int(m.id, "id")
        w.int(m.flags, "flags")
        w.bool(m.isResponse, "response")
        w.int(m.opcode, "opcode")
        w.int(m.rcode, "rcode")
        w.bool(m.isAuthoritative, "authoritative")
        w.bool(m.isTruncated, "truncated")
        w.bool(m.recursionDesired, "recursionDesired")
        w.bool(m.recursionAvailable, "recursionAvailable")
        w.beginArray("counts")
        for c in m.counts { w.int(c) }
        w.endArray()
        w.beginArray("questions")
        for q in m.questions {
            w.beginObject()
            w.string(q.name.description, "name")
            w.string(q.type.description, "type")
            w.int(q.type.rawValue, "typeCode")
            w.string(q.dnsClass.description, "class")
            w.int(q.dnsClass.rawValue, "classCode")
            w.bool(q.unicastResponse, "unicastResponse")
            w.endObject()
        }
        w.endArray()
        for (key, records) in [("answers", m.answers), ("authorities", m.authorities), ("additionals", m.additionals)] {
            w.beginArray(key)
            for r in records { record(r, into: &w) }
            w.endArray()
        }
        w.endObject()
    }

    /// Writes one resource record object.
    public static func record(_ r: DNSResourceRecord, into w: inout JSONWriter) {
        w.beginObject()
        w.string(r.name.description, "name")
        w.string(r.type.description, "type")
        w.int(r.type.rawValue, "typeCode")
        w.string(r.dnsClass.description, "class")
        w.int(r.dnsClass.rawValue, "classCode")
        w.bool(r.cacheFlush, "cacheFlush")
        w.int(r.ttl, "ttl")
        w.int(r.rdlength, "rdlength")
        w.beginObject("rdata")
        switch r.data {
        case .a(let a): w.string(a.description, "address")
        case .aaaa(let a): w.string(a.description, "address")
        case .name(let n): w.string(n.description, "target")
        case .srv(let p, let weight, let port, let target):
            w.int(p, "priority")
            w.int(weight, "weight")
            w.int(port, "port")
            w.string(target.description, "target")
        case .txt(let t):
            w.beginArray("strings")
            for s in t.strings { w.string(DNSText.escape(s, quote: false, escapeDot: false)) }
            w.endArray()
            w.beginArray("entries")
            for e in t.entries {
                w.beginObject()
                w.string(DNSText.escape(e.key, quote: false, escapeDot: false), "key")
                w.string(e.value.map { DNSText.escape($0, quote: false, escapeDot: false) }, "value")
                w.endObject()
            }
            w.endArray()
        case .nsec(let next, let types):
            w.string(next.description, "next")
            w.beginArray("types")
            for t in types { w.string(t.description) }
            w.endArray()
        case .opt(let options):
            w.int(r.dnsClass.rawValue, "udpPayloadSize")
            w.int(r.ttl >> 24, "extendedRcode")
            w.int((r.ttl >> 16) & 0xFF, "version")
            w.bool(r.ttl & 0x8000 != 0, "dnssecOK")
            w.beginArray("options")
            for o in options {
                w.beginObject()
                w.int(o.code, "code")
                w.string(PacketText.hexString(o.data), "data")
                w.endObject()
            }
            w.endArray()
        case .hinfo(let cpu, let os):
            w.string(DNSText.escape(cpu, quote: false, escapeDot: false), "cpu")
            w.string(DNSText.escape(os, quote: false, escapeDot: false), "os")
        case .unknown(let bytes):
            w.string(PacketText.hexString(bytes), "hex")
        }
        w.endObject()
        w.endObject()
    }

    static func ssdp(_ s: SSDPMessage, answers: Int?, into w: inout JSONWriter) {
        w.beginObject("ssdp")
        w.string(s.kind.rawValue, "kind")
        w.string(s.startLine, "startLine")
        if let status = s.status { w.int(status, "status") }
        w.beginArray("headers")
        for h in s.headers {
            w.beginArray()
            w.string(h.name)
            w.string(h.value)
            w.endArray()
        }
        w.endArray()
        let named: [(String, String?)] = [
            ("st", s.searchTarget), ("nt", s.notificationType), ("nts", s.notificationSubtype), ("usn", s.usn),
            ("location", s.location), ("cacheControl", s.cacheControl), ("server", s.server), ("mx", s.mx),
            ("man", s.man), ("userAgent", s.userAgent),
        ]
        for (key, value) in named where value != nil { w.string(value, key) }
        if let answers { w.int(answers, "answersSearchFrame") }
        w.endObject()
    }
}
