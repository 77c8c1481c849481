// SSDP / DIAL: a client's DIAL M-SEARCH counts for the client; a device's responses and
// notifications describe a DIAL device, keyed by the UUID of its USN.

import WireFormat

extension DiscoveryTracker {
    /// Adds an SSDP message (only DIAL ones matter).
    mutating func ingestSSDP(_ ssdp: SSDPMessage, packet: DiscoveryPacket, frame: FrameRef) {
        switch ssdp.kind {
        case .mSearch:
            guard ssdp.isDIAL else { return }
            let address = packet.source
            guard options.clients.isEmpty || options.clients.contains(address) else { return leaveOut(address) }
            guard let index = clientIndex(address, packet: packet) else { return }
            clients[index].noteDIALSearch(at: packet.timestamp, frame: frame)
        case .response, .notify:
            guard ssdp.isDIAL else { return }
            let key = Self.dialKey(ssdp, source: packet.source)
            let now = packet.timestamp
            if dial[key] == nil {
                guard dial.count < options.capacity.dialDevices else {
                    drops.dialDevices += 1
                    return
                }
                dial[key] = DIALState(
                    info: DIALInfo(
                        location: nil, usn: nil, server: nil, address: packet.source, firstSeen: now, lastSeen: now,
                        leftAt: nil, firstFrame: frame, leftFrame: nil))
                dialOrder.append(key)
            }
            dial[key]!.note(ssdp, at: now, frame: frame)
        case .other:
            return
        }
    }

    /// A DIAL device is keyed by the UUID in its USN, else by its address.
    static func dialKey(_ ssdp: SSDPMessage, source: IPAddress) -> String {
        if let usn = ssdp.usn?.lowercased(), usn.hasPrefix("uuid:") {
            let rest = usn.dropFirst(5)
            return String(rest.prefix { $0 != ":" })
        }
        return source.description
    }
}
