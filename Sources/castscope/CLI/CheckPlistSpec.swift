import CastDiscovery

/// `castscope check-plist`'s command line.
extension CheckPlistCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "check-plist",
            abstract: "Check an iOS app's Info.plist for what Cast discovery needs (iOS 14+).",
            discussion: """
                Checks that an iOS app's Info.plist (XML or binary; `-` reads standard input) lets the
                Google Cast SDK discover devices on iOS 14 and later:
                  - NSBonjourServices lists _googlecast._tcp                       (PLIST_MISSING_SERVICE)
                  - and _<APPID>._googlecast._tcp for each receiver app ID          (PLIST_MISSING_APP_ID)
                  - NSLocalNetworkUsageDescription is present and not blank  (PLIST_MISSING_USAGE_DESCRIPTION)
                  - the file is a property list dictionary with the right types     (PLIST_MALFORMED)
                Each problem is a finding with a detail and the exact XML to add (docs/check-plist.md).
                """,
            groups: [
                OptionGroup(
                    "CHECK",
                    [
                        .value(
                            "--app-id", name: "ID",
                            help: "Check the type of this receiver app ID (repeatable; letter case is ignored). "
                                + "Without it, the app IDs are inferred from NSBonjourServices entries "
                                + "_<ID>._googlecast._tcp (finding PLIST_NO_APP_ID if none).",
                            repeatable: true
                        ) { o, v throws(UsageError) in
                            guard let id = InfoPlist.normalizedAppID(v) else {
                                throw UsageError("--app-id needs a receiver app ID such as CC1AD845, not '\(v)'")
                            }
                            o.appIDs.append(id)
                        }
                    ]),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(help: "Write to FILE instead of standard output.", \.output),
                        CommonOptions.quiet(help: "Print nothing; the exit status tells (as grep -q).", \.quiet),
                    ]),
            ],
            operands: OperandSpec(
                name: "Info.plist", help: "The app's Info.plist, XML or binary; `-` reads standard input.",
                repeating: false
            ) { o, v throws(UsageError) in
                guard o.file == nil else {
                    throw UsageError("check one Info.plist at a time ('\(v)' is a second file)")
                }
                o.file = v
            },
            sections: [
                HelpSection(
                    title: "CROSS-CHECK",
                    body: """
                          To cross-check against a capture (app IDs searched for or answered on the network),
                          use castscope analyze --plist Info.plist FILE.
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 no error found, 1 an error finding, 64 usage error, 65 the file is too large to be an
                          Info.plist, 66 the file does not exist or cannot be read, 73 the output file cannot be
                          written.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                guard let file = o.file else { throw UsageError("no Info.plist given") }
                try OutputFile.checkNotInput(o.output, [file])
            })
    }
}

extension CheckPlistCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "A verdict line, then the findings by severity (default)."
        case .json:
            "One line: {\"schemaVersion\":1,\"file\":…,\"findings\":[…]}, findings shaped as in analyze's JSON."
        }
    }
}
