import WireFormat

/// Human-readable text for decoded discovery packets (`castscope dump`).
///
/// Every string that came from the network goes through ``DNSText/escape(_:quote:escapeDot:)``
/// or ``TerminalText/sanitize(_:)``, so the output never carries terminal control sequences.
public enum PacketText {
    /// The text for one packet: a summary line and one indented line per question, record or
    /// SSDP header, ending with a newline.
    /// - Parameters:
    ///   - packet: the packet.
    ///   - start: the file's first timestamp, for the relative time.
    /// - Parameter interface: `eth0 EN10MB`, the capture interface and its link type, for a file
    ///   with several interfaces (`nil`: not shown).
    public static func render(_ packet: DiscoveryPacket, start: Timestamp, interface: String? = nil) -> String {
        var out = ""
        let frame = String(packet.frame)
        out += String(repeating: " ", count: Swift.max(0, 5 - frame.count)) + frame
        out += " " + TimeFormat.readable(packet.timestamp)
        out += " " + TimeFormat.relative(packet.timestamp.nanoseconds(since: start))
        // TCP shows both ports; ICMP has none (0).
        let wellKnown: UInt16 = packet.isConnection ? 0 : packet.isUnicastDNS ? 53 : packet.isMDNS ? 5353 : 1900
        out += " " + endpoint(packet.source, packet.sourcePort, wellKnown)
        out += " > " + endpoint(packet.destination, packet.destinationPort, wellKnown)
        out += " ttl \(packet.ttl)"
        var notes: [String] = []
        if let interface { notes.append("on " + TerminalText.sanitize(interface)) }
        if !packet.vlanIDs.isEmpty { notes.append("vlan " + packet.vlanIDs.map(String.init).joined(separator: ",")) }
        if let p = packet.pktap {
            var s = "pktap " + TerminalText.sanitize(p.interface)
            if !p.process.isEmpty || p.pid > 0 { s += " \(TerminalText.sanitize(p.process))[\(p.pid)]" }
            if let d = p.direction { s += " " + d.rawValue }
            notes.append(s)
        }
        if packet.rawIPInEthernet { notes.append("raw-IP-in-Ethernet") }
        if !packet.fragmentFrames.isEmpty {
            notes.append("reassembled from frames " + packet.fragmentFrames.map(String.init).joined(separator: ","))
        }
        if packet.truncatedBySnapLength { notes.append("cut by snaplen") }
        if packet.legacyUnicast { notes.append("legacy-unicast") }
        if let f = packet.answersSearchFrame { notes.append("answers M-SEARCH in frame \(f)") }
        switch packet.payload {
        case .mdns(let message):
            // Unicast DNS about a `.local` name is kept too, and says so.
            out += packet.isUnicastDNS ? " DNS" : " mDNS"
            if let m = message { out += " " + headerSummary(m) }
            if !notes.isEmpty { out += " [" + notes.joined(separator: "; ") + "]" }
            out += "\n"
            if let m = message { body(m, into: &out) }
        case .ssdp(let message):
            out += " SSDP"
            if let m = message { out += " " + TerminalText.sanitize(m.startLine) }
            if !notes.isEmpty { out += " [" + notes.joined(separator: "; ") + "]" }
            out += "\n"
            if let m = message {
                for h in m.headers {
                    out += "        " + TerminalText.sanitize(h.name) + ": " + TerminalText.sanitize(h.value) + "\n"
                }
            }
        case .tcp(let t):
            out += " TCP [\(t.flags)] seq \(t.sequence)"
            if t.flags.contains(.ack) { out += " ack \(t.acknowledgment)" }
            out += " len \(t.payloadLength)"
            if t.hello == .clientHello { out += " TLS ClientHello" }
            if t.hello == .serverHello { out += " TLS ServerHello" }
            if let line = httpStartLine(packet.tcpPayload) { out += " HTTP " + TerminalText.sanitize(line) }
            if !notes.isEmpty { out += " [" + notes.joined(separator: "; ") + "]" }
            out += "\n"
        case .icmp(let i):
            out += i.version == 4 ? " ICMP" : " ICMPv6"
            out += " destination unreachable (\(i.reason)) for "
            out +=
                quoted(i.quotedSource, i.quotedSourcePort) + " > "
                + quoted(i.quotedDestination, i.quotedDestinationPort)
            out += " \(protocolName(i.quotedProtocol))"
            if !notes.isEmpty { out += " [" + notes.joined(separator: "; ") + "]" }
            out += "\n"
        }
        if let e = packet.error {
            out += "        MALFORMED \(e.layer.rawValue): \(e.error.reason) at byte \(e.error.offset)\n"
        }
        return out
    }

    /// A quoted packet's endpoint: `192.0.2.21:8009`, `[2001:db8::21]:8009`, or the address alone.
    static func quoted(_ address: IPAddress, _ port: UInt16?) -> String {
        guard let port else { return address.description }
        switch address {
        case .v4: return "\(address):\(port)"
        case .v6: return "[\(address)]:\(port)"
        }
    }

    /// `TCP`, `UDP`, or the protocol number.
    static func protocolName(_ p: IPProtocol) -> String {
        p == .tcp ? "TCP" : p == .udp ? "UDP" : "protocol \(p.rawValue)"
    }

    static func endpoint(_ address: IPAddress, _ port: UInt16, _ wellKnown: UInt16) -> String {
        let a: String
        switch address {
        case .v4: a = address.description
        case .v6: a = port == wellKnown ? address.description : "[\(address)]"
        }
        return port == wellKnown ? a : "\(a):\(port)"
    }

    /// `query id 0 tc 3q/0an/0ns/0ar` or `response id 0 aa 0q/1an/0ns/3ar`.
    public static func headerSummary(_ m: DNSMessage) -> String {
        var s = m.isResponse ? "response" : "query"
        s += " id \(m.id)"
        if m.isAuthoritative { s += " aa" }
        if m.isTruncated { s += " tc" }
        if m.recursionDesired { s += " rd" }
        if m.recursionAvailable { s += " ra" }
        if m.opcode != 0 { s += " opcode \(m.opcode)" }
        if m.rcode != 0 { s += " rcode \(m.rcode)" }
        s += " \(m.counts[0])q/\(m.counts[1])an/\(m.counts[2])ns/\(m.counts[3])ar"
        return s
    }

    static func body(_ m: DNSMessage, into out: inout String) {
        for q in m.questions {
            out += "        q  \(q.name) \(q.type) \(q.dnsClass) \(q.unicastResponse ? "QU" : "QM")\n"
        }
        for (section, r) in m.allRecords {
            out += "        \(section.rawValue) " + record(r) + "\n"
        }
    }

    /// One record: `name TYPE CLASS [cache-flush] ttl N rdata`.
    public static func record(_ r: DNSResourceRecord) -> String {
        if case .opt(let options) = r.data {
            var s =
                "\(r.name) OPT udp-size \(r.dnsClass.rawValue) ext-rcode \(r.ttl >> 24) version \((r.ttl >> 16) & 0xFF)"
            s += " do \(r.ttl & 0x8000 != 0 ? 1 : 0)"
            for o in options { s += " option \(o.code):\(hexString(o.data))" }
            return s
        }
        var s = "\(r.name) \(r.type) \(r.dnsClass)"
        if r.cacheFlush { s += " cache-flush" }
        s += " ttl \(r.ttl) " + rdata(r.data)
        return s
    }

    /// Presentation text of rdata.
    public static func rdata(_ data: DNSRecordData) -> String {
        switch data {
        case .a(let a): return a.description
        case .aaaa(let a): return a.description
        case .name(let n): return n.description
        case .srv(let p, let w, let port, let target): return "\(p) \(w) \(port) \(target)"
        case .txt(let t):
            if t.strings.isEmpty { return "(no strings)" }
            return t.strings.map { "\"" + DNSText.escape($0, quote: true, escapeDot: false) + "\"" }.joined(
                separator: " ")
        case .nsec(let next, let types): return "\(next) " + types.map(\.description).joined(separator: " ")
        case .hinfo(let cpu, let os):
            return
                "\"\(DNSText.escape(cpu, quote: true, escapeDot: false))\" \"\(DNSText.escape(os, quote: true, escapeDot: false))\""
        case .opt(let options): return options.map { "\($0.code):\(hexString($0.data))" }.joined(separator: " ")
        case .unknown(let bytes): return "\\# \(bytes.count) \(hexString(bytes))"
        }
    }

    /// Lower-case hex.
    public static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        s.reserveCapacity(bytes.count * 2)
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0xF)])
        }
        return s
    }
}

/// Makes arbitrary text safe for a terminal.
public enum TerminalText {
    /// Replaces C0/C1 control characters, DEL and Unicode bidi overrides with `\DDD` or
    /// `\u{…}` escapes, so text from the network cannot move the cursor, change colours or
    /// reorder what is displayed.
    public static func sanitize(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F {
                let d = String(v)
                out += "\\" + String(repeating: "0", count: 3 - d.count) + d
            } else if (0x80..<0xA0).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
