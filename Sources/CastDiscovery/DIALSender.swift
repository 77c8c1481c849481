/// Who sent a DIAL M-SEARCH, read from its `USER-AGENT` header.
///
/// Chromium's media router writes `<product>/<version> <OS>` (`Google Chrome/99.0.4844.74 Mac
/// OS X`, `Microsoft Edge/83.0.478.54 Windows`, `Brave Browser/81.1.9.76 Mac OS X`: seen in
/// ndpi/ssdp-m-search-ua.pcap and ipfixprobe/ssdp.pcap). A Chromium browser searches with
/// DIAL in the background and with mDNS only when its Cast dialog opens (DOMAIN.md §7.1, §7.4),
/// so DIAL alone from it is normal; from an app, it is the legacy discovery path.
public struct DIALSender: Hashable, Sendable {
    /// `Google Chrome`, `Microsoft Edge`…; `nil` without a user agent.
    public var product: String?
    /// The major version (`99`), when the user agent has one.
    public var majorVersion: String?
    /// Whether the product is Chrome or a browser built on Chromium, which shares its media
    /// router (Edge, Brave, Opera, Vivaldi, Chromium).
    public var isChromium: Bool

    /// Products built on Chromium's media router, lower-cased.
    static let chromiumProducts = [
        "google chrome", "chromium", "microsoft edge", "brave browser", "brave", "opera", "vivaldi", "yandex",
    ]

    /// Reads a `USER-AGENT` value (`nil`: the sender sent none, as apps often do).
    public init(userAgent: String?) {
        guard let userAgent, let slash = userAgent.firstIndex(of: "/") else {
            product = userAgent.flatMap { $0.isEmpty ? nil : $0 }
            majorVersion = nil
            isChromium = false
            return
        }
        let name = String(userAgent[..<slash])
        let version = userAgent[userAgent.index(after: slash)...].prefix { $0 != " " }
        product = name
        majorVersion = version.prefix { $0 != "." }.isEmpty ? nil : String(version.prefix { $0 != "." })
        let lower = name.lowercased()
        isChromium = Self.chromiumProducts.contains(lower) || lower.contains("chrome")
    }

    /// `Google Chrome 99`, `Microsoft Edge 83`, or the raw product; `nil` when unknown.
    public var name: String? {
        guard let product else { return nil }
        return majorVersion.map { "\(product) \($0)" } ?? product
    }
}

extension Client {
    /// The sender of its DIAL M-SEARCHes, from their `USER-AGENT`.
    public var dialSender: DIALSender { DIALSender(userAgent: dialUserAgent) }
}
