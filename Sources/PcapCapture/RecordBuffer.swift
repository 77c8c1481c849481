// The buffer a capture is read through. Records are decoded where they lie in it; when the next
// record is not wholly in it, what is left is moved in front of the next bytes and the rest is
// filled from the source with one large read, so a record is never copied on its own.
//
// A file is first read into a small buffer (most of the captures people attach to a bug end in
// it), then into a 1 MiB one; a regular file that needs that one refilled goes on with a
// read-ahead thread (ReadAhead) filling the next buffers while this one is parsed.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reusable read buffer over a ``ByteSource``, with the stream offset of every byte in it.
struct RecordBuffer {
    /// The memory records are read from now: the buffer's own, or a read-ahead slot; `nil`
    /// before the first fill and once released.
    private(set) var base: UnsafeMutableRawPointer?
    /// The first byte not yet consumed.
    var start = 0
    /// One past the last byte read from the source.
    private(set) var end = 0
    /// The stream offset (in the decompressed capture) of `base[0]`.
    private(set) var origin: Int64 = 0
    let source: any ByteSource
    let sizes: Sizes

    /// The buffer's own memory (the only memory without read-ahead), and its size.
    private var own: UnsafeMutableRawPointer?
    private var ownCapacity = 0
    /// Whether the source has said it has no more bytes (or the buffer was released).
    private var sourceEnded = false

    /// The read-ahead, while it runs.
    private var ahead: ReadAhead?
    /// Whether `base` is the read-ahead's current slot (otherwise it is `own`).
    private var inSlot = false
    /// What the source said after the last slot taken (`.ended` or `.failed`).
    private var aheadOutcome: Fill?
    /// The source's byte count as of the last slot taken: the thread is further on.
    private var aheadConsumed: Int64?
    /// Whether a read-ahead was started for this file (tests).
    private(set) var readAheadStarted = false
    /// Whether its thread runs now (tests).
    var readAheadRunning: Bool { ahead != nil }

    /// When to start a read-ahead thread.
    enum ReadAheadUse {
        case never
        /// When a place in ``ReadAheadBudget/shared`` is free.
        case whenAvailable
        /// Always (tests, which run many files at once).
        case always
    }

    /// The buffer sizes (smaller in tests, to make records straddle buffers).
    struct Sizes {
        /// The first fill.
        var first = 64 << 10
        /// Later fills without read-ahead.
        var full = RecordBuffer.initialCapacity
        /// A read-ahead slot (in front of it ``headroom``).
        var slot = RecordBuffer.initialCapacity
        var headroom = ReadAhead.headroom
        var slots = 3
        var readAhead = ReadAheadUse.never
    }

    /// The size of a full buffer, measured (issue 14; a plain parse loop over a page-cached
    /// 686 MiB pcap of 1M records, user + system CPU, three runs each): 128 KiB to 2 MiB all
    /// cost 0.13–0.18 s, 4 MiB 0.21–0.29 s and 16 MiB 0.38–0.43 s: once the buffer no longer
    /// fits the per-core L2 cache (512 KiB here) the kernel's copy and the parse each go to
    /// memory. 1 MiB keeps read(2) calls few (about 700 for that file).
    static let initialCapacity = 1 << 20
    /// The largest block or record accepted: Wireshark's pcapng reader long had a 16 MiB block
    /// limit (wiretap/pcapng.c, `MAX_BLOCK_SIZE`, since raised to fit 128 MiB D-Bus messages),
    /// and libpcap's sf-pcapng.c refuses blocks larger than an EPB of its largest snapshot
    /// length (256 KiB, more for D-Bus) plus 128 KiB of options. Nothing CastScope decodes
    /// comes near it; a length field beyond it is a damaged file, not a reason to allocate.
    static let maximumBlock = 16 << 20

    init(source: any ByteSource, sizes: Sizes = Sizes()) {
        self.source = source
        self.sizes = sizes
    }

    /// Stops the read-ahead and frees the memory: the file has ended or is closed. Only
    /// ``offset`` stays meaningful; ``require(_:)`` finds the stream ended.
    mutating func release() {
        if let ahead {
            ahead.stop()
            ReadAheadBudget.shared.release()
            self.ahead = nil
        }
        own?.deallocate()
        own = nil
        ownCapacity = 0
        origin &+= Int64(start)
        base = nil
        inSlot = false
        start = 0
        end = 0
        sourceEnded = true
        aheadOutcome = .ended
    }

    /// Bytes available from ``start``.
    @inline(__always) var available: Int { end &- start }
    /// The stream offset of ``start``.
    @inline(__always) var offset: Int64 { origin &+ Int64(start) }
    /// The address of ``start``.
    @inline(__always) var current: UnsafeMutableRawPointer { base.unsafelyUnwrapped + start }
    /// The source's bytes read so far, as far as the parser has got (with a read-ahead, the
    /// count after the slot being parsed, not where the thread is).
    var bytesConsumed: Int64 { aheadConsumed ?? source.bytesConsumed }

    /// What ``require(_:)`` found.
    enum Fill: Equatable {
        /// At least the bytes asked for are available from ``start``.
        case ready
        /// The stream ended first; ``available`` bytes are left.
        case ended
        /// More than ``maximumBlock`` bytes were asked for.
        case tooLarge
        /// The source failed.
        case failed(ByteSourceError)
    }

    /// Makes `count` bytes available from ``start`` (moving and refilling the buffer if need
    /// be). Pointers into the buffer taken before a call that refills are invalid after it.
    @inline(__always)
    mutating func require(_ count: Int) -> Fill {
        if end &- start >= count { return .ready }
        return refill(count)
    }

    @inline(never)
    private mutating func refill(_ count: Int) -> Fill {
        guard count <= Self.maximumBlock + 64 else { return .tooLarge }
        if ahead != nil { return refillAhead(count) }
        if sourceEnded { return end &- start >= count ? .ready : .ended }
        // A file that has filled the full buffer once goes on with a thread reading ahead.
        if ownCapacity >= sizes.full, origin &+ Int64(end) >= Int64(sizes.full), startReadAhead() {
            return refillAhead(count)
        }
        compact()
        if ownCapacity == 0 {
            grow(to: count, atLeast: sizes.first)
        } else if ownCapacity < sizes.full {
            // Read once more into the small buffer before growing it: a file that ends within
            // its first read never allocates the full buffer.
            if end < ownCapacity {
                switch read(into: own.unsafelyUnwrapped + end, ownCapacity - end) {
                case .failed(let e): return .failed(e)
                case .ended: return end >= count ? .ready : .ended
                default: break
                }
            }
            grow(to: count, atLeast: sizes.full)
        } else if count > ownCapacity {
            grow(to: count, atLeast: ownCapacity)
        }
        let own = own.unsafelyUnwrapped
        while end < count && !sourceEnded {
            if case .failed(let e) = read(into: own + end, ownCapacity - end) { return .failed(e) }
        }
        return end >= count ? .ready : .ended
    }

    /// One read into the own buffer: `.ready` with bytes, `.ended` (and ``sourceEnded``) at the
    /// end of the stream, or the failure.
    private mutating func read(into memory: UnsafeMutableRawPointer, _ count: Int) -> Fill {
        do throws(ByteSourceError) {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(start: memory, count: count))
            if n == 0 {
                sourceEnded = true
                return .ended
            }
            end += n
            return .ready
        } catch {
            return .failed(error)
        }
    }

    /// Moves the unconsumed bytes of the own buffer to its front.
    private mutating func compact() {
        guard let own, start > 0 else { return }
        let left = end - start
        if left > 0 { memmove(own, own + start, left) }
        origin += Int64(start)
        end = left
        start = 0
        base = own
    }

    /// Makes the own buffer `minimum` bytes, doubled until it holds `count`, keeping its bytes;
    /// the buffer is compacted.
    private mutating func grow(to count: Int, atLeast minimum: Int) {
        var size = max(minimum, 1)
        while size < count { size *= 2 }
        if size == ownCapacity { return }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        if let own {
            bigger.copyMemory(from: own, byteCount: end)
            own.deallocate()
        }
        own = bigger
        ownCapacity = size
        base = bigger
    }

    // MARK: Read-ahead

    /// Starts the read-ahead thread, when this file may have one.
    private mutating func startReadAhead() -> Bool {
        switch sizes.readAhead {
        case .never: return false
        case .whenAvailable: if !ReadAheadBudget.shared.acquire() { return false }
        case .always: ReadAheadBudget.shared.acquire(beyondLimit: true)
        }
        // The parser leaves the source to the thread from here on.
        let consumed = source.bytesConsumed
        guard
            let started = ReadAhead.start(
                source: source, headroom: sizes.headroom, slotCapacity: sizes.slot, slots: max(2, sizes.slots))
        else {
            ReadAheadBudget.shared.release()
            return false
        }
        ahead = started
        aheadConsumed = consumed
        readAheadStarted = true
        return true
    }

    /// ``refill(_:)`` from the read-ahead's slots. The unconsumed tail goes into the headroom of
    /// the next slot; a tail too long for it (a record larger than the headroom) is joined with
    /// the next slot's bytes in the own buffer instead, until the record is whole.
    private mutating func refillAhead(_ count: Int) -> Fill {
        let ahead = ahead.unsafelyUnwrapped
        while end &- start < count {
            if let outcome = aheadOutcome { return outcome }
            let fill = ahead.take()
            let tail = end - start
            let offsetNow = offset
            if tail <= sizes.headroom {
                let front = sizes.headroom - tail
                if tail > 0 { (fill.memory + front).copyMemory(from: base.unsafelyUnwrapped + start, byteCount: tail) }
                leaveCurrent(ahead)
                base = fill.memory
                inSlot = true
                start = front
                end = sizes.headroom + fill.count
            } else {
                let joined = tail + fill.count
                if !inSlot && ownCapacity >= joined {
                    memmove(own.unsafelyUnwrapped, base.unsafelyUnwrapped + start, tail)
                } else {
                    var size = max(ownCapacity, sizes.slot)
                    while size < joined { size *= 2 }
                    let bigger = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
                    bigger.copyMemory(from: base.unsafelyUnwrapped + start, byteCount: tail)
                    leaveCurrent(ahead)
                    own = bigger
                    ownCapacity = size
                }
                (own.unsafelyUnwrapped + tail).copyMemory(from: fill.memory + sizes.headroom, byteCount: fill.count)
                ahead.release()
                base = own
                inSlot = false
                start = 0
                end = joined
            }
            origin = offsetNow &- Int64(start)
            aheadConsumed = fill.bytesConsumed
            aheadOutcome = fill.outcome
        }
        return .ready
    }

    /// Lets go of the memory being read: a slot goes back to the thread, the own buffer is freed
    /// (it was the full buffer the read-ahead started from, or a joined record's).
    private mutating func leaveCurrent(_ ahead: ReadAhead) {
        if inSlot {
            ahead.release()
        } else if let own {
            own.deallocate()
            self.own = nil
            ownCapacity = 0
        }
    }
}
