import CastDiscovery
import Pipeline
import Reports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `castscope check-plist`: does an iOS app's Info.plist let the Cast SDK discover devices?
enum CheckPlistCommand {
    enum Format: String, CaseIterable {
        case text, json
    }

    struct Options {
        var format = Format.text
        var appIDs: [String] = []
        var file: String?
        /// `-o FILE`: standard output goes to FILE.
        var output: String?
        /// `-q`: print nothing; the exit status tells.
        var quiet = false
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let path = o.file!
        let plist: InfoPlist
        switch InfoPlistFile.load(path, notices: printNotice) {
        case .success(let p): plist = p
        case .failure(let e): return e.status
        }
        let findings = plist.check(appIDs: o.appIDs)
        let shown = path == "-" ? "standard input" : path
        if let failed = OutputFile.redirectStandardOutput(to: o.quiet ? nil : o.output) { return failed }
        switch o.format {
        case _ where o.quiet: break
        case .text: Output.standardOutput.write(text(findings, file: shown))
        case .json: Output.standardOutput.write(json(findings, file: path, plist: plist, appIDs: o.appIDs))
        }
        return findings.contains { $0.severity == .error } ? .failure : .success
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
        return TerminalText.sanitize(out) + "\n" + AppCheckReport.findingsText(findings)
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
