import CastDiscovery
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
        /// `-c N`: stop after N frames of each capture (`nil`: read everything).
        var frameLimit: Int?
        /// `-o FILE`: standard output goes to FILE.
        var output: String?
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let options: Options
        switch spec.parseOrExit(arguments) {
        case .success(let o): options = o
        case .failure(let exit): return exit.status
        }
        if let failed = OutputFile.redirectStandardOutput(to: options.output) { return failed }
        var status = ExitStatus.success
        let files: [String]
        switch CaptureInputs.expand(options.files, notices: printNotice) {
        case .success(let paths): files = paths
        case .failure(let e): return e.status
        }
        for path in files {
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
            let known = file.interfaces
            let types =
                known.count > 1
                ? "\(known.count) interfaces: "
                    + known.map { "\($0.index) \(TerminalText.sanitize($0.shownName)) \($0.linkTypeName)" }
                    .joined(separator: ", ")
                : "\(file.linkTypeName) (\(file.linkTypeDescription))"
            out.write("file \(TerminalText.sanitize(run.shownName)): \(types), \(file.format.rawValue)\n")
        }
        let (records, end, notes) = run.forEachPacket { packet in
            let start = file.firstTimestamp ?? packet.timestamp
            // A file with several interfaces names each packet's, with its link type.
            let interfaces = file.interfaces
            let shown = interfaces.count > 1 && packet.captureInterface < interfaces.count
            let interface = shown ? interfaces[packet.captureInterface] : nil
            switch options.format {
            case .text:
                out.write(
                    PacketText.render(
                        packet, start: start, interface: interface.map { "\($0.shownName) \($0.linkTypeName)" }))
            case .jsonl:
                out.write(
                    PacketJSON.render(
                        packet, file: path, linkType: interface?.linkTypeName ?? file.linkTypeName, start: start,
                        interface: interface?.shownName))
                out.write("\n")
            }
        }
        let stats = run.decoder.statistics
        if options.format == .text {
            var summary =
                "summary: \(Wording.count(records, "frame")), "
                + "\(Wording.count(stats.discoveryPackets, "discovery packet")) (\(stats.mdnsPackets) mDNS, "
                + "\(stats.ssdpPackets) SSDP), \(stats.malformedPackets) malformed"
            if stats.connectionPackets > 0 {
                summary += ", " + Wording.count(stats.connectionPackets, "connection packet") + " (TCP, ICMP)"
            }
            if stats.reassembly.reassembled > 0 {
                summary += ", \(stats.reassembly.reassembled) reassembled from fragments"
            }
            if stats.undecodableFrames > 0 {
                summary += ", \(Wording.count(stats.undecodableFrames, "frame")) with undecodable headers"
            }
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
