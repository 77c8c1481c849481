/// The one argument grammar of every castscope command, read from its ``CommandSpec``:
/// operands anywhere, `-` for standard input, `--` ending the options, `--name=value` or
/// `--name value`, short options alone (`-q`), clustered (`-qD`) or with the value attached
/// (`-c5`, `-ieth0`). An option's value is the next argument even when it starts with `-`, so
/// `--session-gap -3` is read as a (bad) gap, not as an option.
extension CommandSpec {
    func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var o = defaults
        let table = Dictionary(
            groups.flatMap(\.options).flatMap { option in option.info.names.map { ($0, option) } },
            uniquingKeysWith: { first, _ in first })
        let longNames = groups.flatMap(\.options).map(\.info.long) + ["--help"]
        var index = 0
        var onlyOperands = false

        func operand(_ value: String) throws(UsageError) {
            guard let operands else { throw UsageError("unexpected argument '\(value)'") }
            try operands.apply(&o, value)
        }
        func nextValue(for name: String) throws(UsageError) -> String {
            guard index < arguments.count else { throw UsageError("\(name) needs a value") }
            index += 1
            return arguments[index - 1]
        }
        func unknown(_ name: String) -> UsageError {
            // `-merge` for `--merge`: compare single-dash words with the long names too.
            let asLong = name.hasPrefix("--") ? name : "-" + name
            let suggestion = longNames.contains(asLong) ? asLong : Suggest.closest(to: asLong, among: longNames)
            return UsageError("unknown option '\(name)'", suggestion: suggestion)
        }

        do throws(UsageError) {
            while index < arguments.count {
                let argument = arguments[index]
                index += 1
                if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                    try operand(argument)
                } else if argument == "--" {
                    onlyOperands = true
                } else if argument.hasPrefix("--") {
                    var name = argument
                    var inline: String?
                    if let equals = argument.firstIndex(of: "=") {
                        name = String(argument[..<equals])
                        inline = String(argument[argument.index(after: equals)...])
                    }
                    if name == "--help" { throw UsageError.helpRequest }
                    guard let option = table[name] else { throw unknown(name) }
                    if option.info.valueName == nil {
                        if inline != nil { throw UsageError("\(name) takes no value") }
                        try option.apply(&o, "")
                    } else {
                        if let inline {
                            try option.apply(&o, inline)
                        } else {
                            try option.apply(&o, try nextValue(for: name))
                        }
                    }
                } else {
                    // A cluster of short options; one that takes a value ends it.
                    var rest = Substring(argument.dropFirst())
                    while let letter = rest.first {
                        rest = rest.dropFirst()
                        let name = "-" + String(letter)
                        if name == "-h" { throw UsageError.helpRequest }
                        guard let option = table[name] else {
                            throw unknown(rest.count + 2 == argument.count ? argument : name)
                        }
                        if option.info.valueName == nil {
                            try option.apply(&o, "")
                        } else {
                            try option.apply(&o, rest.isEmpty ? try nextValue(for: name) : String(rest))
                            break
                        }
                    }
                }
            }
            try validate(&o)
        } catch {
            return .failure(error)
        }
        return .success(o)
    }
}
