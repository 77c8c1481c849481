import WireFormat

// Rules about each device: what it publishes, whether it stays, and whether it is unique.
extension Diagnosis {
    /// TXT_MISSING_REQUIRED: a TXT record without `id` or `fn`, or a SRV port of 0.
    static func txtMissingRequired(_ context: DiagnosisContext, _ d: Device) -> Finding? {
        guard !d.txt.isEmpty else { return nil }
        var missing: [String] = []
        if !d.txt.contains(where: { $0.key.lowercased() == "id" && !$0.value.isEmpty }) { missing.append("id") }
        if !d.txt.contains(where: { $0.key.lowercased() == "fn" && !$0.value.isEmpty }) { missing.append("fn") }
        guard !missing.isEmpty || d.port == 0 else { return nil }
        let what = (missing.map { "TXT key `\($0)`" } + (d.port == 0 ? ["a non-zero SRV port"] : []))
        return Finding(
            code: .txtMissingRequired, severity: .error,
            title: "\(d.friendlyName ?? d.id) lacks \(what.joined(separator: " and ")): senders ignore it",
            detail: "Chrome and the Cast SDKs drop a receiver whose TXT record has no `id` or no "
                + "`fn`, or whose SRV port is 0. \(d.instance ?? d.id) announced "
                + d.txt.map { "\($0.key)=\($0.value)" }.prefix(12).joined(separator: " ") + ".",
            advice: "This is the receiver's firmware (or a third-party Cast implementation) publishing "
                + "an incomplete record: update it, or fix its mDNS service definition.",
            frames: [d.firstFrame], subjects: FindingSubjects(devices: [d.id]))
    }

    /// NO_IPV4_ADDRESS: the device's host has only AAAA records.
    static func noIPv4Address(_ context: DiagnosisContext, _ d: Device) -> Finding? {
        guard !d.addresses.isEmpty, !d.addresses.contains(where: isIPv4) else { return nil }
        return Finding(
            code: .noIPv4Address, severity: .warning,
            title: "\(d.friendlyName ?? d.id) resolves only to IPv6",
            detail: "Its host \(d.host ?? "?") has only AAAA records (\(list(d.addresses.map(\.description)))). "
                + "Senders that browse or connect over IPv4 only (go-chromecast, some apps) cannot reach it.",
            advice: "Check the device's IPv4 configuration (DHCP) and that IPv4 mDNS is not filtered; "
                + "make sure the sender supports IPv6.",
            // The AAAA often came in the device's first packet: that frame once.
            frames: d.addressFrames.map(\.frame)
                + (d.addressFrames.contains { $0.frame == d.firstFrame } ? [] : [d.firstFrame]),
            subjects: FindingSubjects(devices: [d.id]))
    }

    /// DEVICE_LEFT when the device said goodbye, else DEVICE_EXPIRED when it went silent past
    /// its shortest TTL and later queries expecting it got no answer.
    static func leftOrExpired(_ context: DiagnosisContext, _ d: Device) -> Finding? {
        let name = d.friendlyName ?? d.id
        let subject = FindingSubjects(devices: [d.id])
        if let left = d.leftAt {
            return Finding(
                code: .deviceLeft, severity: .info, title: "\(name) said goodbye",
                detail: "It sent its records with TTL 0 at \(clock(left)) (it was switched off, left the "
                    + "network, or its Cast service restarted) and did not announce again in the capture.",
                advice: "If this was not expected, check the device's power and network; a group leaving "
                    + "usually means its leader changed.",
                frames: d.leftFrame.map { [$0] } ?? [], subjects: subject)
        }
        guard let end = context.captureEnd, let ttl = shortestTTL(d) else { return nil }
        let silent = Double(end.nanoseconds(since: d.lastSeen)) / 1e9
        guard silent > Double(ttl) else { return nil }
        let unanswered = (context.queriesMissedBy[d.id] ?? []).filter { $0.time > d.lastSeen }
        guard !unanswered.isEmpty else { return nil }
        // Its unicast answers outlived its multicast: MULTICAST_DECAYED tells that story.
        guard !multicastDecayed(d, context) else { return nil }
        return Finding(
            code: .deviceExpired, severity: .warning,
            title: "\(name) went silent: its records expired without a goodbye",
            detail: "Last heard at \(clock(d.lastSeen)); its shortest TTL is \(ttl) s, the capture "
                + "went on \(Wording.duration(milliseconds: silent * 1000)) longer, and "
                + "\(Wording.count(unanswered.count, "query", "queries")) after that got no "
                + "answer from it. Caches drop it now. Typical causes: IGMP snooping ages out the "
                + "device's multicast membership, or it lost power or network.",
            advice: "If the device still works when addressed directly (TCP 8009), look at IGMP "
                + "snooping / multicast querier settings on the switch or access point.",
            frames: [d.lastFrame] + unanswered.map(\.frame), subjects: subject)
    }

    /// ADDRESS_CHANGED: the device's host was announced with more than one IPv4 address.
    static func addressChanged(_ context: DiagnosisContext, _ d: Device) -> Finding? {
        let v4 = d.addressFrames.filter { isIPv4($0.address) }
        guard v4.count > 1 else { return nil }
        return Finding(
            code: .addressChanged, severity: .warning,
            title: "\(d.friendlyName ?? d.id) changed its IPv4 address during the capture",
            detail: "Its host \(d.host ?? "?") was announced with \(list(v4.map(\.address.description))) "
                + "in turn. Senders that cached the old address fail until they resolve again.",
            advice: "Give the device a DHCP reservation; look for two DHCP servers or a device "
                + "moving between access points/VLANs.",
            frames: v4.map(\.frame), subjects: FindingSubjects(devices: [d.id]))
    }

    /// DUPLICATE_NAME, one per name: mDNS devices (different ids) that share a friendly name
    /// (letter case ignored) while both are alive by their TTLs, in name order. One device that
    /// replaced another of that name (a reset, a new id) is not a conflict.
    static func duplicateFriendlyNames(_ context: DiagnosisContext) -> [Finding] {
        var byName: [String: [Device]] = [:]
        for d in context.mdnsDevices {
            if let fn = d.friendlyName, !fn.isEmpty { byName[fn.lowercased(), default: []].append(d) }
        }
        let together = byName.compactMapValues { devices -> [Device]? in
            let same = devices.filter { d in
                devices.contains { o in o.id != d.id && aliveTogether(d.instanceSpans, o.instanceSpans) }
            }
            return same.count > 1 ? same : nil
        }
        return together.sorted(by: { $0.key < $1.key }).map { _, same in
            Finding(
                code: .duplicateName, severity: .warning,
                title: "\(same.count) devices are called \"\(same[0].friendlyName!)\"",
                detail: "Devices \(list(same.map(\.id))) share the friendly name; users cannot tell them apart in "
                    + "the Cast menu and may cast to the wrong one.",
                advice: "Rename one of them in the Google Home app.",
                frames: same.map(\.firstFrame), subjects: FindingSubjects(devices: same.map(\.id)))
        }
    }

    /// DUPLICATE_NAME, one per device: one id under two different instance names alive at the
    /// same time. A `-1` suffix alone is no conflict (real Cast groups and many receivers keep
    /// it for good, DOMAIN.md §7.1), nor is a rename after the old name expired or said
    /// goodbye, nor a Cast group whose leadership moves between members (§7.2 #9).
    static func duplicateInstanceNames(_ context: DiagnosisContext) -> [Finding] {
        context.mdnsDevices.compactMap { d -> Finding? in
            guard !isCastGroup(d) else { return nil }
            var pair: (InstanceSpan, InstanceSpan)?
            let spans = d.instanceSpans
            search: for (i, a) in spans.enumerated() {
                for b in spans[(i + 1)...] where b.instance != a.instance && a.overlaps(b) {
                    pair = (a, b)
                    break search
                }
            }
            guard let (a, b) = pair else { return nil }
            let names = [a.instance, b.instance]
            let renamed = names.contains(where: hasConflictSuffix)
            return Finding(
                code: .duplicateName, severity: .warning,
                title: "\(d.friendlyName ?? d.id) answers under two instance names at once",
                detail: "One id, instances \(list(names)), both alive by their TTLs at the same time"
                    + (renamed
                        ? ": an mDNS name conflict was resolved by renaming, so senders may list the device twice "
                            + "or see it flap."
                        : ", so senders may list the device twice or see it flap."),
                advice: "Look for two devices (or a reflector or a second network interface) answering for the same "
                    + "id; restart the device once the other is gone so it takes back its own name.",
                frames: [a.firstFrame, b.firstFrame], subjects: FindingSubjects(devices: [d.id]))
        }
    }

    /// Whether two sets of instance spans have a moment when both were alive.
    static func aliveTogether(_ a: [InstanceSpan], _ b: [InstanceSpan]) -> Bool {
        a.contains { x in b.contains { x.overlaps($0) } }
    }

    /// Whether the device is a Cast group (TXT `md=Google Cast Group`), whose leader moves.
    static func isCastGroup(_ d: Device) -> Bool {
        d.model?.lowercased() == "google cast group"
    }

    static func hasConflictSuffix(_ instance: String) -> Bool {
        // Cast: "<model>-<32 hex>-1"; avahi style: "name #2" / "name (2)".
        let parts = instance.split(separator: "-")
        if parts.count >= 3, let last = parts.last, Int(last) != nil,
            parts[parts.count - 2].count == 32, parts[parts.count - 2].allSatisfy(\.isHexDigit)
        {
            return true
        }
        if let hash = instance.lastIndex(of: "#"), Int(instance[instance.index(after: hash)...]) != nil { return true }
        return instance.hasSuffix(")") && instance.contains(" (")
            && Int(
                instance[
                    instance.index(after: instance.lastIndex(of: "(")!)..<instance.index(before: instance.endIndex)])
                != nil
    }

    static func shortestTTL(_ d: Device) -> UInt32? {
        d.ttls.flatMap(\.values).filter { $0 > 0 }.min()
    }

    static func isIPv4(_ address: IPAddress) -> Bool {
        if case .v4 = address { return true } else { return false }
    }

    /// `23:40:01.123 UTC`.
    static func clock(_ t: Timestamp) -> String { Wording.clock(t) + " UTC" }
}
