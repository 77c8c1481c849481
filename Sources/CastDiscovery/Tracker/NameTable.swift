// Name interning: NameID, and the NameTable that gives each distinct DNS name one (ignoring
// ASCII case) with its Cast classification.

import WireFormat

/// A DNS name interned by ``NameTable``: a small integer that stands for one name, compared
/// ASCII case-insensitively (RFC 4343). The tracker keys all its state by these, so a record
/// costs one hash of its names per packet and every later lookup is an integer comparison or
/// an array index.
struct NameID: Hashable, Comparable {
    let raw: Int32
    /// The position in the table's arrays.
    var index: Int { Int(raw) }
    static func < (a: NameID, b: NameID) -> Bool { a.raw < b.raw }
}

/// The interning table of the tracker: each distinct name (ignoring ASCII case) gets a
/// ``NameID`` on first sight, with its Cast classification computed once.
///
/// Open addressing over a power-of-two slot array. Names are hashed and compared eight
/// lower-cased bytes at a time: each is kept lower-cased and zero-padded to a multiple of
/// eight bytes, and a name to look up is lower-cased in place in its (padded) scratch buffer.
/// The hash is seeded per process (from Swift's randomly seeded `Hasher`), so names crafted to
/// collide on one run do not collide on the next.
struct NameTable {
    /// The names in the order they were interned, spelled as first seen.
    private(set) var names: [DNSName] = []
    /// Each name's Cast classification (`nil`: not under `_googlecast._tcp.local`) and the
    /// offset of its first label.
    private(set) var shapes: [(kind: CastName.Kind, first: Int)?] = []
    /// Lower-cased wire bytes of every name, each zero-padded to a multiple of 8 bytes.
    private var lowered: [UInt64] = []
    private var spans: [(start: Int, count: Int)] = []
    private var hashes: [UInt64] = []
    /// Name index + 1 per slot; 0 for an empty slot.
    private var slots: [Int32] = Array(repeating: 0, count: 64)
    private let seed: UInt64
    /// The most names it takes; a new name beyond is not interned (``intern(_:)`` returns nil).
    let limit: Int

    /// Bytes a scratch buffer needs beyond the longest name for ``intern(scratch:count:original:)``.
    static let padding = 8

    init(limit: Int = .max) {
        self.limit = limit
        var h = Hasher()
        h.combine(0x6361_7374_7363_6f70 as UInt64)
        seed = UInt64(bitPattern: Int64(h.finalize()))
    }

    /// How many names are interned.
    var count: Int { names.count }

    /// The name of `id` (first spelling).
    func name(_ id: NameID) -> DNSName { names[id.index] }

    /// The Cast classification of `id`'s name.
    func shape(_ id: NameID) -> (kind: CastName.Kind, first: Int)? { shapes[id.index] }

    /// The ID of `name`, interning it if it is new (`nil` if it is new and the table is full).
    mutating func intern(_ name: DNSName) -> NameID? {
        withPadded(name.wire) { scratch, n in intern(scratch: scratch, count: n) { name } }
    }

    /// The ID of `name` if it was interned.
    func lookup(_ name: DNSName) -> NameID? {
        withPadded(name.wire) { scratch, n in lookup(scratch: scratch, count: n) }
    }

    /// Interns the name whose length-prefixed labels are the first `n` bytes of `scratch`,
    /// which has ``padding`` writable bytes after them. The bytes are lower-cased in place.
    /// - Parameter original: the name as written, asked for only when it is new (it may reuse
    ///   `scratch`).
    mutating func intern(scratch: UnsafeMutableRawPointer, count n: Int, original: () -> DNSName) -> NameID? {
        let hash = Self.lowerAndHash(scratch, count: n, seed: seed)
        if let found = find(scratch, count: n, hash: hash) { return found }
        guard names.count < limit else { return nil }
        let id = NameID(raw: Int32(names.count))
        // The lower-cased words first: `original` may reuse the scratch buffer.
        let words = (n + 7) / 8
        spans.append((lowered.count, n))
        for k in 0..<words { lowered.append(scratch.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)) }
        hashes.append(hash)
        let name = original()
        names.append(name)
        shapes.append(CastName.shape(name.wire))
        if names.count * 2 > slots.count { grow() } else { place(id, hash: hash) }
        return id
    }

    /// ``intern(scratch:count:original:)`` without adding the name: its ID if it was interned.
    func lookup(scratch: UnsafeMutableRawPointer, count n: Int) -> NameID? {
        find(scratch, count: n, hash: Self.lowerAndHash(scratch, count: n, seed: seed))
    }

    /// Runs `body` with `wire` copied into a padded scratch buffer.
    private func withPadded<R>(_ wire: [UInt8], _ body: (UnsafeMutableRawPointer, Int) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: wire.count + Self.padding, alignment: 8) { buffer in
            wire.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return body(buffer.baseAddress!, wire.count)
        }
    }

    private func find(_ lower: UnsafeMutableRawPointer, count n: Int, hash: UInt64) -> NameID? {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        let words = (n + 7) / 8
        return lowered.withUnsafeBufferPointer { all in
            while true {
                let s = slots[i]
                if s == 0 { return nil }
                let index = Int(s) - 1
                if hashes[index] == hash, spans[index].count == n {
                    let start = spans[index].start
                    var equal = true
                    for k in 0..<words
                    where all[start + k] != lower.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self) {
                        equal = false
                        break
                    }
                    if equal { return NameID(raw: Int32(index)) }
                }
                i = (i + 1) & mask
            }
        }
    }

    private mutating func place(_ id: NameID, hash: UInt64) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = id.raw + 1
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for index in hashes.indices { place(NameID(raw: Int32(index)), hash: hashes[index]) }
    }

    /// Lower-cases the first `n` bytes at `p` in place, zeroes the padding up to the next
    /// multiple of 8, and returns their seeded hash, eight bytes at a time.
    @inline(__always)
    static func lowerAndHash(_ p: UnsafeMutableRawPointer, count n: Int, seed: UInt64) -> UInt64 {
        // Zero the bytes after the name up to the word boundary (the padding is writable).
        let end = (n + 7) & ~7
        p.storeBytes(of: 0 as UInt64, toByteOffset: n, as: UInt64.self)
        var h = seed ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        var i = 0
        while i < end {
            let word = lower(p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            p.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
            h = mix(h ^ word)
            i += 8
        }
        return mix(h)
    }

    /// ASCII upper case to lower case in eight bytes at once (bytes ≥ 0x80 unchanged).
    @inline(__always)
    static func lower(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7 = x & (ones &* 0x7F)
        let atLeastA = low7 &+ ones &* (0x80 - 0x41)
        let aboveZ = low7 &+ ones &* (0x80 - 0x5B)
        let upper = atLeastA & ~aboveZ & ~x & (ones &* 0x80)
        return x | (upper >> 2)
    }

    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &* 0xBF58_476D_1CE4_E5B9
        z ^= z >> 31
        z = z &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 29)
    }
}
