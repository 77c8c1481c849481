/// One capture's Cast queries and responses, in capture order, for `castscope compare`
/// (issue 18): the messages ``MessageMatcher`` pairs, what each is, and the span the capture
/// covers (a message outside the other capture's span cannot be called lost).
public struct CompareSide: Sendable {
    /// The file's name as shown to the user.
    public var shownName: String
    public var messages: [ObservedMessage] = []
    /// The kind of each message, index for index.
    public var kinds: [CastMessageKind] = []
    /// Records read.
    public var records = 0
    /// The first and last record's time (every record, not only discovery), in seconds since
    /// the epoch; `nil` for an empty capture.
    public var start: Double?
    public var end: Double?
    /// The friendly name (`fn`) each responding host announced.
    public var names: [String: String] = [:]
    /// Each host's IP source addresses, in the order first seen (the first
    /// ``maximumAddressesPerHost``: a router's link-layer address may carry thousands).
    public var addresses: [String: [String]] = [:]
    /// Every (host, address) pair seen, for the membership test.
    private var known = Set<HostAddress>()

    public static let maximumAddressesPerHost = 16

    private struct HostAddress: Hashable {
        var host: String
        var address: String
    }

    public init(shownName: String) { self.shownName = shownName }

    /// Adds a message (in capture order).
    public mutating func append(_ message: ObservedMessage, kind: CastMessageKind, friendlyName: String?) {
        messages.append(message)
        kinds.append(kind)
        if let friendlyName, names[message.host] == nil { names[message.host] = friendlyName }
        if known.insert(HostAddress(host: message.host, address: message.source)).inserted,
            addresses[message.host]?.count ?? 0 < Self.maximumAddressesPerHost
        {
            addresses[message.host, default: []].append(message.source)
        }
    }
}
