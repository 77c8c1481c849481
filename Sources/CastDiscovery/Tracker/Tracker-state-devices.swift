// What the tracker keeps per device: a Cast instance, a host with address records, a DIAL
// device; each with the mutations a record makes to it.

import WireFormat

extension DiscoveryTracker {
    /// One Cast instance name, as its PTR, SRV and TXT records describe it.
    struct InstanceState {
        var key: NameID
        var name: DNSName
        var label: String
        var txt: CastTXT?
        var srvTarget: DNSName?
        var srvHost: NameID?
        var srvPort: UInt16?
        var appIDs: Set<String> = []
        var browseNames: [NameID] = []
        var firstSeen: Timestamp
        var lastSeen: Timestamp
        var firstFrame: FrameRef
        var lastFrame: FrameRef
        var leftAt: Timestamp?
        var leftFrame: FrameRef?
        /// The distinct TTLs seen per record type (at most ``TrackerLimits/maximumTTLsKept``).
        var ptrTTLs: [UInt32] = []
        var srvTTLs: [UInt32] = []
        var txtTTLs: [UInt32] = []
        var sources: Set<IPAddress> = []
        var sourceFrames: [(address: IPAddress, frame: FrameRef)] = []
        /// Each distinct IP source, link source and IP TTL its records came with.
        var senders: [RecordSender] = []
        var lastSenderFrame: FrameRef?
        /// The outer 802.1Q VLAN IDs its records arrived on (a trunk capture), in order of sight.
        var vlans: [UInt16] = []
        /// The last multicast packet that carried its records.
        var lastMulticast: (time: Timestamp, frame: FrameRef)?
        /// The TTL it gives its PTR records (the "true TTL" for known-answer suppression).
        var ptrTTL: UInt32?
        /// Event state (live capture): reported as appeared, as expired, its goodbye reported.
        var announced = false
        var expired = false
        var leftReported = false
        var lastSnapshot: DeviceSnapshot?
        /// The last copies of its SRV and TXT records that clients hold (Tracker-cache).
        var srvCache = CacheEntry()
        var txtCache = CacheEntry()
        /// The TXT rdata as last parsed, to skip parsing it again.
        var rawTXT: [UInt8]?
        /// The last few distinct TXT records with their meaning: a receiver that goes back and
        /// forth between idle and casting repeats the same few records.
        var recentTXT: [(raw: [UInt8], txt: CastTXT)] = []

        /// The TTLs by record type, as reports show them.
        var ttls: [String: Set<UInt32>] {
            var out: [String: Set<UInt32>] = [:]
            if !ptrTTLs.isEmpty { out["PTR"] = Set(ptrTTLs) }
            if !srvTTLs.isEmpty { out["SRV"] = Set(srvTTLs) }
            if !txtTTLs.isEmpty { out["TXT"] = Set(txtTTLs) }
            return out
        }

        /// Whether it was never seen with a SRV or TXT record (the kind a flood of fake PTR
        /// answers creates, and the kind that makes room when the table is full).
        var isIncomplete: Bool { srvTarget == nil && txt == nil && srvTTLs.isEmpty && txtTTLs.isEmpty }

        /// Notes a record of it in `packet` (before the record's own change).
        @inline(__always)
        mutating func heard(in packet: DiscoveryPacket, frame: FrameRef) {
            let source = packet.source
            lastSeen = packet.timestamp
            lastFrame = frame
            if packet.destination.isMulticast { lastMulticast = (packet.timestamp, frame) }
            if let vlan = packet.outerVLAN, !vlans.contains(vlan), vlans.count < TrackerLimits.maximumVLANsKept {
                vlans.append(vlan)
            }
            // Once per packet (a packet carries its PTR, SRV and TXT records).
            if lastSenderFrame != frame {
                lastSenderFrame = frame
                senders.note(packet, frame: frame)
            }
            // `sourceFrames` lists the same addresses as `sources`: a short list is scanned
            // rather than hashed (a receiver answers from two or three addresses).
            let known =
                sourceFrames.count <= 8 ? sourceFrames.contains { $0.address == source } : sources.contains(source)
            if !known, sourceFrames.count < TrackerLimits.maximumAddressesKept {
                sources.insert(source)
                sourceFrames.append((source, frame))
            }
        }

        /// A PTR record from browse name `owner` pointing at it (a TTL of 0 is a goodbye).
        /// - Parameters:
        ///   - ownerName: the owner's name when it is an app subtype (its app ID is noted).
        ///   - legacyUnicast: whether the answer went to a legacy unicast query, whose TTLs are
        ///     capped at 10 s (RFC 6762 §6.7): not the true TTL.
        @inline(__always)
        mutating func notePTR(
            ttl: UInt32, owner: NameID, ownerName: DNSName?, legacyUnicast: Bool, at now: Timestamp, frame: FrameRef
        ) {
            ptrTTLs.noteDistinct(ttl)
            if ttl == 0 {
                leftAt = now
                leftFrame = frame
                return
            }
            leftAt = nil
            leftFrame = nil
            if !legacyUnicast { ptrTTL = ttl }
            if !browseNames.contains(owner) {
                browseNames.append(owner)
                if let ownerName, case .subtype(let app)? = CastName(ownerName) { appIDs.insert(app) }
            }
        }

        /// Its SRV record: where it is reached.
        @inline(__always)
        mutating func noteSRV(ttl: UInt32, target: DNSName, host: NameID, port: UInt16) {
            srvTTLs.noteDistinct(ttl)
            guard ttl > 0 else { return }
            srvTarget = target
            srvHost = host
            srvPort = port
        }

        /// Its TXT record.
        @inline(__always)
        mutating func noteTXT(ttl: UInt32, _ data: TXTData) {
            txtTTLs.noteDistinct(ttl)
            guard ttl > 0 else { return }
            switch data {
            case .wire(let bytes): update(txt: bytes)
            case .none: break
            }
        }

        /// Parses the Cast keys only when the record changed, and not again for a record seen
        /// lately.
        private mutating func update(txt bytes: UnsafeRawBufferPointer) {
            guard rawTXT.map({ !equal($0, bytes) }) ?? true else { return }
            if let seen = recentTXT.firstIndex(where: { equal($0.raw, bytes) }) {
                rawTXT = recentTXT[seen].raw
                txt = recentTXT[seen].txt
                return
            }
            let raw = Array(bytes)
            let parsed = CastTXT(TXTRecord(wire: bytes))
            rawTXT = raw
            txt = parsed
            if recentTXT.count == TrackerLimits.recentTXTKept { recentTXT.removeFirst() }
            recentTXT.append((raw, parsed))
        }
    }

    /// One host name, as its A and AAAA records describe it.
    struct HostState {
        var addresses: [IPAddress] = []
        var addressFrames: [FrameRef] = []
        var aTTLs: [UInt32] = []
        var aaaaTTLs: [UInt32] = []
        /// Each distinct IP source, link source and IP TTL its address records came with.
        var senders: [RecordSender] = []
        var lastSenderFrame: FrameRef?
        /// The last copy of its address records that clients hold (Tracker-cache).
        var addressCache = CacheEntry()

        var ttls: [String: Set<UInt32>] {
            var out: [String: Set<UInt32>] = [:]
            if !aTTLs.isEmpty { out["A"] = Set(aTTLs) }
            if !aaaaTTLs.isEmpty { out["AAAA"] = Set(aaaaTTLs) }
            return out
        }

        /// One of its address records, in `packet`.
        @inline(__always)
        mutating func note(_ address: IPAddress, ttl: UInt32, packet: DiscoveryPacket, frame: FrameRef) {
            if lastSenderFrame != frame {
                lastSenderFrame = frame
                senders.note(packet, frame: frame)
            }
            if ttl > 0, addresses.count < TrackerLimits.maximumAddressesKept, !addresses.contains(address) {
                addresses.append(address)
                addressFrames.append(frame)
            }
            switch address {
            case .v4: aTTLs.noteDistinct(ttl)
            case .v6: aaaaTTLs.noteDistinct(ttl)
            }
        }
    }

    /// One DIAL device, as its SSDP responses and notifications describe it.
    struct DIALState {
        var info: DIALInfo
        /// Its position in the order DIAL devices were first heard.
        var order: Int

        /// A `200 OK` from it to `client`.
        mutating func noteAnswer(to client: IPAddress, frame: FrameRef) {
            info.answers += 1
            if info.firstAnswerFrame == nil { info.firstAnswerFrame = frame }
            if info.answeredClients.count < FindingSubjects.maximumEach, !info.answeredClients.contains(client) {
                info.answeredClients.append(client)
            }
        }

        /// A response or notification from it at `now` (a `ssdp:byebye` is a goodbye).
        mutating func note(_ ssdp: SSDPMessage, at now: Timestamp, frame: FrameRef) {
            info.lastSeen = now
            if let l = ssdp.location { info.location = l }
            if let u = ssdp.usn { info.usn = u }
            if let s = ssdp.server { info.server = s }
            if ssdp.notificationSubtype?.lowercased() == "ssdp:byebye" {
                info.leftAt = now
                info.leftFrame = frame
            } else {
                info.leftAt = nil
                info.leftFrame = nil
            }
        }
    }
}

extension Array where Element == UInt32 {
    /// Adds a TTL to a short list of distinct values (at most ``TrackerLimits/maximumTTLsKept``).
    @inline(__always)
    fileprivate mutating func noteDistinct(_ ttl: UInt32) {
        if last != ttl, !contains(ttl), count < TrackerLimits.maximumTTLsKept { append(ttl) }
    }
}

/// Whether stored bytes equal borrowed ones.
private func equal(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { x in
        var i = 0
        while i + 8 <= x.count {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < x.count {
            if x[i] != b[i] { return false }
            i += 1
        }
        return true
    }
}
