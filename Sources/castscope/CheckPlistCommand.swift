import CastDiscovery
import Reports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope check-plist`: does an iOS app's Info.plist let the Cast SDK discover devices?
enum CheckPlistCommand {
    enum Format: String {
        case text, json
    }

    struct Options {
        var format = Format.text
        var appIDs: [String] = []
        var file: String?
    }

    /// The largest file read (an Info.plist is a few KB).
    static let maximumBytes = 16 << 20

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = Options()
        var args = ArgumentScanner(arguments)
        do throws(UsageError) {
            while let item = args.next() {
                switch item {
                case .operand(let file):
                    guard o.file == nil else {
                        throw UsageError(message: "check one Info.plist at a time ('\(file)' is a second file)")
                    }
                    o.file = file
                case .option(let name, let inline):
                    switch name {
                    case "-h", "--help": throw UsageError(message: nil)
                    case "--format", "-f":
                        let v = try args.value(name, inline)
                        guard let f = Format(rawValue: v) else {
                            throw UsageError(message: "unknown format '\(v)': use text or json")
                        }
                        o.format = f
                    case "--app-id":
                        let v = try args.value(name, inline)
                        guard let id = InfoPlist.normalizedAppID(v) else {
                            throw UsageError(message: "--app-id needs a receiver app ID such as CC1AD845, not '\(v)'")
                        }
                        o.appIDs.append(id)
                    default: throw UsageError(message: "unknown option '\(name)'")
                    }
                }
            }
        } catch {
            return .failure(error)
        }
        if o.file == nil { return .failure(UsageError(message: "no Info.plist given")) }
        return .success(o)
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch parse(arguments).orUsage(command: "check-plist", usage: checkPlistUsage) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let path = o.file!
        let plist: InfoPlist
        switch load(path) {
        case .success(let p): plist = p
        case .failure(let e): return e.status
        }
        let findings = plist.check(appIDs: o.appIDs)
        let shown = path == "-" ? "standard input" : path
        switch o.format {
        case .text: Output.standardOutput.write(text(findings, file: shown))
        case .json: Output.standardOutput.write(json(findings, file: path, plist: plist, appIDs: o.appIDs))
        }
        return findings.contains { $0.severity == .error } ? .failure : .success
    }

    /// Reads and parses an Info.plist (`-` is standard input); prints the error and returns
    /// 66 when it cannot be read, 65 when it is too large to be one. Shared with `analyze --plist`.
    static func load(_ path: String) -> Result<InfoPlist, ExitStatusError> {
        let shown = path == "-" ? "standard input" : path
        let f: UnsafeMutablePointer<FILE>
        if path == "-" {
            guard let input = fdopen(0, "rb") else {
                printError("open standard input: \(String(cString: strerror(errno)))")
                return .failure(ExitStatusError(status: .noInput))
            }
            f = input
        } else {
            var info = stat()
            if stat(path, &info) != 0 {
                printError("open \(shown): \(String(cString: strerror(errno)))")
                return .failure(ExitStatusError(status: .noInput))
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                printError("open \(shown): is a directory")
                return .failure(ExitStatusError(status: .noInput))
            }
            guard let opened = fopen(path, "rb") else {
                printError("open \(shown): \(String(cString: strerror(errno)))")
                return .failure(ExitStatusError(status: .noInput))
            }
            f = opened
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { bytes += chunk[0..<n] }
            if bytes.count > maximumBytes {
                printError("\(shown): larger than \(maximumBytes >> 20) MiB, not an Info.plist")
                return .failure(ExitStatusError(status: .dataError))
            }
            if n < chunk.count {
                if ferror(f) != 0 {
                    printError("read \(shown): \(String(cString: strerror(errno)))")
                    return .failure(ExitStatusError(status: .noInput))
                }
                break
            }
        }
        return .success(InfoPlist(data: bytes))
    }

    /// The verdict line, then the findings by severity.
    static func text(_ findings: [Finding], file: String) -> String {
        let errors = findings.filter { $0.severity == .error }
        let warnings = findings.filter { $0.severity == .warning }
        var out: String
        if let first = errors.first {
            out =
                "FAIL: \(file): Cast discovery will fail on iOS 14 and later (\(Wording.count(errors.count, "error"))): "
                + first.title
        } else if let first = warnings.first {
            out = "WARN: \(file): \(Wording.count(warnings.count, "warning")): \(first.title)"
        } else if findings.contains(where: { $0.code == .plistNoAppID }) {
            out = "OK: \(file) declares _googlecast._tcp and a usage description (no app ID checked)"
        } else {
            out = "OK: \(file) has what Cast discovery needs on iOS 14 and later"
        }
        out = TerminalText.sanitize(out) + "\n"
        for severity in Severity.allCases {
            let group = findings.filter { $0.severity == severity }
            guard !group.isEmpty else { continue }
            out += "\n\(severity.rawValue.uppercased())S\n"
            for f in group {
                out += wrap("* \(f.code.rawValue): \(f.title)", indent: "    ")
                out += wrap("    \(f.detail)", indent: "    ")
                out += wrap("    Advice: \(f.advice)", indent: "    ")
            }
        }
        return out
    }

    /// Wraps at 100 columns (a longer word, such as an XML element, stays whole).
    static func wrap(_ text: String, indent: String) -> String {
        let width = 100
        var out = ""
        var line = ""
        let leading = String(text.prefix { $0 == " " })
        for word in TerminalText.sanitize(text).split(separator: " ") {
            if line.isEmpty {
                line = leading + word
            } else if line.count + 1 + word.count > width {
                out += line + "\n"
                line = indent + word
            } else {
                line += " " + word
            }
        }
        return out + line + "\n"
    }

    /// `{"schemaVersion":1,"file":…,"format":…,"appIds":[…],"findings":[…]}` on one line; each
    /// finding has the shape of `analyze --format json`'s.
    static func json(_ findings: [Finding], file: String, plist: InfoPlist, appIDs: [String]) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.int(1, "schemaVersion")
        w.string(file, "file")
        w.string(plist.format, "format")
        w.beginArray("appIds")
        for id in appIDs.isEmpty ? plist.inferredAppIDs : appIDs { w.string(id) }
        w.endArray()
        w.bool(appIDs.isEmpty, "appIdsInferred")
        AnalysisJSON.findings(findings, into: &w)
        w.endObject()
        return w.output + "\n"
    }
}

let checkPlistUsage = """
    USAGE: castscope check-plist [--app-id ID]... [--format text|json] Info.plist

    Checks that an iOS app's Info.plist (XML or binary; `-` reads standard input) lets the
    Google Cast SDK discover devices on iOS 14 and later:
      - NSBonjourServices lists _googlecast._tcp                       (PLIST_MISSING_SERVICE)
      - and _<APPID>._googlecast._tcp for each receiver app ID          (PLIST_MISSING_APP_ID)
      - NSLocalNetworkUsageDescription is present and not blank  (PLIST_MISSING_USAGE_DESCRIPTION)
      - the file is a property list dictionary with the right types     (PLIST_MALFORMED)
    Each problem is a finding with a detail and the exact XML to add (docs/check-plist.md).

    OPTIONS:
      --app-id ID          Check the type of this receiver app ID (repeatable; letter case is
                           ignored). Without it, the app IDs are inferred from NSBonjourServices
                           entries _<ID>._googlecast._tcp (finding PLIST_NO_APP_ID if none).
      --format text        A verdict line, then the findings by severity (default).
      --format json        One line: {"schemaVersion":1,"file":…,"findings":[…]}, findings shaped
                           as in analyze's JSON.
      -h, --help           Show this help.

    To cross-check against a capture (app IDs searched for or answered on the network), use
    castscope analyze --plist Info.plist FILE.

    EXIT STATUS:
      0 no error found, 1 an error finding, 64 usage error, 65 the file is too large to be an
      Info.plist, 66 the file does not exist or cannot be read.
    """
