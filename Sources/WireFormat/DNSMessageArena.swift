/// Checked messages copied out of the capture's buffer, back to back, to be read later, on
/// another thread, without checking them again.
///
/// The reading side appends each ``DNSMessageView`` (its bytes and where its questions and
/// records are); the tracking side gets an equivalent view back with ``withView(_:_:)``. The
/// arena is cleared and reused, so a steady stream of messages allocates nothing.
public struct DNSMessageArena {
    struct Entry {
        var id: UInt16
        var flags: UInt16
        var decodedCounts: (Int, Int, Int, Int)
        var sectionStarts: (Int, Int, Int, Int)
        var base: Int
        var bytes: Range<Int>
        /// Where its questions and records are in `questions` and `records` (nil: not
        /// indexed, walked from the bytes).
        var questions: Int?
        var records: Int?
    }

    var bytes: [UInt8] = []
    var questions: [DNSQuestionView] = []
    var records: [DNSRecordView] = []
    var entries: [Entry] = []

    public init() {}

    /// How many messages it holds.
    public var count: Int { entries.count }

    /// Copies a message in.
    /// - Returns: its number, for ``withView(_:_:)``.
    public mutating func append(_ view: DNSMessageView) -> Int {
        let start = bytes.count
        bytes.append(contentsOf: view.message.bytes)
        var entry = Entry(
            id: view.id, flags: view.flags, decodedCounts: view.decodedCounts, sectionStarts: view.sectionStarts,
            base: view.message.base, bytes: start..<bytes.count)
        if let q = view.indexedQuestions {
            entry.questions = questions.count
            questions.append(contentsOf: UnsafeBufferPointer(start: q, count: view.decodedCounts.0))
        }
        if let r = view.indexedRecords {
            entry.records = records.count
            let n = view.decodedCounts.1 + view.decodedCounts.2 + view.decodedCounts.3
            records.append(contentsOf: UnsafeBufferPointer(start: r, count: n))
        }
        entries.append(entry)
        return entries.count - 1
    }

    /// Calls `body` with message `number` as a view over the arena (valid during the call).
    public func withView(_ number: Int, _ body: (DNSMessageView) -> Void) {
        let e = entries[number]
        bytes.withUnsafeBytes { raw in
            questions.withUnsafeBufferPointer { q in
                records.withUnsafeBufferPointer { r in
                    var view = DNSMessageView(
                        message: ByteCursor(UnsafeRawBufferPointer(rebasing: raw[e.bytes]), base: e.base), id: e.id,
                        flags: e.flags)
                    view.restore(decodedCounts: e.decodedCounts, sectionStarts: e.sectionStarts)
                    view.indexedQuestions = e.questions.map { q.baseAddress! + $0 }
                    view.indexedRecords = e.records.map { r.baseAddress! + $0 }
                    body(view)
                }
            }
        }
    }

    /// Empties the arena, keeping its storage.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        questions.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }
}
