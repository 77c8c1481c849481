// A view moved out of the buffer it was checked in: its message bytes and the questions and
// records its check indexed, copied side by side into memory the caller owns, so that the view
// stays valid after the read buffer and the ``DNSMessageIndex`` have moved on to other
// messages. The pipelined reader (Pipeline's PacketPipe) hands views from the decoding thread
// to the tracking one this way, a batch at a time.

extension DNSMessageView {
    /// Bytes ``copy(to:)`` writes: the message, then the indexed questions and records, each
    /// array aligned for its element type.
    public var copyByteCount: Int {
        var n = message.bytes.count
        if indexedQuestions != nil {
            n = Self.aligned(n, for: DNSQuestionView.self) + decodedCounts.0 * MemoryLayout<DNSQuestionView>.stride
        }
        if indexedRecords != nil {
            n = Self.aligned(n, for: DNSRecordView.self) + indexedRecordCount * MemoryLayout<DNSRecordView>.stride
        }
        return n
    }

    /// The largest alignment ``copy(to:)`` needs of its destination.
    public static var copyAlignment: Int {
        Swift.max(MemoryLayout<DNSQuestionView>.alignment, MemoryLayout<DNSRecordView>.alignment)
    }

    /// Copies the message and its index to `destination` (``copyByteCount`` bytes, aligned to
    /// ``copyAlignment``) and returns a view of the copy: the same message, questions,
    /// records, counts, offsets and stamp, valid as long as `destination`'s bytes are.
    public func copy(to destination: UnsafeMutableRawPointer) -> DNSMessageView {
        precondition(Int(bitPattern: destination) % Self.copyAlignment == 0, "misaligned destination")
        let count = message.bytes.count
        if count > 0, let source = message.bytes.baseAddress {
            destination.copyMemory(from: source, byteCount: count)
        }
        var view = DNSMessageView(
            message: ByteCursor(
                UnsafeRawBufferPointer(start: destination, count: count), offset: message.offset, base: message.base),
            id: id, flags: flags)
        view.decodedCounts = decodedCounts
        view.sectionStarts = sectionStarts
        view.messageStamp = messageStamp
        var end = count
        if let questions = indexedQuestions {
            end = Self.aligned(end, for: DNSQuestionView.self)
            let copied = (destination + end).bindMemory(to: DNSQuestionView.self, capacity: decodedCounts.0)
            copied.initialize(from: questions, count: decodedCounts.0)
            view.indexedQuestions = UnsafePointer(copied)
            end += decodedCounts.0 * MemoryLayout<DNSQuestionView>.stride
        }
        if let records = indexedRecords {
            end = Self.aligned(end, for: DNSRecordView.self)
            let copied = (destination + end).bindMemory(to: DNSRecordView.self, capacity: indexedRecordCount)
            copied.initialize(from: records, count: indexedRecordCount)
            view.indexedRecords = UnsafePointer(copied)
        }
        return view
    }

    /// Records held in ``indexedRecords``: those of the three record sections that decoded.
    private var indexedRecordCount: Int { decodedCounts.1 + decodedCounts.2 + decodedCounts.3 }

    private static func aligned<T>(_ offset: Int, for _: T.Type) -> Int {
        let a = MemoryLayout<T>.alignment
        return (offset + a - 1) & ~(a - 1)
    }
}
