/// `castscope dump`'s command line.
extension DumpCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "dump",
            abstract: "Print every mDNS and SSDP packet in the captures, decoded.",
            discussion: """
                Prints every discovery packet: UDP port 5353 in either direction (mDNS, including legacy
                unicast), SSDP on UDP port 1900, and SSDP answers that come back from an ephemeral port to
                the port an M-SEARCH was sent from. Frame numbers are Wireshark's. IP fragments are
                reassembled; the packet is shown at the frame that completed it.
                """,
            groups: [
                CommonOptions.input(),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(help: "Write to FILE instead of standard output.", \.output),
                    ]),
            ],
            operands: CommonOptions.files(),
            sections: [
                HelpSection(
                    title: "DAMAGED CAPTURES",
                    body: """
                          A packet that cannot be decoded is printed with its frame number, the reason and the
                          byte offset, counted, and the run goes on. A file cut in the middle of a record yields
                          every packet before the cut and a warning.
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 success, 64 usage error, 65 a file is not a readable capture or has an unsupported
                          link type, 66 a file does not exist or cannot be opened, 73 the output file cannot be
                          written.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                try CommonOptions.requireFiles(o)
                try OutputFile.checkNotInput(o.output, o.files)
            })
    }
}

extension DumpCommand.Options: CaptureInput {}

extension DumpCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "One summary line per packet, then one line per question, record or SSDP header (default)."
        case .jsonl: "One JSON object per packet per line (see docs/dump-format.md)."
        }
    }
}
