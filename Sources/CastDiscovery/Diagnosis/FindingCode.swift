/// The stable identifier of a finding (`QUERIES_UNANSWERED`), documented in
/// docs/diagnostics.md.
///
/// An open set in the style of swift-system's `Errno`: the codes castscope produces are
/// static members, listed in ``known``, and a code read from elsewhere (a JSON report of a
/// newer version) is kept as it is.
public struct FindingCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as written in reports: upper case words joined by underscores.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    // MARK: The capture itself

    /// 802.11 data frames are encrypted, so the mDNS inside them cannot be read.
    public static let encryptedWiFi = FindingCode(rawValue: "ENCRYPTED_WIFI")
    /// The capture file has a header and not one frame.
    public static let emptyCapture = FindingCode(rawValue: "EMPTY_CAPTURE")
    /// The capture file cannot be read from some frame on (a damaged block).
    public static let captureUnreadable = FindingCode(rawValue: "CAPTURE_UNREADABLE")
    /// The capture file ends in the middle of a record.
    public static let truncatedCapture = FindingCode(rawValue: "TRUNCATED_CAPTURE")
    /// Discovery packets that could not be decoded.
    public static let malformedPackets = FindingCode(rawValue: "MALFORMED_PACKETS")

    // MARK: Discovery traffic

    /// Not one mDNS packet in the capture.
    public static let noMDNSTraffic = FindingCode(rawValue: "NO_MDNS_TRAFFIC")
    /// mDNS is present, but nobody searched for Cast devices.
    public static let noCastQueries = FindingCode(rawValue: "NO_CAST_QUERIES")
    /// The client `--client` names did not search in the capture.
    public static let noSuchClient = FindingCode(rawValue: "NO_SUCH_CLIENT")

    // MARK: Clients

    /// A client searched only with SSDP/DIAL, never with mDNS.
    public static let dialOnly = FindingCode(rawValue: "DIAL_ONLY")
    /// A client searched with DIAL only and no Cast device answered its searches.
    public static let dialUnanswered = FindingCode(rawValue: "DIAL_UNANSWERED")
    /// A client's Cast queries got no answer, and no Cast device was heard at all.
    public static let queriesUnanswered = FindingCode(rawValue: "QUERIES_UNANSWERED")
    /// A client's only Cast queries came so close to the end of the capture that no answer
    /// could have been seen.
    public static let queryAtCaptureEnd = FindingCode(rawValue: "QUERY_AT_CAPTURE_END")
    /// Cast devices are on the network, but none answered this client.
    public static let clientNotAnswered = FindingCode(rawValue: "CLIENT_NOT_ANSWERED")
    /// A client's app-ID subtype query got no answer, while the base type was answered.
    public static let appIDUnanswered = FindingCode(rawValue: "APP_ID_UNANSWERED")
    /// A device's PTR reached a client, but its SRV, TXT or address never did.
    public static let incompleteResolution = FindingCode(rawValue: "INCOMPLETE_RESOLUTION")
    /// A device answered a client's query later than RFC 6762 allows for shared answers.
    public static let slowResponse = FindingCode(rawValue: "SLOW_RESPONSE")
    /// A client queries faster than RFC 6762 §5.2 allows.
    public static let queryStorm = FindingCode(rawValue: "QUERY_STORM")
    /// A client sends legacy unicast queries (not from port 5353).
    public static let legacyUnicast = FindingCode(rawValue: "LEGACY_UNICAST")
    /// A client asked a unicast DNS server (port 53) for a `.local` name.
    public static let localNameOverDNS = FindingCode(rawValue: "LOCAL_NAME_OVER_DNS")
    /// A client's unanswered queries come from a subnet no Cast device is on (VPN, Docker,
    /// tethering), while devices are heard on another.
    public static let senderWrongInterface = FindingCode(rawValue: "SENDER_WRONG_INTERFACE")

    // MARK: Devices

    /// A device's TXT record lacks `id` or `fn`, or its SRV port is 0.
    public static let txtMissingRequired = FindingCode(rawValue: "TXT_MISSING_REQUIRED")
    /// A device's host resolves only to IPv6.
    public static let noIPv4Address = FindingCode(rawValue: "NO_IPV4_ADDRESS")
    /// A device said goodbye (records with TTL 0) and did not come back.
    public static let deviceLeft = FindingCode(rawValue: "DEVICE_LEFT")
    /// A device went silent and its records expired while queries for it went unanswered.
    public static let deviceExpired = FindingCode(rawValue: "DEVICE_EXPIRED")
    /// A device's host announced more than one IPv4 address.
    public static let addressChanged = FindingCode(rawValue: "ADDRESS_CHANGED")
    /// Two devices share a friendly name, or one device appears under several instance names.
    public static let duplicateName = FindingCode(rawValue: "DUPLICATE_NAME")

    // MARK: The path

    /// A device's records arrive only from another host (a reflector or gateway).
    public static let crossSubnet = FindingCode(rawValue: "CROSS_SUBNET")
    /// mDNS packets were re-sent by a reflector, repeater or router on the path.
    public static let reflectedTraffic = FindingCode(rawValue: "REFLECTED_TRAFFIC")
    /// A device's own answers give an address that is not where it is (Docker, link-local, …).
    public static let advertisedAddressUnreachable = FindingCode(rawValue: "ADVERTISED_ADDRESS_UNREACHABLE")
    /// A client's queries arrive relayed with an off-subnet source, and devices ignore them.
    public static let relayedQueriesIgnored = FindingCode(rawValue: "RELAYED_QUERIES_IGNORED")
    /// A Cast device's own responses carry an IP TTL other than 255.
    public static let responseTTLNot255 = FindingCode(rawValue: "RESPONSE_TTL_NOT_255")
    /// On a trunk capture, a client's queries and the Cast devices are on different VLANs and
    /// nothing crosses between them.
    public static let vlanSeparated = FindingCode(rawValue: "VLAN_SEPARATED")
    /// A device's multicast answers stopped reaching a client after a while, its unicast
    /// answers did not.
    public static let multicastDecayed = FindingCode(rawValue: "MULTICAST_DECAYED")

    // MARK: The connection phase

    /// A client's TCP connection to a device it found was answered with RST.
    public static let connectRefused = FindingCode(rawValue: "CONNECT_REFUSED")
    /// A client's SYNs to a device it found went unanswered.
    public static let connectTimeout = FindingCode(rawValue: "CONNECT_TIMEOUT")
    /// A client's SYN to a device it found was answered with ICMP destination unreachable.
    public static let connectUnreachable = FindingCode(rawValue: "CONNECT_UNREACHABLE")
    /// TCP to a device was established, and its TLS handshake got no ServerHello.
    public static let tlsStalled = FindingCode(rawValue: "TLS_STALLED")
    /// A client resolved a device and never connected to it (in a capture that holds TCP).
    public static let notConnected = FindingCode(rawValue: "NOT_CONNECTED")
    /// A host answered mDNS or SSDP datagrams with ICMP port unreachable.
    public static let mdnsPortUnreachable = FindingCode(rawValue: "MDNS_PORT_UNREACHABLE")

    // MARK: Limits and live capture

    /// Some discovery state was dropped to keep memory bounded.
    public static let limitReached = FindingCode(rawValue: "LIMIT_REACHED")
    /// The kernel or the interface dropped packets: during a live capture, or as a capture
    /// file's interface statistics say.
    public static let packetsDropped = FindingCode(rawValue: "PACKETS_DROPPED")

    // MARK: Info.plist

    /// The Info.plist cannot be used: not a property list, or a Cast key of the wrong type.
    public static let plistMalformed = FindingCode(rawValue: "PLIST_MALFORMED")
    /// `NSBonjourServices` is absent or does not list `_googlecast._tcp`.
    public static let plistMissingService = FindingCode(rawValue: "PLIST_MISSING_SERVICE")
    /// `NSBonjourServices` does not list the type of an app ID given, inferred or seen.
    public static let plistMissingAppID = FindingCode(rawValue: "PLIST_MISSING_APP_ID")
    /// `NSLocalNetworkUsageDescription` is absent, empty or only whitespace.
    public static let plistMissingUsageDescription = FindingCode(rawValue: "PLIST_MISSING_USAGE_DESCRIPTION")
    /// No app ID was given or found, so the app's own Cast subtype was not checked.
    public static let plistNoAppID = FindingCode(rawValue: "PLIST_NO_APP_ID")
    /// The Info.plist has what Cast discovery needs.
    public static let plistOK = FindingCode(rawValue: "PLIST_OK")

    // MARK: The iOS app (check-app)

    /// The Cast SDK is older than the release the app's build needs (4.6.0 with Xcode 12+).
    public static let appCastSDKTooOld = FindingCode(rawValue: "APP_CAST_SDK_TOO_OLD")
    /// The Cast SDK works for now, and Google asks for a newer release.
    public static let appCastSDKUpdateRecommended = FindingCode(rawValue: "APP_CAST_SDK_UPDATE_RECOMMENDED")
    /// The Cast SDK is there, but which release could not be read.
    public static let appCastSDKVersionUnknown = FindingCode(rawValue: "APP_CAST_SDK_VERSION_UNKNOWN")
    /// No Cast SDK was found in the input.
    public static let appNoCastSDK = FindingCode(rawValue: "APP_NO_CAST_SDK")
    /// The SDK has guest mode, and the Info.plist has no NSBluetoothAlwaysUsageDescription.
    public static let appBluetoothUsageMissing = FindingCode(rawValue: "APP_BLUETOOTH_USAGE_MISSING")
    /// The code uses an app ID whose type NSBonjourServices does not list, while it lists others.
    public static let appIDMismatch = FindingCode(rawValue: "APP_ID_MISMATCH")
    /// The code sets disableDiscoveryAutostart: no Cast queries until the app starts discovery.
    public static let appDiscoveryAutostartDisabled = FindingCode(rawValue: "APP_DISCOVERY_AUTOSTART_DISABLED")
    /// Discovery starts after the first tap on the Cast button (startDiscoveryAfterFirstTapOnCastButton).
    public static let appDiscoveryAfterTap = FindingCode(rawValue: "APP_DISCOVERY_AFTER_TAP")
    /// The Info.plist a target names could not be found or read.
    public static let appInfoPlistNotFound = FindingCode(rawValue: "APP_INFO_PLIST_NOT_FOUND")
    /// The app has what Cast discovery needs.
    public static let appOK = FindingCode(rawValue: "APP_OK")

    // MARK: Two captures compared (`castscope compare`)

    /// Cast queries the sender sent (capture A) that never reached the device side (B).
    public static let compareQueriesLost = FindingCode(rawValue: "COMPARE_QUERIES_LOST")
    /// Cast responses a device sent (capture B) that never reached the sender side (A).
    public static let compareAnswersLost = FindingCode(rawValue: "COMPARE_ANSWERS_LOST")
    /// Copies arrived with another source address or IP TTL, or rebuilt: a relay or reflector
    /// between the two points.
    public static let compareReflector = FindingCode(rawValue: "COMPARE_REFLECTOR")
    /// Messages took long between the two points.
    public static let compareLargeDelay = FindingCode(rawValue: "COMPARE_LARGE_DELAY")
    /// Capture A holds no Cast query from a sender.
    public static let compareNoQueries = FindingCode(rawValue: "COMPARE_NO_QUERIES")
    /// Capture B holds no Cast response from a device.
    public static let compareNoAnswers = FindingCode(rawValue: "COMPARE_NO_ANSWERS")
    /// The matched pairs disagree on the clock offset by more than a second.
    public static let compareClockSpread = FindingCode(rawValue: "COMPARE_CLOCK_SPREAD")
    /// Every Cast message of the sender and the devices reached the other point.
    public static let compareOK = FindingCode(rawValue: "COMPARE_OK")

    /// Every code castscope produces, in the order of docs/diagnostics.md.
    public static let known: [FindingCode] = [
        .noMDNSTraffic, .noCastQueries, .queriesUnanswered, .queryAtCaptureEnd, .clientNotAnswered, .appIDUnanswered,
        .incompleteResolution, .noIPv4Address, .txtMissingRequired, .deviceLeft, .deviceExpired, .slowResponse,
        .crossSubnet, .reflectedTraffic, .advertisedAddressUnreachable, .relayedQueriesIgnored, .responseTTLNot255,
        .vlanSeparated, .multicastDecayed, .duplicateName, .addressChanged, .queryStorm, .legacyUnicast,
        .localNameOverDNS, .senderWrongInterface, .dialOnly, .dialUnanswered,
        .connectRefused, .connectTimeout, .connectUnreachable, .tlsStalled, .notConnected, .mdnsPortUnreachable,
        .captureUnreadable, .truncatedCapture, .malformedPackets, .limitReached, .packetsDropped, .encryptedWiFi,
        .plistMalformed, .plistMissingService, .plistMissingAppID, .plistMissingUsageDescription, .plistNoAppID,
        .plistOK, .appCastSDKTooOld, .appCastSDKUpdateRecommended, .appCastSDKVersionUnknown, .appNoCastSDK,
        .appBluetoothUsageMissing, .appIDMismatch, .appInfoPlistNotFound, .appDiscoveryAutostartDisabled,
        .appDiscoveryAfterTap, .appOK, .compareQueriesLost, .compareAnswersLost, .compareReflector,
        .compareLargeDelay, .compareNoQueries, .compareNoAnswers, .compareClockSpread, .compareOK,
        .emptyCapture, .noSuchClient,
    ]
}
