#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parts of an iOS app's `Info.plist` that Cast discovery depends on (iOS 14 and later),
/// and the checks `castscope check-plist` and `castscope analyze --plist` make.
///
/// iOS 14+ lets an app browse only for the Bonjour types listed in `NSBonjourServices`, and asks
/// the user for Local Network permission with the text of `NSLocalNetworkUsageDescription`. The
/// Cast SDK browses for `_googlecast._tcp` and for the receiver app's own type
/// `_<APPID>._googlecast._tcp`, so both must be listed.
///
/// XML and binary property lists are read (with Foundation's `PropertyListDecoder`); anything
/// else, OpenStep text included, is `PLIST_MALFORMED`.
public struct InfoPlist: Sendable {
    /// The Cast service type.
    public static let castService = "_googlecast._tcp"
    /// The key listing Bonjour types the app may browse for.
    public static let servicesKey = "NSBonjourServices"
    /// The key with the Local Network permission prompt's text.
    public static let usageKey = "NSLocalNetworkUsageDescription"
    /// The usage text Google's Cast iOS guide suggests.
    public static let suggestedUsage =
        "${PRODUCT_NAME} uses the local network to discover Cast-enabled devices on your WiFi network."

    /// What a value in the property list is.
    public enum Kind: String, Sendable {
        case string, array, dictionary, boolean, integer, real, date, data, unknown

        /// `a string`, `an array`….
        var phrase: String {
            switch self {
            case .array, .integer: "an \(rawValue)"
            case .unknown: "a value of unknown type"
            default: "a \(rawValue)"
            }
        }
    }

    /// `xml` or `binary`, when the data was read.
    public internal(set) var format: String?
    /// Why the file cannot be used, one sentence each (empty when it was read).
    public internal(set) var problems: [(title: String, detail: String, advice: String)] = []
    /// Whether the data was a property list whose top level is a dictionary.
    public internal(set) var isDictionary = false
    /// `NSBonjourServices`: `nil` when absent or not an array; non-string items are left out.
    public internal(set) var bonjourServices: [String]?
    /// The kind of `NSBonjourServices` when present.
    public internal(set) var bonjourServicesKind: Kind?
    /// `NSLocalNetworkUsageDescription`: `nil` when absent or not a string.
    public internal(set) var usageDescription: String?
    /// The kind of `NSLocalNetworkUsageDescription` when present.
    public internal(set) var usageDescriptionKind: Kind?
    /// Top-level keys that differ from the two above only in letter case (a likely typo).
    public internal(set) var miscasedKeys: [String] = []
    /// The string values of the other keys `check-app` reads (``otherKeys``), by key.
    public internal(set) var strings: [String: String] = [:]

    /// Keys besides the Cast ones whose string values are kept in ``strings``: the Bluetooth
    /// usage text (the Cast SDK's guest mode), and what Xcode records about the build.
    public static let otherKeys = [
        "NSBluetoothAlwaysUsageDescription", "NSBluetoothPeripheralUsageDescription", "DTXcode", "DTXcodeBuild",
        "DTSDKName", "DTPlatformVersion", "MinimumOSVersion", "CFBundleIdentifier", "CFBundleName",
        "CFBundleDisplayName", "CFBundleExecutable", "CFBundleShortVersionString", "CFBundleVersion",
    ]

    /// Reads a property list. Never fails: what cannot be read becomes ``problems``, reported
    /// as `PLIST_MALFORMED` by ``check(appIDs:)``.
    public init(data bytes: some Sequence<UInt8>) {
        let data = Data(bytes)
        var format = PropertyListDecoder.PropertyListFormat.xml
        let top: Leaf
        do {
            top = try PropertyListDecoder().decode(Leaf.self, from: data, format: &format)
        } catch {
            problems.append(
                (
                    "The file is not a readable property list",
                    "It could not be read as an XML or binary property list: \(Self.reason(error)).",
                    Self.rewriteAdvice
                ))
            return
        }
        guard format == .xml || format == .binary else {
            problems.append(
                (
                    "The file is not an XML or binary property list",
                    "Xcode writes Info.plist as XML (starting with <?xml) or binary (starting with bplist00); "
                        + "this file is neither\(Self.start(of: data)).",
                    Self.rewriteAdvice
                ))
            return
        }
        self.format = format == .xml ? "xml" : "binary"
        guard top.kind == .dictionary else {
            problems.append(
                (
                    "Info.plist is not a dictionary",
                    "The top level of the property list is \(top.kind.phrase); an Info.plist is a dictionary "
                        + "(<dict>) of keys.",
                    Self.rewriteAdvice
                ))
            return
        }
        let dictionary: [String: Node]
        do {
            dictionary = try PropertyListDecoder().decode([String: Node].self, from: data)
        } catch {
            problems.append(
                ("Info.plist could not be read", "Reading its keys failed: \(Self.reason(error)).", Self.rewriteAdvice))
            return
        }
        isDictionary = true
        for key in Self.otherKeys { if let text = dictionary[key]?.string { strings[key] = text } }
        if let services = dictionary[Self.servicesKey] {
            bonjourServicesKind = services.kind
            if services.kind == .array, let items = services.items {
                bonjourServices = items.compactMap(\.string)
                let bad = items.enumerated().filter { $0.element.string == nil }
                if !bad.isEmpty {
                    let list = bad.prefix(5).map { "item \($0.offset) is \($0.element.kind.phrase)" }
                    problems.append(
                        (
                            "\(Self.servicesKey) has items that are not strings",
                            "In \(Self.servicesKey), \(Wording.list(list))\(bad.count > 5 ? " (and more)" : ""); "
                                + "every item must be a <string> with one Bonjour service type.",
                            "Remove those items or make each a <string>; the Cast entries read: "
                                + Self.servicesXML(appIDs: Self.appIDs(in: bonjourServices ?? []))
                        ))
                }
            } else {
                problems.append(
                    (
                        "\(Self.servicesKey) is not an array of strings",
                        "\(Self.servicesKey) is \(services.kind.phrase)\(Self.quoted(services.string)); iOS expects an "
                            + "<array> of <string> service types and does not use the key otherwise, so the app "
                            + "may browse for no Bonjour type at all.",
                        "Make it an array of strings: "
                            + Self.servicesXML(appIDs: Self.appIDs(in: services.string.map { [$0] } ?? []))
                    ))
            }
        }
        if let usage = dictionary[Self.usageKey] {
            usageDescriptionKind = usage.kind
            if let text = usage.string {
                usageDescription = text
            } else {
                problems.append(
                    (
                        "\(Self.usageKey) is not a string",
                        "\(Self.usageKey) is \(usage.kind.phrase); iOS expects a <string> with the text of the Local "
                            + "Network permission prompt.",
                        "Make it a string: " + Self.usageXML
                    ))
            }
        }
        let wanted = [Self.servicesKey.lowercased(), Self.usageKey.lowercased()]
        miscasedKeys = dictionary.keys.filter {
            wanted.contains($0.lowercased()) && $0 != Self.servicesKey && $0 != Self.usageKey
        }.sorted()
    }

    // MARK: App IDs

    /// An app ID as typed by a user (`CC1AD845`, `_CC1AD845`), or `nil` when it cannot be one
    /// (empty, or containing dots, spaces or control characters).
    public static func normalizedAppID(_ text: String) -> String? {
        var s = Substring(text)
        if s.hasPrefix("_") { s = s.dropFirst() }
        guard !s.isEmpty, s.count <= 63,
            !s.unicodeScalars.contains(where: { $0 == "." || $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        return String(s)
    }

    /// The Bonjour type for an app ID: `_CC1AD845._googlecast._tcp`.
    public static func serviceType(appID: String) -> String { "_\(appID).\(castService)" }

    /// The app ID of a `NSBonjourServices` entry `_<ID>._googlecast._tcp` (also `_<ID>._sub.…`,
    /// which is recognised but is not the form iOS matches).
    static func appID(inEntry entry: String) -> (id: String, exact: Bool)? {
        let suffix = "." + castService
        guard entry.hasPrefix("_"), entry.lowercased().hasSuffix(suffix) else { return nil }
        var label = entry.dropFirst().dropLast(suffix.count)
        var exact = true
        if label.lowercased().hasSuffix("._sub") {
            label = label.dropLast(5)
            exact = false
        }
        guard let id = normalizedAppID(String(label)), !id.hasPrefix("_") else { return nil }
        return (id, exact)
    }

    /// App IDs declared by `NSBonjourServices` entries of the form `_<ID>._googlecast._tcp`, in
    /// file order, without duplicates (letter case ignored).
    public var declaredAppIDs: [String] { Self.appIDs(in: bonjourServices ?? [], exactOnly: true) }

    /// The app IDs ``check(appIDs:)`` infers: those of ``declaredAppIDs`` and of entries that
    /// look like one but are not in the form iOS matches (`_<ID>._sub._googlecast._tcp`).
    public var inferredAppIDs: [String] { Self.appIDs(in: bonjourServices ?? [], exactOnly: false) }

    static func appIDs(in entries: [String], exactOnly: Bool = false) -> [String] {
        var ids: [String] = []
        for entry in entries {
            if let (id, exact) = appID(inEntry: entry), exact || !exactOnly, !ids.contains(where: { same($0, id) }) {
                ids.append(id)
            }
        }
        return ids
    }

    /// Whether `NSBonjourServices` lists `type` exactly (letter case ignored, as DNS does).
    public func declares(_ type: String) -> Bool {
        (bonjourServices ?? []).contains { Self.same($0, type) }
    }

    /// Whether `NSBonjourServices` lists the type of an app ID.
    public func declares(appID: String) -> Bool { declares(Self.serviceType(appID: appID)) }

    /// Entries that look like a mistyped `type` (whitespace, a trailing dot, `.local`, `_sub`).
    func nearMisses(of type: String) -> [String] {
        func canonical(_ s: String) -> String {
            var t = s.lowercased().filter { !$0.isWhitespace }
            while t.hasSuffix(".") { t.removeLast() }
            if t.hasSuffix(".local") { t.removeLast(6) }
            while t.hasSuffix(".") { t.removeLast() }
            return t.replacing("._sub.", with: ".")
        }
        let target = canonical(type)
        return (bonjourServices ?? []).filter { !Self.same($0, type) && canonical($0) == target }
    }

    static func same(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    /// `s` without leading and trailing whitespace (Unicode, newlines included).
    static func trimmed(_ s: String) -> String {
        String(s.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    // MARK: Checks

    /// Checks the property list for Cast discovery on iOS 14+.
    ///
    /// - Parameter appIDs: the receiver app IDs to check; when empty, every app ID declared in
    ///   `NSBonjourServices` (and an info finding `PLIST_NO_APP_ID` when there is none).
    /// - Returns: `PLIST_MALFORMED`, `PLIST_MISSING_SERVICE`, `PLIST_MISSING_APP_ID`,
    ///   `PLIST_MISSING_USAGE_DESCRIPTION` (errors), `PLIST_NO_APP_ID` and, when no error was
    ///   found, `PLIST_OK` (info), most severe first.
    public func check(appIDs: [String] = []) -> [Finding] {
        check(appIDs: appIDs, capture: nil)
    }

    /// The `analyze --plist` cross-check: ``check(appIDs:)`` for the app IDs the plist declares,
    /// plus `PLIST_MISSING_APP_ID` (with evidence frames) for each app ID the capture shows a
    /// client searching for or a device answering for that the plist does not declare.
    public func crossCheck(_ report: AnalysisReport) -> [Finding] {
        check(appIDs: [], capture: report)
    }

    /// `findings` followed by `extra`, most severe first (stable within a severity).
    public static func merged(_ findings: [Finding], _ extra: [Finding]) -> [Finding] {
        Diagnosis.sorted(findings + extra)
    }

    func check(appIDs given: [String], capture: AnalysisReport?) -> [Finding] {
        var findings: [Finding] = []
        for p in problems {
            findings.append(
                Finding(
                    code: .plistMalformed, severity: .error, title: p.title, detail: p.detail,
                    advice: p.advice))
        }
        guard isDictionary else { return findings }
        // Keys that are present but miscapitalised are mentioned with what they should hold.
        func caseNote(_ key: String) -> String {
            let keys = miscasedKeys.filter { Self.same($0, key) }
            guard !keys.isEmpty else { return "" }
            return
                " The file has \(Wording.list(keys.map { "'\($0)'" })) instead: keys are case-sensitive, so iOS "
                + "does not read \(Wording.noun(keys.count, "it", "them"))."
        }
        let servicesUsable = bonjourServicesKind == nil || bonjourServices != nil

        // App IDs to check: given, or declared (and, for a capture, those it shows).
        var ids: [String] = []
        for id in given where !ids.contains(where: { Self.same($0, id) }) { ids.append(id) }
        let inferred = ids.isEmpty
        if inferred { ids = inferredAppIDs }
        let captured = capture.map(Self.appIDEvidence) ?? []

        if servicesUsable {
            if !declares(Self.castService) {
                let near = nearMisses(of: Self.castService)
                let absent = bonjourServices == nil
                findings.append(
                    Finding(
                        code: .plistMissingService, severity: .error,
                        title: absent
                            ? "Info.plist has no \(Self.servicesKey): iOS 14+ will not let the app browse for Cast devices"
                            : "\(Self.servicesKey) does not list \(Self.castService)",
                        detail: "On iOS 14 and later an app may browse only for the Bonjour types listed in "
                            + "\(Self.servicesKey). "
                            + (absent
                                ? "This Info.plist has no such key."
                                : "Its \(bonjourServices!.count) entries do not include \(Self.castService)"
                                    + Self.nearMissNote(near) + ".")
                            + " The Cast SDK's browse for \(Self.castService) is refused (DNS-SD error NoAuth, "
                            + "-65555), so no Cast device is ever found and the Cast button does not appear."
                            + caseNote(Self.servicesKey),
                        advice: "Add the Cast type to \(Self.servicesKey), exactly as written here: "
                            + Self.servicesXML(appIDs: ids),
                        subjects: FindingSubjects(appIDs: [])))
            }
            for id in ids where !declares(appID: id) {
                let type = Self.serviceType(appID: id)
                let near = nearMisses(of: type)
                findings.append(
                    Finding(
                        code: .plistMissingAppID, severity: .error,
                        title: "\(Self.servicesKey) does not list \(type) (app ID \(id))",
                        detail: "The Cast SDK also browses for the receiver app's own type, \(type), to find "
                            + "devices that can run app \(id). On iOS 14 and later that browse is refused unless "
                            + "the type is listed in \(Self.servicesKey)"
                            + (bonjourServices == nil ? ", and this Info.plist has no such key" : "")
                            + Self.nearMissNote(near) + "." + caseNote(Self.servicesKey),
                        advice: "Add the app's type to \(Self.servicesKey): <string>\(type)</string>, so that "
                            + "it reads: " + Self.servicesXML(appIDs: ids),
                        subjects: FindingSubjects(appIDs: [id])))
            }
            for evidence in captured
            where !declares(appID: evidence.id) && !ids.contains(where: { Self.same($0, evidence.id) }) {
                let type = Self.serviceType(appID: evidence.id)
                var seen: [String] = []
                if !evidence.clients.isEmpty {
                    seen.append(
                        "\(Wording.list(evidence.clients)) searched for it "
                            + "(_\(evidence.id)._sub.\(Self.castService).local)")
                }
                if !evidence.devices.isEmpty {
                    seen.append(
                        Wording.noun(evidence.devices.count, "device") + " "
                            + "\(Wording.list(evidence.deviceNames)) answered for it")
                }
                findings.append(
                    Finding(
                        code: .plistMissingAppID, severity: .error,
                        title: "App ID \(evidence.id) is used on the network but \(type) is not in \(Self.servicesKey)",
                        detail: "In the capture, \(seen.joined(separator: ", and ")). "
                            + "If the capture shows the iOS app this Info.plist belongs to, iOS 14 and later "
                            + "refuse its browse for \(type), because the type is not listed in \(Self.servicesKey)."
                            + caseNote(Self.servicesKey),
                        advice: "Add the app's type to \(Self.servicesKey): <string>\(type)</string>, so that "
                            + "it reads: " + Self.servicesXML(appIDs: ids + captured.map(\.id)),
                        frames: evidence.frames,
                        subjects: FindingSubjects(
                            clients: evidence.clients, devices: evidence.devices, appIDs: [evidence.id])))
            }
        }

        let usage = Self.trimmed(usageDescription ?? "")
        if usageDescriptionKind == nil || (usageDescription != nil && usage.isEmpty) {
            let absent = usageDescriptionKind == nil
            findings.append(
                Finding(
                    code: .plistMissingUsageDescription, severity: .error,
                    title: absent ? "Info.plist has no \(Self.usageKey)" : "\(Self.usageKey) is empty",
                    detail: "iOS 14 and later ask the user for Local Network permission before an app can discover "
                        + "Cast devices, and \(Self.usageKey) is the explanation shown in that prompt. "
                        + (absent ? "The key is missing" : "The key is present but holds only whitespace")
                        + "; Google's Cast iOS setup requires it, and without a reason users are likely to deny "
                        + "access, after which discovery finds nothing." + caseNote(Self.usageKey),
                    advice: "Add a short, specific reason: " + Self.usageXML))
        }

        if findings.isEmpty || findings.allSatisfy({ $0.severity == .info }) {
            if ids.isEmpty && captured.isEmpty {
                findings.append(
                    Finding(
                        code: .plistNoAppID, severity: .info,
                        title: "No app ID to check: the app's own \(Self.castService) subtype was not checked",
                        detail: "No app ID was given and \(Self.servicesKey) has no _<APPID>.\(Self.castService) "
                            + "entry to infer one from. The Cast SDK also browses for the receiver app's type "
                            + "(the Default Media Receiver's app ID is CC1AD845), which iOS 14+ refuses unless it "
                            + "is listed.",
                        advice:
                            "Run check-plist again with \(AdviceOption.appID.flag) YOUR_APP_ID (from the Google Cast SDK "
                            + "Developer Console), or add the entry: <string>_YOUR_APP_ID.\(Self.castService)</string>")
                )
            }
            var checked = ["\(Self.servicesKey) lists \(Self.castService)"]
            if !ids.isEmpty {
                checked.append(
                    "the app's " + Wording.noun(ids.count, "type") + " "
                        + Wording.list(ids.map(Self.serviceType(appID:)))
                        + (capture == nil
                            ? (inferred ? " (app IDs inferred from \(Self.servicesKey))" : " (app IDs given)")
                            : ""))
            }
            if capture != nil {
                checked.append(
                    captured.isEmpty
                        ? "the capture shows no app ID being searched for or answered"
                        : "every app ID the capture shows (\(Wording.list(captured.map(\.id)))) is declared")
            }
            checked.append("\(Self.usageKey) is set (“\(usage)”)")
            findings.append(
                Finding(
                    code: .plistOK, severity: .info,
                    title: "Info.plist has what Cast discovery needs on iOS 14 and later",
                    detail: "Checked: " + Wording.list(checked) + ".",
                    advice: "Nothing to change. If the Cast button still finds nothing, capture the traffic and run "
                        + "castscope analyze: the user may have denied Local Network access (Settings › Privacy › "
                        + "Local Network).",
                    subjects: FindingSubjects(appIDs: ids)))
        }
        return Self.merged(findings, [])
    }

    /// One app ID the capture shows: who searched for it, who answered for it, and the frames.
    struct AppIDEvidence {
        var id: String
        var clients: [String] = []
        var devices: [String] = []
        /// `Bedroom TV (id 7a0e…)`, or the id.
        var deviceNames: [String] = []
        var frames: [FrameRef] = []
    }

    /// App IDs searched for by clients or answered for by devices, in order of first use.
    static func appIDEvidence(_ report: AnalysisReport) -> [AppIDEvidence] {
        var list: [AppIDEvidence] = []
        func entry(_ id: String) -> Int {
            if let i = list.firstIndex(where: { same($0.id, id) }) { return i }
            list.append(AppIDEvidence(id: id))
            return list.count - 1
        }
        for client in report.clients {
            for id in client.appIDsQueried {
                let i = entry(id)
                list[i].clients.append(client.address.description)
                // The first query that asked for the subtype, else the client's first query.
                let subtype = "_\(id.lowercased())._sub.\(castService).local"
                let query = report.queries.first {
                    $0.client == client.address
                        && $0.names.contains { n in
                            var name = n.lowercased()
                            if name.hasSuffix(".") { name.removeLast() }
                            return name == subtype
                        }
                }
                if let frame = query?.frame ?? client.firstQueryFrame { list[i].frames.append(frame) }
            }
        }
        for device in report.devices {
            for id in device.appIDs {
                let i = entry(id)
                list[i].devices.append(device.id)
                list[i].deviceNames.append(device.friendlyName.map { "\($0) (id \(device.id))" } ?? device.id)
                list[i].frames.append(device.firstFrame)
            }
        }
        for i in list.indices {
            var unique: [FrameRef] = []
            for f in list[i].frames where !unique.contains(f) { unique.append(f) }
            list[i].frames = unique
        }
        return list
    }

    // MARK: Text

    /// The XML for `NSBonjourServices` with the Cast type and the app types.
    static func servicesXML(appIDs: [String]) -> String {
        var ids: [String] = []
        for id in appIDs where !ids.contains(where: { same($0, id) }) { ids.append(id) }
        let types = [castService] + (ids.isEmpty ? ["_YOUR_APP_ID.\(castService)"] : ids.map(serviceType(appID:)))
        return "<key>\(servicesKey)</key> <array> " + types.map { "<string>\($0)</string>" }.joined(separator: " ")
            + " </array>"
    }

    static let rewriteAdvice =
        "Check the file with `plutil -lint Info.plist` (macOS) or open it in Xcode; an Info.plist is a <dict> in "
        + "which the Cast keys read: " + servicesXML(appIDs: []) + " " + usageXML

    static let usageXML = "<key>\(usageKey)</key> <string>\(suggestedUsage)</string>"

    static func nearMissNote(_ near: [String]) -> String {
        guard !near.isEmpty else { return "" }
        return
            " (it has \(Wording.list(near.map { "'\($0)'" })), which is not the exact form Apple documents; write it as the advice shows)"
    }

    static func quoted(_ s: String?) -> String {
        guard let s else { return "" }
        return " ('\(s.count > 60 ? String(s.prefix(59)) + "…" : s)')"
    }

    static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let cocoa = context.underlyingError as? CocoaError,
                let text = cocoa.userInfo["NSDebugDescription"] as? String
            {
                return text.hasSuffix(".") ? String(text.dropLast()) : text
            }
            return context.debugDescription
        }
        return String(describing: error)
    }

    /// `(it starts with "{")`, for saying what a file that is not a plist looks like.
    static func start(of data: Data) -> String {
        let head = data.prefix(16).map { b -> String in
            (0x20..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "."
        }.joined()
        return head.isEmpty ? " (it is empty)" : " (it starts with \"\(head)\")"
    }
}

// MARK: Decoding values of any type

/// Accepts any value without reading it.
private struct Opaque: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// A value's kind, and its text when it is a string. Arrays and dictionaries are not read.
private struct Leaf: Decodable {
    var kind = InfoPlist.Kind.unknown
    var string: String?

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            kind = .string
            string = s
        } else if (try? c.decode([Opaque].self)) != nil {
            kind = .array
        } else if (try? c.decode([String: Opaque].self)) != nil {
            kind = .dictionary
        } else if (try? c.decode(Bool.self)) != nil {
            kind = .boolean
        } else if (try? c.decode(Int64.self)) != nil || (try? c.decode(UInt64.self)) != nil {
            kind = .integer
        } else if (try? c.decode(Double.self)) != nil {
            kind = .real
        } else if (try? c.decode(Date.self)) != nil {
            kind = .date
        } else if (try? c.decode(Data.self)) != nil {
            kind = .data
        }
    }
}

/// A top-level value: its kind and, for an array, its items (one level only, so a deeply
/// nested file cannot exhaust the stack).
private struct Node: Decodable {
    var kind: InfoPlist.Kind
    var string: String?
    var items: [Leaf]?

    init(from decoder: any Decoder) throws {
        let leaf = try Leaf(from: decoder)
        kind = leaf.kind
        string = leaf.string
        if kind == .array { items = try? decoder.singleValueContainer().decode([Leaf].self) }
    }
}
