import WireFormat

/// What `castscope probe` asks and when, as a Cast sender asks it (DOMAIN.md §2 and §7.4):
/// a pure state machine that is told the time and the responses, and answers with the queries
/// to send. It owns no socket, so every rule here is a unit test.
///
/// - **Names:** `_googlecast._tcp.local`, the media criterion subtype Chrome and Play services
///   ask, and `_<APPID>._sub._googlecast._tcp.local` for each app ID, all PTR, in one message.
/// - **Schedule** (RFC 6762 §5.2, as mDNSResponder and Google's open querier do it): the first
///   query after a random 20–120 ms with the QU bit on every question, then QM queries 1 s later,
///   and the gap doubling each time.
/// - **Known answers** (§7.1): each later query lists the PTR answers already held whose TTL is
///   still above half its original value, with the remaining TTL; answers that do not fit one
///   packet go on in further packets, every one but the last with TC set (§7.2).
/// - **Resolution:** an instance whose SRV or TXT has not come, or whose SRV target has no
///   address yet, is asked for by name (SRV, TXT; A, AAAA) 200 ms after it was first seen
///   (the additional records of the same answer usually bring them), then again each second,
///   at most three times.
public struct CastQuerier: Sendable {
    /// The media criterion subtype (`_%<40 hex>`) real senders ask alongside app IDs.
    public static let mediaCriterionName = DNSName(
        "_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp.local")
    /// The largest query castscope sends, with IP and UDP headers well inside an Ethernet MTU.
    public static let maximumMessageBytes = 1400
    /// How long to wait for the additional records of an answer before asking for them.
    static let gatherNanoseconds: Int64 = 200_000_000
    /// How often the same unresolved name is asked for.
    static let followUpLimit = 3

    /// One service instance as the answers describe it.
    public struct Instance: Sendable {
        /// `<instance>._googlecast._tcp.local`.
        public var name: DNSName
        /// When its first PTR arrived.
        public var firstSeen: Timestamp
        /// The browse names whose PTR pointed at it (lower-case text).
        public var browseNames: Set<String> = []
        /// SRV: target host and port.
        public var target: DNSName?
        public var port: UInt16?
        /// TXT.
        public var txt: TXTRecord?
        /// Whether a goodbye (TTL 0) withdrew it.
        public var withdrawn = false
        /// How often, and when last, follow-up questions about it went out.
        var followUps = 0
        var lastFollowUp: Timestamp?
    }

    /// A PTR answer held for the known-answer list.
    struct HeldAnswer: Sendable {
        var record: DNSResourceRecord
        var received: Timestamp
    }

    /// The app IDs asked for, upper case, in order.
    public let appIDs: [String]
    /// The PTR names asked in every scheduled query.
    public let browseNames: [DNSName]
    /// When the next scheduled query is due (`nil` before ``start(at:firstDelayNanoseconds:)``).
    public private(set) var nextQueryAt: Timestamp?
    /// Scheduled queries sent so far.
    public private(set) var queriesSent = 0
    /// The gap after the next scheduled query.
    var interval: Int64 = 1_000_000_000
    /// Instances in the order their first PTR arrived.
    public private(set) var instances: [Instance] = []
    var instanceIndex: [String: Int] = [:]
    /// Addresses of host names (lower-case text), in the order they arrived.
    public private(set) var hostAddresses: [String: [IPAddress]] = [:]
    /// Hosts whose address questions went out, and how often.
    var hostFollowUps: [String: (count: Int, last: Timestamp)] = [:]
    /// PTR answers for the known-answer lists, by browse name and instance.
    var held: [String: HeldAnswer] = [:]
    var heldOrder: [String] = []
    /// Which address families the probe uses: only their address records complete a device.
    public var wantsIPv4 = true
    public var wantsIPv6 = true

    public init(appIDs: [String]) {
        self.appIDs = appIDs.map { $0.uppercased() }
        browseNames =
            [CastName.serviceTypeName, Self.mediaCriterionName]
            + self.appIDs.map { DNSName("_\($0)._sub._googlecast._tcp.local") }
    }

    /// Starts the schedule: the first query is due `firstDelayNanoseconds` (20–120 ms, chosen
    /// by the caller so tests can fix it) after `now`.
    public mutating func start(at now: Timestamp, firstDelayNanoseconds: Int64) {
        nextQueryAt = now.adding(nanoseconds: firstDelayNanoseconds)
    }

    /// The scheduled query due at `now`, if one is: its messages (more than one when the known
    /// answers overflow a packet), and the next one's time.
    public mutating func scheduledQuery(now: Timestamp) -> [DNSMessage] {
        guard let due = nextQueryAt, now >= due else { return [] }
        let unicastResponse = queriesSent == 0
        queriesSent += 1
        nextQueryAt = due.adding(nanoseconds: interval)
        interval = min(interval * 2, 3_600_000_000_000)
        let questions = browseNames.map {
            DNSQuestion(name: $0, type: .ptr, unicastResponse: unicastResponse)
        }
        return Self.split(questions: questions, knownAnswers: knownAnswers(now: now))
    }

    /// The follow-up questions due at `now` for instances and hosts not yet resolved, as one
    /// query message (none when nothing is due).
    public mutating func followUp(now: Timestamp) -> DNSMessage? {
        var questions: [DNSQuestion] = []
        for i in instances.indices where !instances[i].withdrawn {
            let needsSRV = instances[i].target == nil
            let needsTXT = instances[i].txt == nil
            guard needsSRV || needsTXT,
                due(
                    first: instances[i].firstSeen, last: instances[i].lastFollowUp,
                    count: instances[i].followUps, now: now)
            else { continue }
            instances[i].followUps += 1
            instances[i].lastFollowUp = now
            if needsSRV { questions.append(DNSQuestion(name: instances[i].name, type: .srv)) }
            if needsTXT { questions.append(DNSQuestion(name: instances[i].name, type: .txt)) }
        }
        var asked: Set<String> = []
        for instance in instances where !instance.withdrawn {
            guard let target = instance.target else { continue }
            let key = Self.key(target)
            guard !asked.contains(key), !hasAddress(key) else { continue }
            let previous = hostFollowUps[key]
            guard due(first: instance.firstSeen, last: previous?.last, count: previous?.count ?? 0, now: now)
            else { continue }
            asked.insert(key)
            hostFollowUps[key] = ((previous?.count ?? 0) + 1, now)
            if wantsIPv4 { questions.append(DNSQuestion(name: target, type: .a)) }
            if wantsIPv6 { questions.append(DNSQuestion(name: target, type: .aaaa)) }
        }
        guard !questions.isEmpty else { return nil }
        var m = DNSMessage()
        m.questions = questions
        return m
    }

    /// When ``followUp(now:)`` may next have something to send (`nil`: nothing pending).
    public func nextFollowUpAt() -> Timestamp? {
        var next: Timestamp?
        func consider(_ t: Timestamp) { next = next.map { Swift.min($0, t) } ?? t }
        for instance in instances where !instance.withdrawn {
            if instance.target == nil || instance.txt == nil, instance.followUps < Self.followUpLimit {
                consider(dueTime(first: instance.firstSeen, last: instance.lastFollowUp))
            }
            if let target = instance.target, !hasAddress(Self.key(target)) {
                let previous = hostFollowUps[Self.key(target)]
                if (previous?.count ?? 0) < Self.followUpLimit {
                    consider(dueTime(first: instance.firstSeen, last: previous?.last))
                }
            }
        }
        return next
    }

    func due(first: Timestamp, last: Timestamp?, count: Int, now: Timestamp) -> Bool {
        count < Self.followUpLimit && now >= dueTime(first: first, last: last)
    }

    func dueTime(first: Timestamp, last: Timestamp?) -> Timestamp {
        last.map { $0.adding(nanoseconds: 1_000_000_000) } ?? first.adding(nanoseconds: Self.gatherNanoseconds)
    }

    /// Takes in a response (multicast or unicast) received at `now`.
    public mutating func ingest(_ message: DNSMessage, at now: Timestamp) {
        guard message.isResponse else { return }
        let records = message.answers + message.additionals
        // PTRs first, so that the SRV and TXT in the same message find their instance.
        for r in records where r.type == .ptr {
            guard case .name(let instanceName) = r.data,
                let browse = browseNames.first(where: {
                    $0.equalsIgnoringCase(r.name)
                })
            else { continue }
            let key = Self.key(instanceName)
            let heldKey = Self.key(browse) + " " + key
            if r.ttl == 0 {
                held[heldKey] = nil
                if let i = instanceIndex[key] { instances[i].withdrawn = true }
                continue
            }
            if held[heldKey] == nil { heldOrder.append(heldKey) }
            held[heldKey] = HeldAnswer(record: r, received: now)
            if let i = instanceIndex[key] {
                instances[i].browseNames.insert(Self.key(browse))
                instances[i].withdrawn = false
            } else {
                instanceIndex[key] = instances.count
                var instance = Instance(name: instanceName, firstSeen: now)
                instance.browseNames.insert(Self.key(browse))
                instances.append(instance)
            }
        }
        for r in records {
            switch r.data {
            case .srv(_, _, let port, let target):
                guard let i = instanceIndex[Self.key(r.name)], r.ttl > 0 else { continue }
                instances[i].target = target
                instances[i].port = port
            case .txt(let txt):
                guard let i = instanceIndex[Self.key(r.name)], r.ttl > 0 else { continue }
                instances[i].txt = txt
            case .a(let a): addAddress(.v4(a), host: r.name, ttl: r.ttl)
            case .aaaa(let a): addAddress(.v6(a), host: r.name, ttl: r.ttl)
            default: continue
            }
        }
    }

    mutating func addAddress(_ address: IPAddress, host: DNSName, ttl: UInt32) {
        let key = Self.key(host)
        var list = hostAddresses[key] ?? []
        if ttl == 0 {
            list.removeAll { $0 == address }
        } else if !list.contains(address) {
            list.append(address)
        }
        hostAddresses[key] = list
    }

    /// Whether a host has an address of a family the probe uses.
    func hasAddress(_ key: String) -> Bool {
        (hostAddresses[key] ?? []).contains { a in
            switch a {
            case .v4: return wantsIPv4
            case .v6: return wantsIPv6
            }
        }
    }

    /// An instance's addresses (those of its SRV target), IPv4 first.
    public func addresses(of instance: Instance) -> [IPAddress] {
        guard let target = instance.target else { return [] }
        return (hostAddresses[Self.key(target)] ?? []).sorted { a, b in
            switch (a, b) {
            case (.v4, .v6): return true
            case (.v6, .v4): return false
            default: return false
            }
        }
    }

    /// Whether the instance has its SRV, its TXT and an address of a family in use.
    public func isResolved(_ instance: Instance) -> Bool {
        guard let target = instance.target, instance.txt != nil else { return false }
        return hasAddress(Self.key(target))
    }

    /// The PTR answers to list as known answers at `now`: those above half their TTL, with the
    /// TTL that remains (RFC 6762 §7.1).
    func knownAnswers(now: Timestamp) -> [DNSResourceRecord] {
        heldOrder.compactMap { key in
            guard let h = held[key] else { return nil }
            // Whole seconds, rounded up: the TTL listed never overstates what remains.
            let elapsed = UInt32(clamping: max(0, (now.nanoseconds(since: h.received) + 999_999_999) / 1_000_000_000))
            guard elapsed < h.record.ttl, h.record.ttl - elapsed > h.record.ttl / 2 else { return nil }
            var r = h.record
            r.ttl -= elapsed
            r.cacheFlush = false
            return r
        }
    }

    /// One query, or several when the known answers do not fit ``maximumMessageBytes``: the
    /// questions go in the first, and every message but the last has TC set (RFC 6762 §7.2).
    static func split(questions: [DNSQuestion], knownAnswers: [DNSResourceRecord]) -> [DNSMessage] {
        var messages: [DNSMessage] = []
        var current = DNSMessage()
        current.questions = questions
        var size = current.wireFormat().count
        for answer in knownAnswers {
            var probe = DNSMessage()
            probe.answers = [answer]
            let bytes = probe.wireFormat().count - 12
            if size + bytes > maximumMessageBytes, !current.answers.isEmpty {
                current.flags |= 0x0200  // TC: more known answers follow
                messages.append(current)
                current = DNSMessage()
                size = 12
            }
            current.answers.append(answer)
            size += bytes
        }
        messages.append(current)
        return messages
    }

    /// A name as a case-folded dictionary key.
    public static func key(_ name: DNSName) -> String { name.description.lowercased() }
}

extension Timestamp {
    /// This time plus `nanoseconds`.
    public func adding(nanoseconds: Int64) -> Timestamp {
        Timestamp(seconds: seconds, nanoseconds: Int64(self.nanoseconds) + nanoseconds)
    }
}
