/// The declarative description of the command line: every command is a ``CommandSpec`` of
/// option groups and operands. The parser (Parser.swift), `--help` and the usage line
/// (Help.swift), the shell completions (Completion*.swift) and the man page (ManPage.swift)
/// are all generated from these values, so an option is declared once.

/// How a shell completes a value (an option's value or an operand).
enum ValueCompletion: Equatable {
    /// Free text: nothing to offer.
    case none
    /// A file name.
    case file
    /// One of these words.
    case choices([String])
    /// A network interface name.
    case interface
    /// A castscope command name.
    case command
}

/// One accepted value of a choice option, with its line of help.
struct Choice {
    var value: String
    var help: String
}

/// What help, usage, completion and the man page know about one option (parsing aside).
struct OptionInfo {
    /// The long name with its dashes, `--format`.
    var long: String
    /// The short name with its dash, `-f`, if any.
    var short: String?
    /// Other accepted spellings (`--count` for `-c`), accepted but not shown in help.
    var aliases: [String] = []
    /// The value's placeholder, `FILE`; `nil` for a flag.
    var valueName: String?
    /// One paragraph; wrapped when shown.
    var help: String
    /// For a choice option: each value with its help, shown one row per value.
    var choices: [Choice] = []
    var completion: ValueCompletion = .none
    /// May be given more than once (each occurrence adds a value).
    var repeatable = false
    /// Shown without brackets in the usage line (the command checks that it is there).
    var required = false

    /// Every spelling the parser accepts.
    var names: [String] { [long] + (short.map { [$0] } ?? []) + aliases }

    /// `-f, --format FORMAT` as the help shows it.
    var label: String {
        (short.map { $0 + ", " } ?? "") + long + (valueName.map { " " + $0 } ?? "")
    }

    /// `[--format text|json]`, `-o FILE` or `[--client ADDR]...` for the usage line.
    var synopsis: String {
        let value = choices.isEmpty ? valueName : choices.map(\.value).joined(separator: "|")
        let name = short ?? long
        let body = name + (value.map { " " + $0 } ?? "")
        return (required ? body : "[" + body + "]") + (repeatable ? "..." : "")
    }
}

/// One option and what it does to the command's options value.
struct OptionSpec<Options> {
    var info: OptionInfo
    /// Stores the value (`""` for a flag); throws when the value is not acceptable.
    var apply: (inout Options, String) throws(UsageError) -> Void

    /// An option without a value.
    static func flag(
        _ long: String, short: String? = nil, aliases: [String] = [], help: String,
        _ set: @escaping (inout Options) -> Void
    ) -> OptionSpec {
        OptionSpec(info: OptionInfo(long: long, short: short, aliases: aliases, help: help)) { o, _ in set(&o) }
    }

    /// An option with a value.
    static func value(
        _ long: String, short: String? = nil, aliases: [String] = [], name: String, help: String,
        completion: ValueCompletion = .none, repeatable: Bool = false, required: Bool = false,
        _ set: @escaping (inout Options, String) throws(UsageError) -> Void
    ) -> OptionSpec {
        OptionSpec(
            info: OptionInfo(
                long: long, short: short, aliases: aliases, valueName: name, help: help, completion: completion,
                repeatable: repeatable, required: required),
            apply: set)
    }

    /// An option whose value is one of an enumeration's cases, each with its own help.
    static func choice<T: ChoiceValue>(
        _ long: String, short: String? = nil, aliases: [String] = [], name: String, help: String = "",
        _ key: WritableKeyPath<Options, T>
    ) -> OptionSpec {
        let choices = T.allCases.map { Choice(value: $0.rawValue, help: $0.help) }
        return OptionSpec(
            info: OptionInfo(
                long: long, short: short, aliases: aliases, valueName: name, help: help, choices: choices,
                completion: .choices(choices.map(\.value)))
        ) { o, v throws(UsageError) in o[keyPath: key] = try T.parse(v, option: long) }
    }

    /// The same option acting on a part of a larger options value (`report` reuses
    /// `analyze`'s options this way).
    func lifted<Outer>(_ key: WritableKeyPath<Outer, Options>) -> OptionSpec<Outer> {
        let apply = self.apply
        return OptionSpec<Outer>(info: info) { o, v throws(UsageError) in try apply(&o[keyPath: key], v) }
    }
}

/// Options shown together under one heading (INPUT, OUTPUT, ANALYSIS, LIMITS, OPTIONS).
struct OptionGroup<Options> {
    var title: String
    var options: [OptionSpec<Options>]
    /// A paragraph after the group's options, if any.
    var note: String?

    init(_ title: String, _ options: [OptionSpec<Options>], note: String? = nil) {
        self.title = title
        self.options = options
        self.note = note
    }

    func lifted<Outer>(_ key: WritableKeyPath<Outer, Options>) -> OptionGroup<Outer> {
        OptionGroup<Outer>(title, options.map { $0.lifted(key) }, note: note)
    }
}

/// The arguments that are not options: capture files, an Info.plist, a command name.
struct OperandSpec<Options> {
    /// The placeholder, `FILE`.
    var name: String
    var help: String
    var repeating = true
    /// Shown in brackets in the usage line.
    var optional = false
    var completion = ValueCompletion.file
    var apply: (inout Options, String) throws(UsageError) -> Void

    var info: OperandInfo { OperandInfo(name: name, help: help, repeating: repeating, optional: optional) }
}

/// An operand as help and completion see it.
struct OperandInfo {
    var name: String
    var help: String
    var repeating: Bool
    var optional: Bool
    var completion = ValueCompletion.file

    /// `FILE...`, `Info.plist` or `[COMMAND]`.
    var synopsis: String {
        let body = name + (repeating ? "..." : "")
        return optional ? "[" + body + "]" : body
    }
}

/// A titled block of prose in a command's help after its options (LATENCY, EXIT STATUS).
struct HelpSection {
    var title: String
    /// Already wrapped to fit 100 columns with its two-space indent.
    var body: String
}

/// One command: its options, operands, prose, and the check run after parsing.
struct CommandSpec<Options> {
    var name: String
    /// One line for the command list.
    var abstract: String
    /// Other usage forms shown after the generated one (`castscope live --list-interfaces`).
    var otherSynopses: [String] = []
    /// The paragraphs between USAGE and the options, already wrapped.
    var discussion: String
    var groups: [OptionGroup<Options>]
    var operands: OperandSpec<Options>?
    var sections: [HelpSection] = []
    /// The options before any argument is read.
    var defaults: Options
    /// Checks the combination once every argument is read (a missing file, a conflict).
    var validate: (inout Options) throws(UsageError) -> Void = { _ throws(UsageError) in }

    /// The command without its parsing closures, for help, completion and the man page.
    var info: CommandInfo {
        var operand = operands?.info
        operand?.completion = operands?.completion ?? .file
        return CommandInfo(
            name: name, abstract: abstract, otherSynopses: otherSynopses, discussion: discussion,
            groups: groups.map { (title: $0.title, options: $0.options.map(\.info), note: $0.note) },
            operand: operand, sections: sections)
    }
}

/// A command as help, completion and the man page see it.
struct CommandInfo {
    var name: String
    var abstract: String
    var otherSynopses: [String]
    var discussion: String
    var groups: [(title: String, options: [OptionInfo], note: String?)]
    var operand: OperandInfo?
    var sections: [HelpSection]

    /// Every option, with `-h, --help` last.
    var options: [OptionInfo] { groups.flatMap(\.options) + [OptionInfo.help] }
}

extension OptionInfo {
    /// `-h, --help`, which every command takes.
    static let help = OptionInfo(long: "--help", short: "-h", help: "Show this help.")
}

/// An enumeration usable as a choice option's value: `--format`, `--color`.
protocol ChoiceValue: RawRepresentable, CaseIterable where RawValue == String {
    /// What this value does, for the help.
    var help: String { get }
}

extension ChoiceValue {
    /// The case named `value`, or a usage error listing the accepted ones.
    static func parse(_ value: String, option: String) throws(UsageError) -> Self {
        if let parsed = Self(rawValue: value) { return parsed }
        let names = allCases.map(\.rawValue)
        throw UsageError(
            "unknown \(option.drop { $0 == "-" }) '\(value)': use \(Suggest.list(names))",
            suggestion: Suggest.closest(to: value, among: names))
    }
}
