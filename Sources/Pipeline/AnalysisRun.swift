// Pipeline: running the analysis (see Pipeline.swift): capture sources, AnalysisRun, the live
// session, extraction. It prints nothing; notices and exit statuses go back to the caller.

import CastDiscovery
import Dispatch
import PcapCapture
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One analysis from start to finish: the captures in, the finished ``AnalysisReport`` with
/// all its findings out. `analyze`, `report`, the tests and the fuzzers all run it.
public struct AnalysisRun {
    /// What to analyse and how.
    public struct Options {
        /// Capture files; `-` is standard input, a directory stands for the capture files in
        /// it (``CaptureInputs``).
        public var files: [String] = []
        /// Tracker settings and limits.
        public var analysis = AnalysisOptions()
        /// One timeline of all files, interleaved by time (`--merge`), instead of one per file.
        public var merge = false
        /// Install the lossless BPF prefilter in libpcap (`--no-filter` turns it off).
        public var prefilter = true
        /// Read at most this many frames of each file (`-c N`).
        public var frameLimit: Int?
        /// An iOS app's Info.plist to cross-check against the capture (`--plist`).
        public var plist: InfoPlist?
        /// The iOS app the capture is of (`--app`): its discovery start settings.
        public var app: AppFacts?
        /// Read the files one after the other instead of in parallel (the output is the same;
        /// tests compare both ways).
        public var serial = false
        /// Decode each file on a thread of its own, beside the one tracking it, when there are
        /// more processors than files and the file is mostly discovery traffic
        /// (``CaptureRun/forEachPacketAdaptively(progress:_:)``; the output is the same, tests
        /// compare both ways).
        public var pipelined = true

        public init(files: [String] = [], analysis: AnalysisOptions = AnalysisOptions()) {
            self.files = files
            self.analysis = analysis
        }
    }

    /// Reads, tracks and diagnoses the captures.
    /// - Parameters:
    ///   - notices: receives errors (a file that cannot be opened) and warnings (a cut-off
    ///     file, encrypted Wi-Fi…), in order.
    ///   - progress: called about five times a second while files are read, with each file's
    ///     progress (for a progress line).
    /// - Returns: the report (`nil` when no file could be opened) and the exit status so far:
    ///   the first failing file's status (66 cannot open, 65 not a capture or a read error).
    public static func run(
        _ o: Options, notices: NoticeSink, progress: (([ReadProgress]) -> Void)? = nil
    ) -> (report: AnalysisReport?, status: ExitStatus) {
        let read = read(o, separately: false, notices: notices, progress: progress)
        if read.captures.isEmpty { return (nil, read.status) }
        var report = AnalysisReport(
            captures: read.captures, timelines: read.timelines, options: o.analysis, merged: o.merge)
        report.unreadable = read.unreadable
        report.findings = Diagnosis.diagnose(report, inputs: DiagnosisInputs(plist: o.plist, app: o.app))
        return (report, read.status)
    }

    /// Reads, tracks and diagnoses each capture on its own (`analyze --format rows` without
    /// `--merge`): each report is the one ``run(_:notices:progress:)`` gives for that file
    /// alone, its frames numbered as capture 0. The files are still read in parallel.
    /// `o.merge` must be false.
    /// - Returns: one report per file that could be read, in command-line order (a directory's
    ///   files in name order), the files that could not be read, and the exit status so far.
    public static func runEach(
        _ o: Options, notices: NoticeSink, progress: (([ReadProgress]) -> Void)? = nil
    ) -> (reports: [AnalysisReport], unreadable: [UnreadableCapture], status: ExitStatus) {
        precondition(!o.merge, "a merged timeline is one report")
        let read = read(o, separately: true, notices: notices, progress: progress)
        let reports = zip(read.captures, read.timelines).map { capture, timeline in
            var report = AnalysisReport(captures: [capture], timelines: [timeline], options: o.analysis, merged: false)
            report.findings = Diagnosis.diagnose(report, inputs: DiagnosisInputs(plist: o.plist, app: o.app))
            return report
        }
        return (reports, read.unreadable, read.status)
    }

    /// Opens and reads the captures: one timeline of them all (`merge`), else one per file.
    /// - Parameter separately: number each file's frames as capture 0, for a report of its own.
    /// - Returns: what each readable file said of itself and its timelines (the same count
    ///   without `merge`), the files that could not be read, and the exit status so far.
    static func read(
        _ o: Options, separately: Bool, notices: NoticeSink, progress: (([ReadProgress]) -> Void)?
    ) -> (captures: [CaptureInfo], timelines: [TimelineResult], unreadable: [UnreadableCapture], status: ExitStatus) {
        var status = ExitStatus.success
        var runs: [CaptureRun] = []
        var unreadable: [UnreadableCapture] = []
        let files: [String]
        switch CaptureInputs.expand(o.files, notices: notices) {
        case .success(let paths): files = paths
        case .failure(let e): return ([], [], [], e.status)
        }
        for path in files {
            // The error notice of a file that cannot be opened is also kept for the report.
            var error: String?
            let open = CaptureRun.open(
                path, prefilter: o.prefilter, reassembly: o.analysis.reassemblyLimits, frameLimit: o.frameLimit,
                notices: { notice in
                    if notice.kind == .error, error == nil { error = notice.text }
                    notices(notice)
                })
            switch open {
            case .success(let run): runs.append(run)
            case .failure(let e):
                if status == .success { status = e.status }
                unreadable.append(UnreadableCapture(file: path, error: error ?? "cannot be read"))
            }
        }
        let shared = runs.map { ReadProgress(total: $0.file.fileSize) }
        var timelines: [TimelineResult] = []
        if o.merge, !runs.isEmpty {
            timelines = [merged(&runs, options: o.analysis, progress: shared, report: progress)]
        } else if !runs.isEmpty {
            let pipelined = o.pipelined && !o.serial && runs.count < Self.processors
            timelines = parallel(
                &runs, options: o.analysis, serial: o.serial, pipelined: pipelined, separately: separately,
                progress: shared, report: progress)
        }
        var captures: [CaptureInfo] = []
        for run in runs {
            if run.endedInError, status == .success { status = .dataError }
            captures.append(info(run))
            for n in run.finalNotes { notices(.warning("\(run.shownName): \(n)")) }
        }
        return (captures, timelines, unreadable, status)
    }

    /// The facts of a capture once it has been read.
    static func info(_ run: CaptureRun) -> CaptureInfo {
        let file = run.file
        var truncated = false
        if case .truncated? = file.end { truncated = true }
        let interfaces = file.interfaces
        var linkTypes: [String] = []
        for i in interfaces where !linkTypes.contains(i.linkTypeName) { linkTypes.append(i.linkTypeName) }
        var info = CaptureInfo(
            file: file.path, linkType: linkTypes.isEmpty ? file.linkTypeName : linkTypes.joined(separator: ", "),
            packets: file.recordsRead, statistics: run.decoder.statistics, truncated: truncated,
            start: file.firstTimestamp, end: file.lastTimestamp)
        info.interfaces = interfaces.map { i in
            var c = InterfaceInfo(
                index: i.index, name: i.name, linkType: i.linkTypeName, linkTypeNumber: i.linkType.rawValue,
                snapLength: i.snapLength)
            c.droppedByInterface = i.droppedByInterface
            c.droppedByOS = i.droppedByOS
            c.framesNotDecoded = run.interfaces.framesNotDecoded[i.index] ?? 0
            return c
        }
        if let fault = file.fault {
            let stop = CaptureFault(frame: fault.frame, byteOffset: fault.byteOffset, message: fault.problem)
            switch file.end {
            case .error?: info.unreadableFrom = stop
            case .truncated?: info.truncatedAtByte = fault.byteOffset
            default: break
            }
        } else if case .error(let message)? = file.end {
            // A reader that gives no position still says where, in frames.
            info.unreadableFrom = CaptureFault(frame: file.recordsRead + 1, byteOffset: nil, message: message)
        }
        info.comments = file.comments.prefix(CaptureInfo.maximumComments).map { c in
            let text =
                c.text.count > CaptureInfo.maximumCommentLength
                ? String(c.text.prefix(CaptureInfo.maximumCommentLength - 1)) + "…" : c.text
            return CaptureFileComment(frame: c.frame, text: text)
        }
        return info
    }

    /// One timeline: the files' packets interleaved by time.
    static func merged(
        _ runs: inout [CaptureRun], options: AnalysisOptions, progress: [ReadProgress],
        report: (([ReadProgress]) -> Void)?
    ) -> TimelineResult {
        var tracker = DiscoveryTracker(options: options)
        var n = 0
        let starts = runs.map { $0.file.upcomingTimestamp }
        mergeByTime(
            sources: runs.count, startsAt: { starts[$0] }, next: { runs[$0].nextPacket(progress: progress[$0]) },
            timestamp: \.timestamp
        ) { index, packet in
            tracker.ingest(packet, capture: index)
            n += 1
            if n & 1023 == 0 { report?(progress) }
        }
        return tracker.finish()
    }

    /// Each file its own timeline: read in parallel, one task per file, the results kept in
    /// the files' order (the same output as reading them in turn). `separately`: every file's
    /// frames are capture 0, each timeline for a report of its own.
    static func parallel(
        _ runs: inout [CaptureRun], options: AnalysisOptions, serial: Bool, pipelined: Bool, separately: Bool = false,
        progress: [ReadProgress], report: (([ReadProgress]) -> Void)?
    ) -> [TimelineResult] {
        let results = ResultSlots<(CaptureRun, TimelineResult)>(count: runs.count)
        let group = DispatchGroup()
        let queue = serial ? DispatchQueue(label: "castscope.serial") : DispatchQueue.global()
        for (index, run) in runs.enumerated() {
            let task = UncheckedBox((run, progress[index]))
            let capture = separately ? 0 : index
            queue.async(group: group) {
                var (run, shared) = task.value
                var tracker = DiscoveryTracker(options: options)
                if pipelined {
                    run.forEachPacketAdaptively(progress: shared) { packet, message in
                        tracker.ingest(packet, message: message, capture: capture)
                    }
                } else {
                    run.forEachPacketInPlace(progress: shared) { packet, message in
                        tracker.ingest(packet, message: message, capture: capture)
                    }
                }
                results.store(index, (run, tracker.finish()))
            }
        }
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut { report?(progress) }
        var timelines: [TimelineResult] = []
        for index in runs.indices {
            let (run, timeline) = results.take(index)
            runs[index] = run
            timelines.append(timeline)
        }
        return timelines
    }
}

extension AnalysisRun {
    /// Processors online (at least 1).
    static var processors: Int { Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

/// One slot per file for the parallel readers; each slot is written by one task and read after
/// all tasks have finished (the DispatchGroup wait orders the accesses).
final class ResultSlots<Value>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value?>
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

    func store(_ index: Int, _ value: Value) { slots[index] = value }
    func take(_ index: Int) -> Value { slots[index]! }
}

/// Hands a non-Sendable value to exactly one other task.
struct UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
