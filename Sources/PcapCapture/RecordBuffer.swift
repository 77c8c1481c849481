// The one buffer a capture is read through. Records are decoded where they lie in it; when the
// next record is not wholly in it, what is left is moved to the front and the rest refilled from
// the source with one large read, so a record is never copied on its own.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reusable read buffer over a ``ByteSource``, with the stream offset of every byte in it.
struct RecordBuffer {
    /// The buffer's memory (``capacity`` bytes); `nil` before the first fill and once released.
    private(set) var base: UnsafeMutableRawPointer?
    /// Its size: ``firstCapacity`` for the first fill, then ``initialCapacity`` until a block
    /// larger than that grows it; 0 before the first fill and once released.
    private(set) var capacity = 0
    /// The first byte not yet consumed.
    var start = 0
    /// One past the last byte read from the source.
    private(set) var end = 0
    /// The stream offset (in the decompressed capture) of `base[0]`.
    private(set) var origin: Int64 = 0
    /// Whether the source has said it has no more bytes.
    private(set) var sourceEnded = false
    let source: any ByteSource

    /// The starting size, measured (issue 14; a plain parse loop over a page-cached 686 MiB
    /// pcap of 1M records, user + system CPU, three runs each): 128 KiB to 2 MiB all cost
    /// 0.13–0.18 s, 4 MiB 0.21–0.29 s and 16 MiB 0.38–0.43 s: once the buffer no longer fits
    /// the per-core L2 cache (512 KiB here) the kernel's copy and the parse each go to memory.
    /// 1 MiB keeps read(2) calls few (about 700 for that file) and the resident size at 10 MiB.
    static let initialCapacity = 1 << 20
    /// The size of the first fill: enough for a file's header and interface blocks, and for a
    /// whole small file. Every file of `analyze DIR` or `--merge` is opened before any is read,
    /// so this, not ``initialCapacity``, is what each file waiting its turn holds; a file that
    /// ends within it (a short capture, a fuzzer input) never allocates more.
    static let firstCapacity = 16 << 10
    /// The largest block or record accepted: Wireshark's pcapng reader long had a 16 MiB block
    /// limit (wiretap/pcapng.c, `MAX_BLOCK_SIZE`, since raised to fit 128 MiB D-Bus messages),
    /// and libpcap's sf-pcapng.c refuses blocks larger than an EPB of its largest snapshot
    /// length (256 KiB, more for D-Bus) plus 128 KiB of options. Nothing CastScope decodes
    /// comes near it; a length field beyond it is a damaged file, not a reason to allocate.
    static let maximumBlock = 16 << 20

    init(source: any ByteSource) {
        self.source = source
    }

    /// Frees the memory; the buffer is not used again (only ``offset`` stays meaningful).
    mutating func deallocate() {
        base?.deallocate()
        base = nil
        origin += Int64(start)
        start = 0
        end = 0
        capacity = 0
        sourceEnded = true
    }

    /// Bytes available from ``start``.
    @inline(__always) var available: Int { end &- start }
    /// The stream offset of ``start``.
    @inline(__always) var offset: Int64 { origin &+ Int64(start) }
    /// The address of ``start``.
    @inline(__always) var current: UnsafeMutableRawPointer { base.unsafelyUnwrapped + start }

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
        if sourceEnded { return end &- start >= count ? .ready : .ended }
        if let base, start > 0 {
            let left = end - start
            if left > 0 { memmove(base, base + start, left) }
            origin += Int64(start)
            end = left
            start = 0
        }
        // The first fill is small; the file goes on, so the second gets the full size.
        var wanted = capacity == 0 ? Self.firstCapacity : max(capacity, Self.initialCapacity)
        while wanted < count { wanted *= 2 }
        if wanted > capacity {
            let bigger = UnsafeMutableRawPointer.allocate(byteCount: wanted, alignment: 16)
            if let base {
                bigger.copyMemory(from: base, byteCount: end)
                base.deallocate()
            }
            base = bigger
            capacity = wanted
        }
        let base = base.unsafelyUnwrapped
        while end < count && !sourceEnded {
            do throws(ByteSourceError) {
                let n = try source.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: capacity - end))
                if n == 0 { sourceEnded = true } else { end += n }
            } catch {
                return .failed(error)
            }
        }
        return end >= count ? .ready : .ended
    }
}
