// Unicast DNS about `.local` names: a client asking its DNS server (port 53) for a name only
// mDNS can answer (DOMAIN.md §7.2 #11), and what the server said. Kept per client address.

import WireFormat

extension DiscoveryTracker {
    /// Queries kept per client address.
    static let maximumLocalDNSQueriesKept = 16

    /// A port-53 message whose first question is a `.local` name: a query from a client, or
    /// the server's answer to it (matched by address, message ID and name).
    mutating func ingestUnicastDNS(_ view: DNSMessageView, packet: DiscoveryPacket, frame: FrameRef) {
        var question: (name: DNSName, type: DNSRecordType)?
        view.forEachQuestion { q in
            if question == nil { question = (view.name(at: q.nameOffset), q.type) }
        }
        guard let question else { return }
        let name = question.name.description
        if !view.isResponse, packet.destinationPort == DiscoveryDecoder.dnsPort {
            let client = packet.source
            if localDNS[client] == nil, localDNS.count >= options.capacity.clients { return }
            var queries = localDNS[client, default: []]
            // A resolver's retransmission (same ID and name) is the same query.
            guard !queries.contains(where: { $0.messageID == view.id && $0.name == name }),
                queries.count < Self.maximumLocalDNSQueriesKept
            else { return }
            queries.append(
                LocalDNSQuery(
                    name: name, type: question.type.description, server: packet.destination, time: packet.timestamp,
                    frame: frame, messageID: view.id))
            localDNS[client] = queries
        } else if view.isResponse, packet.sourcePort == DiscoveryDecoder.dnsPort,
            let index = localDNS[packet.destination]?.lastIndex(where: {
                $0.messageID == view.id && $0.name == name && $0.server == packet.source && $0.answerFrame == nil
            })
        {
            var addresses: [String] = []
            view.forEachRecord { r in
                guard case .answer = r.section else { return }
                if r.type == .a { addresses.append(IPAddress.v4(view.ipv4(r)).description) }
                if r.type == .aaaa { addresses.append(IPAddress.v6(view.ipv6(r)).description) }
            }
            let rcode = Int(view.flags & 0x000F)
            let answer: String
            switch rcode {
            case 0: answer = addresses.isEmpty ? "no address" : addresses.joined(separator: ", ")
            case 2: answer = "SERVFAIL"
            case 3: answer = "NXDOMAIN"
            case 5: answer = "REFUSED"
            default: answer = "RCODE \(rcode)"
            }
            localDNS[packet.destination]![index].answer = answer
            localDNS[packet.destination]![index].answerFrame = frame
        }
    }
}
