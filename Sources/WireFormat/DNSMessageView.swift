/// A question of a ``DNSMessageView``, read in place.
public struct DNSQuestionView {
    /// Offset of the name in the message.
    public var nameOffset: Int
    /// The type asked for.
    public var type: DNSRecordType
    /// The class field as written (the top bit is the mDNS "QU" bit).
    public var rawClass: UInt16
    /// The mDNS "QU" bit: the querier asks for a unicast reply (RFC 6762 §5.4).
    public var unicastResponse: Bool { rawClass & 0x8000 != 0 }
}

/// A resource record of a ``DNSMessageView``, read in place.
public struct DNSRecordView {
    /// Which section it is in.
    public var section: DNSSection
    /// Offset of the owner name in the message.
    public var nameOffset: Int
    /// Record type.
    public var type: DNSRecordType
    /// The class field as written (the top bit is the mDNS cache-flush bit, except for OPT).
    public var rawClass: UInt16
    /// Time to live in seconds; 0 is a goodbye in mDNS.
    public var ttl: UInt32
    /// Offset of the rdata in the message.
    public var rdataOffset: Int
    /// The rdata length.
    public var rdlength: Int
}

/// Room for where the questions and records of a checked message are (``DNSMessageView/check(_:index:)``),
/// so that walking them again decodes nothing. One per decoder, reused for every message.
public final class DNSMessageIndex {
    /// Questions and records beyond this many are found by walking the message again.
    public static let capacity = 64
    let questions: UnsafeMutablePointer<DNSQuestionView>
    let records: UnsafeMutablePointer<DNSRecordView>
    /// The last few distinct messages checked with it, not to be checked again. Kept behind a
    /// pointer: a stored property of a class is edited under a run-time exclusivity check
    /// (`swift_beginAccess`, ~80 instructions a message), memory reached by pointer is not.
    let memo: UnsafeMutablePointer<DNSMessageMemo>

    public init() {
        questions = .allocate(capacity: Self.capacity)
        records = .allocate(capacity: Self.capacity)
        memo = .allocate(capacity: 1)
        memo.initialize(to: DNSMessageMemo())
    }

    deinit {
        questions.deallocate()
        records.deallocate()
        memo.deinitialize(count: 1)
        memo.deallocate()
    }
}

/// A DNS message checked in place over borrowed bytes, then read without allocating: the DNS
/// parser.
///
/// ``check(_:index:)`` applies every rule of the format (bounds, rdata layouts, names through
/// ``DNSName/skip(_:)``) and reports the first fault with its offset, but builds nothing: it
/// only records how many questions and records of each section are well-formed, the ones
/// before the fault. The questions and records can then be walked (``forEachQuestion(_:)``,
/// ``forEachRecord(_:)``) and their names expanded into a caller's buffer
/// (``name(at:into:)``). This is the analysis hot path: a Cast tracker interns names straight
/// from the wire. An owned ``DNSMessage`` is materialised from a view (``DNSMessage/init(_:)``)
/// for what prints or keeps messages. The view is only valid while its bytes are.
public struct DNSMessageView {
    /// The message, offset 0 at its first header byte.
    public let message: ByteCursor
    /// Message ID.
    public let id: UInt16
    /// The 16-bit flags word.
    public let flags: UInt16
    /// Questions and records of each section (question, answer, authority, additional) that
    /// decoded before the first fault.
    public internal(set) var decodedCounts: (Int, Int, Int, Int) {
        get { (Int(counts.0), Int(counts.1), Int(counts.2), Int(counts.3)) }
        set {
            counts = (
                UInt16(truncatingIfNeeded: newValue.0), UInt16(truncatingIfNeeded: newValue.1),
                UInt16(truncatingIfNeeded: newValue.2), UInt16(truncatingIfNeeded: newValue.3)
            )
        }
    }
    /// Offsets where the question section and each record section start.
    var sectionStarts: (Int, Int, Int, Int) {
        get { (Int(starts.0), Int(starts.1), Int(starts.2), Int(starts.3)) }
        set {
            starts = (
                UInt32(truncatingIfNeeded: newValue.0), UInt32(truncatingIfNeeded: newValue.1),
                UInt32(truncatingIfNeeded: newValue.2), UInt32(truncatingIfNeeded: newValue.3)
            )
        }
    }
    // Stored narrow (a count is at most its 16-bit header field, an offset is within a UDP
    // payload), so that a view copies inline rather than through memcpy: it is passed and
    // bound once or twice for every mDNS packet.
    private var counts: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
    private var starts: (UInt32, UInt32, UInt32, UInt32) = (12, 12, 12, 12)
    /// The questions and records as found by the check, when they all fitted in the index.
    var indexedQuestions: UnsafePointer<DNSQuestionView>?
    var indexedRecords: UnsafePointer<DNSRecordView>?
    /// When the check with an index found no fault (`nil` otherwise): a number that another
    /// view has only if its message has the same bytes, all decoders of the process together,
    /// so that a reader can remember what it made of a message by its stamp (mDNS repeats
    /// itself: ``DNSMessageIndex`` remembers recent messages and stamps each distinct one).
    public internal(set) var messageStamp: UInt64?

    /// QR: this is a response.
    public var isResponse: Bool { flags & 0x8000 != 0 }

    init(message: ByteCursor, id: UInt16, flags: UInt16) {
        self.message = message
        self.id = id
        self.flags = flags
    }

    /// Checks `message`, up to its first fault.
    /// - Parameters:
    ///   - message: the DNS message (offset 0 at its header).
    ///   - index: where to note each question and record found, so that ``forEachQuestion(_:)``
    ///     and ``forEachRecord(_:)`` need not decode them again (the view is then only valid
    ///     until `index` is used for another message).
    /// - Returns: the view (`nil` when even the 12-byte header is missing) and the first fault.
    public static func check(_ message: ByteCursor, index: DNSMessageIndex? = nil) -> (
        view: DNSMessageView?, error: DecodeError?
    ) {
        // A message equal to one checked lately with the same index gets that check's result.
        guard let index, let hash = DNSMessageMemo.hash(message.bytes) else { return checkAll(message, index: index) }
        if let view = index.memo.pointee.recall(message, hash: hash) { return (view, nil) }
        let (checked, error) = checkAll(message, index: index)
        guard error == nil, var view = checked, view.indexedQuestions != nil, view.indexedRecords != nil else {
            return (checked, error)
        }
        view.messageStamp = index.memo.pointee.keep(view, hash: hash, index: index)
        return (view, nil)
    }

    /// Checks `message` from its first byte (``check(_:index:)`` without the memo).
    static func checkAll(_ message: ByteCursor, index: DNSMessageIndex?) -> (view: DNSMessageView?, error: DecodeError?)
    {
        var c = message
        c.offset = 0
        var counts = (0, 0, 0, 0)
        let id: UInt16
        let flags: UInt16
        do throws(DecodeError) {
            id = try c.readUInt16()
            flags = try c.readUInt16()
            counts.0 = Int(try c.readUInt16())
            counts.1 = Int(try c.readUInt16())
            counts.2 = Int(try c.readUInt16())
            counts.3 = Int(try c.readUInt16())
        } catch {
            return (nil, error)
        }
        var view = DNSMessageView(message: c, id: id, flags: flags)
        view.sectionStarts = (c.offset, c.offset, c.offset, c.offset)
        var recorded = 0
        var error: DecodeError?
        do throws(DecodeError) {
            for _ in 0..<counts.0 {
                let nameOffset = c.offset
                try DNSName.skip(&c)
                let type = try c.readUInt16()
                let rawClass = try c.readUInt16()
                if let index, view.decodedCounts.0 < DNSMessageIndex.capacity {
                    index.questions[view.decodedCounts.0] = DNSQuestionView(
                        nameOffset: nameOffset, type: DNSRecordType(rawValue: type), rawClass: rawClass)
                }
                view.decodedCounts.0 += 1
            }
            view.sectionStarts.1 = c.offset
            view.sectionStarts.2 = c.offset
            view.sectionStarts.3 = c.offset
            for s in 1...3 {
                let section: DNSSection = s == 1 ? .answer : (s == 2 ? .authority : .additional)
                let count = s == 1 ? counts.1 : (s == 2 ? counts.2 : counts.3)
                for _ in 0..<count {
                    let record = try checkRecord(&c, section: section)
                    if let index, recorded < DNSMessageIndex.capacity { index.records[recorded] = record }
                    recorded += 1
                    switch s {
                    case 1: view.decodedCounts.1 += 1
                    case 2: view.decodedCounts.2 += 1
                    default: view.decodedCounts.3 += 1
                    }
                }
                if s == 1 {
                    view.sectionStarts.2 = c.offset
                    view.sectionStarts.3 = c.offset
                } else if s == 2 {
                    view.sectionStarts.3 = c.offset
                }
            }
        } catch let e {
            error = e
        }
        if let index {
            if view.decodedCounts.0 <= DNSMessageIndex.capacity {
                view.indexedQuestions = UnsafePointer(index.questions)
            }
            if recorded <= DNSMessageIndex.capacity { view.indexedRecords = UnsafePointer(index.records) }
        }
        return (view, error)
    }

    /// Calls `body` with each well-formed question, in order.
    @inline(__always)
    public func forEachQuestion(_ body: (DNSQuestionView) -> Void) {
        if let indexed = indexedQuestions {
            for i in 0..<decodedCounts.0 { body(indexed[i]) }
            return
        }
        var c = message
        c.offset = sectionStarts.0
        for _ in 0..<decodedCounts.0 {
            let nameOffset = c.offset
            // Checked by `check`: these cannot fail.
            guard (try? DNSName.skip(&c)) != nil, let type = try? c.readUInt16(), let rawClass = try? c.readUInt16()
            else { return }
            body(DNSQuestionView(nameOffset: nameOffset, type: DNSRecordType(rawValue: type), rawClass: rawClass))
        }
    }

    /// Calls `body` with each well-formed record of the answer, authority and additional
    /// sections, in wire order.
    @inline(__always)
    public func forEachRecord(_ body: (DNSRecordView) -> Void) {
        if let indexed = indexedRecords {
            for i in 0..<(decodedCounts.1 + decodedCounts.2 + decodedCounts.3) { body(indexed[i]) }
            return
        }
        var c = message
        c.offset = sectionStarts.1
        for s in 0..<3 {
            let section: DNSSection = s == 0 ? .answer : (s == 1 ? .authority : .additional)
            let count = s == 0 ? decodedCounts.1 : (s == 1 ? decodedCounts.2 : decodedCounts.3)
            for _ in 0..<count {
                let nameOffset = c.offset
                guard (try? DNSName.skip(&c)) != nil, let type = try? c.readUInt16(),
                    let rawClass = try? c.readUInt16(), let ttl = try? c.readUInt32(),
                    let rdlength = try? c.readUInt16()
                else { return }
                let record = DNSRecordView(
                    section: section, nameOffset: nameOffset, type: DNSRecordType(rawValue: type), rawClass: rawClass,
                    ttl: ttl, rdataOffset: c.offset, rdlength: Int(rdlength))
                c.offset += Int(rdlength)
                body(record)
            }
        }
    }

    /// How many well-formed records the answer, authority or additional section has.
    public func recordCount(in section: DNSSection) -> Int {
        switch section {
        case .answer: return decodedCounts.1
        case .authority: return decodedCounts.2
        case .additional: return decodedCounts.3
        }
    }

    /// Expands the name at `offset` into `scratch` (at least ``DNSName/maximumWireLength``
    /// bytes) as length-prefixed labels without the root label.
    /// - Returns: the expanded name, a view of `scratch`.
    public func name(at offset: Int, into scratch: UnsafeMutableRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        let n = DNSName.expand(at: offset, in: message, into: scratch)
        return UnsafeBufferPointer(start: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)
    }

    /// The name at `offset`, copied out (as a ``DNSMessage`` holds it).
    public func name(at offset: Int) -> DNSName { DNSName(checkedAt: offset, in: message) }

    /// QDCOUNT, ANCOUNT, NSCOUNT and ARCOUNT as the header writes them (attacker-controlled;
    /// ``decodedCounts`` are the ones that checked).
    public var headerCounts: (Int, Int, Int, Int) {
        func count(at offset: Int) -> Int {
            Int(UInt16(bigEndian: message.bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        }
        // A view exists only for a message with its whole 12-byte header.
        return (count(at: 4), count(at: 6), count(at: 8), count(at: 10))
    }

    /// The rdata bytes of `record`.
    public func rdata(_ record: DNSRecordView) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: message.bytes[record.rdataOffset..<(record.rdataOffset + record.rdlength)])
    }

    /// The address of an A record (checked to be 4 bytes).
    public func ipv4(_ record: DNSRecordView) -> IPv4Address {
        IPv4Address(
            rawValue: UInt32(
                bigEndian: message.bytes.loadUnaligned(fromByteOffset: record.rdataOffset, as: UInt32.self)))
    }

    /// The address of an AAAA record (checked to be 16 bytes).
    public func ipv6(_ record: DNSRecordView) -> IPv6Address {
        let b = message.bytes
        return IPv6Address(
            high: UInt64(bigEndian: b.loadUnaligned(fromByteOffset: record.rdataOffset, as: UInt64.self)),
            low: UInt64(bigEndian: b.loadUnaligned(fromByteOffset: record.rdataOffset + 8, as: UInt64.self)))
    }

    /// The port of an SRV record (checked to hold it).
    public func srvPort(_ record: DNSRecordView) -> UInt16 {
        UInt16(bigEndian: message.bytes.loadUnaligned(fromByteOffset: record.rdataOffset + 4, as: UInt16.self))
    }

    /// Where the name in the rdata of a PTR (CNAME, NS) or SRV record starts.
    public func rdataNameOffset(_ record: DNSRecordView) -> Int {
        record.type == .srv ? record.rdataOffset + 6 : record.rdataOffset
    }

    /// Checks one record (its rdata against its type's layout) and moves past it.
    static func checkRecord(_ c: inout ByteCursor, section: DNSSection) throws(DecodeError) -> DNSRecordView {
        let nameOffset = c.offset
        try DNSName.skip(&c)
        let type = DNSRecordType(rawValue: try c.readUInt16())
        let rawClass = try c.readUInt16()
        let ttl = try c.readUInt32()
        let lengthOffset = c.position
        let length = Int(try c.readUInt16())
        try c.require(length)
        let start = c.offset
        let end = start + length
        func checkLength(_ expected: Int) throws(DecodeError) {
            guard length == expected else {
                throw .invalid(offset: lengthOffset, field: .rdataLength(type: type.rawValue, length: length))
            }
        }
        func nameInRData() throws(DecodeError) {
            let nameStart = c.offset
            try DNSName.skip(&c)
            guard c.offset <= end else {
                throw .invalid(offset: c.base + nameStart, field: .rdataOverrun(type: type.rawValue))
            }
        }
        switch type {
        case .a:
            try checkLength(4)
            try c.skip(4)
        case .aaaa:
            try checkLength(16)
            try c.skip(16)
        case .ptr, .cname, .ns:
            try nameInRData()
        case .srv:
            var r = try c.readSlice(Swift.min(6, length))
            _ = try r.readUInt16()
            _ = try r.readUInt16()
            _ = try r.readUInt16()
            try nameInRData()
        case .txt:
            var r = try c.readSlice(length)
            while !r.isAtEnd { try r.skip(Int(try r.readUInt8())) }
        case .hinfo:
            var r = try c.readSlice(length)
            try r.skip(Int(try r.readUInt8()))
            try r.skip(Int(try r.readUInt8()))
        case .nsec:
            try nameInRData()
            var r = try c.readSlice(end - c.offset)
            var lastWindow = -1
            while !r.isAtEnd {
                let windowOffset = r.position
                let window = Int(try r.readUInt8())
                let bitmapLength = Int(try r.readUInt8())
                guard window > lastWindow, bitmapLength >= 1, bitmapLength <= 32 else {
                    throw .invalid(offset: windowOffset, field: .nsecBitmap)
                }
                lastWindow = window
                for _ in 0..<bitmapLength { _ = try r.readUInt8() }
            }
        case .opt:
            var r = try c.readSlice(length)
            while !r.isAtEnd {
                _ = try r.readUInt16()
                try r.skip(Int(try r.readUInt16()))
            }
        default:
            try c.skip(length)
        }
        guard c.offset <= end else {
            throw .invalid(offset: c.base + start, field: .rdataOverrun(type: type.rawValue))
        }
        c.offset = end
        return DNSRecordView(
            section: section, nameOffset: nameOffset, type: type, rawClass: rawClass, ttl: ttl, rdataOffset: start,
            rdlength: length)
    }
}
