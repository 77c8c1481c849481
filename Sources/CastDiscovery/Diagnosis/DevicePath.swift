// How one mDNS device's records reached the capture: the device's own packets, copies another
// host relayed, and what its own answers claim about where it is. The path rules
// (PathRules.swift) read this; it is built once per device in DiagnosisContext.

import WireFormat

/// How one mDNS device's records reached the capture.
///
/// A packet is the device's own unless the capture shows otherwise: a link source other than
/// the one its own address sends from, a decremented TTL on a multicast packet, or an IPv4
/// source other than its IPv4 addresses (when those are plausible addresses of a LAN). TTL 1
/// from its own address is not evidence of relaying: it is a non-conforming responder.
struct DevicePath {
    /// Why a packet counts as relayed by another host.
    enum RelayEvidence: Hashable {
        /// Its link source is not the one the device's own address sends from.
        case otherMAC
        /// Multicast, and its IP TTL a little below 255, 128 or 64: a router passed it on.
        case decrementedTTL
        /// Its IPv4 source is none of the device's IPv4 addresses.
        case otherAddress
    }

    /// Why an advertised IPv4 address cannot be where the device is.
    enum Misplacement: Hashable {
        case dockerBridge
        case linkLocal
        case publicAddress
        case special
        /// A private block other than the one it sends from (a second interface or a VPN).
        case otherNetwork
    }

    let device: Device
    /// Packets the device sent itself, by distinct source.
    let own: [RecordSender]
    /// Copies relayed by other hosts, with the strongest evidence for each.
    let relayed: [(sender: RecordSender, evidence: RelayEvidence)]
    /// Advertised IPv4 addresses that are not where the device is, with the reason.
    let misplaced: [(address: IPAddress, reason: Misplacement)]

    /// Whether the device was heard from one of its own addresses, and not only relayed.
    var heardDirectly: Bool { own.contains { device.addresses.contains($0.address) } }
    /// Whether every advertised IPv4 address is misplaced (senders have nothing to connect to).
    var noUsableIPv4: Bool {
        let v4 = device.addresses.filter(\.isV4)
        return !v4.isEmpty && v4.allSatisfy { a in misplaced.contains { $0.address == a } }
    }

    init(_ d: Device) {
        device = d
        let addresses = Set(d.addresses)
        let v4Addresses = d.addresses.filter(\.isV4)
        let direct = d.senders.filter { addresses.contains($0.address) }
        // Its own link source: that of packets from its own address, unless only routed ones came.
        let unrouted = direct.filter { !$0.ttlDecremented }
        let ownMACs = Set((unrouted.isEmpty ? direct : unrouted).compactMap(\.mac))
        func linkEvidence(_ s: RecordSender) -> RelayEvidence? {
            if s.multicast && s.ttlDecremented { return .decrementedTTL }
            if let m = s.mac, !ownMACs.isEmpty, !ownMACs.contains(m) { return .otherMAC }
            return nil
        }

        // What its own answers claim: each IPv4 address compared with the IPv4 sources of the
        // packets nothing marks as relayed at the link.
        let sources = Set(d.senders.filter { linkEvidence($0) == nil }.map(\.address).filter(\.isV4))
        let allSources = Set(d.senders.map(\.address))
        var misplaced: [(address: IPAddress, reason: Misplacement)] = []
        if !sources.isEmpty {
            for a in v4Addresses where !allSources.contains(a) {
                let reasons = sources.map { Self.misplacement(of: a, from: $0, heardDirectly: !direct.isEmpty) }
                if let first = reasons.first, let reason = first, reasons.allSatisfy({ $0 != nil }) {
                    misplaced.append((a, reason))
                }
            }
        }
        self.misplaced = misplaced
        // An IPv4 source that is none of its addresses shows a relay, unless every address it
        // gives is misplaced from there (then it is the device, advertising the wrong address).
        let allMisplaced =
            !v4Addresses.isEmpty && v4Addresses.allSatisfy { a in misplaced.contains { $0.address == a } }
        var own: [RecordSender] = []
        var relayed: [(sender: RecordSender, evidence: RelayEvidence)] = []
        for s in d.senders {
            if let e = linkEvidence(s) {
                relayed.append((s, e))
            } else if s.address.isV4, !v4Addresses.isEmpty, !addresses.contains(s.address), !allMisplaced {
                relayed.append((s, .otherAddress))
            } else {
                own.append(s)
            }
        }
        self.own = own
        self.relayed = relayed
    }

    /// Why `address`, advertised in packets from `source`, cannot be where the device is; `nil`
    /// when the capture cannot tell (the subnet's prefix is not on the wire).
    static func misplacement(of address: IPAddress, from source: IPAddress, heardDirectly: Bool) -> Misplacement? {
        guard case .v4(let a) = address, case .v4(let s) = source else { return nil }
        let scope = AddressScope(a)
        let sourceScope = AddressScope(s)
        switch scope {
        case .special: return .special
        case .linkLocal: return sourceScope == .linkLocal ? nil : .linkLocal
        case .dockerBridge, .privateRange172: return scope.sharesBlock(with: sourceScope) ? nil : .dockerBridge
        case .publicRoutable: return sourceScope.isLocal ? .publicAddress : nil
        case .privateRange, .documentation:
            // Only a device heard from one of its own addresses shows that this one is another
            // interface of it; otherwise a reflector relaying a device on another subnet looks
            // the same (CROSS_SUBNET).
            return heardDirectly && sourceScope.isLocal && !scope.sharesBlock(with: sourceScope) ? .otherNetwork : nil
        }
    }
}

extension IPAddress {
    /// Whether it is an IPv4 address.
    var isV4: Bool {
        if case .v4 = self { return true }
        return false
    }
}
