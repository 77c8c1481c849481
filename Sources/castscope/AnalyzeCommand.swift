import CastDiscovery
import Dispatch
import PcapCapture
import Reports
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope analyze`: devices, clients and discovery latency.
enum AnalyzeCommand {
    enum Format: String, CaseIterable {
        case text, json, markdown
    }

    struct Options {
        var format = Format.text
        var output: String?
        var analysis = AnalysisOptions()
        var merge = false
        var prefilter = true
        /// `--quiet`: no progress line.
        var quiet = false
        var files: [String] = []
        /// `--plist`: an Info.plist to cross-check (issue 4).
        var plist: String?
        /// `--fail-on`: exit 1 when a finding of this severity or worse exists.
        var failOn: Severity?
        /// `-c N`: stop after N frames of each capture (`nil`: read everything).
        var frameLimit: Int?
        /// `--color`: whether the text report is coloured.
        var color = ColorChoice.auto
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }

        let (analysis, status) = produce(o)
        guard let report = analysis else { return status }
        let utf8: [UInt8]
        switch o.format {
        case .text: utf8 = Array(AnalysisText.render(report, style: TextStyle(colored: o.colored)).utf8)
        case .json: utf8 = AnalysisJSON.renderUTF8(report)
        case .markdown: utf8 = Array(AnalysisMarkdown.render(report).utf8)
        }
        if let path = o.output {
            guard writeFile(path, utf8) else { return .cannotCreate }
        } else {
            Output.standardOutput.write(bytes: utf8)
        }
        return FailOn.status(status, findings: report.findings, threshold: o.failOn)
    }

    /// Everything `analyze` and `report` share: the Info.plist (if any), the analysis, and the
    /// plist cross-check merged into the findings.
    /// - Returns: the report (`nil` when nothing could be analysed) and the exit status so far.
    static func produce(_ o: Options) -> (AnalysisReport?, ExitStatus) {
        if o.plist == "-", o.files.contains("-") {
            printError("standard input cannot be both the Info.plist and a capture")
            return (nil, .usage)
        }
        var plist: InfoPlist?
        if let path = o.plist {
            switch CheckPlistCommand.load(path) {
            case .success(let p): plist = p
            case .failure(let e): return (nil, e.status)
            }
        }
        let (analysis, status) = analyze(
            o.files, options: o.analysis, merge: o.merge, prefilter: o.prefilter, quiet: o.quiet)
        guard var report = analysis else { return (nil, status) }
        if let plist { report.findings = InfoPlist.merged(report.findings, plist.crossCheck(report)) }
        return (report, status)
    }

    /// Reads, tracks and diagnoses the captures: the pipeline shared by `analyze` and `report`.
    /// - Returns: the report (`nil` when no file could be opened) and the exit status so far.
    static func analyze(
        _ files: [String], options: AnalysisOptions, merge: Bool, prefilter: Bool, quiet: Bool = false
    ) -> (AnalysisReport?, ExitStatus) {
        var status = ExitStatus.success
        var reassembly = ReassemblyLimits()
        reassembly.maximumDatagrams = options.capacity.fragments
        var runs: [CaptureRun] = []
        for path in files {
            switch CaptureRun.open(path, prefilter: prefilter, reassembly: reassembly) {
            case .success(let run): runs.append(run)
            case .failure(let e): if status == .success { status = e.status }
            }
        }
        let progress = runs.map { ReadProgress(total: $0.file.fileSize) }
        var line = ProgressLine(quiet: quiet)
        var timelines: [TimelineResult] = []
        if merge, !runs.isEmpty {
            // One timeline: the files' packets interleaved by time, one pending packet per file.
            var tracker = DiscoveryTracker(options: options)
            var heads = runs.indices.map { runs[$0].nextPacket(progress: progress[$0]) }
            var n = 0
            while let i = heads.indices.filter({ heads[$0] != nil }).min(by: {
                (heads[$0]!.timestamp, $0) < (heads[$1]!.timestamp, $1)
            }) {
                tracker.ingest(heads[i]!, capture: i)
                heads[i] = runs[i].nextPacket(progress: progress[i])
                n += 1
                if n & 1023 == 0 { line.update(progress) }
            }
            timelines = [tracker.finish()]
        } else if !runs.isEmpty {
            // Each file is its own timeline: read them in parallel, one task per file, and
            // merge the results in command-line order (the same output as reading them in turn).
            let results = ResultSlots(count: runs.count)
            let group = DispatchGroup()
            // CASTSCOPE_JOBS=1 reads the files one after the other (tests compare both ways).
            let serial = environmentValue("CASTSCOPE_JOBS") == "1"
            let queue = serial ? DispatchQueue(label: "castscope.serial") : DispatchQueue.global()
            for (index, run) in runs.enumerated() {
                let task = UncheckedBox((run, progress[index]))
                queue.async(group: group) {
                    var (run, shared) = task.value
                    var tracker = DiscoveryTracker(options: options)
                    run.forEachPacketInPlace(progress: shared) { packet, message in
                        tracker.ingest(packet, message: message, capture: index)
                    }
                    results.store(index, (run, tracker.finish()))
                }
            }
            while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut { line.update(progress) }
            for index in runs.indices {
                let (run, timeline) = results.take(index)
                runs[index] = run
                timelines.append(timeline)
            }
        }
        line.finish()
        var captures: [CaptureInfo] = []
        for run in runs {
            let stats = run.decoder.statistics
            var truncated = false
            if case .truncated? = run.file.end { truncated = true }
            if case .error? = run.file.end, status == .success { status = .dataError }
            captures.append(
                CaptureInfo(
                    file: run.file.path, linkType: run.file.linkTypeName, packets: run.file.recordsRead,
                    statistics: stats, truncated: truncated, start: run.file.firstTimestamp,
                    end: run.file.lastTimestamp))
            for n in run.finalNotes { printError("warning: \(TerminalText.sanitize(run.shownName)): \(n)") }
        }
        if captures.isEmpty { return (nil, status) }
        var report = AnalysisReport(captures: captures, timelines: timelines, options: options, merged: merge)
        report.findings = Diagnosis.diagnose(report)
        return (report, status)
    }

    /// Writes `text` to `path` (replacing it); prints the error and returns false on failure.
    static func writeFile(_ path: String, _ text: String) -> Bool { writeFile(path, Array(text.utf8)) }

    /// Writes UTF-8 `bytes` to `path` (replacing it); prints the error and returns false on failure.
    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        guard let f = fopen(path, "w") else {
            printError("cannot write \(path): \(String(cString: strerror(errno)))")
            return false
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        let closed = fclose(f) == 0
        guard written == bytes.count, closed else {
            printError("cannot write \(path): \(String(cString: strerror(errno)))")
            return false
        }
        return true
    }
}

/// One slot per file for the parallel readers; each slot is written by one task and read after
/// all tasks have finished (the DispatchGroup wait orders the accesses).
final class ResultSlots: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<(CaptureRun, TimelineResult)?>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    func store(_ index: Int, _ value: (CaptureRun, TimelineResult)) { slots[index] = value }
    func take(_ index: Int) -> (CaptureRun, TimelineResult) { slots[index]! }
}

/// Hands a non-Sendable value to exactly one other task.
struct UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
