// How glibc's allocator should grow the heap for castscope, set once at start-up.
//
// An analysis tracks on a Dispatch worker thread, and glibc gives every thread that allocates
// an arena of its own, grown one page at a time with mprotect(2) as the tracker's tables grow:
// the 200k-packet dense benchmark made 658 mprotect calls and 3,888 page faults on one thread.
// With one arena (`M_ARENA_MAX`) the heap grows with brk(2), and a pad of 4 MiB (`M_TOP_PAD`)
// makes each growth large and keeps that much freed memory at the top of the heap rather than
// trimming it and faulting it in again: 18 mprotect calls, 2,792 page faults, peak RSS 21.9 →
// 19.3 MiB (two threads 24.4 → 22.8 MiB); CPU time moved within the machine's noise (one thread
// 0.148 → 0.142 s, two 0.172 → 0.173 s, medians of 41 interleaved runs; docs/performance.md).
// The pad is address space, not memory: only pages written count in the RSS. Few threads
// allocate at once here (the tracker and, on a dense capture, the decoding thread, which
// allocates little), and glibc's per-thread caches serve most allocations without the arena's
// lock.

#if canImport(Glibc)
    import Glibc

    enum MemoryPolicy {
        /// glibc's `mallopt(3)` parameters (malloc.h, not in Swift's Glibc module).
        private static let topPad: Int32 = -2  // M_TOP_PAD
        private static let arenaMax: Int32 = -8  // M_ARENA_MAX

        /// Sets the allocator's parameters; where `mallopt` cannot be found (another C
        /// library), leaves the defaults.
        static func apply() {
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            _ = mallopt(arenaMax, 1)
            _ = mallopt(topPad, 4 << 20)
        }
    }
#else
    enum MemoryPolicy {
        static func apply() {}
    }
#endif
