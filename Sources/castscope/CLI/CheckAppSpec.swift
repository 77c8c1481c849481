import CastDiscovery

/// `castscope check-app`'s command line.
extension CheckAppCommand {
    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "check-app",
            abstract: "Check an iOS sender app's Cast set-up from its project, Podfile.lock or .ipa.",
            discussion: """
                Checks what Google's Cast iOS permissions page asks of a sender app, from what you have: an
                Xcode project folder or .xcodeproj (Info.plist, generated INFOPLIST_KEY_ settings, sources,
                Podfile.lock, Package.resolved, a vendored GoogleCast framework), a Podfile.lock or
                Package.resolved alone, an Info.plist, or the built .ipa / .app (read in place, never extracted):
                  - SDK 4.6.0 or later when built with Xcode 12+                          (APP_CAST_SDK_TOO_OLD)
                  - 4.8.3 recommended; old SDKs in Xcode 11 builds             (APP_CAST_SDK_UPDATE_RECOMMENDED)
                  - guest mode needs NSBluetoothAlwaysUsageDescription             (APP_BLUETOOTH_USAGE_MISSING)
                  - the code's receiver app ID is the one NSBonjourServices lists              (APP_ID_MISMATCH)
                  - check-plist's rules on the Info.plist the app ships                                (PLIST_*)
                  - when discovery starts                        (APP_DISCOVERY_AFTER_TAP, …_AUTOSTART_DISABLED)
                Each problem is a finding with the fix (docs/check-app.md).
                """,
            groups: [
                OptionGroup(
                    "CHECK",
                    [
                        .value(
                            "--app-id", name: "ID",
                            help: "Also require this receiver app ID's type in NSBonjourServices (repeatable); the "
                                + "IDs the code passes to GCKDiscoveryCriteria are checked without it.",
                            repeatable: true
                        ) { o, v throws(UsageError) in
                            guard let id = InfoPlist.normalizedAppID(v) else {
                                throw UsageError("--app-id needs a receiver app ID such as CC1AD845, not '\(v)'")
                            }
                            o.appIDs.append(id)
                        },
                        .value(
                            "--target", name: "NAME",
                            help: "Check only this app target of the project (default: every iOS app target)."
                        ) { o, v throws(UsageError) in o.target = v },
                    ]),
                OptionGroup(
                    "OUTPUT",
                    [
                        .choice("--format", aliases: ["-f"], name: "FORMAT", \.format),
                        CommonOptions.output(help: "Write to FILE instead of standard output.", \.output),
                        CommonOptions.quiet(help: "Print nothing; the exit status tells (as grep -q).", \.quiet),
                        .value(
                            "--fail-on", name: "LEVEL",
                            help: "Exit 1 when a finding of LEVEL (warning or error) or worse exists (default: error).",
                            completion: .choices(FailOn.levels)
                        ) { o, v throws(UsageError) in o.failOn = try FailOn.parse(v).get() },
                    ]),
            ],
            operands: OperandSpec(
                name: "PATH",
                help: "A project folder, an .xcodeproj, a Podfile.lock, a Package.resolved, an Info.plist, an .ipa or "
                    + "an .app folder.",
                repeating: false
            ) { o, v throws(UsageError) in
                guard o.path == nil else { throw UsageError("check one app at a time ('\(v)' is a second path)") }
                o.path = v
            },
            sections: [
                HelpSection(
                    title: "CROSS-CHECK",
                    body: """
                          To check an app against a capture of it (app IDs on the wire, a capture without Cast
                          queries while discovery waits for the first tap), use castscope analyze --app PATH FILE.
                        """),
                HelpSection(
                    title: "EXIT STATUS",
                    body: """
                          0 no error found (or none at --fail-on's level), 1 an error finding (or one at --fail-on's
                          level), 64 usage error, 65 the input is not an app or breaks a limit (an archive with too
                          many entries, a file that expands too far, an entry name that leaves the archive), 66 the
                          path does not exist or cannot be read, 73 the output file cannot be written.
                        """),
            ],
            defaults: Options(),
            validate: { o throws(UsageError) in
                guard let path = o.path else {
                    throw UsageError("no app given (a project folder, Podfile.lock, .ipa…)")
                }
                try OutputFile.checkNotInput(o.output, [path])
            })
    }
}

extension CheckAppCommand.Format: ChoiceValue {
    var help: String {
        switch self {
        case .text: "A verdict line, what was read of each target, then the findings by severity (default)."
        case .json:
            "One object: {\"schemaVersion\":1,\"input\":…,\"targets\":[…],\"findings\":[…]} (docs/check-app.md)."
        case .markdown: "A heading, a facts table per target and a findings table."
        }
    }
}
