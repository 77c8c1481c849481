/// Two captures of one network at different times (before and after a change, or a good day
/// and a bad one): which devices appeared or disappeared, how the latency moved, which
/// findings appeared or were resolved (`castscope compare --before-after`, issue 18).
public struct BeforeAfterComparison: Sendable {
    /// Why the captures were compared this way.
    public enum Reason: String, Sendable {
        /// `--before-after` was given.
        case asked
        /// The two captures' time spans do not overlap: they were not taken at the same time.
        case noOverlap = "no-overlap"
    }

    /// A device in one capture or both.
    public struct DeviceEntry: Sendable, Hashable {
        public var id: String
        public var name: String?
        public var model: String?
        public var addresses: [String]
    }

    /// One device's first-answer latency before and after, in milliseconds.
    public struct LatencyEntry: Sendable, Hashable {
        public var id: String
        public var name: String?
        public var before: Summary?
        public var after: Summary?
    }

    /// A finding code in one capture or both (the worse severity and the first title).
    public struct FindingEntry: Sendable, Hashable {
        public var code: FindingCode
        public var severity: Severity
        public var title: String
    }

    public var reason: Reason
    public var before: CaptureInfo
    public var after: CaptureInfo
    public var appeared: [DeviceEntry] = []
    public var disappeared: [DeviceEntry] = []
    public var kept: [DeviceEntry] = []
    /// Every device of either capture with a first-answer latency in one of them.
    public var latency: [LatencyEntry] = []
    /// All devices together, milliseconds.
    public var overallBefore: Summary?
    public var overallAfter: Summary?
    public var findingsAppeared: [FindingEntry] = []
    public var findingsResolved: [FindingEntry] = []
    public var findingsKept: [FindingEntry] = []
    /// The verdict of each capture.
    public var verdictBefore: Verdict
    public var verdictAfter: Verdict

    /// Compares the analyses of two captures (each a report of one capture).
    public init(before a: AnalysisReport, after b: AnalysisReport, reason: Reason) {
        self.reason = reason
        before = a.captures.first ?? CaptureInfo(file: "", linkType: "", packets: 0)
        after = b.captures.first ?? CaptureInfo(file: "", linkType: "", packets: 0)
        verdictBefore = Verdict(a)
        verdictAfter = Verdict(b)
        let devicesA = Dictionary(a.devices.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let devicesB = Dictionary(b.devices.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        func entry(_ d: Device) -> DeviceEntry {
            DeviceEntry(id: d.id, name: d.friendlyName, model: d.model, addresses: d.addresses.map(\.description))
        }
        disappeared = a.devices.filter { devicesB[$0.id] == nil }.map(entry)
        appeared = b.devices.filter { devicesA[$0.id] == nil }.map(entry)
        kept = b.devices.filter { devicesA[$0.id] != nil }.map(entry)

        let firstA = Dictionary(a.summaries.compactMap { s in s.deviceID.map { ($0, s.firstAnswer) } }) { x, _ in x }
        let firstB = Dictionary(b.summaries.compactMap { s in s.deviceID.map { ($0, s.firstAnswer) } }) { x, _ in x }
        var seen = Set<String>()
        for d in a.devices + b.devices where seen.insert(d.id).inserted {
            let before = firstA[d.id] ?? nil
            let after = firstB[d.id] ?? nil
            guard before != nil || after != nil else { continue }
            latency.append(
                LatencyEntry(
                    id: d.id, name: devicesB[d.id]?.friendlyName ?? d.friendlyName, before: before, after: after))
        }
        overallBefore = a.overall.firstAnswer
        overallAfter = b.overall.firstAnswer

        let codesA = Self.codes(a.findings)
        let codesB = Self.codes(b.findings)
        findingsResolved = codesA.filter { x in !codesB.contains { $0.code == x.code } }
        findingsAppeared = codesB.filter { x in !codesA.contains { $0.code == x.code } }
        findingsKept = codesB.filter { x in codesA.contains { $0.code == x.code } }
    }

    /// One entry per code, in the report's order (worst first).
    static func codes(_ findings: [Finding]) -> [FindingEntry] {
        var out: [FindingEntry] = []
        for f in findings {
            if let i = out.firstIndex(where: { $0.code == f.code }) {
                out[i].severity = min(out[i].severity, f.severity)
            } else {
                out.append(FindingEntry(code: f.code, severity: f.severity, title: f.title))
            }
        }
        return out
    }
}
