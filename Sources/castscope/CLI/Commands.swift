import Pipeline

/// One castscope command: what help, completion and the man page show, and how to run it.
struct CommandEntry {
    let info: CommandInfo
    let run: ([String]) -> ExitStatus

    init<O>(_ spec: CommandSpec<O>, run: @escaping ([String]) -> ExitStatus) {
        info = spec.info
        self.run = run
    }
}

/// The commands, the top-level help and the dispatch on the first argument.
enum Commands {
    /// Every command, in the order the help lists them.
    static var all: [CommandEntry] {
        [
            CommandEntry(AnalyzeCommand.spec, run: AnalyzeCommand.run),
            CommandEntry(ReportCommand.spec, run: ReportCommand.run),
            CommandEntry(CheckPlistCommand.spec, run: CheckPlistCommand.run),
            CommandEntry(CheckAppCommand.spec, run: CheckAppCommand.run),
            CommandEntry(CompareCommand.spec, run: CompareCommand.run),
            CommandEntry(ExtractCommand.spec, run: ExtractCommand.run),
            CommandEntry(LiveCommand.spec, run: LiveCommand.run),
            CommandEntry(ProbeCommand.spec, run: ProbeCommand.run),
            CommandEntry(DumpCommand.spec, run: DumpCommand.run),
            CommandEntry(HelpCommand.spec, run: HelpCommand.run),
            CommandEntry(CompletionCommand.spec, run: CompletionCommand.run),
        ]
    }

    static var names: [String] { all.map(\.info.name) }

    /// The options castscope itself takes, before any command.
    static let topOptions = ["--help", "--version"]

    static let tagline = "why doesn't my Cast button find the TV?"

    /// The usage line of the program as a whole.
    static let usage = "USAGE: castscope COMMAND [OPTIONS] [FILE...]"

    /// The command named `name`, or the usage error for it (with a suggestion).
    static func find(_ name: String) -> Result<CommandEntry, UsageError> {
        if let entry = all.first(where: { $0.info.name == name }) { return .success(entry) }
        let suggestion = Suggest.closest(to: name, among: names)
        let list = suggestion == nil ? "; the commands are " + Suggest.list(names) : ""
        return .failure(UsageError("unknown command '\(name)'\(list)", suggestion: suggestion))
    }

    /// Runs the command line `arguments` (without the program name).
    static func main(_ arguments: [String]) -> ExitStatus {
        guard let first = arguments.first else {
            Output.standardError.write(overview)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help":
            Output.standardOutput.write(overview)
            return .success
        case "--version", "version":
            Output.standardOutput.write("castscope \(version)\n")
            return .success
        default:
            if first.hasPrefix("-") {
                UsageError("unknown option '\(first)'", suggestion: Suggest.closest(to: first, among: topOptions))
                    .report(command: nil, usage: usage)
                return .usage
            }
            switch find(first) {
            case .success(let entry): return entry.run(rest)
            case .failure(let error):
                error.report(command: nil, usage: usage)
                return .usage
            }
        }
    }

    /// `castscope --help`: what castscope is, the commands, and where to read more.
    static var overview: String {
        var out = """
            castscope \(version): \(tagline)

            Reads packet captures, decodes Google Cast discovery traffic (mDNS and SSDP/DIAL) and
            reports what it finds.

            \(usage)
                   castscope help [COMMAND]
                   castscope --version

            COMMANDS:

            """
        for entry in all {
            let label = "  " + entry.info.name.padding(13)
            out += label + String(Help.wrap(entry.info.abstract, indent: label.count).dropFirst(label.count))
        }
        out += "\n" + description + "\n\nEXIT STATUS:\n" + exitStatus + "\n\nSee 'castscope help COMMAND' for a "
        out += "command's options.\n"
        return out
    }

    /// The paragraph on inputs shared by the overview and the man page.
    static let description = """
        Captures may be pcap or pcapng, from tcpdump, Wireshark, rvictl (PKTAP or raw IP),
        PCAPdroid, `tcpdump -i any` (SLL/SLL2) or 802.11 monitor mode. `-` reads standard input.
        """

    static let exitStatus = """
          0 success, 64 usage error, 65 a file is not a readable capture or has an unsupported link
          type, 66 a file does not exist or cannot be opened, 73 the output file cannot be written.
        """
}

extension String {
    /// The string followed by spaces up to `width` characters.
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
