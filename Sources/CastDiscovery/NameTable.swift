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

/// A map from ``NameID`` that stays a short array (scanned, no hashing, no allocation beyond
/// the array) while it is small, as it nearly always is (the names one client asks, the
/// devices that answered one query), and turns into a hash table when it grows, so that a
/// flood of names cannot make the tracker's membership tests quadratic.
struct NameMap<Value> {
    private var small: [(key: NameID, value: Value)] = []
    private var large: [NameID: Value]?
    /// Entries kept as a scanned array before switching to a hash table.
    static var smallLimit: Int { 16 }

    init() {}

    var count: Int { large?.count ?? small.count }
    var isEmpty: Bool { count == 0 }

    @inline(__always)
    subscript(key: NameID) -> Value? {
        if let large { return large[key] }
        for e in small where e.key == key { return e.value }
        return nil
    }

    /// Sets `value` for `key`; `true` if the key was new.
    @discardableResult
    mutating func set(_ key: NameID, _ value: Value) -> Bool {
        if large != nil { return large!.updateValue(value, forKey: key) == nil }
        if let i = small.firstIndex(where: { $0.key == key }) {
            small[i].value = value
            return false
        }
        if small.count < Self.smallLimit {
            small.append((key, value))
        } else {
            var table = Dictionary(uniqueKeysWithValues: small.map { ($0.key, $0.value) })
            table[key] = value
            large = table
            small = []
        }
        return true
    }

    /// Runs `body` on the value of `key` in place. An absent key gets `make()` first when
    /// `budget` is above zero, which is then lowered by one; otherwise `body` does not run.
    /// - Returns: whether `body` ran.
    @discardableResult @inline(__always)
    mutating func modify(
        _ key: NameID, budget: inout Int, default make: () -> Value, _ body: (inout Value) -> Void
    ) -> Bool {
        if large != nil {
            if large![key] == nil {
                guard budget > 0 else { return false }
                budget -= 1
                large![key] = make()
            }
            body(&large![key]!)
            return true
        }
        for i in small.indices where small[i].key == key {
            body(&small[i].value)
            return true
        }
        guard budget > 0 else { return false }
        budget -= 1
        var value = make()
        body(&value)
        set(key, value)
        return true
    }

    /// The entries, in insertion order while small (unordered once large).
    var entries: [(key: NameID, value: Value)] {
        if let large { return large.map { ($0.key, $0.value) } }
        return small
    }
}

/// A set of ``NameID``s that keeps the order they were added in: a plain array (scanned) while
/// it is small, as it nearly always is, plus a hash index once it grows past
/// ``NameMap/smallLimit``, so that a flood of names cannot make membership tests quadratic.
struct NameSet {
    /// The members, in the order they were added.
    private(set) var members: [NameID] = []
    private var index: Set<NameID>?

    init() {}

    /// A set of `ids`, which must hold no repeats (they are not checked while few).
    init(unique ids: [NameID]) {
        members = ids
        if ids.count > NameMap<Void>.smallLimit { index = Set(ids) }
    }

    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }

    @inline(__always)
    func contains(_ id: NameID) -> Bool {
        if let index { return index.contains(id) }
        return members.contains(id)
    }

    /// Adds `id`; `true` if it was not there.
    @discardableResult
    mutating func insert(_ id: NameID) -> Bool {
        if contains(id) { return false }
        members.append(id)
        if index != nil {
            index!.insert(id)
        } else if members.count > NameMap<Void>.smallLimit {
            index = Set(members)
        }
        return true
    }
}
