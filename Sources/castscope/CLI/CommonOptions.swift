import CastDiscovery
import WireFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The options several commands share, declared once: the input group (capture files), the
/// output options, the analysis group and the limits (read from ``Limit``).
enum CommonOptions {
    // MARK: input

    /// Capture files: operands, `-r FILE`, `--no-filter`, `-c N`.
    static func input<O: CaptureInput>() -> OptionGroup<O> {
        OptionGroup(
            "INPUT",
            [
                .value(
                    "--read", short: "-r", name: "FILE",
                    help: "Read this capture, as tcpdump -r does; the same as naming it as an argument.",
                    completion: .file, repeatable: true
                ) { o, v throws(UsageError) in try addFile(&o, v) },
                .flag(
                    "--no-filter",
                    help: "Do not apply the lossless BPF prefilter inside libpcap (slower; for checking that "
                        + "the filter loses nothing)."
                ) { $0.prefilter = false },
                .value(
                    "--count", short: "-c", name: "N", help: "Stop after N frames of each capture, as tcpdump -c does."
                ) { o, v throws(UsageError) in o.frameLimit = try positiveCount("--count", v) },
            ])
    }

    /// `FILE...`: capture files, `-` for standard input.
    static func files<O: CaptureInput>() -> OperandSpec<O> {
        OperandSpec(
            name: "FILE",
            help: "pcap or pcapng captures, compressed or not; `-` reads standard input; a directory reads "
                + "the captures in it in name order (rotated files: tcpdump -C/-G).",
            apply: { o, v throws(UsageError) in try addFile(&o, v) })
    }

    /// Checks that a capture was named.
    static func requireFiles<O: CaptureInput>(_ o: O) throws(UsageError) {
        if o.files.isEmpty { throw UsageError("no capture file given") }
    }

    private static func addFile<O: CaptureInput>(_ o: inout O, _ path: String) throws(UsageError) {
        if path.isEmpty { throw UsageError("an empty file name") }
        o.files.append(path)
    }

    // MARK: output

    /// `-o FILE`.
    static func output<O>(help: String, required: Bool = false, _ key: WritableKeyPath<O, String?>) -> OptionSpec<O> {
        .value("--output", short: "-o", name: "FILE", help: help, completion: .file, required: required) {
            o, v throws(UsageError) in
            if v.isEmpty { throw UsageError("--output needs a file name") }
            o[keyPath: key] = v
        }
    }

    /// `-q, --quiet`.
    static func quiet<O>(help: String, _ key: WritableKeyPath<O, Bool>) -> OptionSpec<O> {
        .flag("--quiet", short: "-q", help: help) { $0[keyPath: key] = true }
    }

    /// `--color auto|always|never`.
    static func color<O>(_ key: WritableKeyPath<O, ColorChoice>) -> OptionSpec<O> {
        .choice("--color", name: "WHEN", key)
    }

    // MARK: analysis

    /// `--session-gap S`.
    static func sessionGap<O>(_ key: WritableKeyPath<O, AnalysisOptions>) -> OptionSpec<O> {
        .value(
            "--session-gap", name: "S",
            help: "A Cast query after at least S seconds without one from the same client starts a new discovery "
                + "session (default 60)."
        ) { o, v throws(UsageError) in
            guard let seconds = Double(v), seconds > 0, seconds < 1e9 else {
                throw UsageError("--session-gap needs a positive number of seconds, not '\(v)'")
            }
            o[keyPath: key].sessionGapNanoseconds = Int64(seconds * 1e9)
        }
    }

    /// `--client ADDR`, repeatable.
    static func client<O>(_ key: WritableKeyPath<O, AnalysisOptions>) -> OptionSpec<O> {
        .value("--client", name: "ADDR", help: "Only this client (repeatable).", repeatable: true) {
            o, v throws(UsageError) in
            guard let address = IPAddress(v) else {
                throw UsageError("--client needs an IPv4 or IPv6 address, not '\(v)'")
            }
            o[keyPath: key].clients.insert(address)
        }
    }

    /// `--merge`.
    static func merge<O>(_ key: WritableKeyPath<O, Bool>) -> OptionSpec<O> {
        .flag(
            "--merge",
            help: "Treat several files (or a directory of rotated files) as one timeline, in time order "
                + "(default: each file is its own timeline; devices still merge by id)."
        ) { $0[keyPath: key] = true }
    }

    /// `--plist FILE`.
    static func plist<O>(_ key: WritableKeyPath<O, String?>) -> OptionSpec<O> {
        .value(
            "--plist", name: "FILE",
            help: "Also check an iOS app's Info.plist (see castscope check-plist) and cross-check it: app IDs the "
                + "capture shows being searched for or answered that it does not declare are PLIST_MISSING_APP_ID "
                + "errors.",
            completion: .file
        ) { o, v in o[keyPath: key] = v }
    }

    /// `--app PATH`.
    static func app<O>(_ key: WritableKeyPath<O, String?>) -> OptionSpec<O> {
        .value(
            "--app", name: "PATH",
            help: "Cross-check the iOS app the capture is of (an Xcode project folder, .xcodeproj, Podfile.lock, "
                + "Info.plist or .ipa; see castscope check-app): its Info.plist as --plist does, and, when nobody "
                + "searched for Cast devices, whether the app only starts discovery after the first tap on the Cast "
                + "button or when it calls startDiscovery.",
            completion: .file
        ) { o, v in o[keyPath: key] = v }
    }

    /// `--fail-on warning|error`.
    static func failOn<O>(_ key: WritableKeyPath<O, Severity?>) -> OptionSpec<O> {
        .value("--fail-on", name: "LEVEL", help: FailOn.help, completion: .choices(FailOn.levels)) {
            o, v throws(UsageError) in
            o[keyPath: key] = try FailOn.parse(v).get()
        }
    }

    // MARK: limits

    /// One `--max-…` option per ``Limit``: its name, default, sentence and allowed values
    /// all come from the table.
    static func limits<O>(_ key: WritableKeyPath<O, AnalysisOptions>) -> OptionGroup<O> {
        let options = Limit.allCases.map { limit in
            OptionSpec<O>.value(
                "--" + limit.name, name: "N",
                help: "At most N \(limit.summary) (default \(limit.defaultValue))."
            ) { o, v throws(UsageError) in
                o[keyPath: key].capacity[keyPath: limit.keyPath] = try limitValue(limit, v)
            }
        }
        return OptionGroup(
            "LIMITS", options,
            note: "Beyond a limit castscope keeps working, drops the excess and says so with the LIMIT_REACHED "
                + "finding.")
    }

    /// A limit's value: a whole number in ``Limit/allowedValues``.
    static func limitValue(_ limit: Limit, _ v: String) throws(UsageError) -> Int {
        let range = Limit.allowedValues
        guard let n = Int(v), range.contains(n) else {
            throw UsageError(
                "--\(limit.name) needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(v)'")
        }
        return n
    }

    /// A count of one or more.
    static func positiveCount(_ name: String, _ v: String) throws(UsageError) -> Int {
        guard let n = Int(v), n > 0 else { throw UsageError("\(name) needs a positive whole number, not '\(v)'") }
        return n
    }
}

/// An options value that reads capture files (the input group).
protocol CaptureInput {
    var files: [String] { get set }
    /// `false` with `--no-filter`.
    var prefilter: Bool { get set }
    /// `-c N`: stop after N frames of each capture; `nil` reads everything.
    var frameLimit: Int? { get set }
}

/// `--color`: when to colour the terminal output.
enum ColorChoice: String, ChoiceValue {
    case auto, always, never

    var help: String {
        switch self {
        case .auto: "Colour the verdict and severities on a terminal, unless NO_COLOR is set (default)."
        case .always: "Colour them even in a file or pipe."
        case .never: "Never colour."
        }
    }
}

extension ColorChoice {
    /// Whether to colour output written to `path` (`nil` or `-`: standard output). `auto`
    /// colours a terminal only, and never when NO_COLOR is set to anything (no-color.org) or
    /// TERM is `dumb`; `always` and `never` override both.
    func enabled(writingTo path: String?) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            guard path == nil || path == "-", isatty(1) != 0 else { return false }
            if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
            if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
            return true
        }
    }
}
