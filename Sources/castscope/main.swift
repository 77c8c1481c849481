import Pipeline

// castscope: the command-line front end. Argument parsing, exit codes and wiring only; the
// work is done in PcapCapture, WireFormat and Reports.

let version = "0.1.0"

let usage = """
    castscope \(version): why doesn't my Cast button find the TV?

    Reads packet captures, decodes Google Cast discovery traffic (mDNS and SSDP/DIAL) and
    reports what it finds.

    USAGE:
      castscope analyze [--format text|json|markdown] [-o FILE] [--session-gap S]
                        [--client ADDR]... [--merge] [--plist Info.plist]
                        [--fail-on warning|error] FILE...
      castscope report --format html|markdown -o OUT [analyze options] FILE...
      castscope check-plist [--app-id ID]... [--format text|json] Info.plist
      castscope extract -o OUT.pcap FILE...
      castscope live -i IFACE [--format text|jsonl] [--duration S] [--write FILE.pcap] ...
      castscope dump [--format text|jsonl] [--no-filter] FILE...
      castscope help [COMMAND]
      castscope --version

    COMMANDS:
      analyze      Devices visible, the clients that searched, discovery latency, and
                   findings: why discovery failed, with evidence frames and advice.
      report       The same as a self-contained HTML page or Markdown to share.
      check-plist  Check an iOS app's Info.plist for what Cast discovery needs (iOS 14+).
      extract      Write only the discovery packets to a small pcap to share.
      live         Capture on interfaces (as root) and show discovery events as they happen.
      dump         Print every mDNS and SSDP packet in the captures, decoded.

    Captures may be pcap or pcapng, from tcpdump, Wireshark, rvictl (PKTAP or raw IP),
    PCAPdroid, `tcpdump -i any` (SLL/SLL2) or 802.11 monitor mode. `-` reads standard input.

    EXIT STATUS:
      0 success, 64 usage error, 65 a file is not a readable capture or has an unsupported
      link type, 66 a file does not exist or cannot be opened, 73 the output file cannot be
      written.
    """

let dumpUsage = """
    USAGE: castscope dump [--format text|jsonl] [--no-filter] FILE...

    Prints every discovery packet: UDP port 5353 in either direction (mDNS, including legacy
    unicast), SSDP on UDP port 1900, and SSDP answers that come back from an ephemeral port to
    the port an M-SEARCH was sent from. Frame numbers are Wireshark's. IP fragments are
    reassembled; the packet is shown at the frame that completed it.

    OPTIONS:
      --format text    One summary line per packet, then one line per question, record or
                       SSDP header (default).
      --format jsonl   One JSON object per packet per line (see docs/dump-format.md).
      --no-filter      Do not apply the lossless BPF prefilter inside libpcap (slower; for
                       checking that the filter loses nothing).
      -h, --help       Show this help.

    A packet that cannot be decoded is printed with its frame number, the reason and the byte
    offset, counted, and the run goes on. A file cut in the middle of a record yields every
    packet before the cut and a warning.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    Output.standardError.write(usage + "\n")
    finish(.usage)
}
arguments.removeFirst()

switch command {
case "-h", "--help":
    Output.standardOutput.write(usage + "\n")
    finish(.success)
case "help":
    let help =
        [
            "dump": dumpUsage, "analyze": analyzeUsage, "report": reportUsage, "check-plist": checkPlistUsage,
            "extract": extractUsage, "live": liveUsage,
        ][arguments.first ?? ""] ?? usage
    Output.standardOutput.write(help + "\n")
    finish(.success)
case "--version", "version":
    Output.standardOutput.write("castscope \(version)\n")
    finish(.success)
case "dump":
    finish(DumpCommand.run(arguments))
case "analyze":
    finish(AnalyzeCommand.run(arguments))
case "report":
    finish(ReportCommand.run(arguments))
case "check-plist":
    finish(CheckPlistCommand.run(arguments))
case "extract":
    finish(ExtractCommand.run(arguments))
case "live":
    finish(LiveCommand.run(arguments))
default:
    printError("unknown command '\(command)'; try 'castscope --help'")
    finish(.usage)
}
