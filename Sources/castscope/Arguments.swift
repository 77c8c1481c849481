/// Walks command-line arguments the way every castscope command reads them: operands (files,
/// `-` for standard input), `--` ending the options, `--name=value` or `--name value`.
struct ArgumentScanner {
    /// One argument.
    enum Item {
        /// A file name (or `-`).
        case operand(String)
        /// An option, with its `=value` when written that way.
        case option(String, inline: String?)
    }

    private let arguments: [String]
    private var index = 0
    private var onlyOperands = false

    init(_ arguments: [String]) { self.arguments = arguments }

    /// The next operand or option, or `nil` at the end.
    mutating func next() -> Item? {
        while index < arguments.count {
            let a = arguments[index]
            index += 1
            if onlyOperands || a == "-" || !a.hasPrefix("-") { return .operand(a) }
            if a == "--" {
                onlyOperands = true
                continue
            }
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                return .option(String(a[..<eq]), inline: String(a[a.index(after: eq)...]))
            }
            return .option(a, inline: nil)
        }
        return nil
    }

    /// The value of option `name`: its `=value`, or the next argument.
    mutating func value(_ name: String, _ inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
        guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
        index += 1
        return arguments[index - 1]
    }

    /// A value that must be one of an enumeration's raw values; the error lists them.
    mutating func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ inline: String?, _: T.Type)
        throws(UsageError) -> T
    where T.RawValue == String {
        let v = try value(name, inline)
        guard let parsed = T(rawValue: v) else {
            let names = T.allCases.map(\.rawValue)
            let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names[0]
            throw UsageError(message: "unknown \(name.drop { $0 == "-" }) '\(v)': use \(list)")
        }
        return parsed
    }
}
