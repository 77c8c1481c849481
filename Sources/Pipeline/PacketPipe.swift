// Decoding and tracking on two threads: one reads a capture's records and decodes them
// (link, IP, UDP, the DNS message's check), the caller's thread tracks the packets. They meet
// in batches of a few thousand packets, each with its checked messages copied into the batch's
// own memory (DNSMessageView.copy(to:)), because the read buffer and the decoder's index move
// on to other records as soon as a packet has been handed over.
//
// Large batches, because a hand-over costs a wake-up of the other thread, and on a virtual
// machine a wake-up costs tens of microseconds: 256 packets a batch once used half as much CPU
// again as reading on one thread (docs/performance.md).

import PcapCapture
import WireFormat

/// Decoded packets and their checked messages, in memory of the batch's own.
///
/// The packets and views sit in fixed arrays behind pointers, not in `Array`s or stored `var`s
/// of the class, which Swift would check for exclusive access on every packet.
final class PacketBatch {
    /// Packets per batch at most, by default.
    static let defaultCapacity = 4096
    /// Bytes for the messages of a batch, by default: enough for `defaultCapacity` typical mDNS
    /// messages with their index.
    static let defaultArenaCapacity = 2 << 20

    private struct State {
        var count = 0
        var used = 0
        var isLast = false
        /// Memory of messages too large for an empty arena, freed when the batch is cleared.
        var oversized: [UnsafeMutableRawPointer] = []
    }

    let capacity: Int
    let arenaCapacity: Int
    private let state: UnsafeMutablePointer<State>
    private let packets: UnsafeMutablePointer<DiscoveryPacket>
    private let messages: UnsafeMutablePointer<DNSMessageView?>
    private let arena: UnsafeMutableRawPointer

    init(capacity: Int = defaultCapacity, arenaCapacity: Int = defaultArenaCapacity) {
        self.capacity = Swift.max(1, capacity)
        self.arenaCapacity = Swift.max(0, arenaCapacity)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        packets = .allocate(capacity: self.capacity)
        messages = .allocate(capacity: self.capacity)
        arena = .allocate(byteCount: Swift.max(1, self.arenaCapacity), alignment: DNSMessageView.copyAlignment)
    }

    deinit {
        clear()
        state.deinitialize(count: 1)
        state.deallocate()
        packets.deallocate()
        messages.deallocate()
        arena.deallocate()
    }

    /// Packets in the batch.
    var count: Int { state.pointee.count }

    /// The last batch of the capture.
    var isLast: Bool {
        get { state.pointee.isLast }
        set { state.pointee.isLast = newValue }
    }

    /// Empties the batch for reuse.
    func clear() {
        packets.deinitialize(count: state.pointee.count)
        messages.deinitialize(count: state.pointee.count)
        for memory in state.pointee.oversized { memory.deallocate() }
        state.pointee = State()
    }

    /// Adds `packet` and a copy of `message`.
    /// - Returns: false (nothing added) when the batch has no room for them; an empty batch
    ///   always takes them (a message larger than the arena gets memory of its own).
    @inline(__always)
    func add(_ packet: DiscoveryPacket, _ message: DNSMessageView?) -> Bool {
        let n = state.pointee.count
        guard n < capacity else { return false }
        guard let message else {
            (packets + n).initialize(to: packet)
            (messages + n).initialize(to: nil)
            state.pointee.count = n + 1
            return true
        }
        let a = DNSMessageView.copyAlignment
        let start = (state.pointee.used + a - 1) & ~(a - 1)
        let size = message.copyByteCount
        let copy: DNSMessageView
        if start + size <= arenaCapacity {
            copy = message.copy(to: arena + start)
            state.pointee.used = start + size
        } else if n == 0 {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, size), alignment: a)
            state.pointee.oversized.append(memory)
            copy = message.copy(to: memory)
        } else {
            return false
        }
        (packets + n).initialize(to: packet)
        (messages + n).initialize(to: copy)
        state.pointee.count = n + 1
        return true
    }

    /// Calls `body` with each packet and its message, in order.
    @inline(__always)
    func forEach(_ body: (DiscoveryPacket, DNSMessageView?) -> Void) {
        for i in 0..<state.pointee.count { body(packets[i], messages[i]) }
    }
}

/// The batches going round between the decoding thread and the tracking thread.
///
/// `@unchecked Sendable` because exactly two threads share it and it orders them: the counters
/// are read and written only with `mutex` held; a batch is written by the decoding thread only
/// between finding it free and publishing it, and read by the tracking thread only between
/// taking it and releasing it, both under the mutex.
final class PacketPipe: @unchecked Sendable {
    private let batches: [PacketBatch]
    private let mutex = HandOffLock()
    // Guarded by `mutex`: batches published by the decoder, and released by the tracker.
    private var published = 0
    private var released = 0

    init(batches count: Int, capacity: Int, arenaCapacity: Int) {
        batches = (0..<Swift.max(2, count)).map { _ in PacketBatch(capacity: capacity, arenaCapacity: arenaCapacity) }
    }

    // The decoding thread's side.

    /// The next batch to fill, empty; waits while every batch is still with the tracker.
    func nextToFill() -> PacketBatch {
        mutex.lock()
        while published - released == batches.count { mutex.wait() }
        let batch = batches[published % batches.count]
        mutex.unlock()
        batch.clear()
        return batch
    }

    /// Hands the batch ``nextToFill()`` gave to the tracker.
    func publish() {
        mutex.lock()
        published += 1
        mutex.signal()
        mutex.unlock()
    }

    // The tracking thread's side.

    /// The oldest batch published and not yet taken; waits for one.
    func take(_ taken: Int) -> PacketBatch {
        mutex.lock()
        while published == taken { mutex.wait() }
        let batch = batches[taken % batches.count]
        mutex.unlock()
        return batch
    }

    /// Gives the oldest batch taken back to the decoder.
    func release() {
        mutex.lock()
        released += 1
        mutex.signal()
        mutex.unlock()
    }
}

extension CaptureRun {
    /// Records read on one thread before deciding whether a second one pays.
    static let pipelineSample = 16_384

    /// ``forEachPacketInPlace(progress:pauseAt:_:)``, with the decoding moved to a thread of its
    /// own (``forEachPacketPipelined(progress:_:)``) once the first ``pipelineSample`` records
    /// show that discovery packets are at least an eighth of them. A capture of mostly other
    /// traffic stays on one thread: there the tracker has little to do, and a third busy
    /// thread beside the read-ahead one cost the sparse benchmark a fifth of its time.
    /// - Returns: whether the rest of the file was read on two threads.
    @discardableResult
    public mutating func forEachPacketAdaptively(
        progress: ReadProgress? = nil, _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) -> Bool {
        var discovery = 0
        let start = file.recordsRead
        let over = forEachPacketInPlace(progress: progress, pauseAt: start + Self.pipelineSample) { packet, message in
            discovery += 1
            body(packet, message)
        }
        if over { return false }
        if discovery * 8 >= file.recordsRead - start {
            forEachPacketPipelined(progress: progress, body)
            return true
        }
        forEachPacketInPlace(progress: progress, body)
        return false
    }

    /// ``forEachPacketInPlace(progress:pauseAt:_:)`` with the decoding on a thread of its own: `body`
    /// gets the same packets and messages in the same order, on the calling thread, while the
    /// next ones are decoded. Falls back to one thread when no thread can be started.
    public mutating func forEachPacketPipelined(
        progress: ReadProgress? = nil, _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        forEachPacketPipelined(
            progress: progress, batches: 3, capacity: PacketBatch.defaultCapacity,
            arenaCapacity: PacketBatch.defaultArenaCapacity, body)
    }

    /// ``forEachPacketPipelined(progress:_:)`` with `batches` batches of at most `capacity`
    /// packets and `arenaCapacity` bytes of messages each (tests make them small).
    mutating func forEachPacketPipelined(
        progress: ReadProgress?, batches: Int, capacity: Int, arenaCapacity: Int,
        _ body: (DiscoveryPacket, DNSMessageView?) -> Void
    ) {
        let pipe = PacketPipe(batches: batches, capacity: capacity, arenaCapacity: arenaCapacity)
        let job = DecodeJob(run: self, pipe: pipe, progress: progress)
        guard let thread = WorkerThread.start({ job.decode() }) else {
            forEachPacketInPlace(progress: progress, body)
            return
        }
        var taken = 0
        while true {
            let batch = pipe.take(taken)
            taken += 1
            batch.forEach(body)
            let last = batch.isLast
            pipe.release()
            if last { break }
        }
        thread.join()
        self = job.run
    }
}

/// The decoding thread's work: the run (moved to the thread, and back once it is joined) and
/// the pipe it fills.
private final class DecodeJob: @unchecked Sendable {  // the run is touched by one thread at a time
    var run: CaptureRun
    let pipe: PacketPipe
    let progress: ReadProgress?

    init(run: CaptureRun, pipe: PacketPipe, progress: ReadProgress?) {
        self.run = run
        self.pipe = pipe
        self.progress = progress
    }

    func decode() {
        var batch = pipe.nextToFill()
        let pipe = self.pipe
        run.forEachPacketInPlace(progress: progress) { packet, message in
            if batch.add(packet, message) { return }
            pipe.publish()
            batch = pipe.nextToFill()
            _ = batch.add(packet, message)  // an empty batch takes any packet
        }
        batch.isLast = true
        pipe.publish()
    }
}
