// castscope: the command line (see main.swift): parse the arguments (CLI/: one grammar, from
// the option specs), run the Pipeline, render with Reports, exit with a sysexits status.

import CastDiscovery
import Pipeline
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
        case text, json, markdown, rows
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
        /// `--app`: an iOS app (project, Podfile.lock, .ipa…) to cross-check (issue 17).
        var app: String?
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

        if o.format == .rows { return rows(o) }
        let (analysis, status) = produce(o)
        guard let report = analysis else { return status }
        let written: Bool
        switch o.format {
        case .rows: preconditionFailure("written by rows(_:)")
        case .text:
            let text = AnalysisText.render(
                report, style: TextStyle(colored: o.colored), width: .forOutput(o.output))
            written = emit(text, to: o.output)
        // The JSON of a dense capture is megabytes: written from the writer's own buffer.
        case .json: written = AnalysisJSON.withRenderedUTF8(report) { emit($0, to: o.output) }
        case .markdown: written = emit(AnalysisMarkdown.render(report), to: o.output)
        }
        guard written else { return .cannotCreate }
        return FailOn.status(status, findings: report.findings, threshold: o.failOn)
    }

    /// `--format rows`: each file analysed on its own (its rows named by it), or with `--merge`
    /// the one timeline; newline-delimited JSON (docs/rows.md).
    static func rows(_ o: Options) -> ExitStatus {
        var reports: [AnalysisReport] = []
        var unreadable: [UnreadableCapture] = []
        var status = ExitStatus.success
        if o.merge {
            let (report, produced) = produce(o)
            reports = report.map { [$0] } ?? []
            status = produced
        } else {
            guard let run = runOptions(o, status: &status) else { return status }
            (reports, unreadable, status) = withProgress(o) { AnalysisRun.runEach(run, notices: $0, progress: $1) }
        }
        guard !reports.isEmpty else { return status }
        guard AnalysisRows.withRenderedUTF8(reports, unreadable: unreadable, { emit($0, to: o.output) }) else {
            return .cannotCreate
        }
        return FailOn.status(status, findings: reports.flatMap(\.findings), threshold: o.failOn)
    }

    /// Writes `text` to the file at `path` (replacing it), or to standard output when `path`
    /// is `nil`; prints the error and returns false when the file cannot be written.
    static func emit(_ text: String, to path: String?) -> Bool {
        var text = text
        return text.withUTF8 { emit(UnsafeRawBufferPointer($0), to: path) }
    }

    /// The same for bytes (a report rendered into a buffer of its own).
    static func emit(_ bytes: UnsafeRawBufferPointer, to path: String?) -> Bool {
        guard let path else {
            Output.standardOutput.write(raw: bytes)
            return true
        }
        return writeFile(path, bytes)
    }

    /// Everything `analyze` and `report` share: the Info.plist (if any), then the analysis
    /// run (``AnalysisRun``) with the plist cross-checked, and a progress line while it reads.
    /// - Returns: the report (`nil` when nothing could be analysed) and the exit status so far.
    static func produce(_ o: Options) -> (AnalysisReport?, ExitStatus) {
        var status = ExitStatus.success
        guard let run = runOptions(o, status: &status) else { return (nil, status) }
        return withProgress(o) { AnalysisRun.run(run, notices: $0, progress: $1) }
    }

    /// The analysis run's options: the files and settings of `o`, with the Info.plist and app
    /// (`--plist`, `--app`) loaded; `nil`, with `status` set, when they cannot be.
    static func runOptions(_ o: Options, status: inout ExitStatus) -> AnalysisRun.Options? {
        if o.plist == "-", o.files.contains("-") {
            printError("standard input cannot be both the Info.plist and a capture")
            status = .usage
            return nil
        }
        var run = AnalysisRun.Options(files: o.files, analysis: o.analysis)
        run.merge = o.merge
        run.prefilter = o.prefilter
        run.frameLimit = o.frameLimit
        // CASTSCOPE_JOBS=1 reads the files one after the other, each on one thread (tests compare
        // both ways).
        run.serial = environmentValue("CASTSCOPE_JOBS") == "1"
        if let path = o.plist {
            switch InfoPlistFile.load(path, notices: printNotice) {
            case .success(let p): run.plist = p
            case .failure(let e):
                status = e.status
                return nil
            }
        }
        if let path = o.app {
            switch AppInput.load(path, notices: printNotice) {
            case .success(let a):
                guard a.targets.count == 1, let app = a.targets.first else {
                    printError(
                        "--app \(path): the project has \(a.targets.count) app targets ("
                            + a.targets.map(\.name).joined(separator: ", ") + "); give one target's Info.plist, "
                            + "its .ipa, or a folder holding only its project")
                    status = .usage
                    return nil
                }
                run.app = app
                if run.plist == nil { run.plist = app.plist }
            case .failure(let e):
                status = e.status
                return nil
            }
        }
        return run
    }

    /// Runs `body` (an analysis run, given the notice sink and the progress callback) with a
    /// progress line while it reads, unless `--quiet`.
    static func withProgress<R>(_ o: Options, _ body: (NoticeSink, @escaping ([ReadProgress]) -> Void) -> R) -> R {
        var line = ProgressLine(quiet: o.quiet)
        let result = body(
            { notice in
                line.finish()
                printNotice(notice)
            }, { line.update($0) })
        line.finish()
        return result
    }

    /// Writes `text` to `path` (replacing it); prints the error and returns false on failure.
    static func writeFile(_ path: String, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeFile(path, UnsafeRawBufferPointer($0)) }
    }

    /// Writes `bytes` to `path` (replacing it); prints the error and returns false on failure.
    static func writeFile(_ path: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let f = fopen(path, "w") else {
            printError("cannot write \(path): \(String(cString: strerror(errno)))")
            return false
        }
        let written = bytes.isEmpty ? 0 : fwrite(bytes.baseAddress, 1, bytes.count, f)
        let closed = fclose(f) == 0
        guard written == bytes.count, closed else {
            printError("cannot write \(path): \(String(cString: strerror(errno)))")
            return false
        }
        return true
    }
}
