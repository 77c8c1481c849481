#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope extract`'s command line.
extension ExtractCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "extract",
            abstract: "Write only the discovery packets to a small pcap to share.",
            discussion: """
                Writes only the Cast discovery packets of the captures (every packet castscope dump shows,
                plus the IP fragment frames of reassembled discovery datagrams) to OUT.pcap, so a capture
                can be shared without the rest of the traffic. Each frame keeps its bytes, captured and
                original lengths and timestamp (the file is pcap with nanosecond timestamps, and the
                captures' link type). castscope dump of OUT.pcap shows exactly the same packets, with new
                frame numbers. Several files are merged by timestamp. When the inputs' interfaces have
                different link types (a capture on two interfaces, an Ethernet and a `-i any` capture),
                which one pcap cannot hold, or when OUT ends in .pcapng, the file is pcapng instead, with
                one interface per input interface (its link type, snapshot length and name).
                """,
            groups: [
                CommonOptions.input(),
                OptionGroup(
                    "OUTPUT",
                    [
                        CommonOptions.output(
                            help: "The pcap (or .pcapng) to write (replaced if it exists; `-` writes standard output, "
                                + "not a terminal).", required: true, \.output),
                        CommonOptions.quiet(help: "No summary line.", \.quiet),
                    ]),
            ],
            operands: CommonOptions.files(),
            sections: [
                HelpSection(
                    title: "NOTES",
                    body: """
                          `-` reads a capture from standard input; each file is read once. A fragment is held in
                          memory until its datagram completes (at most 30 s of capture time, 256 MiB).
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 success, 64 usage error, 65 a file is not a readable capture or has an unsupported link
                          type, or frames of another link type had to be left out of a pcap, 66 a file does not
                          exist or cannot be opened, 73 the output file cannot be written.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                try CommonOptions.requireFiles(o)
                guard let output = o.output else { throw UsageError("no output file given: use -o OUT.pcap") }
                if o.files.filter({ $0 == "-" }).count > 1 {
                    throw UsageError("standard input ('-') can be read only once")
                }
                try OutputFile.checkNotInput(output, o.files)
                if output == "-", isatty(1) != 0 {
                    throw UsageError("refusing to write a capture to a terminal; redirect it")
                }
            })
    }
}

extension ExtractCommand.Options: CaptureInput {}
