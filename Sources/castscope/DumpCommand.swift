import PcapCapture
import Reports
import WireFormat

/// `castscope dump`: decode and print every discovery packet.
enum DumpCommand {
    enum Format: String {
        case text, jsonl
    }

    struct Options {
        var format = Format.text
        var prefilter = true
        var files: [String] = []
    }

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var options = Options()
        var i = 0
        var onlyFiles = false
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if onlyFiles || a == "-" || !a.hasPrefix("-") {
                options.files.append(a)
                continue
            }
            switch a {
            case "--":
                onlyFiles = true
            case "-h", "--help":
                return .failure(UsageError(message: nil))
            case "--no-filter":
                options.prefilter = false
            case "--format", "-f":
                guard i < arguments.count else {
                    return .failure(UsageError(message: "\(a) needs a value: text or jsonl"))
                }
                guard let f = Format(rawValue: arguments[i]) else {
                    return .failure(UsageError(message: "unknown format '\(arguments[i])': use text or jsonl"))
                }
                options.format = f
                i += 1
            default:
                if a.hasPrefix("--format=") {
                    guard let f = Format(rawValue: String(a.dropFirst("--format=".count))) else {
                        return .failure(UsageError(message: "unknown format in '\(a)': use text or jsonl"))
                    }
                    options.format = f
                } else {
                    return .failure(UsageError(message: "unknown option '\(a)'"))
                }
            }
        }
        if options.files.isEmpty { return .failure(UsageError(message: "no capture file given")) }
        return .success(options)
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let options: Options
        switch parse(arguments) {
        case .success(let o): options = o
        case .failure(let e):
            if let message = e.message {
                printError("dump: \(message)")
                Output.standardError.write(dumpUsage + "\n")
                return .usage
            }
            Output.standardOutput.write(dumpUsage + "\n")
            return .success
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
        let file: CaptureFile
        do throws(PcapError) {
            file = try CaptureFile(path: path)
        } catch {
            printError(error.description)
            switch error.kind {
            case .noSuchFile, .unreadable: return .noInput
            default: return .dataError
            }
        }
        let shownName = path == "-" ? "standard input" : path
        guard file.linkType.isSupported else {
            printError(
                "\(shownName): unsupported link type \(file.linkTypeName) (\(file.linkTypeDescription), DLT \(file.linkType.rawValue)); "
                    + "castscope decodes "
                    + "Ethernet, Linux cooked (SLL, SLL2), raw IP, BSD loopback, Apple PKTAP and 802.11/radiotap")
            return .dataError
        }
        if options.prefilter, let expression = DiscoveryFilter.expression(for: file.linkType) {
            do throws(PcapError) {
                try file.setFilter(expression)
            } catch {
                printError("warning: \(shownName): prefilter not applied: \(error.message)")
            }
        }
        if options.format == .text {
            out.write(
                "file \(TerminalText.sanitize(shownName)): \(file.linkTypeName) (\(file.linkTypeDescription)), \(file.format.rawValue)\n"
            )
        }
        var decoder = DiscoveryDecoder(linkType: file.linkType)
        let (records, end) = file.forEachRecord { frame, header, bytes in
            guard
                let packet = decoder.decode(
                    frame: frame, timestamp: header.timestamp, bytes: bytes, originalLength: header.originalLength)
            else { return }
            let start = file.firstTimestamp ?? header.timestamp
            switch options.format {
            case .text:
                out.write(PacketText.render(packet, start: start))
            case .jsonl:
                out.write(PacketJSON.render(packet, file: path, linkType: file.linkTypeName, start: start))
                out.write("\n")
            }
        }
        let stats = decoder.statistics
        var notes: [String] = []
        switch end {
        case .endOfFile: break
        case .truncated(let message):
            notes.append(
                "capture ends in the middle of a record after frame \(records) (\(message)); the \(records) frames before it were read"
            )
        case .error(let message):
            notes.append("reading stopped after frame \(records): \(message)")
        }
        if stats.protectedWiFiFrames > 0 {
            notes.append(
                "\(stats.protectedWiFiFrames) of \(stats.wifiDataFrames) 802.11 data frames are encrypted (Protected): "
                    + "this is an encrypted Wi-Fi capture and mDNS inside those frames cannot be read")
        }
        if stats.rawIPInEthernetFrames > 0 {
            notes.append(
                "\(stats.rawIPInEthernetFrames) frames labelled Ethernet carry raw IP (iPhone rvictl quirk); decoded as raw IP"
            )
        }
        let reassembly = stats.reassembly
        let dropped = reassembly.timedOut + reassembly.evicted + reassembly.invalid
        if dropped > 0 {
            notes.append(
                "\(dropped) fragmented datagrams could not be reassembled (\(reassembly.timedOut) timed out, "
                    + "\(reassembly.evicted) evicted by limits, \(reassembly.invalid) inconsistent)")
        }
        if options.format == .text {
            var summary =
                "summary: \(records) frames, \(stats.discoveryPackets) discovery packets (\(stats.mdnsPackets) mDNS, "
                + "\(stats.ssdpPackets) SSDP), \(stats.malformedPackets) malformed"
            if reassembly.reassembled > 0 { summary += ", \(reassembly.reassembled) reassembled from fragments" }
            if stats.undecodableFrames > 0 { summary += ", \(stats.undecodableFrames) frames with undecodable headers" }
            out.write(summary + "\n")
            for n in notes { out.write("warning: \(n)\n") }
            out.write("\n")
        }
        for n in notes { printError("warning: \(TerminalText.sanitize(shownName)): \(n)") }
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
