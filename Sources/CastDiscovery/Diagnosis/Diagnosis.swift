/// The diagnosis engine: turns an analysis into findings, each with evidence frames and advice.
///
/// Rules follow ../shared/DOMAIN.md §4 (real failure causes and their capture signatures) and
/// RFC 6762; each code is documented in docs/diagnostics.md. They are tuned so that a healthy
/// capture gives no `error` and no `warning`.
///
/// Each rule is one small function over a ``DiagnosisContext`` (the report, the other inputs,
/// and the indexes the rules share, built once), in a file per family: the capture itself,
/// discovery traffic, clients, devices, the path, the Info.plist, the live capture. ``rules``
/// lists them in the order their findings are reported within one severity.
public enum Diagnosis {
    /// Shared (PTR) answers later than this are slow (RFC 6762 §6: 20–120 ms, 400–500 ms
    /// after a TC query).
    public static let slowSharedAnswerMs = 500.0
    /// Query intervals shorter than this break RFC 6762 §5.2's "at least one second".
    public static let fastIntervalMs = 900.0
    /// This many too-fast intervals make a query storm.
    public static let stormIntervals = 3

    /// The most subjects (evidence entries) the one finding of a code lists.
    public static let maximumFindingsPerCode = 20

    /// The most names a finding's text lists (a flood of fake names must not make a finding
    /// megabytes long); the rest are counted.
    static let maximumListed = 12

    /// Every finding for the report and the other inputs, most severe first (stable order
    /// within a severity: the order of ``rules``).
    public static func diagnose(_ report: AnalysisReport, inputs: DiagnosisInputs = DiagnosisInputs()) -> [Finding] {
        let context = DiagnosisContext(report, inputs: inputs)
        // One finding per code (and severity), listing every subject with its own evidence;
        // at most `maximumFindingsPerCode` subjects each (a flood of fake devices would
        // otherwise list every client and device), the rest counted in LIMIT_REACHED.
        var (findings, notListed) = merged(rules.flatMap { $0.findings(context) }, context)
        var drops = report.limitDrops
        drops.findings = notListed.values.reduce(0, +)
        // First among the warnings: it says how far the rest can be trusted.
        if var limit = limitReached(drops, capacity: report.capacity, notListed: notListed) {
            limit.evidence = evidence([limit], context)
            findings.insert(limit, at: 0)
        }
        return sorted(findings)
    }

    /// The rules, in the order their findings are listed within one severity. Rules in a
    /// group run for each capture, client or device in turn, so that one client's findings
    /// stay together.
    static var rules: [DiagnosisRule] {
        [
            .eachCapture([emptyCapture, captureUnreadable, encryptedWiFi, truncatedCapture]),
            .report(malformedPackets),
            .report(noMDNSTraffic),
            .report(noCastQueries),
            .report(noSuchClient),
            .eachClient([
                dialUnanswered, dialOnly, vlanSeparated, senderWrongInterface, notAnswered, multicastDecayed,
                appIDUnanswered, incompleteResolution, localNameOverDNS, slowResponse, queryStorm, legacyUnicast,
            ]),
            .eachMDNSDevice([txtMissingRequired, noIPv4Address, leftOrExpired, addressChanged]),
            .report(connectRefused),
            .report(connectTimeout),
            .report(connectUnreachable),
            .report(tlsStalled),
            .report(notConnected),
            .report(discoveryPortUnreachable),
            .report(duplicateFriendlyNames),
            .report(duplicateInstanceNames),
            .report(crossSubnet),
            .report(reflectedTraffic),
            .report(advertisedAddressUnreachable),
            .report(relayedQueriesIgnored),
            .report(responseTTLNot255),
            .report(infoPlistCrossCheck),
            .report(packetsDropped),
            .report(fileDrops),
        ]
    }

    /// Sorts findings by severity, keeping the rules' order within one severity.
    public static func sorted(_ findings: [Finding]) -> [Finding] {
        findings.enumerated().sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }
            .map(\.element)
    }

    /// `a, b and c` (`none` for no items), at most ``maximumListed`` of them, the rest counted.
    static func list(_ items: [String]) -> String {
        Wording.cappedList(items, maximum: maximumListed, ifEmpty: "none")
    }

    /// `a, b, c`, at most ``maximumListed`` of them, the rest counted.
    static func capped(_ items: [String]) -> String { Wording.capped(items, maximum: maximumListed) }
}

/// What the diagnosis reads besides the report.
public struct DiagnosisInputs: Sendable {
    /// The app's Info.plist, cross-checked against the capture (`analyze --plist`).
    public var plist: InfoPlist?
    /// The iOS app the capture is of (`analyze --app`): when it starts discovery.
    public var app: AppFacts?
    /// Packets the kernel and the interface dropped during a live capture (`pcap_stats`).
    public var packetsDropped: (kernel: UInt64, interface: UInt64)?

    public init(
        plist: InfoPlist? = nil, app: AppFacts? = nil, packetsDropped: (kernel: UInt64, interface: UInt64)? = nil
    ) {
        self.plist = plist
        self.app = app
        self.packetsDropped = packetsDropped
    }
}

/// One rule, or a group of rules run for each capture, client or mDNS device in turn.
struct DiagnosisRule {
    /// The findings for the whole diagnosis.
    let findings: (DiagnosisContext) -> [Finding]

    /// A rule over the whole report.
    static func report(_ rule: @escaping (DiagnosisContext) -> [Finding]) -> DiagnosisRule {
        DiagnosisRule(findings: rule)
    }

    /// A rule over the whole report that finds at most one thing.
    static func report(_ rule: @escaping (DiagnosisContext) -> Finding?) -> DiagnosisRule {
        DiagnosisRule { rule($0).map { [$0] } ?? [] }
    }

    /// Rules for each capture (by index), all of them for one capture before the next.
    static func eachCapture(_ rules: [(DiagnosisContext, Int) -> Finding?]) -> DiagnosisRule {
        DiagnosisRule { context in
            context.report.captures.indices.flatMap { i in rules.compactMap { $0(context, i) } }
        }
    }

    /// Rules for each client, all of them for one client before the next.
    static func eachClient(_ rules: [(DiagnosisContext, ClientContext) -> [Finding]]) -> DiagnosisRule {
        DiagnosisRule { context in
            context.report.clients.flatMap { client in
                let c = ClientContext(client, in: context)
                return rules.flatMap { $0(context, c) }
            }
        }
    }

    /// Rules for each device heard over mDNS, all of them for one device before the next.
    static func eachMDNSDevice(_ rules: [(DiagnosisContext, Device) -> Finding?]) -> DiagnosisRule {
        DiagnosisRule { context in
            context.mdnsDevices.flatMap { device in rules.compactMap { $0(context, device) } }
        }
    }
}
