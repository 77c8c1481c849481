import WireFormat

/// What a DNS name means to Cast discovery.
public enum CastName: Hashable, Sendable {
    /// `_googlecast._tcp.local`: the service type senders browse.
    case serviceType
    /// `_<APPID>._sub._googlecast._tcp.local`: an app-ID subtype (the app ID without its `_`).
    case subtype(appID: String)
    /// `_%<40 hex digits>._sub._googlecast._tcp.local`: the subtype Chrome and Play services ask
    /// of every media-capable receiver alongside app-ID subtypes (DOMAIN.md §7.1): a discovery
    /// criterion, not an app ID.
    case mediaCriterion
    /// `<instance>._googlecast._tcp.local`: one receiver instance (its first label as text).
    case instance(label: String)

    /// The service type name.
    public static let serviceTypeName = DNSName("_googlecast._tcp.local")

    /// Classifies `name`, or returns `nil` if it is not under `_googlecast._tcp.local`.
    /// Comparison is ASCII case-insensitive, as DNS requires.
    public init?(_ name: DNSName) {
        guard let shape = CastName.shape(name.wire) else { return nil }
        let w = name.wire
        switch shape.kind {
        case .serviceType:
            self = .serviceType
        case .instance:
            self = .instance(label: CastName.text(w[(shape.first + 1)..<(shape.first + 1 + Int(w[shape.first]))]))
        case .subtype:
            var start = shape.first + 1
            let end = start + Int(w[shape.first])
            if start < end, w[start] == 0x5F { start += 1 }  // "_"
            if CastName.isMediaCriterion(w[start..<end]) {
                self = .mediaCriterion
            } else {
                self = .subtype(appID: CastName.text(w[start..<end]))
            }
        }
    }

    /// What kind of Cast name a wire name is, without building any string.
    enum Kind { case serviceType, subtype, instance }

    /// The suffix `\v_googlecast\u{4}_tcp\u{5}local` in wire form, lower case.
    static let suffix: [UInt8] = [11] + Array("_googlecast".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8)
    static let sub: [UInt8] = [4] + Array("_sub".utf8)

    /// Classifies length-prefixed labels: the kind, and the offset of the first label's length
    /// byte. Allocation-free; this runs for every record of every mDNS packet.
    static func shape(_ w: [UInt8]) -> (kind: Kind, first: Int)? {
        w.withUnsafeBufferPointer { shape($0) }
    }

    /// ``shape(_:)`` over borrowed bytes (a name expanded from the wire).
    static func shape(_ w: UnsafeBufferPointer<UInt8>) -> (kind: Kind, first: Int)? {
        let n = w.count
        let s = suffix.count
        guard n >= s else { return nil }
        // Walk the labels to find where the last three start (the suffix must be whole labels).
        var starts: (Int, Int, Int) = (-1, -1, -1)  // up to three labels before the suffix
        var count = 0
        var i = 0
        while i < n - s {
            starts = (starts.1, starts.2, i)
            count += 1
            i += 1 + Int(w[i])
        }
        guard i == n - s else { return nil }
        for k in 0..<s {
            let b = w[i + k]
            let lower = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
            if lower != suffix[k] { return nil }
        }
        switch count {
        case 0: return (.serviceType, 0)
        case 1: return (.instance, starts.2)
        case 2:
            let subStart = starts.2
            guard Int(w[subStart]) == 4 else { return nil }
            for k in 1..<5 {
                let b = w[subStart + k]
                if (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) != sub[k] { return nil }
            }
            return (.subtype, starts.1)
        default: return nil
        }
    }

    /// Whether a subtype label (after its `_`) is the media criterion: a literal `%` and 40 hex
    /// digits (checked byte by byte in the public captures: 42 bytes with the `_`).
    static func isMediaCriterion(_ label: ArraySlice<UInt8>) -> Bool {
        guard label.count == 41, label.first == 0x25 else { return false }  // "%"
        return label.dropFirst().allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
        }
    }

    /// Label bytes as text: UTF-8 with invalid sequences escaped (`\DDD`), dots kept.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        DNSText.escape(bytes, quote: false, escapeDot: false)
    }

    /// Whether a sender asking about this name is looking for Cast devices.
    public var isBrowseName: Bool {
        switch self {
        case .serviceType, .subtype, .mediaCriterion: return true
        case .instance: return false
        }
    }
}
