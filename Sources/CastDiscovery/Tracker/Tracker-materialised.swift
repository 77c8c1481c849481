// The tracker on materialised messages (`DNSMessage`): the entry point without a view and the
// record and query keying it needs. Kept together so that the whole path can go at once.

import WireFormat

extension DiscoveryTracker {
    /// Adds one discovery packet (in capture order).
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - capture: the index of its capture file, for evidence references.
    public mutating func ingest(_ packet: DiscoveryPacket, capture: Int) {
        ingest(packet, message: nil, capture: capture)
    }

    /// Adds the decoded mDNS message of `packet`.
    mutating func ingestDecoded(_ message: DNSMessage, packet: DiscoveryPacket, frame: FrameRef) {
        if message.isResponse {
            let (keyed, txt) = keyedRecords(message)
            ingestResponse(keyed, txt: txt, packet: packet, frame: frame)
        } else {
            ingestQuery(keyedQuery(message), packet: packet, frame: frame)
        }
    }

    /// Whether a response record with this type and owner matters to Cast discovery.
    static func matters(_ type: DNSRecordType, owner: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let requirement = NameRequirement.owner(of: type) else { return false }
        return requirement == .any || requirement.accepts(CastName.shape(owner)?.kind)
    }

    /// Interns `name`, counting it as dropped when the name table is full.
    mutating func internOrCount(_ name: DNSName) -> NameID? {
        if let id = names.intern(name) { return id }
        drops.names += 1
        return nil
    }

    /// Interns a PTR target if it is a Cast instance name.
    mutating func instanceTarget(_ name: DNSName) -> NameID? {
        guard let shape = CastName.shape(name.wire), shape.kind == .instance else { return nil }
        return internOrCount(name)
    }

    /// Interns a question name if it is a Cast browse name.
    mutating func castQuestion(_ name: DNSName) -> (NameID, CastName.Kind)? {
        guard let shape = CastName.shape(name.wire), shape.kind != .instance else { return nil }
        guard let id = internOrCount(name) else { return nil }
        return (id, shape.kind)
    }

    /// The answer and additional records of a decoded message.
    /// - Returns: the records, and the TXT rdata they refer to (``TXTData/decoded(_:)``).
    mutating func keyedRecords(_ message: DNSMessage) -> ([KeyedRecord], [[UInt8]]) {
        var keyed: [KeyedRecord] = []
        var txts: [[UInt8]] = []
        for r in message.answers + message.additionals {
            guard r.name.wire.withUnsafeBufferPointer({ Self.matters(r.type, owner: $0) }) else { continue }
            guard let owner = internOrCount(r.name) else { continue }
            var record = KeyedRecord(type: r.type, ttl: r.ttl, owner: owner)
            switch r.data {
            case .name(let t) where r.type == .ptr:
                guard let t = instanceTarget(t) else { continue }
                record.target = t
            case .srv(_, _, let port, let target):
                record.target = internOrCount(target)
                record.port = port
            case .txt(let txt):
                record.txt = .decoded(txts.count)
                txts.append(txt.wire)
            case .a(let a): record.address = .v4(a)
            case .aaaa(let a): record.address = .v6(a)
            default: continue
            }
            keyed.append(record)
        }
        return (keyed, txts)
    }

    /// A decoded query.
    mutating func keyedQuery(_ message: DNSMessage) -> KeyedQuery {
        var q = KeyedQuery()
        guard message.authorities.isEmpty else {
            q.isProbe = true
            return q
        }
        for question in message.questions {
            if let (key, kind) = castQuestion(question.name) {
                q.questions.append((key, kind, question.unicastResponse))
            }
        }
        guard !q.questions.isEmpty else { return q }
        for record in message.answers where record.type == .ptr {
            guard case .name(let target) = record.data else { continue }
            guard let owner = knownAnswerOwner(names.lookup(record.name)) else { continue }
            guard let instance = internOrCount(target) else { continue }
            q.knownAnswers.append(KnownAnswer(owner: owner, instance: instance, ttl: record.ttl))
        }
        return q
    }
}
