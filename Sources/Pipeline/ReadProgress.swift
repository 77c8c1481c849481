import Synchronization

/// How far the reading of one capture has got, shared between the thread that reads it and
/// the thread that draws a progress line.
public final class ReadProgress: Sendable {
    public let bytes: Atomic<Int64>
    public let packets: Atomic<Int>
    /// The file's size, when known.
    public let total: Int64?

    public init(total: Int64?) {
        self.total = total
        bytes = Atomic(0)
        packets = Atomic(0)
    }

    /// Stores the reader's position (called every few thousand records).
    func record(packets: Int, bytes: Int64?) {
        self.packets.store(packets, ordering: .relaxed)
        if let bytes { self.bytes.store(bytes, ordering: .relaxed) }
    }
}
