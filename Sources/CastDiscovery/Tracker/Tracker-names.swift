// The names of one message read in place: which names matter, and interning each at most once
// per message (a compression pointer to a name interned before costs a lookup, not a hash).

import WireFormat

/// The names of one message read in place: a scratch buffer to expand them into, and where
/// each name interned so far started, so that a compression pointer to it is recognised.
struct MessageNames {
    /// Scratch bytes: one expanded name (with the interning table's padding), then the
    /// remembered starts.
    static let nameBytes = 256 + NameTable.padding
    static let scratchBytes = nameBytes + capacity * 8
    static let capacity = 32

    /// The message's bytes (not the whole view: this is passed around for every name).
    let bytes: UnsafeRawBufferPointer
    /// Where ``expand(_:)`` puts a name.
    let name: UnsafeMutableRawPointer
    private let starts: UnsafeMutablePointer<(offset: Int32, id: Int32)>
    private var count = 0

    init(view: DNSMessageView, scratch: UnsafeMutableRawBufferPointer) {
        bytes = view.message.bytes
        name = scratch.baseAddress!
        starts = (scratch.baseAddress! + Self.nameBytes).bindMemory(
            to: (offset: Int32, id: Int32).self, capacity: Self.capacity)
    }

    /// The offset where the name at `offset` really starts: past any leading compression
    /// pointers (which, in a checked message, point strictly backwards).
    func start(of offset: Int) -> Int {
        let b = bytes
        var o = offset
        while o + 1 < b.count, b[o] & 0xC0 == 0xC0 {
            let target = Int(b[o] & 0x3F) << 8 | Int(b[o + 1])
            guard target < o else { break }
            o = target
        }
        return o
    }

    func remembered(_ start: Int) -> NameID? {
        for i in 0..<count where starts[i].offset == Int32(start) { return NameID(raw: starts[i].id) }
        return nil
    }

    /// Remembers where a name interned as `id` started (the caller found it not remembered).
    mutating func remember(_ start: Int, _ id: NameID) {
        guard count < Self.capacity else { return }
        starts[count] = (Int32(start), id.raw)
        count += 1
    }

    /// Expands the name at `offset` to ``name``.
    /// - Returns: its length.
    func expand(_ offset: Int) -> Int {
        DNSName.expand(
            at: offset, in: ByteCursor(bytes), into: UnsafeMutableRawBufferPointer(start: name, count: Self.nameBytes))
    }

    /// The name at `offset` as written (for a name seen for the first time).
    func original(_ offset: Int) -> DNSName {
        // Expanded into the scratch buffer again (the lower-cased copy there is done with), then
        // copied at its exact size: names are kept for the whole run.
        let n = expand(offset)
        return DNSName(wire: Array(UnsafeRawBufferPointer(start: name, count: n)))
    }
}

extension DiscoveryTracker {
    /// What a name must be for its record to matter.
    enum NameRequirement {
        /// A Cast browse name (service type or app subtype).
        case browse
        /// A Cast instance name.
        case instance
        /// Any name (A/AAAA owners, SRV targets).
        case any

        func accepts(_ kind: CastName.Kind?) -> Bool {
            switch self {
            case .browse: return kind != nil && kind != .instance
            case .instance: return kind == .instance
            case .any: return true
            }
        }

        /// What a response record's owner must be for it to matter to Cast discovery: PTR from
        /// a Cast browse name, SRV/TXT of a Cast instance, any A/AAAA; `nil`: the type never
        /// matters.
        static func owner(of type: DNSRecordType) -> NameRequirement? {
            switch type {
            case .ptr: return .browse
            case .srv, .txt: return .instance
            case .a, .aaaa: return .any
            default: return nil
            }
        }
    }

    /// Interns the name at `offset` of a message read in place if it meets `requirement`.
    /// A name that is a compression pointer to one interned before in the same message costs
    /// a lookup in `n`, not an expansion and a hash.
    mutating func intern(at offset: Int, _ n: inout MessageNames, _ requirement: NameRequirement) -> NameID? {
        let start = n.start(of: offset)
        if let id = n.remembered(start) { return requirement.accepts(names.shape(id)?.kind) ? id : nil }
        // Interned first, classified from the table (once per distinct name, not per use).
        let count = n.expand(offset)
        guard let id = names.intern(scratch: n.name, count: count, original: { n.original(offset) }) else {
            drops.names += 1
            return nil
        }
        n.remember(start, id)
        return requirement.accepts(names.shape(id)?.kind) ? id : nil
    }
}
