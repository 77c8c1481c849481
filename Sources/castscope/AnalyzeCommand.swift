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
    }

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        Result { () throws(UsageError) -> Options in
            var o = Options()
            var args = ArgumentScanner(arguments)
            while let item = args.next() {
                switch item {
                case .operand(let file): o.files.append(file)
                case .option(let name, let inline):
                    switch name {
                    case "-h", "--help": throw UsageError(message: nil)
                    case "--merge": o.merge = true
                    case "--quiet", "-q": o.quiet = true
                    case "--no-filter": o.prefilter = false
                    case "--format", "-f": o.format = try args.choice(name, inline, Format.self)
                    case "-o", "--output": o.output = try args.value(name, inline)
                    case "--session-gap":
                        let v = try args.value(name, inline)
                        guard let seconds = Double(v), seconds > 0, seconds < 1e9 else {
                            throw UsageError(message: "--session-gap needs a positive number of seconds, not '\(v)'")
                        }
                        o.analysis.sessionGapNanoseconds = Int64(seconds * 1e9)
                    case "--client":
                        let v = try args.value(name, inline)
                        guard let address = IPAddress(v) else {
                            throw UsageError(message: "--client needs an IPv4 or IPv6 address, not '\(v)'")
                        }
                        o.analysis.clients.insert(address)
                    case "--max-devices": o.analysis.capacity.devices = try count(name, try args.value(name, inline))
                    case "--max-clients": o.analysis.capacity.clients = try count(name, try args.value(name, inline))
                    case "--max-names": o.analysis.capacity.names = try count(name, try args.value(name, inline))
                    case "--max-rows": o.analysis.capacity.rows = try count(name, try args.value(name, inline))
                    case "--max-pairs": o.analysis.capacity.pairs = try count(name, try args.value(name, inline))
                    case "--max-sessions":
                        o.analysis.capacity.sessions = try count(name, try args.value(name, inline))
                    case "--max-fragments":
                        o.analysis.capacity.fragments = try count(name, try args.value(name, inline))
                    case "--plist": o.plist = try args.value(name, inline)
                    case "--fail-on": o.failOn = try FailOn.parse(try args.value(name, inline)).get()
                    default: throw UsageError(message: "unknown option '\(name)'")
                    }
                }
            }
            if o.files.isEmpty { throw UsageError(message: "no capture file given") }
            return o
        }
    }

    /// A limit's value: a whole number from 1 to 100,000,000.
    static func count(_ name: String, _ v: String) throws(UsageError) -> Int {
        guard let n = Int(v), n >= 1, n <= 100_000_000 else {
            throw UsageError(message: "\(name) needs a whole number from 1 to 100000000, not '\(v)'")
        }
        return n
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch parse(arguments).orUsage(command: "analyze", usage: analyzeUsage) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }

        let (analysis, status) = produce(o)
        guard let report = analysis else { return status }
        let utf8: [UInt8]
        switch o.format {
        case .text: utf8 = Array(AnalysisText.render(report).utf8)
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

    /// Everything `analyze` and `report` share: the Info.plist (if any), and the analysis
    /// diagnosed with it (the plist cross-check is one of the rules).
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
        return analyze(
            o.files, options: o.analysis, merge: o.merge, prefilter: o.prefilter, quiet: o.quiet,
            inputs: DiagnosisInputs(plist: plist))
    }

    /// Reads, tracks and diagnoses the captures: the pipeline shared by `analyze` and `report`.
    /// - Returns: the report (`nil` when no file could be opened) and the exit status so far.
    static func analyze(
        _ files: [String], options: AnalysisOptions, merge: Bool, prefilter: Bool, quiet: Bool = false,
        inputs: DiagnosisInputs = DiagnosisInputs()
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
        report.findings = Diagnosis.diagnose(report, inputs: inputs)
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

let analyzeUsage = """
    USAGE: castscope analyze [--format text|json|markdown] [-o FILE] [--session-gap S]
                             [--client ADDR]... [--merge] [--plist Info.plist]
                             [--fail-on warning|error] [--max-devices N] [--max-clients N]
                             [--max-names N] [--max-sessions N] [--max-pairs N] [--max-rows N]
                             [--max-fragments N] FILE...

    Builds the Cast picture of the captures: which receivers were visible (mDNS and DIAL),
    which hosts searched for them, and how fast each device answered each searcher.

    OPTIONS:
      --format text        Tables for a terminal (default; fits 100 columns).
      --format json        The documented JSON contract, schema version 1 (docs/json-schema.md).
      --format markdown    Tables that paste well into an issue tracker.
      -o, --output FILE    Write the report to FILE instead of standard output.
      --session-gap S      A Cast query after at least S seconds without one from the same
                           client starts a new discovery session (default 60).
      --client ADDR        Only this client (repeatable).
      --merge              Treat several files as one timeline (default: each file is its own
                           timeline; devices still merge by id).
      --no-filter          Do not apply the lossless BPF prefilter.
      -q, --quiet          No progress line (it is shown only on a terminal, for files that
                           take more than a second). Several files are read in parallel.
      --max-devices N      Keep at most N Cast instances (default 10000); when full, the oldest
                           never seen with SRV or TXT makes room. Beyond: LIMIT_REACHED.
      --max-clients N      Keep at most N clients (default 10000).
      --max-names N        Keep at most N distinct DNS names (default 200000).
      --max-sessions N     Match responses against at most N clients' sessions at once (default
                           256; the client that queried least recently makes room).
      --max-pairs N        Track at most N client × device pairs (default 200000).
      --max-rows N         Keep at most N rows in each of the latency (session × device),
                           response (client × device) and per-query tables (default 20000).
      --max-fragments N    Reassemble at most N fragmented datagrams at once (default 64).
      --plist FILE         Also check an iOS app's Info.plist (see castscope check-plist) and
                           cross-check it: app IDs the capture shows being searched for or
                           answered that it does not declare are PLIST_MISSING_APP_ID errors.
    \(FailOn.help)
      -h, --help           Show this help.

    LATENCY:
      firstAnswerMs  session start -> first PTR answer for the device that the client could
                     receive (multicast, or unicast to it), under a name it asked for.
      resolvedMs     session start -> the device's SRV, TXT and an address record all seen.
      Missing values are null, with the reason.
    """

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
