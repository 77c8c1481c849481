// What the tracker keeps of a client's discovery: its sessions (what reached it), its open
// query burst, the closed queries it logs and its response counts per device.

import WireFormat

extension DiscoveryTracker {
    /// When the parts of one instance first reached a client during a session.
    struct SessionProgress {
        var firstAnswer: (time: Timestamp, frame: FrameRef)?
        var srv: (time: Timestamp, frame: FrameRef, target: NameID)?
        var txt: (time: Timestamp, frame: FrameRef)?
        var isEmpty: Bool { firstAnswer == nil && srv == nil && txt == nil }
    }

    /// One discovery session of a client: from a query after a silence to the next such query.
    struct SessionState {
        var start: Timestamp
        var startFrame: FrameRef
        var askedNames = NameSet()
        /// Instances the client listed as known answers during the session.
        var knownAnswers = NameSet()
        /// Per instance name that reached the client during the session: when its PTR, SRV and
        /// TXT first did. Sparse, and each entry costs one of the tracker's pair budget
        /// (``TrackerCapacity/pairs``): a flood of fake devices and clients cannot make it
        /// clients × devices.
        var progress = NameMap<SessionProgress>()
        /// When an address record of each host name first reached the client, likewise.
        var addressSeen = NameMap<(time: Timestamp, frame: FrameRef)>()

        init(start: Timestamp, startFrame: FrameRef) {
            self.start = start
            self.startFrame = startFrame
        }

        func progress(_ id: NameID) -> SessionProgress? {
            guard let p = progress[id], !p.isEmpty else { return nil }
            return p
        }

        func addressSeen(_ id: NameID) -> (time: Timestamp, frame: FrameRef)? { addressSeen[id] }

        // Each of the following notes that something reached the client. A first entry for a
        // name costs one of `budget`; with none left nothing is recorded (`.dropped`).

        /// A PTR answer naming instance `id`.
        @inline(__always)
        mutating func sawAnswer(_ id: NameID, time: Timestamp, frame: FrameRef, budget: inout Int) -> Noted {
            // Looked up first without writing: a repeated answer changes nothing.
            if progress[id]?.firstAnswer != nil { return .unchanged }
            return Noted(
                progress.modify(id, budget: &budget, default: { SessionProgress() }) { p in
                    if p.firstAnswer == nil { p.firstAnswer = (time, frame) }
                })
        }

        /// The SRV record of instance `id`, pointing at host `target`.
        @inline(__always)
        mutating func sawSRV(
            _ id: NameID, target: NameID, time: Timestamp, frame: FrameRef, budget: inout Int
        ) -> Noted {
            if progress[id]?.srv != nil { return .unchanged }
            return Noted(
                progress.modify(id, budget: &budget, default: { SessionProgress() }) { p in
                    if p.srv == nil { p.srv = (time, frame, target) }
                })
        }

        /// The TXT record of instance `id`.
        @inline(__always)
        mutating func sawTXT(_ id: NameID, time: Timestamp, frame: FrameRef, budget: inout Int) -> Noted {
            if progress[id]?.txt != nil { return .unchanged }
            return Noted(
                progress.modify(id, budget: &budget, default: { SessionProgress() }) { p in
                    if p.txt == nil { p.txt = (time, frame) }
                })
        }

        /// An address record of host `id`.
        @inline(__always)
        mutating func sawAddress(_ id: NameID, time: Timestamp, frame: FrameRef, budget: inout Int) -> Noted {
            if addressSeen[id] != nil { return .unchanged }
            return Noted(addressSeen.modify(id, budget: &budget, default: { (time, frame) }) { _ in })
        }

        /// Whether instance `id`'s SRV, TXT and SRV target's address have all reached the
        /// client in this session, or nothing of it has: either way no cached record can be
        /// recalled for it (``DiscoveryTracker/recallCached(_:client:at:)``).
        @inline(__always)
        func nothingToRecall(_ id: NameID) -> Bool {
            guard let p = progress[id] else { return true }
            guard let srv = p.srv, p.txt != nil else { return false }
            return addressSeen[srv.target] != nil
        }
    }

    /// What noting one record did to a session.
    enum Noted {
        /// It was there already.
        case unchanged
        case added
        /// It was new but the pair budget had no room for it.
        case dropped

        /// `.added` if `recorded`, else `.dropped`.
        @inline(__always)
        init(_ recorded: Bool) { self = recorded ? .added : .dropped }
    }

    /// A PTR record a query lists as already known.
    struct KnownAnswer {
        var owner: NameID
        var instance: NameID
        var ttl: UInt32
    }

    /// A client's open query burst, waiting for its answers.
    struct QueryState {
        var time: Timestamp
        var frame: FrameRef
        /// The names asked (no repeats), in order.
        var names: NameSet
        /// The instances listed as known answers, with the highest TTL listed for each.
        var knownAnswers = NameMap<UInt32>()
        /// The instances that answered within the window, with the delay and the frame.
        var answered = NameMap<(delay: Double, frame: FrameRef)>()
        /// Whether its first packet asked a Cast question with the QU bit (RFC 6762 §5.4).
        var unicastResponse = false
        /// The instances of `answered` whose answer came by unicast to the client.
        var unicastAnswers = NameSet()

        /// A query state for `names` (no repeats).
        init(time: Timestamp, frame: FrameRef, names: [NameID]) {
            self.time = time
            self.frame = frame
            self.names = NameSet(unique: names)
        }

        /// Adds names asked in the same burst.
        mutating func add(_ more: [NameID]) { for n in more { names.insert(n) } }

        /// Adds the known answers listed under the query's names (the highest TTL of each
        /// instance).
        mutating func merge(_ answers: [KnownAnswer]) {
            for a in answers where names.contains(a.owner) {
                knownAnswers.set(a.instance, Swift.max(knownAnswers[a.instance] ?? a.ttl, a.ttl))
            }
        }

        /// A PTR answer from browse name `owner` naming `instance`: counted as the answer of
        /// `instance` if the query asked `owner`, `instance` had not answered yet, and it came
        /// within `window` nanoseconds.
        @inline(__always)
        mutating func noteAnswer(
            _ instance: NameID, owner: NameID, time: Timestamp, frame: FrameRef, window: Int64, unicast: Bool
        ) {
            guard names.contains(owner), answered[instance] == nil, time.nanoseconds(since: self.time) <= window
            else { return }
            answered.set(instance, (Double(time.nanoseconds(since: self.time)) / 1e6, frame))
            if unicast { _ = unicastAnswers.insert(instance) }
        }

        func knownAnswerTTL(_ id: NameID) -> UInt32? { knownAnswers[id] }
        func answer(_ id: NameID) -> (delay: Double, frame: FrameRef)? { answered[id] }
    }

    /// What a closed query meant for one device that was expected to answer it.
    enum QueryOutcomeKind {
        case suppressed
        case answered(delay: Double, frame: FrameRef)
        case missed
    }

    /// A closed query, kept (up to ``TrackerLimits/maximumQueriesKept`` per client) for the
    /// per-query table; instance names become device ids in ``finish()``.
    struct QueryLogEntry {
        var time: Timestamp
        var frame: FrameRef
        /// The names asked (turned into text only in ``finish()``).
        var names: [NameID]
        var answered: [(instance: NameID, delay: Double, frame: FrameRef)]
        var suppressed: [NameID]
        var missed: [NameID]
        /// Whether the query asked for unicast answers (QU), and the instances of `answered`
        /// whose answer came by unicast.
        var unicastResponse = false
        var unicastAnswers: [NameID] = []
    }

    /// How one device answered one client's queries.
    struct ResponseCounter {
        var expected = 0
        var answered = 0
        var suppressed = 0
        var missed = 0
        var delays: [Double] = []
        var missedFrames: [FrameRef] = []

        /// Adds another counter's (several instances of one device, several timelines).
        static func += (a: inout ResponseCounter, b: ResponseCounter) {
            a.expected += b.expected
            a.answered += b.answered
            a.suppressed += b.suppressed
            a.missed += b.missed
            a.delays += b.delays
            a.missedFrames += b.missedFrames
        }
    }
}
