import WireFormat

/// What a DNS name means to Cast discovery.
public enum CastName: Hashable, Sendable {
    /// `_googlecast._tcp.local`: the service type senders browse.
    case serviceType
    /// `_<APPID>._sub._googlecast._tcp.local`: an app-ID subtype (the app ID without its `_`).
    case subtype(appID: String)
    /// `<instance>._googlecast._tcp.local`: one receiver instance (its first label as text).
    case instance(label: String)

    /// The service type name.
    public static let serviceTypeName = DNSName("_googlecast._tcp.local")

    /// Classifies `name`, or returns `nil` if it is not under `_googlecast._tcp.local`.
    /// Comparison is ASCII case-insensitive, as DNS requires.
    public init?(_ name: DNSName) {
        let labels = name.labels
        guard labels.count >= 3, name.hasSuffix(Self.serviceTypeName) else { return nil }
        switch labels.count {
        case 3:
            self = .serviceType
        case 4:
            self = .instance(label: CastName.text(labels[0]))
        case 5 where DNSName(labels: [Array(labels[1])]).equalsIgnoringCase(DNSName("_sub")):
            var app = Array(labels[0])
            if app.first == 0x5F { app.removeFirst() }  // "_"
            self = .subtype(appID: CastName.text(app[...]))
        default:
            return nil
        }
    }

    /// Label bytes as text: UTF-8 with invalid sequences escaped (`\DDD`), dots kept.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        DNSText.escape(bytes, quote: false, escapeDot: false)
    }

    /// Whether a sender asking about this name is looking for Cast devices.
    public var isBrowseName: Bool {
        switch self {
        case .serviceType, .subtype: return true
        case .instance: return false
        }
    }
}
