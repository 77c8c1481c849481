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
/// Open addressing over a power-of-two slot array; the hash works on eight lower-cased bytes
/// at a time and is seeded per process (from Swift's randomly seeded `Hasher`), so names
/// crafted to collide on one run do not collide on the next.
struct NameTable {
    /// The names in the order they were interned, spelled as first seen.
    private(set) var names: [DNSName] = []
    /// Each name's Cast classification (`nil`: not under `_googlecast._tcp.local`) and the
    /// offset of its first label.
    private(set) var shapes: [(kind: CastName.Kind, first: Int)?] = []
    /// Lower-cased wire bytes of every name, back to back, for equality checks.
    private var lowered: [UInt8] = []
    private var spans: [(start: Int, count: Int)] = []
    private var hashes: [UInt64] = []
    /// Name index + 1 per slot; 0 for an empty slot.
    private var slots: [Int32] = Array(repeating: 0, count: 64)
    private let seed: UInt64

    init() {
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

    /// The ID of `name`, interning it if it is new.
    mutating func intern(_ name: DNSName) -> NameID {
        name.wire.withUnsafeBufferPointer { w in intern(wire: w) { name } }
    }

    /// The ID of the name with these length-prefixed labels, interning it if it is new.
    mutating func intern(wire w: UnsafeBufferPointer<UInt8>) -> NameID {
        intern(wire: w) { DNSName(wire: Array(w)) }
    }

    private mutating func intern(wire w: UnsafeBufferPointer<UInt8>, _ make: () -> DNSName) -> NameID {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: w.count + 8) { buffer in
            let lower = UnsafeBufferPointer(rebasing: buffer[0..<w.count])
            let hash = Self.lowerAndHash(w, into: buffer, seed: seed)
            if let found = find(lower, hash: hash) { return found }
            let id = NameID(raw: Int32(names.count))
            names.append(make())
            shapes.append(CastName.shape(w))
            spans.append((lowered.count, w.count))
            lowered.append(contentsOf: lower)
            hashes.append(hash)
            if names.count * 2 > slots.count { grow() } else { place(id, hash: hash) }
            return id
        }
    }

    /// The ID of `name` if it was interned.
    func lookup(_ name: DNSName) -> NameID? {
        name.wire.withUnsafeBufferPointer { lookup(wire: $0) }
    }

    /// The ID of the name with these length-prefixed labels if it was interned.
    func lookup(wire w: UnsafeBufferPointer<UInt8>) -> NameID? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: w.count + 8) { buffer in
            let hash = Self.lowerAndHash(w, into: buffer, seed: seed)
            return find(UnsafeBufferPointer(rebasing: buffer[0..<w.count]), hash: hash)
        }
    }

    private func find(_ lower: UnsafeBufferPointer<UInt8>, hash: UInt64) -> NameID? {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let s = slots[i]
            if s == 0 { return nil }
            let index = Int(s) - 1
            if hashes[index] == hash, spans[index].count == lower.count {
                let span = spans[index]
                let equal = lowered.withUnsafeBufferPointer { all in
                    lower.count == 0
                        || memcmpEqual(all.baseAddress! + span.start, lower.baseAddress!, count: lower.count)
                }
                if equal { return NameID(raw: Int32(index)) }
            }
            i = (i + 1) & mask
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

    /// Writes the lower-cased bytes of `w` to `out` (which has room for 8 more) and returns
    /// their seeded hash, eight bytes at a time.
    @inline(__always)
    static func lowerAndHash(_ w: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, seed: UInt64)
        -> UInt64
    {
        let n = w.count
        var h = seed ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        guard n > 0 else { return mix(h) }
        let src = UnsafeRawPointer(w.baseAddress!)
        let dst = UnsafeMutableRawPointer(out.baseAddress!)
        var i = 0
        while i + 8 <= n {
            let word = lower(src.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            dst.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
            h = mix(h ^ word)
            i += 8
        }
        if i < n {
            var word: UInt64 = 0
            var shift: UInt64 = 0
            for k in i..<n {
                let b = w[k]
                let l = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                out[k] = l
                word |= UInt64(l) << shift
                shift += 8
            }
            h = mix(h ^ word)
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

@inline(__always)
private func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
    var i = 0
    let ra = UnsafeRawPointer(a)
    let rb = UnsafeRawPointer(b)
    while i + 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
            return false
        }
        i += 8
    }
    while i < count {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}
