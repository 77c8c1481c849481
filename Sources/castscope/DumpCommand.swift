import PcapCapture
import Pipeline
import Reports
import WireFormat

/// `castscope dump`: decode and print every discovery packet.
enum DumpCommand {
    enum Format: String, CaseIterable {
        case text, jsonl
    }

    struct Options {
        var format = Format.text
        var prefilter = true
        var files: [String] = []
        /// `-c N`: read at most N frames of each file.
        var frameLimit: Int?
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
                    case "--no-filter": o.prefilter = false
                    case "--format", "-f": o.format = try args.choice(name, inline, Format.self)
                    default: throw UsageError(message: "unknown option '\(name)'")
                    }
                }
            }
            if o.files.isEmpty { throw UsageError(message: "no capture file given") }
            return o
        }
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let options: Options
        switch parse(arguments).orUsage(command: "dump", usage: dumpUsage) {
        case .success(let o): options = o
        case .failure(let exit): return exit.status
        }
        var status = ExitStatus.success
        for path in options.files {
            let result = dump(path, options: options)
            if status == .success { status = result }
        }
        return status
    }

    /// Dumps one file; returns its exit status.
    static func dump(_ path: String, options: Options) -> ExitStatus {
        let out = Output.standardOutput
        var run: CaptureRun
        switch CaptureRun.open(path, prefilter: options.prefilter, frameLimit: options.frameLimit, notices: printNotice)
        {
        case .success(let r): run = r
        case .failure(let e): return e.status
        }
        let file = run.file
        if options.format == .text {
            out.write(
                "file \(TerminalText.sanitize(run.shownName)): \(file.linkTypeName) (\(file.linkTypeDescription)), "
                    + "\(file.format.rawValue)\n")
        }
        let (records, end, notes) = run.forEachPacket { packet in
            let start = file.firstTimestamp ?? packet.timestamp
            switch options.format {
            case .text:
                out.write(PacketText.render(packet, start: start))
            case .jsonl:
                out.write(PacketJSON.render(packet, file: path, linkType: file.linkTypeName, start: start))
                out.write("\n")
            }
        }
        let stats = run.decoder.statistics
        if options.format == .text {
            var summary =
                "summary: \(records) frames, \(stats.discoveryPackets) discovery packets (\(stats.mdnsPackets) mDNS, "
                + "\(stats.ssdpPackets) SSDP), \(stats.malformedPackets) malformed"
            if stats.reassembly.reassembled > 0 {
                summary += ", \(stats.reassembly.reassembled) reassembled from fragments"
            }
            if stats.undecodableFrames > 0 { summary += ", \(stats.undecodableFrames) frames with undecodable headers" }
            out.write(summary + "\n")
            for n in notes { out.write("warning: \(n)\n") }
            out.write("\n")
        }
        for n in notes { printError("warning: \(TerminalText.sanitize(run.shownName)): \(n)") }
        // A cut-off end is normal for a killed capture; any other read error means the file
        // is damaged or uses something libpcap cannot read, and scripts should know.
        if case .error = end { return .dataError }
        return .success
    }
}

/// A command-line mistake; `message == nil` means help was asked for.
struct UsageError: Error {
    var message: String?
}

extension Result where Failure == UsageError {
    /// The parsed options, or the exit after printing: the usage on standard output for
    /// `--help` (exit 0), or the mistake and the usage on standard error (exit 64).
    func orUsage(command: String, usage: String) -> Result<Success, ExitStatusError> {
        switch self {
        case .success(let value):
            return .success(value)
        case .failure(let e):
            if let message = e.message {
                printError("\(command): \(message)")
                Output.standardError.write(usage + "\n")
                return .failure(ExitStatusError(status: .usage))
            }
            Output.standardOutput.write(usage + "\n")
            return .failure(ExitStatusError(status: .success))
        }
    }
}
