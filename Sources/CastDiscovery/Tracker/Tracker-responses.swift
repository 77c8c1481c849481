// Responses: what devices said. A response's Cast records, keyed once per packet, update the
// instances and hosts they describe, then every client with a session that could receive them.

import WireFormat

extension DiscoveryTracker {
    /// One Cast-relevant record of a response with its names interned (once per packet, then
    /// shared by the device update and every client).
    struct KeyedRecord {
        var type: DNSRecordType
        var ttl: UInt32
        /// Owner name (the browse name of a PTR, the instance of SRV/TXT, the host of A/AAAA).
        var owner: NameID
        /// PTR target (an instance) or SRV target (a host).
        var target: NameID?
        /// SRV: the port.
        var port: UInt16 = 0
        /// A/AAAA: the address.
        var address: IPAddress?
        /// TXT: the rdata.
        var txt: TXTData = .none
    }

    /// TXT rdata as a record carries it: borrowed wire bytes (so a record copies no reference).
    enum TXTData {
        case none
        case wire(UnsafeRawBufferPointer)
    }

    /// The answer and additional records of a message read in place.
    mutating func keyedRecords(_ view: DNSMessageView, _ n: inout MessageNames, into keyed: inout [KeyedRecord]) {
        keyed.removeAll(keepingCapacity: true)
        view.forEachRecord { r in
            // Answers and additionals carry records; the authority section is for probes.
            // (Sections compared by pattern: `==` on a String-backed enum compares raw strings.)
            if case .authority = r.section { return }
            guard let requirement = NameRequirement.owner(of: r.type),
                let owner = intern(at: r.nameOffset, &n, requirement)
            else { return }
            var record = KeyedRecord(type: r.type, ttl: r.ttl, owner: owner)
            switch r.type {
            case .ptr:
                guard let t = intern(at: view.rdataNameOffset(r), &n, .instance) else { return }
                record.target = t
            case .srv:
                record.target = intern(at: view.rdataNameOffset(r), &n, .any)
                record.port = view.srvPort(r)
            case .txt: record.txt = .wire(view.rdata(r))
            case .a: record.address = .v4(view.ipv4(r))
            case .aaaa: record.address = .v6(view.ipv6(r))
            default: return
            }
            keyed.append(record)
        }
    }

    /// Adds a response's records.
    /// - Parameter stamp: the message's stamp when `keyed` is what the memo holds for it (then a
    ///   client it left unchanged before skips it, Tracker-repeats).
    mutating func ingestResponse(_ keyed: [KeyedRecord], packet: DiscoveryPacket, frame: FrameRef, stamp: UInt64?) {
        guard !keyed.isEmpty else { return }
        if keyed.contains(where: { $0.type != .a && $0.type != .aaaa }) { noteRouted(packet, frame: frame) }
        let now = packet.timestamp
        // Only live capture needs to know which instances and hosts a packet touched.
        let events = options.collectEvents
        var touched: [NameID] = []
        var hostsTouched: [NameID] = []
        for k in keyed {
            let ttl = k.ttl
            switch k.type {
            case .ptr:
                guard let key = k.target else { continue }
                if events, !touched.contains(key) { touched.append(key) }
                let ownerName = names.shape(k.owner)?.kind == .subtype ? names.name(k.owner) : nil
                guard let slot = touchInstance(key, packet: packet, frame: frame) else { continue }
                instances[slot].notePTR(
                    ttl: ttl, owner: k.owner, ownerName: ownerName, legacyUnicast: packet.legacyUnicast, at: now,
                    frame: frame)
            case .srv:
                guard let host = k.target else { continue }
                if events, !touched.contains(k.owner) { touched.append(k.owner) }
                let target = names.name(host)
                guard let slot = touchInstance(k.owner, packet: packet, frame: frame) else { continue }
                instances[slot].noteSRV(ttl: ttl, target: target, host: host, port: k.port)
                if k.port != 8009 { noteAdvertisedPort(k.port) }
                instances[slot].srvCache.note(ttl: ttl, target: host, packet: packet, frame: frame)
            case .txt:
                if events, !touched.contains(k.owner) { touched.append(k.owner) }
                guard let slot = touchInstance(k.owner, packet: packet, frame: frame) else { continue }
                instances[slot].noteTXT(ttl: ttl, k.txt)
                instances[slot].txtCache.note(ttl: ttl, target: nil, packet: packet, frame: frame)
            case .a, .aaaa:
                guard let address = k.address else { continue }
                if events, !hostsTouched.contains(k.owner) { hostsTouched.append(k.owner) }
                addAddress(address, host: k.owner, ttl: ttl, packet: packet, frame: frame)
            default:
                continue
            }
        }
        // What each client could receive of it.
        let window = options.responseWindowNanoseconds
        for index in sessionClients
        where canReceive(
            packet, client: clientAddresses[index], vlans: clients[index].vlans, interface: clientInterfaces[index])
        {
            let unicast = packet.destination == clientAddresses[index]
            clients[index].noteAnswers(keyed, time: now, frame: frame, window: window, unicast: unicast)
            let repeatKey = stamp.map { RepeatTable.key(stamp: $0, unicast: unicast) }
            if let repeatKey, repeats.contains(repeatKey, client: index) { continue }
            let received = clients[index].receive(keyed, time: now, frame: frame, budget: &pairBudget)
            let (recalled, settled) = recallCached(keyed, client: index, at: now)
            drops.pairs += received.dropped + recalled.dropped
            if received.changed || recalled.changed {
                forgetRepeats(of: index)
            } else if settled, let repeatKey {
                repeats.insert(repeatKey, client: index)
            }
        }
        if events { emitDeviceEvents(touched: touched, hostsTouched: hostsTouched, time: now, frame: frame) }
    }

    /// The slot of instance `key` after noting that `packet` came from it, creating the
    /// instance on first sight; `nil` when the table is full and no instance can make room.
    mutating func touchInstance(_ key: NameID, packet: DiscoveryPacket, frame: FrameRef) -> Int? {
        if key.index >= instanceSlot.count {
            instanceSlot.append(contentsOf: repeatElement(-1, count: names.count - instanceSlot.count))
        }
        var slot = Int(instanceSlot[key.index])
        if slot < 0 {
            let name = names.name(key)
            let w = name.wire
            let first = names.shape(key)!.first
            let label = CastName.text(w[(first + 1)..<(first + 1 + Int(w[first]))])
            let state = InstanceState(
                key: key, name: name, label: label, firstSeen: packet.timestamp, lastSeen: packet.timestamp,
                firstFrame: frame, lastFrame: frame)
            if instances.count < options.capacity.devices {
                slot = instances.count
                instances.append(state)
                evictionCandidates.append(slot)
            } else if let free = takeIncompleteInstance() {
                slot = free
                instances[slot] = state
                evictionCandidates.append(slot)
                drops.devicesEvicted += 1
            } else {
                drops.devices += 1
                return nil
            }
            instanceSlot[key.index] = Int32(slot)
        }
        instances[slot].heard(in: packet, frame: frame)
        return slot
    }

    /// Frees the slot of the oldest instance still never seen with a SRV or TXT record (the
    /// kind a flood of fake PTR answers creates), or returns `nil` when every one is complete.
    mutating func takeIncompleteInstance() -> Int? {
        while evictionCursor < evictionCandidates.count {
            let slot = evictionCandidates[evictionCursor]
            evictionCursor += 1
            guard instances[slot].isIncomplete else { continue }
            instanceSlot[instances[slot].key.index] = -1
            return slot
        }
        // Compact the queue once it is consumed, so it does not grow without end.
        evictionCandidates.removeAll(keepingCapacity: true)
        evictionCursor = 0
        return nil
    }

    /// An address record of host `key`, creating the host on first sight (unless the table is
    /// full).
    mutating func addAddress(
        _ address: IPAddress, host key: NameID, ttl: UInt32, packet: DiscoveryPacket, frame: FrameRef
    ) {
        if key.index >= hostSlot.count {
            hostSlot.append(contentsOf: repeatElement(-1, count: names.count - hostSlot.count))
        }
        var slot = Int(hostSlot[key.index])
        if slot < 0 {
            guard hosts.count < options.capacity.hosts else {
                drops.hosts += 1
                return
            }
            slot = hosts.count
            hostSlot[key.index] = Int32(slot)
            hosts.append(HostState())
        }
        hosts[slot].note(address, ttl: ttl, packet: packet, frame: frame)
        hosts[slot].addressCache.note(ttl: ttl, target: nil, packet: packet, frame: frame)
    }

    /// Whether `client` could receive `packet`: unicast to it, or multicast in its address
    /// family (an IPv6 client address is a socket on ff02::fb, which IPv4 answers do not reach),
    /// and, on a trunk capture, on one of the client's VLANs (`vlans`: the outer VLAN IDs its
    /// own packets carried; a tagged packet reaches only hosts on its VLAN), and on its interface
    /// when the capture names interfaces (`tcpdump -i any`: a multicast answer on eth0 does not
    /// reach a socket that queries on eth1).
    func canReceive(
        _ packet: DiscoveryPacket, client: IPAddress, vlans: [UInt16] = [], interface: UInt32? = nil
    ) -> Bool {
        if let vlan = packet.outerVLAN, !vlans.isEmpty, !vlans.contains(vlan) { return false }
        if packet.destination == client { return true }
        guard packet.destination.isMulticast else { return false }
        if let interface, let arrived = packet.interfaceIndex, arrived != interface { return false }
        switch (packet.destination, client) {
        case (.v4, .v4), (.v6, .v6): return true
        default: return false
        }
    }
}
