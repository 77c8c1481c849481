// A second thread that fills a capture's next buffers while the records of the current one are
// parsed. On a page-cached file the kernel's copy in read(2) takes about as long as `cat` does
// and the parse as long again; on one thread they add up, on two they overlap. On a compressed
// file the decompressor runs on that thread.
//
// The buffers ("slots") go round in a ring: the thread fills them in order, the parser takes
// them in the same order and gives each back once it has moved the unfinished record at its end
// into the room kept free in front of the next one (RecordBuffer), so no record is copied on its
// own and a record never has to be found in two places.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One filled slot, as the parser takes it.
struct ReadAheadFill {
    /// The slot's memory: the headroom's free bytes, then ``count`` bytes of the stream.
    var memory: UnsafeMutableRawPointer
    var count: Int
    /// The source's ``ByteSource/bytesConsumed`` once this slot was filled.
    var bytesConsumed: Int64
    /// What the source said after these bytes: `nil` while it goes on.
    var outcome: RecordBuffer.Fill?
}

/// The reading thread and its ring of slots.
///
/// `@unchecked Sendable` because the class is shared by exactly two threads and orders them
/// itself: every stored property that changes (the counters, the per-slot results, `stopping`)
/// is read and written only with `mutex` held; a slot's bytes are written by the thread only
/// between finding it free and publishing it (under the mutex), and touched by the parser only
/// between taking it and releasing it (under the mutex), so the mutex orders every access to
/// them. `source` is not Sendable: once the thread is started only the thread calls it, and the
/// parser may use it again only after ``stop()`` has joined the thread.
final class ReadAhead: @unchecked Sendable {
    /// Bytes kept free in front of each slot for the unfinished record of the previous one: a
    /// 64 KiB IP datagram with its pcap or pcapng framing and options. A longer tail (a record
    /// of a capture with a larger snapshot length, a block of many options) is joined with the
    /// next slot in a separate buffer instead (RecordBuffer).
    static let headroom = 80 << 10

    private let source: any ByteSource
    private let headroom: Int
    private let slotCapacity: Int
    private let slots: [UnsafeMutableRawPointer]
    private let mutex = HandOffLock()
    private var thread: WorkerThread?

    // Guarded by `mutex`.
    private var results: [ReadAheadFill]
    /// Slots filled by the thread, taken by the parser, and given back by it, since the start.
    private var produced = 0
    private var taken = 0
    private var released = 0
    private var stopping = false

    /// Starts the thread, which begins filling at once.
    /// - Returns: `nil` when no thread can be made (the caller goes on reading itself).
    static func start(source: any ByteSource, headroom: Int, slotCapacity: Int, slots: Int) -> ReadAhead? {
        let ahead = ReadAhead(source: source, headroom: headroom, slotCapacity: slotCapacity, slots: slots)
        // The thread holds a reference to `ahead` until it ends.
        guard let thread = WorkerThread.start({ ahead.run() }) else {
            ahead.freeSlots()
            return nil
        }
        ahead.thread = thread
        return ahead
    }

    private init(source: any ByteSource, headroom: Int, slotCapacity: Int, slots count: Int) {
        self.source = source
        self.headroom = headroom
        self.slotCapacity = slotCapacity
        slots = (0..<count).map { _ in .allocate(byteCount: headroom + slotCapacity, alignment: 16) }
        results = slots.map { ReadAheadFill(memory: $0, count: 0, bytesConsumed: 0, outcome: nil) }
    }

    private func freeSlots() {
        for slot in slots { slot.deallocate() }
    }

    // MARK: The parser's side

    /// The next filled slot, in stream order; waits for the thread if it is not filled yet. Not
    /// called again once a fill with an ``ReadAheadFill/outcome`` has been taken.
    func take() -> ReadAheadFill {
        mutex.lock()
        while taken == produced { mutex.wait() }
        let fill = results[taken % slots.count]
        taken += 1
        mutex.unlock()
        return fill
    }

    /// Gives the oldest slot taken back to the thread (slots are given back in the order taken).
    func release() {
        mutex.lock()
        released += 1
        mutex.signal()
        mutex.unlock()
    }

    /// Stops the thread (after the read it is in, if any), waits for it and frees the slots.
    func stop() {
        mutex.lock()
        stopping = true
        mutex.signal()
        mutex.unlock()
        thread?.join()
        thread = nil
        freeSlots()
    }

    // MARK: The thread's side

    private func run() {
        while true {
            mutex.lock()
            while produced - released == slots.count && !stopping { mutex.wait() }
            let index = produced % slots.count
            let stop = stopping
            mutex.unlock()
            if stop { return }
            var fill = ReadAheadFill(memory: slots[index], count: 0, bytesConsumed: 0, outcome: nil)
            let data = fill.memory + headroom
            // Fill the slot whole, as the parser's own loop would have: a decompressor or a pipe
            // may hand out less per read.
            while fill.count < slotCapacity {
                do throws(ByteSourceError) {
                    let n = try source.read(
                        into: UnsafeMutableRawBufferPointer(start: data + fill.count, count: slotCapacity - fill.count))
                    if n == 0 {
                        fill.outcome = .ended
                        break
                    }
                    fill.count += n
                } catch {
                    fill.outcome = .failed(error)
                    break
                }
            }
            fill.bytesConsumed = source.bytesConsumed
            mutex.lock()
            results[index] = fill
            produced += 1
            mutex.signal()
            mutex.unlock()
            if fill.outcome != nil { return }
        }
    }
}

/// How many read-ahead threads run at once in the process: every file of `analyze DIR` or
/// `--merge` is open at the same time, and each with a thread and its slots would make the
/// memory grow with the number of files. Files past the limit read on their own thread.
final class ReadAheadBudget: @unchecked Sendable {
    /// `@unchecked Sendable`: `active` is only touched with `mutex` held.
    static let shared = ReadAheadBudget(limit: 4)

    private let limit: Int
    private var active = 0
    private let mutex = HandOffLock()

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes one place, if there is one free (or in any case: tests).
    @discardableResult
    func acquire(beyondLimit: Bool = false) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        guard active < limit || beyondLimit else { return false }
        active += 1
        return true
    }

    func release() {
        mutex.lock()
        active -= 1
        mutex.unlock()
    }
}
