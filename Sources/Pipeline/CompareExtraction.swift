import CastDiscovery
import WireFormat

/// Reading a capture for `compare`.
public enum CompareExtraction {
    /// Reads `path` (`-` is standard input) and keeps its Cast queries and responses.
    /// - Returns: the side, or the exit status after sending the error to `notices`.
    public static func read(_ path: String, notices: NoticeSink) -> Result<CompareSide, ExitStatusError> {
        switch CaptureRun.open(path, notices: notices) {
        case .failure(let e): return .failure(e)
        case .success(var run):
            var side = CompareSide(shownName: run.shownName)
            // Each link-layer address's text, made once.
            var hostNames: [MACAddress: String] = [:]
            let (records, _, notes) = run.forEachPacket { packet in
                guard let kind = CastMessageKind(packet) else { return }
                var host: String?
                if let mac = packet.sourceMAC {
                    if let known = hostNames[mac] {
                        host = known
                    } else if hostNames.count < 100_000 {
                        host = mac.description
                        hostNames[mac] = host
                    }
                }
                guard let message = ObservedMessage(packet, host: host) else { return }
                side.append(message, kind: kind, friendlyName: kind == .response ? packet.castFriendlyName : nil)
            }
            for note in notes { notices(.warning("\(run.shownName): \(note)")) }
            side.records = records
            side.start = run.file.firstTimestamp?.epochSeconds
            side.end = run.file.lastTimestamp?.epochSeconds
            return .success(side)
        }
    }
}

/// What `castscope compare` found: the two captures lined up, or compared as before and after.
public enum CompareOutcome: Sendable {
    case twoPoints(CaptureComparison)
    case beforeAfter(BeforeAfterComparison)
}

/// How two captures are compared.
public enum CompareMode: Sendable {
    /// Two points at one time when the captures' time spans overlap, else before and after.
    case automatic
    /// `--same-time`: two points, whatever the timestamps say (clocks far apart).
    case twoPoints
    /// `--before-after`.
    case beforeAfter
}

/// Running `castscope compare`.
public enum CompareRun {
    /// Reads both captures and compares them as two points of one network at one time, or as
    /// before and after.
    ///
    /// Two captures are taken to be simultaneous when their time spans overlap: content alone
    /// cannot tell, since scripted or quiet networks repeat the same bytes minutes apart.
    public static func run(
        _ pathA: String, _ pathB: String, options: CaptureComparison.Options, mode: CompareMode,
        analysis: AnalysisOptions = AnalysisOptions(), notices: NoticeSink
    ) -> Result<CompareOutcome, CompareRunError> {
        // Standard input may have to be read twice (lined up, then analysed): copy it first.
        var spool: StandardInputSpool?
        if mode == .automatic, pathA == "-" || pathB == "-" {
            switch StandardInputSpool.make(notices: notices) {
            case .success(let s): spool = s
            case .failure(let e): return .failure(.status(e.status))
            }
        }
        defer { spool?.remove() }
        func real(_ path: String) -> String { path == "-" ? spool?.path ?? path : path }
        func shown(_ path: String, _ name: String) -> String { path == "-" ? "standard input" : name }
        return compare(
            real(pathA), real(pathB), options: options, mode: mode, analysis: analysis, notices: notices,
            shown: { [pathA, pathB] index, name in shown(index == 0 ? pathA : pathB, name) })
    }

    static func compare(
        _ pathA: String, _ pathB: String, options: CaptureComparison.Options, mode: CompareMode,
        analysis: AnalysisOptions, notices: NoticeSink, shown: (Int, String) -> String
    ) -> Result<CompareOutcome, CompareRunError> {
        if mode != .beforeAfter {
            var a: CompareSide
            var b: CompareSide
            switch CompareExtraction.read(pathA, notices: notices) {
            case .success(let s): a = s
            case .failure(let e): return .failure(.status(e.status))
            }
            switch CompareExtraction.read(pathB, notices: notices) {
            case .success(let s): b = s
            case .failure(let e): return .failure(.status(e.status))
            }
            a.shownName = shown(0, a.shownName)
            b.shownName = shown(1, b.shownName)
            if mode == .twoPoints || overlap(a, b) {
                switch CaptureComparison.compare(a, b, options: options) {
                case .success(let c): return .success(.twoPoints(c))
                case .failure(let refusal): return .failure(.refused(refusal))
                }
            }
        }
        var reports: [AnalysisReport] = []
        for path in [pathA, pathB] {
            var o = AnalysisRun.Options(files: [path], analysis: analysis)
            o.pipelined = false
            let (report, status) = AnalysisRun.run(o, notices: notices)
            guard var report else { return .failure(.status(status)) }
            for i in report.captures.indices { report.captures[i].file = shown(reports.count, report.captures[i].file) }
            reports.append(report)
        }
        return .success(
            .beforeAfter(
                BeforeAfterComparison(
                    before: reports[0], after: reports[1], reason: mode == .beforeAfter ? .asked : .noOverlap)))
    }

    /// Whether the two captures' spans (first to last record) overlap.
    static func overlap(_ a: CompareSide, _ b: CompareSide) -> Bool {
        guard let sa = a.start, let ea = a.end, let sb = b.start, let eb = b.end else { return false }
        return max(sa, sb) <= min(ea, eb)
    }
}

/// Why `compare` stopped.
public enum CompareRunError: Error {
    /// A file could not be read: its exit status (the notice was sent).
    case status(ExitStatus)
    /// `--sender`/`--device` named no such host.
    case refused(CaptureComparison.Refusal)
}
