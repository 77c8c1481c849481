import Synchronization

/// The last few distinct well-formed messages a decoder checked, so that a message repeated
/// byte for byte is not checked again.
///
/// mDNS repeats itself: a responder announces the same records again and again, a browser
/// sends the same query every burst, and Android and iOS send each one over IPv4 and IPv6. On
/// the project's own captures and the external ones, a third to a half of the mDNS messages
/// equal an earlier one (on a busy network more: the dense benchmark has 72 distinct messages
/// in 60,000). ``DNSMessageView/check(_:index:)`` is a pure function of the message's bytes, so
/// a message equal to a remembered one gets the remembered result: its questions and records
/// are read where the memo keeps them instead of being found again. Only messages that checked without
/// a fault are remembered (a fault's offset is frame-relative, so it depends on more than the
/// bytes), and only short ones, so that the memory stays small and fixed.
struct DNSMessageMemo: ~Copyable {
    /// Remembered messages: sets of two, chosen by hash (a new message replaces the one of its
    /// set recalled least lately).
    static let sets = 256
    /// Longer messages are checked every time.
    static let maximumLength = 1500

    /// One remembered message. Its bytes, questions and records are kept in one allocation of
    /// its own, reached by pointer: kept in arrays, every recall retained and released three of
    /// them (~40 instructions each).
    struct Entry {
        var hash: UInt64 = 0
        /// Unique in the process for these bytes (``DNSMessageView/messageStamp``); 0: empty.
        var stamp: UInt64 = 0
        /// When it was last recalled or kept (in calls of this memo), to choose what to replace.
        var used: UInt64 = 0
        var decodedCounts = (0, 0, 0, 0)
        var sectionStarts = (0, 0, 0, 0)
        /// The message's `length` bytes, then (8-aligned) its questions, then its records;
        /// `capacity` bytes allocated, `nil` before the slot is first used.
        var storage: UnsafeMutableRawPointer?
        var capacity = 0
        var length = 0
        var questionCount = 0
        var recordCount = 0

        var questionsOffset: Int { (length + 7) & ~7 }
        var recordsOffset: Int { questionsOffset + questionCount * MemoryLayout<DNSQuestionView>.stride }
        /// The bytes its message, questions and records need.
        var size: Int { recordsOffset + recordCount * MemoryLayout<DNSRecordView>.stride }
    }

    private var entries = [Entry](repeating: Entry(), count: 2 * sets)
    private var clock: UInt64 = 0

    init() {}

    deinit {
        for e in entries { e.storage?.deallocate() }
    }

    /// A hash of `bytes`' length and of nine words spread over them (the comparison of a
    /// candidate reads every byte anyway); `nil` for a message too long to remember.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let n = bytes.count
        guard n <= maximumLength, n >= 12 else { return nil }
        var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        let step = (n - 8) / 8
        var i = 0
        for _ in 0..<9 {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 29
            i += step
        }
        return h
    }

    /// Whether `e` remembers `bytes`.
    @inline(__always)
    static func holds(_ e: UnsafeMutablePointer<Entry>, hash: UInt64, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard e.pointee.hash == hash, e.pointee.stamp != 0, let storage = e.pointee.storage else { return false }
        return equal(UnsafeRawBufferPointer(start: storage, count: e.pointee.length), bytes)
    }

    /// The remembered check of a message equal to `message`, its questions and records read
    /// from the memo (valid until the next check with `index`); `nil` when none is remembered.
    @inline(__always)
    mutating func recall(_ message: ByteCursor, hash: UInt64) -> DNSMessageView? {
        let first = Int(truncatingIfNeeded: hash % UInt64(Self.sets)) * 2
        clock &+= 1
        let now = clock
        return entries.withUnsafeMutableBufferPointer { all -> DNSMessageView? in
            let b = message.bytes
            var e = all.baseAddress! + first
            if !Self.holds(e, hash: hash, b) {
                e += 1
                guard Self.holds(e, hash: hash, b) else { return nil }
            }
            e.pointee.used = now
            var c = message
            c.offset = 12
            var view = DNSMessageView(
                message: c, id: UInt16(bigEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt16.self)),
                flags: UInt16(bigEndian: b.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
            view.decodedCounts = e.pointee.decodedCounts
            view.sectionStarts = e.pointee.sectionStarts
            // The view reads the remembered questions and records where they are: the entry
            // changes only when this memo keeps another message, in a later check with the same
            // index, and a view from an index is valid only until then anyway.
            let storage = e.pointee.storage!
            view.indexedQuestions = UnsafePointer(
                (storage + e.pointee.questionsOffset).assumingMemoryBound(to: DNSQuestionView.self))
            view.indexedRecords = UnsafePointer(
                (storage + e.pointee.recordsOffset).assumingMemoryBound(to: DNSRecordView.self))
            view.messageStamp = e.pointee.stamp
            return view
        }
    }

    /// Remembers the check of `view`, which found no fault, and all of whose questions and
    /// records are in `index`.
    /// - Returns: the stamp given to its bytes.
    mutating func keep(_ view: DNSMessageView, hash: UInt64, index: DNSMessageIndex) -> UInt64 {
        let first = Int(truncatingIfNeeded: hash % UInt64(Self.sets)) * 2
        let questions = view.decodedCounts.0
        let records = view.decodedCounts.1 + view.decodedCounts.2 + view.decodedCounts.3
        let stamp = nextStamp.add(1, ordering: .relaxed).newValue
        clock &+= 1
        let now = clock
        entries.withUnsafeMutableBufferPointer { all in
            let slot = all[first].used <= all[first + 1].used ? first : first + 1
            let e = all.baseAddress! + slot
            let bytes = view.message.bytes
            e.pointee.hash = hash
            e.pointee.stamp = stamp
            e.pointee.used = now
            e.pointee.length = bytes.count
            e.pointee.questionCount = questions
            e.pointee.recordCount = records
            if e.pointee.capacity < e.pointee.size {
                // Grown to the largest message the slot has held (at most 1500 bytes and 64
                // questions and records: a few kilobytes).
                e.pointee.storage?.deallocate()
                e.pointee.storage = .allocate(byteCount: e.pointee.size, alignment: 8)
                e.pointee.capacity = e.pointee.size
            }
            e.pointee.decodedCounts = view.decodedCounts
            e.pointee.sectionStarts = view.sectionStarts
            let storage = e.pointee.storage!
            if let base = bytes.baseAddress { storage.copyMemory(from: base, byteCount: bytes.count) }
            (storage + e.pointee.questionsOffset).bindMemory(to: DNSQuestionView.self, capacity: questions)
                .initialize(from: index.questions, count: questions)
            (storage + e.pointee.recordsOffset).bindMemory(to: DNSRecordView.self, capacity: records)
                .initialize(from: index.records, count: records)
        }
        return stamp
    }

    /// Whether stored bytes equal borrowed ones (32 bytes a step, one branch per step).
    @inline(__always)
    static func equal(_ x: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard x.count == b.count else { return false }
        let n = x.count
        var i = 0
        while i + 32 <= n {
            let d0 =
                x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let d1 =
                x.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            let d2 =
                x.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
            let d3 =
                x.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
            if (d0 | d1 | d2 | d3) != 0 { return false }
            i += 32
        }
        while i + 8 <= n {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < n {
            if x[i] != b[i] { return false }
            i += 1
        }
        return true
    }
}

/// The last stamp given to remembered bytes, all decoders together (so that a reader fed by
/// several decoders, `--merge`, can tell their messages apart by stamp alone).
private let nextStamp = Atomic<UInt64>(0)
