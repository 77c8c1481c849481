import CastDiscovery

/// `castscope check-app`'s output: a verdict line, what was read of each app target, and the
/// findings (text, Markdown, JSON; docs/check-app.md).
public enum AppCheckReport {
    // MARK: Verdict

    /// `FAIL: input: 2 errors: <first error's title>`, `WARN: …` or `OK: …`.
    public static func verdict(_ r: AppCheckResult) -> String {
        let findings = r.allFindings
        let errors = findings.filter { $0.severity == .error }
        let warnings = findings.filter { $0.severity == .warning }
        if let first = errors.first {
            return
                "FAIL: \(r.input): Cast discovery will fail (\(Wording.count(errors.count, "error"))): \(first.title)"
        }
        if let first = warnings.first {
            return "WARN: \(r.input): \(Wording.count(warnings.count, "warning")): \(first.title)"
        }
        let what = r.kind == .infoPlist ? "the Info.plist has" : r.targets.count > 1 ? "the apps have" : "the app has"
        return "OK: \(r.input): \(what) what Cast discovery needs on iOS (as far as the \(r.kind.rawValue) shows)"
    }

    // MARK: Text

    /// The verdict, the facts of each target, then the findings by severity, wrapped at 100 columns.
    public static func text(_ r: AppCheckResult) -> String {
        var out = TerminalText.sanitize(verdict(r)) + "\n"
        for t in r.targets {
            out += "\n" + TerminalText.sanitize("\(label(t)) \(t.name)") + "\n"
            for (key, value) in facts(t) { out += factLine(key, value) }
        }
        out += findingsText(r.allFindings)
        return out
    }

    /// The findings by severity: `ERRORS`, then `* CODE: title`, the detail and the advice
    /// (also check-plist's layout).
    public static func findingsText(_ findings: [Finding]) -> String {
        var out = ""
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
    public static func wrap(_ text: String, indent: String) -> String {
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

    /// `  Key           value…`, the value wrapped at 100 columns under itself.
    static func factLine(_ key: String, _ value: String) -> String {
        let indent = String(repeating: " ", count: 16)
        var out = ""
        var line = "  " + key + String(repeating: " ", count: max(1, 14 - key.count))
        var empty = true
        for word in TerminalText.sanitize(value).split(separator: " ") {
            if !empty && line.count + 1 + word.count > 100 {
                out += line + "\n"
                line = indent + word
            } else {
                line += (empty ? "" : " ") + word
            }
            empty = false
        }
        return out + line + "\n"
    }

    static func label(_ t: AppFacts) -> String {
        switch t.kind {
        case .project: "Target"
        case .ipa, .app: "App"
        case .podfileLock, .packageResolved, .infoPlist: "File"
        }
    }

    /// The facts shown for a target, as (label, value) rows; rows with nothing to say are left out.
    static func facts(_ t: AppFacts) -> [(String, String)] {
        var rows: [(String, String)] = []
        if t.kind != .podfileLock && t.kind != .packageResolved {
            rows.append(("Info.plist", t.infoPlistPath.map { p in t.plist == nil ? "\(p) (not read)" : p } ?? "none"))
        }
        if let id = t.bundleID { rows.append(("Bundle ID", id)) }
        if let d = t.deploymentTarget { rows.append(("Deployment", "iOS \(d)")) }
        if t.xcode != nil || t.buildSDK != nil {
            rows.append(("Built with", [t.xcodeName, t.buildSDK].compactMap { $0 }.joined(separator: ", ")))
        }
        if t.kind.showsSDK {
            rows.append(
                (
                    "Cast SDK",
                    t.sdks.isEmpty
                        ? "none found"
                        : t.sdks.map { "\($0.summary), \(flavourText($0.flavour))" }.joined(separator: "; ")
                ))
        }
        if let scan = t.sources {
            rows.append(
                (
                    "App IDs",
                    scan.appIDs.isEmpty
                        ? "none found in \(Wording.count(scan.filesScanned, "source file"))"
                        : scan.appIDs.map { "\($0.id) (\($0.location), \(howText($0.how)))" }.joined(separator: "; ")
                ))
            if !scan.unresolved.isEmpty {
                rows.append(
                    (
                        "Unresolved",
                        scan.unresolved.prefix(5).map { "\($0.expression) at \($0.location)" }.joined(separator: "; ")
                    ))
            }
            rows.append(("Discovery", discoveryText(scan)))
        }
        for note in t.notes { rows.append(("Note", note)) }
        return rows
    }

    static func flavourText(_ f: CastSDKFlavour) -> String {
        switch f {
        case .guestMode: "with guest mode (Bluetooth)"
        case .noBluetooth: "without Bluetooth"
        case .single: "single flavour, no guest mode"
        case .unknown: "flavour unknown"
        }
    }

    static func howText(_ how: SourceAppID.How) -> String {
        switch how {
        case .literal: "literal"
        case .constant(let name): "constant \(name)"
        case .defaultMediaReceiver: "kGCKDefaultMediaReceiverApplicationID"
        }
    }

    static func discoveryText(_ scan: SourceScan) -> String {
        guard scan.castSetup != nil else { return "the code does not set up GCKCastContext" }
        if let off = scan.autostartDisabled, off.value { return "autostart disabled (\(off.location))" }
        if let tap = scan.afterFirstTap {
            return tap.value
                ? "starts after the first Cast button tap (\(tap.location))"
                : "starts at launch (startDiscoveryAfterFirstTapOnCastButton false, \(tap.location))"
        }
        return "starts after the first Cast button tap (startDiscoveryAfterFirstTapOnCastButton default)"
    }

    // MARK: Markdown

    /// A heading, the verdict, a facts table per target and a findings table.
    public static func markdown(_ r: AppCheckResult) -> String {
        var out = "# castscope check-app\n\n" + AnalysisMarkdown.escape(verdict(r)) + "\n\n"
        for t in r.targets {
            out += "## \(label(t)) \(AnalysisMarkdown.escape(t.name))\n\n| | |\n|---|---|\n"
            for (key, value) in facts(t) {
                out += "| \(AnalysisMarkdown.escape(key)) | \(AnalysisMarkdown.escape(value)) |\n"
            }
            out += "\n"
        }
        out += "## Findings\n\n| Severity | Code | Finding | Advice |\n|---|---|---|---|\n"
        for f in r.allFindings {
            out +=
                "| \(f.severity.rawValue) | `\(f.code.rawValue)` | **\(AnalysisMarkdown.escape(f.title))**<br>"
                + AnalysisMarkdown.escape(f.detail) + " | " + AnalysisMarkdown.escape(f.advice) + " |\n"
        }
        return out
    }

    // MARK: JSON

    /// One object (docs/check-app.schema.json), pretty-printed, ending with a newline.
    public static func json(_ r: AppCheckResult) -> String {
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.int(1, "schemaVersion")
        w.string(r.input, "input")
        w.string(r.kind.rawValue, "kind")
        w.string(verdict(r), "verdict")
        w.beginArray("targets")
        for t in r.targets { target(t, &w) }
        w.endArray()
        AnalysisJSON.findings(r.allFindings, into: &w)
        w.endObject()
        return w.output + "\n"
    }

    static func target(_ t: AppFacts, _ w: inout JSONWriter) {
        w.beginObject()
        w.string(t.name, "name")
        w.string(t.infoPlistPath, "infoPlist")
        w.bool(t.plist != nil, "infoPlistRead")
        w.string(t.bundleID, "bundleId")
        w.string(t.deploymentTarget, "deploymentTarget")
        w.beginArray("castSdk")
        for s in t.sdks {
            w.beginObject()
            w.string(s.name, "name")
            w.string(s.version?.text, "version")
            w.string(s.requirement, "requirement")
            w.string(s.flavour.rawValue, "flavour")
            w.string(s.origin.rawValue, "origin")
            w.string(s.source, "source")
            w.endObject()
        }
        w.endArray()
        w.beginObject("build")
        w.string(t.xcode, "xcode")
        w.string(t.buildSDK, "sdk")
        w.int(t.projectObjectVersion, "projectObjectVersion")
        w.endObject()
        w.beginArray("appIds")
        for a in t.sources?.appIDs ?? [] {
            w.beginObject()
            w.string(a.id, "id")
            w.string(a.location.description, "source")
            w.string(a.how.name, "how")
            if case .constant(let name) = a.how { w.string(name, "constant") }
            w.string(a.call, "call")
            w.endObject()
        }
        w.endArray()
        w.beginArray("unresolvedAppIds")
        for u in t.sources?.unresolved ?? [] {
            w.beginObject()
            w.string(u.expression, "expression")
            w.string(u.location.description, "source")
            w.endObject()
        }
        w.endArray()
        w.beginObject("discovery")
        flag(t.sources?.autostartDisabled, "autostartDisabled", &w)
        flag(t.sources?.afterFirstTap, "afterFirstTap", &w)
        w.bool(t.sources.map { $0.castSetup != nil } ?? false, "castSetupFound")
        w.endObject()
        if let scan = t.sources { w.int(scan.filesScanned, "sourceFilesScanned") }
        w.beginArray("notes")
        for n in t.notes { w.string(n) }
        w.endArray()
        w.endObject()
    }

    /// `"key": true|false|null` and `"keySource": "File.swift:12"|null`.
    static func flag(_ f: SourceFlag?, _ key: String, _ w: inout JSONWriter) {
        w.bool(f?.value, key)
        w.string(f?.location.description, key + "Source")
    }
}
