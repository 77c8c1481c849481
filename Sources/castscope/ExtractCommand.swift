import PcapCapture
import Pipeline
import Reports
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope extract`: writes only the discovery packets of captures to a small pcap that can
/// be shared, and that decodes to exactly the same packets.
enum ExtractCommand {
    struct Options {
        var output: String?
        var prefilter = true
        var files: [String] = []
        /// `-c N`: read at most N frames of each file.
        var frameLimit: Int?
    }

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = Options()
        var args = ArgumentScanner(arguments)
        do throws(UsageError) {
            while let item = args.next() {
                switch item {
                case .operand(let file): o.files.append(file)
                case .option(let name, let inline):
                    switch name {
                    case "-h", "--help": throw UsageError(message: nil)
                    case "--no-filter": o.prefilter = false
                    case "-o", "--output":
                        let v = try args.value(name, inline)
                        if v.isEmpty { throw UsageError(message: "\(name) needs a file name") }
                        o.output = v
                    default: throw UsageError(message: "unknown option '\(name)'")
                    }
                }
            }
        } catch {
            return .failure(error)
        }
        if o.files.isEmpty { return .failure(UsageError(message: "no capture file given")) }
        guard let output = o.output else {
            return .failure(UsageError(message: "no output file given: use -o OUT.pcap"))
        }
        if o.files.filter({ $0 == "-" }).count > 1 {
            return .failure(UsageError(message: "standard input ('-') can be read only once"))
        }
        if output != "-" {
            var out = stat()
            if stat(output, &out) == 0 {
                for path in o.files where path != "-" {
                    var input = stat()
                    if stat(path, &input) == 0, input.st_dev == out.st_dev, input.st_ino == out.st_ino {
                        return .failure(UsageError(message: "the output file \(output) is also an input"))
                    }
                }
            }
        } else if isatty(1) != 0 {
            return .failure(UsageError(message: "refusing to write a capture to a terminal; redirect it"))
        }
        return .success(o)
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch parse(arguments).orUsage(command: "extract", usage: extractUsage) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let output = o.output!

        // Open every input before creating the output, so a bad input leaves nothing behind.
        var sources: [ExtractSource] = []
        for path in o.files {
            switch CaptureRun.open(path, prefilter: o.prefilter, frameLimit: o.frameLimit, notices: printNotice) {
            case .success(let run): sources.append(ExtractSource(run))
            case .failure(let e): return e.status
            }
        }
        let first = sources[0].run
        for s in sources.dropFirst() where s.run.file.linkType != first.file.linkType {
            printError(
                "extract: \(TerminalText.sanitize(first.shownName)) is \(first.file.linkTypeName) but "
                    + "\(TerminalText.sanitize(s.run.shownName)) is \(s.run.file.linkTypeName); a pcap has one "
                    + "link type, so extract them to separate files")
            return .dataError
        }
        let snapLength = sources.map(\.run.file.snapLength).max().flatMap { $0 > 0 ? $0 : nil } ?? 262_144

        let written: (frames: Int, bytes: Int)
        do throws(PcapError) {
            written = try Extraction.write(sources, to: output, linkType: first.file.linkType, snapLength: snapLength)
        } catch {
            printError(error.description)
            return .cannotCreate
        }

        var status = ExitStatus.success
        var packets = 0
        var lost = 0
        for s in sources {
            packets += s.discoveryPackets
            lost += s.lostFragments
            for n in s.notes { printError("warning: \(TerminalText.sanitize(s.run.shownName)): \(n)") }
            if case .error? = s.run.file.end { status = .dataError }
        }
        if lost > 0 {
            printError(
                "warning: \(lost) IP fragment frames of discovery datagrams were no longer buffered and are "
                    + "missing from \(output); those datagrams will not reassemble from it")
        }
        if output != "-" {
            // pcap_dump reports no write errors: check the file holds every byte.
            var info = stat()
            let expected = 24 + written.bytes + 16 * written.frames
            if stat(output, &info) != 0 || ((info.st_mode & S_IFMT) == S_IFREG && Int(info.st_size) != expected) {
                printError("cannot write \(output): the file is incomplete (disk full?)")
                return .cannotCreate
            }
            let fragments = written.frames - packets
            Output.standardOutput.write(
                "wrote \(TerminalText.sanitize(output)): \(written.frames) frames (\(packets) discovery packets"
                    + (fragments > 0 ? ", \(fragments) more IP fragment frames" : "") + ") from "
                    + "\(sources.count) file\(sources.count == 1 ? "" : "s"), \(first.file.linkTypeName)\n")
        }
        return status
    }
}

let extractUsage = """
    USAGE: castscope extract [--no-filter] -o OUT.pcap FILE...

    Writes only the Cast discovery packets of the captures (every packet castscope dump shows,
    plus the IP fragment frames of reassembled discovery datagrams) to OUT.pcap, so a capture
    can be shared without the rest of the traffic. Each frame keeps its bytes, captured and
    original lengths and timestamp (the file is pcap with nanosecond timestamps, and the
    captures' link type). castscope dump of OUT.pcap shows exactly the same packets, with new
    frame numbers. Several files must share a link type and are merged by timestamp.

    OPTIONS:
      -o, --output FILE    The pcap to write (replaced if it exists; `-` writes standard output,
                           not a terminal).
      --no-filter          Do not apply the lossless BPF prefilter.
      -h, --help           Show this help.

    `-` reads a capture from standard input; each file is read once. A fragment is held in
    memory until its datagram completes (at most 30 s of capture time, 256 MiB).

    EXIT STATUS:
      0 success, 64 usage error, 65 a file is not a readable capture, has an unsupported link
      type, or the files' link types differ, 66 a file does not exist or cannot be opened,
      73 the output file cannot be written.
    """
