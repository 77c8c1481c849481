// Clients are hosts, not addresses: the addresses one host queried from (its IPv4 and IPv6
// link-local addresses, one MAC) are joined into one client, and its latency rows, response
// counts and query outcomes are joined with them (DOMAIN.md §7.1 "One host, several addresses";
// §7.4: Android sends each query to 224.0.0.251 and ff02::fb, iOS over IPv4 and IPv6).

import WireFormat

/// Which client addresses belong to one host.
///
/// The tracker keeps one client per source address; the report joins them here, at the end,
/// when every address a MAC used is known. A MAC is trusted to name one host only when it sent
/// from at most one IPv4 address, at most one IPv6 link-local address and at most one other
/// IPv6 address: a router or an mDNS reflector re-sending other hosts' queries from its own MAC
/// shows several addresses of one kind, and its addresses are left apart.
public struct HostGrouping: Sendable {
    /// The hosts: indexes into the clients given, the primary address's client first (IPv4
    /// preferred, then the first seen), hosts in order of their first client.
    public let hosts: [[Int]]
    /// Each address's primary address (only for addresses joined to another).
    public let primary: [IPAddress: IPAddress]

    /// Groups `clients` (one per address) into hosts by MAC.
    public init(_ clients: [Client]) {
        var byMAC: [MACAddress: [Int]] = [:]
        for (i, c) in clients.enumerated() {
            if let mac = c.mac, !mac.isMulticast { byMAC[mac, default: []].append(i) }
        }
        var hostOf = [Int](clients.indices)
        for members in byMAC.values where members.count > 1 && Self.oneHost(members.map { clients[$0].address }) {
            let primary = members.first { clients[$0].address.isIPv4 } ?? members[0]
            for m in members { hostOf[m] = primary }
        }
        var hosts: [[Int]] = []
        var slot: [Int: Int] = [:]
        var primary: [IPAddress: IPAddress] = [:]
        for i in clients.indices {
            let p = hostOf[i]
            if let s = slot[p] {
                hosts[s].append(i)
            } else {
                slot[p] = hosts.count
                hosts.append([i])
            }
            if p != i { primary[clients[i].address] = clients[p].address }
        }
        // The primary first, then the others in order of first sight.
        self.hosts = hosts.map { members in
            let p = hostOf[members[0]]
            return [p] + members.filter { $0 != p }
        }
        self.primary = primary
    }

    /// Whether the addresses one MAC sent from can be one host's: at most one of each kind.
    static func oneHost(_ addresses: [IPAddress]) -> Bool {
        var v4 = 0
        var linkLocal = 0
        var otherV6 = 0
        for a in addresses {
            switch a {
            case .v4: v4 += 1
            case .v6(let v6) where v6.isLinkLocal: linkLocal += 1
            case .v6: otherV6 += 1
            }
        }
        return v4 <= 1 && linkLocal <= 1 && otherV6 <= 1
    }

    /// The address `address`'s rows are reported under.
    public func primary(of address: IPAddress) -> IPAddress { primary[address] ?? address }
}

extension IPAddress {
    public var isIPv4: Bool {
        if case .v4 = self { return true }
        return false
    }
}

extension Client {
    /// One host's client from its addresses' clients, the primary's first: counts are summed,
    /// the query rhythm (intervals, doubling, sessions) is the busiest address's, since each
    /// of a host's queries is sent over every address (Android's IPv4 + IPv6 pairs) and adding
    /// their rhythms up would count every interval twice.
    init(host members: [Client]) {
        var joined = members[0]
        for m in members.dropFirst() { joined.absorb(m) }
        let busiest = members.max { $0.queries < $1.queries }!
        joined.intervalsMs = busiest.intervalsMs
        joined.fastIntervals = busiest.fastIntervals
        joined.followsDoubling = busiest.followsDoubling
        joined.sessions = members.map(\.sessions).max()!
        joined.address = members[0].address
        joined.addresses = members.map(\.address)
        self = joined
    }
}

extension QueryOutcome {
    /// One host's queries: a query from another of its addresses within `window` of a query
    /// (the same burst sent over IPv4 and IPv6) is joined into it, its answers timed from the
    /// earlier one. `queries` are one host's, already relabelled to its primary address.
    static func joined(_ queries: [QueryOutcome], sources: [IPAddress], window: Int64) -> [QueryOutcome] {
        joinedInTime(queries, sources: sources, within: window, time: { $0.time }) { $0.join($1) }
    }

    /// Joins the same burst sent from another address of the host (`other` no earlier).
    ///
    /// The lists are a handful of names and device ids: they are sorted and searched as arrays
    /// (``DistinctStrings``), which cost a tenth of the sets and dictionary once used here.
    mutating func join(_ other: QueryOutcome) {
        var allNames = names + other.names
        allNames.sort()
        names = allNames.enumerated().compactMap { i, name in i > 0 && allNames[i - 1] == name ? nil : name }
        let shift = Double(other.time.nanoseconds(since: time)) / 1e6
        // Each device's earliest answer; its place found by a search while the lists are short,
        // through a dictionary when they are long (a network of many devices).
        var merged: [Answer] = []
        merged.reserveCapacity(answered.count + other.answered.count)
        var place: [String: Int]? = answered.count + other.answered.count > DistinctStrings.arrayLimit ? [:] : nil
        func put(_ a: Answer, keepEarlier: Bool) {
            let found = place != nil ? place![a.deviceID] : merged.firstIndex { $0.deviceID == a.deviceID }
            guard let i = found else {
                place?[a.deviceID] = merged.count
                return merged.append(a)
            }
            if keepEarlier, merged[i].delayMs <= a.delayMs { return }
            merged[i] = a
        }
        for a in answered { put(a, keepEarlier: false) }
        for a in other.answered {
            put(Answer(deviceID: a.deviceID, delayMs: a.delayMs + shift, frame: a.frame), keepEarlier: true)
        }
        merged.sort { ($0.delayMs, $0.deviceID) < ($1.delayMs, $1.deviceID) }
        answered = merged
        var seen = DistinctStrings(merged.map(\.deviceID))
        suppressed = (suppressed + other.suppressed).filter { seen.insert($0) }
        missed = (missed + other.missed).filter { seen.insert($0) }
    }
}

/// Strings met so far: an array searched from the start while it is short (comparing a few
/// strings costs less than hashing one), a set once it is longer.
struct DistinctStrings {
    static let arrayLimit = 16
    private var few: [String]
    private var many: Set<String> = []

    init(_ strings: [String]) {
        few = []
        few.reserveCapacity(Swift.min(strings.count, Self.arrayLimit))
        for s in strings { _ = insert(s) }
    }

    /// Adds `s`. - Returns: whether it was not there yet.
    mutating func insert(_ s: String) -> Bool {
        if !many.isEmpty { return many.insert(s).inserted }
        if few.contains(s) { return false }
        if few.count < Self.arrayLimit {
            few.append(s)
        } else {
            many = Set(few)
            many.insert(s)
            few = []
        }
        return true
    }
}

extension LatencyRow {
    /// One host's rows for one device: a session from another of its addresses that starts
    /// within `gap` of a session is the same discovery session; the joined row starts at the
    /// earlier start and takes the earlier first answer and resolution.
    static func joined(_ rows: [LatencyRow], sources: [IPAddress], gap: Int64) -> [LatencyRow] {
        joinedInTime(rows, sources: sources, within: gap, time: { $0.sessionStart }) { $0.join($1) }
    }

    /// Joins the same session seen from another address of the host (`other` no earlier).
    mutating func join(_ other: LatencyRow) {
        let shift = Double(other.sessionStart.nanoseconds(since: sessionStart)) / 1e6
        if let ms = other.firstAnswerMs, firstAnswerMs.map({ ms + shift < $0 }) ?? true {
            firstAnswerMs = ms + shift
            firstAnswerFrame = other.firstAnswerFrame
            firstAnswerMissing = nil
        }
        if let ms = other.resolvedMs, resolvedMs.map({ ms + shift < $0 }) ?? true {
            resolvedMs = ms + shift
            resolvedFrame = other.resolvedFrame
            resolvedMissing = nil
        }
    }
}

extension ResponseStats {
    /// How each device answered one host's joined queries, in order of first mention, with
    /// the answer delays (for the latency summaries).
    static func counted(_ queries: [QueryOutcome], client: IPAddress) -> [(stats: ResponseStats, delays: [Double])] {
        var rows: [ResponseStats] = []
        var index: [String: Int] = [:]
        var delays: [[Double]] = []
        func row(_ id: String) -> Int {
            if let i = index[id] { return i }
            index[id] = rows.count
            rows.append(
                ResponseStats(
                    client: client, deviceID: id, expected: 0, answered: 0, suppressed: 0, missed: 0, delay: nil,
                    missedFrames: []))
            delays.append([])
            return rows.count - 1
        }
        for q in queries {
            for a in q.answered {
                let i = row(a.deviceID)
                rows[i].expected += 1
                rows[i].answered += 1
                delays[i].append(a.delayMs)
            }
            for id in q.suppressed {
                let i = row(id)
                rows[i].expected += 1
                rows[i].suppressed += 1
            }
            for id in q.missed {
                let i = row(id)
                rows[i].expected += 1
                rows[i].missed += 1
                if rows[i].missedFrames.count < TrackerLimits.maximumMissedFramesKept {
                    rows[i].missedFrames.append(q.frame)
                }
            }
        }
        for i in rows.indices { rows[i].delay = Summary(delays[i]) }
        return Array(zip(rows, delays)).map { (stats: $0.0, delays: $0.1) }
    }
}

extension AnalysisReport {
    /// Relabels every row of a joined address to its host's primary address and joins one
    /// host's queries (one burst sent over IPv4 and IPv6 is one query) and sessions. Response
    /// counts are counted again from the joined queries when every query was kept
    /// (`queriesComplete`); otherwise the busiest address's counts stand for the host's.
    static func joinHosts(
        _ grouping: HostGrouping, latency: inout [LatencyRow], queries: inout [QueryOutcome],
        responses: inout [ResponseStats], delays: inout [[Double]], options: AnalysisOptions, queriesComplete: Bool
    ) {
        let joined = Set(grouping.primary.values)
        func isJoined(_ a: IPAddress) -> Bool { grouping.primary[a] != nil || joined.contains(a) }

        // Queries: the host's, in time order, joined per burst; at the place of its first.
        var hostQueries: [IPAddress: (queries: [QueryOutcome], sources: [IPAddress])] = [:]
        for q in queries where isJoined(q.client) {
            let host = grouping.primary(of: q.client)
            var relabelled = q
            relabelled.client = host
            hostQueries[host, default: ([], [])].queries.append(relabelled)
            hostQueries[host]!.sources.append(q.client)
        }
        var joinedQueries: [IPAddress: [QueryOutcome]] = [:]
        for (host, h) in hostQueries {
            joinedQueries[host] = QueryOutcome.joined(h.queries, sources: h.sources, window: options.burstNanoseconds)
        }
        var out: [QueryOutcome] = []
        var placed: Set<IPAddress> = []
        for q in queries {
            guard isJoined(q.client) else {
                out.append(q)
                continue
            }
            let host = grouping.primary(of: q.client)
            if placed.insert(host).inserted { out += joinedQueries[host] ?? [] }
        }
        queries = out

        // Latency: per host and device, sessions joined.
        var hostRows: [String: (rows: [LatencyRow], sources: [IPAddress])] = [:]
        for r in latency where isJoined(r.client) {
            let host = grouping.primary(of: r.client)
            var relabelled = r
            relabelled.client = host
            let key = "\(host) \(r.deviceID)"
            hostRows[key, default: ([], [])].rows.append(relabelled)
            hostRows[key]!.sources.append(r.client)
        }
        var rows: [LatencyRow] = []
        var placedRows: Set<String> = []
        for r in latency {
            guard isJoined(r.client) else {
                rows.append(r)
                continue
            }
            let key = "\(grouping.primary(of: r.client)) \(r.deviceID)"
            if placedRows.insert(key).inserted, let h = hostRows[key] {
                rows += LatencyRow.joined(h.rows, sources: h.sources, gap: options.sessionGapNanoseconds)
            }
        }
        latency = rows

        // Responses: counted again from the joined queries, or the busiest address's.
        var stats: [(stats: ResponseStats, delays: [Double])] = []
        var placedStats: Set<IPAddress> = []
        var busiest: [String: Int] = [:]
        if !queriesComplete {
            for (i, r) in responses.enumerated() where isJoined(r.client) {
                let key = "\(grouping.primary(of: r.client)) \(r.deviceID)"
                if let b = busiest[key], responses[b].expected >= r.expected { continue }
                busiest[key] = i
            }
        }
        for (i, r) in responses.enumerated() {
            guard isJoined(r.client) else {
                stats.append((r, delays[i]))
                continue
            }
            let host = grouping.primary(of: r.client)
            if queriesComplete {
                if placedStats.insert(host).inserted {
                    stats += ResponseStats.counted(joinedQueries[host] ?? [], client: host)
                }
            } else if busiest["\(host) \(r.deviceID)"] == i {
                var relabelled = r
                relabelled.client = host
                stats.append((relabelled, delays[i]))
            }
        }
        responses = stats.map(\.stats)
        delays = stats.map(\.delays)
    }
}

/// `items` in time order, each joined into the one before it when it starts less than `window`
/// nanoseconds after it and comes from an address (`sources[i]`) that one has not had yet: the
/// same query burst or session seen from another address of one host.
func joinedInTime<T>(
    _ items: [T], sources: [IPAddress], within window: Int64, time: (T) -> Timestamp, join: (inout T, T) -> Void
) -> [T] {
    // The times read once: the sort compares each item's many times.
    let times = items.map(time)
    let order = items.indices.sorted { (times[$0], $0) < (times[$1], $1) }
    var out: [T] = []
    out.reserveCapacity(items.count)
    var outSources: [Set<IPAddress>] = []
    var lastTime = Timestamp(seconds: 0, nanoseconds: 0)
    for i in order {
        if !out.isEmpty, times[i].nanoseconds(since: lastTime) < window,
            !outSources[outSources.count - 1].contains(sources[i])
        {
            join(&out[out.count - 1], items[i])
            outSources[outSources.count - 1].insert(sources[i])
        } else {
            out.append(items[i])
            outSources.append([sources[i]])
        }
        lastTime = time(out[out.count - 1])
    }
    return out
}
