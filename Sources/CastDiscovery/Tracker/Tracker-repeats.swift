// Repeated responses: a device sends the same answer again and again (to every query of every
// client, and in announcements). Once such a response has reached a client's session and
// changed nothing there, it changes nothing the next times either, until the session changes;
// until then those repeats skip the session (their answers still go to the open query).

import WireFormat

extension DiscoveryTracker {
    /// The responses that reached a client's session and changed nothing there, by client, by
    /// their message stamp (``DNSMessageView/messageStamp``: equal stamps, equal bytes) and by
    /// whether they came by unicast to it; one fixed table for all clients (a new entry replaces
    /// the one in its slot), with a generation per client that forgets all of a client's at once.
    ///
    /// Why skipping one is exact: what a response does to a client's session
    /// (``ClientState/receive(_:time:frame:budget:)``, ``recallCached(_:client:at:)``) depends on
    /// the records, the session, whether it came by unicast, the pair budget and the caches. The
    /// records are the stamp's (a stamp stands for a message only while the keyed-message memo
    /// holds it, so they are the same records); a session keeps only first times, so one that a
    /// copy left unchanged takes the next copy the same way; a copy that met a full budget is
    /// not remembered, nor one that names an instance with something still to recall (then
    /// the caches would matter). Whatever changes the session forgets them
    /// (``forgetRepeats(of:)``): a query that starts a session or asks a new name, and a
    /// response that changed it. The open query is not the session's: its answers are noted for
    /// every copy (``ClientState/noteAnswers(_:time:frame:window:unicast:)``).
    struct RepeatTable {
        /// Slots, a power of two: a few devices send a few dozen distinct responses each.
        static let slots = 1024

        struct Entry {
            /// `stamp << 1 | unicast`; 0 is empty (stamps start at 1).
            var key: UInt64 = 0
            var client: Int32 = -1
            var generation: UInt32 = 0
        }

        private var entries: [Entry] = []
        /// Per client (by index): its generation; entries of older ones are forgotten.
        private var generations: [UInt32] = []

        @inline(__always)
        static func key(stamp: UInt64, unicast: Bool) -> UInt64 { stamp << 1 | (unicast ? 1 : 0) }

        @inline(__always)
        private static func slot(_ key: UInt64, _ client: Int) -> Int {
            var h = (key ^ UInt64(truncatingIfNeeded: client) &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            return Int(truncatingIfNeeded: h) & (slots - 1)
        }

        /// Makes room for client `index` (called once per new client).
        mutating func addClient() {
            if entries.isEmpty { entries = [Entry](repeating: Entry(), count: Self.slots) }
            generations.append(0)
        }

        /// Whether a copy of the response `key` left client `index`'s session unchanged since
        /// the session last changed.
        @inline(__always)
        func contains(_ key: UInt64, client index: Int) -> Bool {
            let generation = generations[index]
            return entries.withUnsafeBufferPointer { all in
                let e = all[Self.slot(key, index)]
                return e.key == key && e.client == Int32(truncatingIfNeeded: index) && e.generation == generation
            }
        }

        @inline(__always)
        mutating func insert(_ key: UInt64, client index: Int) {
            let e = Entry(key: key, client: Int32(truncatingIfNeeded: index), generation: generations[index])
            entries.withUnsafeMutableBufferPointer { all in all[Self.slot(key, index)] = e }
        }

        /// Forgets every response remembered for client `index`.
        @inline(__always)
        mutating func forget(client index: Int) { generations[index] &+= 1 }
    }

    /// Forgets the responses that left client `index`'s session unchanged (it is changing).
    @inline(__always)
    mutating func forgetRepeats(of index: Int) { repeats.forget(client: index) }
}
