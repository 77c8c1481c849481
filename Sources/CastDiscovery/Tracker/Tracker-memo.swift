// What the tracker made of the last few distinct messages: a message repeated byte for byte
// (announcements, the same query every burst, each query sent over IPv4 and IPv6) is keyed from
// memory, not by interning its names again.

import WireFormat

/// The keyed records or query of recent distinct mDNS messages, by the stamp the decoder gave
/// the message's bytes (``DNSMessageView/messageStamp``: equal stamps, equal bytes).
///
/// Keying a message is a function of its bytes and of the name table. Names are never removed
/// from the table, so once every name a message needs is interned, keying it again gives the
/// same result; a message is remembered only when that holds (no name dropped for lack of room,
/// no known-answer owner looked up in vain: either may turn out differently later).
struct KeyedMessageMemo {
    /// Remembered messages (direct-mapped by stamp: a new message replaces the one in its
    /// slot), as many as a decoder remembers.
    static let slots = 512

    struct Entry {
        /// 0: empty (stamps start at 1).
        var stamp: UInt64 = 0
        /// A response's records, TXT rdata left out (it points into the message's own bytes).
        var records: [DiscoveryTracker.KeyedRecord] = []
        /// Where each TXT record's rdata is in the message: its record's position, offset, length.
        var txt: [(record: Int, offset: Int, count: Int)] = []
        var query = DiscoveryTracker.KeyedQuery()
    }

    private var entries: [Entry] = []

    /// The slot remembering a message equal to `view`'s; `nil` if none does.
    @inline(__always)
    func find(_ view: DNSMessageView) -> Int? {
        guard let stamp = view.messageStamp, !entries.isEmpty else { return nil }
        let slot = Int(truncatingIfNeeded: stamp % UInt64(Self.slots))
        return entries.withUnsafeBufferPointer { all in all[slot].stamp == stamp ? slot : nil }
    }

    /// Lends the records remembered in `slot` to `keyed` (the arrays swapped, nothing copied),
    /// their TXT rdata pointed into `view`; ``giveBack(_:records:)`` returns them.
    @inline(__always)
    mutating func lendRecords(_ slot: Int, _ view: DNSMessageView, to keyed: inout [DiscoveryTracker.KeyedRecord]) {
        let base = view.message.bytes.baseAddress!
        entries.withUnsafeMutableBufferPointer { all in
            swap(&all[slot].records, &keyed)
            for t in all[slot].txt {
                keyed[t.record].txt = .wire(UnsafeRawBufferPointer(start: base + t.offset, count: t.count))
            }
        }
    }

    /// Takes back the records lent from `slot`, and gives `keyed` its own array again.
    @inline(__always)
    mutating func giveBack(_ slot: Int, records keyed: inout [DiscoveryTracker.KeyedRecord]) {
        entries.withUnsafeMutableBufferPointer { all in swap(&all[slot].records, &keyed) }
    }

    /// Lends the query remembered in `slot` to `query` (swapped, nothing copied);
    /// ``giveBack(_:query:)`` returns it.
    @inline(__always)
    mutating func lendQuery(_ slot: Int, to query: inout DiscoveryTracker.KeyedQuery) {
        entries.withUnsafeMutableBufferPointer { all in swap(&all[slot].query, &query) }
    }

    /// Takes back the query lent from `slot`, and gives `query` its own arrays again.
    @inline(__always)
    mutating func giveBack(_ slot: Int, query: inout DiscoveryTracker.KeyedQuery) {
        entries.withUnsafeMutableBufferPointer { all in swap(&all[slot].query, &query) }
    }

    /// Remembers the records keyed from `view`.
    mutating func keep(_ view: DNSMessageView, stamp: UInt64, records: [DiscoveryTracker.KeyedRecord]) {
        let base = view.message.bytes.baseAddress!
        edit(stamp: stamp) { e in
            e.records.removeAll(keepingCapacity: true)
            e.txt.removeAll(keepingCapacity: true)
            for (i, r) in records.enumerated() {
                var kept = r
                if case .wire(let rdata) = r.txt {
                    kept.txt = .none
                    e.txt.append((i, rdata.baseAddress.map { $0 - base } ?? 0, rdata.count))
                }
                e.records.append(kept)
            }
        }
    }

    /// Remembers the query keyed from `view`.
    mutating func keep(_ view: DNSMessageView, stamp: UInt64, query: DiscoveryTracker.KeyedQuery) {
        edit(stamp: stamp) { e in
            e.query.isProbe = query.isProbe
            e.query.questions.removeAll(keepingCapacity: true)
            e.query.questions.append(contentsOf: query.questions)
            e.query.knownAnswers.removeAll(keepingCapacity: true)
            e.query.knownAnswers.append(contentsOf: query.knownAnswers)
        }
    }

    /// Replaces the entry in `stamp`'s slot (edited in place: its arrays keep their capacity).
    private mutating func edit(stamp: UInt64, _ body: (inout Entry) -> Void) {
        if entries.isEmpty { entries = [Entry](repeating: Entry(), count: Self.slots) }
        let slot = Int(truncatingIfNeeded: stamp % UInt64(Self.slots))
        entries.withUnsafeMutableBufferPointer { all in
            all[slot].stamp = stamp
            body(&all[slot])
        }
    }
}

extension DiscoveryTracker {
    /// The records of response `view`, keyed from memory when an equal message was keyed before.
    /// - Returns: the memo slot whose records `keyed` then holds on loan (to be given back with
    ///   ``KeyedMessageMemo/giveBack(_:records:)`` once used), or `nil`.
    mutating func key(_ view: DNSMessageView, into keyed: inout [KeyedRecord]) -> Int? {
        if let slot = keyedMemo.find(view) {
            keyedMemo.lendRecords(slot, view, to: &keyed)
            return slot
        }
        let namesDropped = drops.names
        // One scratch buffer per message for the names expanded from the wire.
        withUnsafeTemporaryAllocation(byteCount: MessageNames.scratchBytes, alignment: 8) { scratch in
            var names = MessageNames(view: view, scratch: scratch)
            keyedRecords(view, &names, into: &keyed)
        }
        if let stamp = view.messageStamp, drops.names == namesDropped {
            keyedMemo.keep(view, stamp: stamp, records: keyed)
        }
        return nil
    }

    /// Query `view` keyed, from memory when an equal message was keyed before.
    /// - Returns: the memo slot whose query `query` then holds on loan (to be given back with
    ///   ``KeyedMessageMemo/giveBack(_:query:)`` once used), or `nil`.
    mutating func key(_ view: DNSMessageView, into query: inout KeyedQuery) -> Int? {
        if let slot = keyedMemo.find(view) {
            keyedMemo.lendQuery(slot, to: &query)
            return slot
        }
        let namesDropped = drops.names
        knownAnswerOwnerMissed = false
        withUnsafeTemporaryAllocation(byteCount: MessageNames.scratchBytes, alignment: 8) { scratch in
            var names = MessageNames(view: view, scratch: scratch)
            keyedQuery(view, &names, into: &query)
        }
        if let stamp = view.messageStamp, drops.names == namesDropped, !knownAnswerOwnerMissed {
            keyedMemo.keep(view, stamp: stamp, query: query)
        }
        return nil
    }
}
