// Collections keyed by NameID that stay short scanned arrays while small and switch to hashing
// when they grow, so that a flood of names cannot make the tracker's membership tests quadratic.

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
