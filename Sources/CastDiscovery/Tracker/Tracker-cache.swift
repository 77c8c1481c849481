// What clients already hold: the last copy of each instance's SRV and TXT and each host's
// address records that went out over multicast (per address family) or unicast, with when it
// expires. A session counts them as had, because responders leave out what they multicast
// less than a second ago (RFC 6762 §6 rate limit, §7.4 duplicate-answer suppression).

import WireFormat

extension DiscoveryTracker {
    /// One record as the caches of its receivers hold it.
    struct CachedRecord {
        /// When it arrived.
        var time: Timestamp
        var frame: FrameRef
        /// Its TTL in nanoseconds from `time`.
        var lifetime: Int64
        /// SRV: the target host.
        var target: NameID?

        /// Whether it is still cached at `now`.
        @inline(__always)
        func isAlive(at now: Timestamp) -> Bool { now.nanoseconds(since: time) < lifetime }
    }

    /// The last copy of one record (an instance's SRV or TXT, a host's address records) that
    /// reached each audience: IPv4 multicast, IPv6 multicast, and the last unicast receiver.
    struct CacheEntry {
        var v4: CachedRecord?
        var v6: CachedRecord?
        var unicast: (to: IPAddress, record: CachedRecord)?

        /// A copy of the record in `packet`. A goodbye (TTL 0) removes the audience's copy;
        /// answers to legacy unicast queries are not cached (their TTL is capped at 10 s, RFC
        /// 6762 §6.7, and their receiver is a one-shot resolver).
        @inline(__always)
        mutating func note(ttl: UInt32, target: NameID?, packet: DiscoveryPacket, frame: FrameRef) {
            guard !packet.legacyUnicast else { return }
            let record =
                ttl == 0
                ? nil
                : CachedRecord(
                    time: packet.timestamp, frame: frame, lifetime: Int64(ttl) * 1_000_000_000, target: target)
            switch packet.destination {
            case .v4 where packet.destination.isMulticast: v4 = record
            case .v6 where packet.destination.isMulticast: v6 = record
            default:
                if let record {
                    unicast = (packet.destination, record)
                } else if unicast?.to == packet.destination {
                    unicast = nil
                }
            }
        }

        /// The copy `client` holds at `now`: the multicast copy of its address family, or the
        /// last unicast copy if it went to the client; `nil` when none is alive.
        @inline(__always)
        func held(by client: IPAddress, at now: Timestamp) -> CachedRecord? {
            if let u = unicast, u.to == client, u.record.isAlive(at: now) { return u.record }
            let multicast: CachedRecord?
            switch client {
            case .v4: multicast = v4
            case .v6: multicast = v6
            }
            guard let multicast, multicast.isAlive(at: now) else { return nil }
            return multicast
        }
    }

    /// Fills in, for the instances a response's PTR and SRV records brought to a client's
    /// session, the SRV, TXT and address records the client already held: they count from the
    /// session start, or from when they arrived if later.
    /// - Returns: what it added and dropped (for lack of pair budget), and `settled`: whether
    ///   none of those instances has anything left to recall (then the same records, received
    ///   again by an unchanged session, recall nothing whatever the caches hold).
    mutating func recallCached(
        _ keyed: [KeyedRecord], client index: Int, at now: Timestamp
    ) -> (noted: ClientState.Received, settled: Bool) {
        var result = ClientState.Received()
        guard let start = clients[index].currentStart else { return (result, true) }
        let address = clientAddresses[index]
        var settled = true
        for k in keyed where k.ttl > 0 {
            let instance: NameID
            switch k.type {
            case .ptr:
                guard let target = k.target else { continue }
                instance = target
            case .srv: instance = k.owner
            default: continue
            }
            guard let p = clients[index].current!.progress[instance] else { continue }
            guard instance.index < instanceSlot.count, instanceSlot[instance.index] >= 0 else {
                settled = false
                continue
            }
            let slot = Int(instanceSlot[instance.index])
            var target = p.srv?.target
            if target == nil, let c = instances[slot].srvCache.held(by: address, at: now), let t = c.target {
                target = t
                result.note(
                    clients[index].current!.sawSRV(
                        instance, target: t, time: Swift.max(c.time, start), frame: c.frame, budget: &pairBudget))
            }
            if p.txt == nil, let c = instances[slot].txtCache.held(by: address, at: now) {
                result.note(
                    clients[index].current!.sawTXT(
                        instance, time: Swift.max(c.time, start), frame: c.frame, budget: &pairBudget))
            }
            if let target, clients[index].current!.addressSeen(target) == nil,
                target.index < hostSlot.count, hostSlot[target.index] >= 0,
                let c = hosts[Int(hostSlot[target.index])].addressCache.held(by: address, at: now)
            {
                result.note(
                    clients[index].current!.sawAddress(
                        target, time: Swift.max(c.time, start), frame: c.frame, budget: &pairBudget))
            }
            if settled, !clients[index].current!.nothingToRecall(instance) { settled = false }
        }
        return (result, settled)
    }
}
