import CastDiscovery
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
        /// `-c N`: stop after N frames of each capture (`nil`: read everything).
        var frameLimit: Int?
        /// `-q`: no summary line.
        var quiet = false
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let output = o.output!

        // Open every input before creating the output, so a bad input leaves nothing behind.
        var sources: [ExtractSource] = []
        let files: [String]
        switch CaptureInputs.expand(o.files, notices: printNotice) {
        case .success(let paths): files = paths
        case .failure(let e): return e.status
        }
        for path in files {
            switch CaptureRun.open(path, prefilter: o.prefilter, frameLimit: o.frameLimit, notices: printNotice) {
            case .success(let run): sources.append(ExtractSource(run))
            case .failure(let e): return e.status
            }
        }
        let written: Extraction.Written
        do throws(PcapError) {
            written = try Extraction.write(sources, to: output)
        } catch {
            printError(error.description)
            return .cannotCreate
        }

        var status = ExitStatus.success
        var packets = 0
        var connectionPackets = 0
        var lost = 0
        for s in sources {
            packets += s.discoveryPackets
            connectionPackets += s.connectionPackets
            lost += s.lostFragments
            for n in s.notes { printError("warning: \(TerminalText.sanitize(s.run.shownName)): \(n)") }
            if case .error? = s.run.file.end { status = .dataError }
        }
        if lost > 0 {
            printError(
                "warning: \(lost) IP fragment frames of discovery datagrams were no longer buffered and are "
                    + "missing from \(output); those datagrams will not reassemble from it")
        }
        if written.leftOut > 0 {
            printError(
                "warning: \(written.leftOut) frames were left out of \(TerminalText.sanitize(output)): they come from an interface described "
                    + "later in the capture with another link type, which a pcap cannot hold; extract to a .pcapng "
                    + "file to keep them")
            status = .dataError
        }
        if output != "-" {
            // pcap_dump reports no write errors: check the file holds every byte.
            var info = stat()
            if let expected = written.expectedSize,
                stat(output, &info) != 0 || ((info.st_mode & S_IFMT) == S_IFREG && Int64(info.st_size) != expected)
            {
                printError("cannot write \(output): the file is incomplete (disk full?)")
                return .cannotCreate
            }
            let fragments = written.frames - packets - connectionPackets
            if o.quiet { return status }
            var line = "wrote \(TerminalText.sanitize(output)): " + Wording.count(written.frames, "frame")
            line += " (" + Wording.count(packets, "discovery packet")
            if connectionPackets > 0 { line += ", " + Wording.count(connectionPackets, "connection packet") }
            if fragments > 0 { line += ", \(fragments) more IP fragment frames" }
            line += ") from " + Wording.count(sources.count, "file") + ", "
            line += written.format == .pcapng ? "pcapng: " + written.linkTypeNames.joined(separator: ", ") : ""
            line += written.format == .pcap ? written.linkTypeNames.first ?? "" : ""
            line += "\n"
            Output.standardOutput.write(line)
        }
        return status
    }
}
