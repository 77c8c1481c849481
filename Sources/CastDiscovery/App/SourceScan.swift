/// A place in a source file: `AppDelegate.swift:12`.
public struct CodeLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}

/// A receiver app ID an app's code passes to the Cast SDK.
public struct SourceAppID: Sendable, Hashable {
    /// How the ID is written at the call.
    public enum How: Sendable, Hashable {
        /// A string literal at the call.
        case literal
        /// A constant defined elsewhere with a literal.
        case constant(String)
        /// `kGCKDefaultMediaReceiverApplicationID`.
        case defaultMediaReceiver

        /// `literal`, `constant`, `default-media-receiver`.
        public var name: String {
            switch self {
            case .literal: "literal"
            case .constant: "constant"
            case .defaultMediaReceiver: "default-media-receiver"
            }
        }
    }

    public var id: String
    /// Where it is passed to the SDK.
    public var location: CodeLocation
    public var how: How
    /// `GCKDiscoveryCriteria(applicationID:)`…
    public var call: String
}

/// A discovery option the code sets, and where.
public struct SourceFlag: Sendable, Hashable {
    public var value: Bool
    public var location: CodeLocation
    /// Other assignments of the same option with the other value.
    public var contradicted: CodeLocation?
}

/// What an app's Swift and Objective-C sources say about Cast: the receiver app IDs given to
/// `GCKDiscoveryCriteria`/`GCKCastOptions`, and the discovery options set.
///
/// A scanner, not a compiler: comments are ignored, and an ID is resolved when it is a
/// literal, `kGCKDefaultMediaReceiverApplicationID`, or a constant defined with a literal
/// (`let kReceiverAppID = "…"`, `static NSString *const kReceiverAppID = @"…"`,
/// `#define kReceiverAppID @"…"`) in any scanned file. Anything else is listed as unresolved.
public struct SourceScan: Sendable {
    /// The Default Media Receiver's app ID, the value of `kGCKDefaultMediaReceiverApplicationID`.
    public static let defaultMediaReceiverAppID = "CC1AD845"

    public private(set) var appIDs: [SourceAppID] = []
    /// IDs passed as something the scanner cannot resolve: the expression and where.
    public private(set) var unresolved: [(expression: String, location: CodeLocation)] = []
    /// `GCKCastOptions.disableDiscoveryAutostart`, when the code sets it.
    public private(set) var autostartDisabled: SourceFlag?
    /// `GCKCastOptions.startDiscoveryAfterFirstTapOnCastButton`, when the code sets it.
    public private(set) var afterFirstTap: SourceFlag?
    /// The first use of `GCKCastContext` or `GCKCastOptions`: the app sets up the Cast SDK.
    public private(set) var castSetup: CodeLocation?
    public private(set) var filesScanned = 0

    private var constants: [String: String] = [:]
    private var references: [(name: String, location: CodeLocation, call: String)] = []
    private let patterns = Patterns()

    public init() {}

    /// The patterns, with ASCII word boundaries: Unicode's would not see one in `options.disable…`.
    struct Patterns: @unchecked Sendable {
        let constant = try! Regex(
            #"\b(?:let|var)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*String\s*)?=\s*"([^"\\\n]*)""#
        ).wordBoundaryKind(.simple)
        let objcConstant = try! Regex(#"NSString\s*\*\s*(?:const\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*@"([^"\\\n]*)""#)
            .wordBoundaryKind(.simple)
        let define = try! Regex(#"#define\s+([A-Za-z_][A-Za-z0-9_]*)[ \t]+\(?@?"([^"\\\n]*)""#).wordBoundaryKind(
            .simple)
        let call = try! Regex(
            #"(GCKDiscoveryCriteria(?:\.init)?\s*\(\s*applicationID|GCKCastOptions(?:\.init)?\s*\(\s*receiverApplicationID|initWithApplicationID|initWithReceiverApplicationID)\s*:\s*(@?"[^"\\\n]*"|[A-Za-z_][A-Za-z0-9_.]*)"#
        ).wordBoundaryKind(.simple)
        let flag = try! Regex(
            #"\b(disableDiscoveryAutostart|startDiscoveryAfterFirstTapOnCastButton)\s*=\s*(true|false|YES|NO)\b"#
        ).wordBoundaryKind(.simple)
        let setter = try! Regex(
            #"\bset(DisableDiscoveryAutostart|StartDiscoveryAfterFirstTapOnCastButton)\s*:\s*(true|false|YES|NO)\b"#
        ).wordBoundaryKind(.simple)
        let setup = try! Regex(#"\b(GCKCastContext|GCKCastOptions)\b"#).wordBoundaryKind(.simple)
    }

    /// Scans one file's text (`file` is how it is named in findings).
    public mutating func scan(_ source: String, file: String) {
        filesScanned += 1
        let text = Self.withoutComments(source)
        let lines = Self.lineStarts(text)
        func location(_ index: String.Index) -> CodeLocation {
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: index)
            var lo = 0
            var hi = lines.count
            while lo + 1 < hi {
                let mid = (lo + hi) / 2
                if lines[mid] <= offset { lo = mid } else { hi = mid }
            }
            return CodeLocation(file: file, line: lo + 1)
        }
        for regex in [patterns.constant, patterns.objcConstant, patterns.define] {
            for m in text.matches(of: regex) {
                guard let name = m.output[1].substring, let value = m.output[2].substring else { continue }
                if constants[String(name)] == nil { constants[String(name)] = String(value) }
            }
        }
        for m in text.matches(of: patterns.call) {
            guard let callText = m.output[1].substring, let argument = m.output[2].substring else { continue }
            let call = Self.callName(String(callText))
            let at = location(m.range.lowerBound)
            if argument.last == "\"" {
                let literal = argument.drop { $0 == "@" }.dropFirst().dropLast()
                add(String(literal), at, .literal, call)
            } else {
                let name = String(argument.split(separator: ".").last ?? argument)
                if name == "kGCKDefaultMediaReceiverApplicationID" {
                    add(Self.defaultMediaReceiverAppID, at, .defaultMediaReceiver, call)
                } else {
                    references.append((name, at, call))
                }
            }
        }
        for regex in [patterns.flag, patterns.setter] {
            for m in text.matches(of: regex) {
                guard let option = m.output[1].substring, let value = m.output[2].substring else { continue }
                let on = value == "true" || value == "YES"
                let flag = SourceFlag(value: on, location: location(m.range.lowerBound))
                if option.lowercased() == "disablediscoveryautostart" {
                    Self.record(flag, into: &autostartDisabled)
                } else {
                    Self.record(flag, into: &afterFirstTap)
                }
            }
        }
        if castSetup == nil, let m = text.firstMatch(of: patterns.setup) {
            castSetup = location(m.range.lowerBound)
        }
    }

    static func record(_ flag: SourceFlag, into slot: inout SourceFlag?) {
        guard let first = slot else {
            slot = flag
            return
        }
        if first.value != flag.value, first.contradicted == nil { slot?.contradicted = flag.location }
    }

    mutating func add(_ text: String, _ at: CodeLocation, _ how: SourceAppID.How, _ call: String) {
        guard let id = InfoPlist.normalizedAppID(text) else {
            unresolved.append(("\"\(text)\"", at))
            return
        }
        appIDs.append(SourceAppID(id: id, location: at, how: how, call: call))
    }

    /// Resolves the constants used at calls, once every file has been scanned.
    public mutating func finish() {
        for r in references {
            if let value = constants[r.name] {
                add(value, r.location, .constant(r.name), r.call)
            } else {
                unresolved.append((r.name, r.location))
            }
        }
        references = []
        appIDs.sort { ($0.location.file, $0.location.line) < ($1.location.file, $1.location.line) }
    }

    /// The distinct app IDs, in the order of their first use (letter case ignored).
    public var distinctAppIDs: [String] {
        var ids: [String] = []
        for a in appIDs where !ids.contains(where: { $0.lowercased() == a.id.lowercased() }) { ids.append(a.id) }
        return ids
    }

    static func callName(_ matched: String) -> String {
        if matched.hasPrefix("GCKDiscoveryCriteria") { return "GCKDiscoveryCriteria(applicationID:)" }
        if matched.hasPrefix("GCKCastOptions") { return "GCKCastOptions(receiverApplicationID:)" }
        return matched + ":"
    }

    /// UTF-8 offsets of each line's start.
    static func lineStarts(_ text: String) -> [Int] {
        var starts = [0]
        for (i, b) in text.utf8.enumerated() where b == 0x0A { starts.append(i + 1) }
        return starts
    }

    /// The text with `//` and `/* */` comments (nested, as Swift allows) turned into spaces,
    /// line breaks kept, so offsets and line numbers stay. String literals are kept whole, so
    /// `"http://…"` is not taken for a comment.
    static func withoutComments(_ source: String) -> String {
        var b = Array(source.utf8)
        var i = 0
        let n = b.count
        func blank(_ from: Int, _ to: Int) {
            for k in from..<min(to, n) where b[k] != 0x0A { b[k] = 0x20 }
        }
        while i < n {
            let c = b[i]
            if c == 0x2F, i + 1 < n, b[i + 1] == 0x2F {
                let start = i
                while i < n, b[i] != 0x0A { i += 1 }
                blank(start, i)
            } else if c == 0x2F, i + 1 < n, b[i + 1] == 0x2A {
                let start = i
                var depth = 0
                while i < n {
                    if b[i] == 0x2F, i + 1 < n, b[i + 1] == 0x2A {
                        depth += 1
                        i += 2
                    } else if b[i] == 0x2A, i + 1 < n, b[i + 1] == 0x2F {
                        depth -= 1
                        i += 2
                        if depth == 0 { break }
                    } else {
                        i += 1
                    }
                }
                blank(start, i)
            } else if c == 0x22 {
                // """ multi-line literals end at the next """; others at an unescaped quote or the line's end.
                if i + 2 < n, b[i + 1] == 0x22, b[i + 2] == 0x22 {
                    i += 3
                    while i + 2 < n, !(b[i] == 0x22 && b[i + 1] == 0x22 && b[i + 2] == 0x22) {
                        i += b[i] == 0x5C ? 2 : 1
                    }
                    i += 3
                } else {
                    i += 1
                    while i < n, b[i] != 0x22, b[i] != 0x0A { i += b[i] == 0x5C ? 2 : 1 }
                    i += 1
                }
            } else {
                i += 1
            }
        }
        return String(decoding: b.prefix(n), as: UTF8.self)
    }
}
