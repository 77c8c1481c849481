import WireFormat

/// A Cast receiver's TXT record, read the way Chrome and the Cast SDKs read it.
public struct CastTXT: Hashable, Sendable {
    /// `id`: the receiver UUID (required by Chrome).
    public var id: String?
    /// `fn`: friendly name (required by Chrome).
    public var friendlyName: String?
    /// `md`: model name.
    public var model: String?
    /// `ve`: Cast protocol version.
    public var version: String?
    /// `st`: 0 idle, 1 busy (an app is running).
    public var status: String?
    /// `rs`: the running app's status text.
    public var runningApp: String?
    /// `ic`: icon path on the device's :8008 server.
    public var icon: String?
    /// `ca`: the capability bitmask, when it is a decimal number.
    public var capabilityBits: Int?
    /// Every key=value in wire order (first occurrence of a key wins), values as UTF-8 text
    /// with invalid bytes escaped; a key without `=` has the value `nil`.
    public var entries: [(key: String, value: String?)]

    public static func == (a: CastTXT, b: CastTXT) -> Bool {
        a.entries.map(\.key) == b.entries.map(\.key) && a.entries.map(\.value) == b.entries.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for e in entries {
            hasher.combine(e.key)
            hasher.combine(e.value)
        }
    }

    /// Reads the Cast keys from a TXT record.
    public init(_ record: TXTRecord) {
        let raw = record.entries
        var entries: [(key: String, value: String?)] = []
        entries.reserveCapacity(raw.count)
        func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        for e in raw {
            let value = e.value.map { DNSText.escape($0, quote: false, escapeDot: false) }
            entries.append((DNSText.escape(e.key, quote: false, escapeDot: false), value))
            // The Cast keys are two ASCII letters; keys are distinct ignoring case (first wins).
            guard e.key.count == 2 else { continue }
            switch (lower(e.key[0]), lower(e.key[1])) {
            case (0x69, 0x64): id = value  // id
            case (0x66, 0x6E): friendlyName = value  // fn
            case (0x6D, 0x64): model = value  // md
            case (0x76, 0x65): version = value  // ve
            case (0x73, 0x74): status = value  // st
            case (0x72, 0x73): runningApp = value  // rs
            case (0x69, 0x63): icon = value  // ic
            case (0x63, 0x61): capabilityBits = value.flatMap { Int($0.trimmingSpaces) }  // ca
            default: break
            }
        }
        self.entries = entries
    }

    /// Status in words: `idle` for 0, `busy` for 1, else the raw value.
    public var statusText: String? {
        switch status {
        case "0": return "idle"
        case "1": return "busy"
        default: return status
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
