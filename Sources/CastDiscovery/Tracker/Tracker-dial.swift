// SSDP / DIAL: a client's DIAL M-SEARCH counts for the client (with its USER-AGENT) and is kept
// to time the answers; a device's responses and notifications describe a DIAL device, keyed by
// the UUID of its USN; a response to a client's search socket is that search's answer.

import WireFormat

extension DiscoveryTracker {
    /// How long after an M-SEARCH an answer to its socket still counts as its answer: MX is at
    /// most 5 s (UPnP Device Architecture §1.3.2), plus slack for slow responders.
    static let dialAnswerWindowNanoseconds: Int64 = 10_000_000_000

    /// One DIAL M-SEARCH of a client and the first answer of each DIAL device to it.
    struct DIALSearch {
        /// The searcher's UDP port: answers come back to it.
        var port: UInt16
        var time: Timestamp
        var frame: FrameRef
        /// Each DIAL device (by ``DIALState/order``) that answered, with its first answer.
        var answers: [(device: Int, delayMs: Double, frame: FrameRef)] = []
    }

    /// Adds an SSDP message (only DIAL ones matter).
    mutating func ingestSSDP(_ ssdp: SSDPMessage, packet: DiscoveryPacket, frame: FrameRef) {
        switch ssdp.kind {
        case .mSearch:
            guard ssdp.isDIAL else { return }
            let address = packet.source
            guard options.clients.isEmpty || options.clients.contains(address) else { return leaveOut(address) }
            guard let index = clientIndex(address, packet: packet) else { return }
            clients[index].noteDIALSearch(
                DIALSearch(port: packet.sourcePort, time: packet.timestamp, frame: frame), userAgent: ssdp.userAgent)
        case .response, .notify:
            guard ssdp.isDIAL else { return }
            let key = Self.dialKey(usn: ssdp.usn, source: packet.source)
            let now = packet.timestamp
            if dial[key] == nil {
                guard dial.count < options.capacity.dialDevices else {
                    drops.dialDevices += 1
                    return
                }
                dial[key] = DIALState(
                    info: DIALInfo(
                        location: nil, usn: nil, server: nil, address: packet.source, firstSeen: now, lastSeen: now,
                        leftAt: nil, firstFrame: frame, leftFrame: nil),
                    order: dialOrder.count)
                dialOrder.append(key)
            }
            dial[key]!.note(ssdp, at: now, frame: frame)
            if ssdp.kind == .response { noteDIALAnswer(from: key, packet: packet, frame: frame) }
        case .other:
            return
        }
    }

    /// A DIAL `200 OK` to a client's search socket: the answer of the latest M-SEARCH from that
    /// socket at most ``dialAnswerWindowNanoseconds`` before it (the first per device counts).
    mutating func noteDIALAnswer(from key: String, packet: DiscoveryPacket, frame: FrameRef) {
        let destination = packet.destination
        guard !destination.isMulticast else { return }
        dial[key]!.noteAnswer(to: destination, frame: frame)
        guard let index = clientSlot[destination] else { return }
        let device = dial[key]!.order
        let now = packet.timestamp
        var i = clients[index].dialSearchLog.count - 1
        while i >= 0 {
            let search = clients[index].dialSearchLog[i]
            let age = now.nanoseconds(since: search.time)
            if age > Self.dialAnswerWindowNanoseconds { return }
            if age >= 0, search.port == packet.destinationPort {
                guard !search.answers.contains(where: { $0.device == device }),
                    search.answers.count < QueryOutcome.maximumDevicesListed
                else { return }
                clients[index].dialSearchLog[i].answers.append((device, Double(age) / 1e6, frame))
                return
            }
            i -= 1
        }
    }

    /// A DIAL device is keyed by the UUID in its USN, else by its address.
    static func dialKey(usn: String?, source: IPAddress) -> String {
        if let usn = usn?.lowercased(), usn.hasPrefix("uuid:") {
            let rest = usn.dropFirst(5)
            return String(rest.prefix { $0 != ":" })
        }
        return source.description
    }

    /// The DIAL latency rows of the timeline: for each client, each of its M-SEARCHes against
    /// each DIAL device that answered any of them (rows name the device by its DIAL key, which
    /// ``AnalysisReport`` turns into a device id), while `room` lasts.
    func dialRows(room: Int, drops: inout LimitDrops) -> [LatencyRow] {
        var rows: [LatencyRow] = []
        for c in clients where !c.dialSearchLog.isEmpty {
            var devices = Set<Int>()
            for s in c.dialSearchLog { for a in s.answers { devices.insert(a.device) } }
            for s in c.dialSearchLog {
                for d in devices.sorted() {
                    guard rows.count < room else {
                        drops.latencyRows += 1
                        continue
                    }
                    let answer = s.answers.first { $0.device == d }
                    rows.append(
                        LatencyRow(
                            client: c.address, deviceID: dialOrder[d], sessionStart: s.time, sessionStartFrame: s.frame,
                            firstAnswerMs: answer?.delayMs, firstAnswerFrame: answer?.frame,
                            firstAnswerMissing: answer == nil
                                ? "no DIAL answer from this device to this M-SEARCH" : nil,
                            resolvedMs: nil, resolvedFrame: nil,
                            resolvedMissing: "not measured for DIAL: the answer gives LOCATION, which the sender "
                                + "fetches over HTTP",
                            via: .dial))
                }
            }
        }
        return rows
    }
}
