/// `--help`, the usage line and the command list, generated from the commands' specs and
/// wrapped at 100 columns: NAME, USAGE, the prose, ARGUMENTS, one block per option group,
/// then the command's own sections (EXIT STATUS, …).
enum Help {
    /// The widest line of help.
    static let width = 100
    /// The column where an option's help starts (after two spaces and its label).
    static let helpColumn = 26

    /// A command's whole `--help`.
    static func text(_ c: CommandInfo) -> String {
        let name = "NAME: castscope \(c.name) - "
        var out = name + String(wrap(c.abstract, indent: name.count).dropFirst(name.count)) + "\n"
        out += fullUsage(c) + "\n"
        if !c.discussion.isEmpty { out += "\n" + c.discussion + "\n" }
        if let operand = c.operand {
            out += "\nARGUMENTS:\n" + row(operand.synopsis, operand.help)
        }
        var groups = c.groups
        if let last = groups.indices.last, groups[last].title == "OPTIONS" {
            groups[last].options.append(.help)
        } else {
            groups.append((title: "OPTIONS", options: [.help], note: nil))
        }
        for group in groups {
            out += "\n\(group.title):\n"
            for option in group.options { out += rows(option) }
            if let note = group.note { out += wrap(note, indent: 2) }
        }
        for section in c.sections { out += "\n\(section.title):\n\(section.body)\n" }
        return out
    }

    /// An option's rows: one per value for a choice option with per-value help, else one.
    static func rows(_ option: OptionInfo) -> String {
        guard !option.choices.isEmpty else { return row(option.label, option.help) }
        var out = option.help.isEmpty ? "" : row(option.label, option.help)
        for choice in option.choices { out += row(option.long + " " + choice.value, choice.help) }
        return out
    }

    /// `  LABEL   help…`, the help wrapped in its column (on the next line if the label is wide).
    static func row(_ label: String, _ help: String) -> String {
        let first = "  " + label
        if first.count > helpColumn - 2 {
            return first + "\n" + wrap(help, indent: helpColumn)
        }
        let wrapped = wrap(help, indent: helpColumn)
        return first + String(wrapped.dropFirst(first.count))
    }

    /// `text` filled to ``width`` columns, every line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int, width: Int = Help.width) -> String {
        let pad = String(repeating: " ", count: indent)
        var out = ""
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent + line.count + 1 + word.count > width {
                out += pad + line + "\n"
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || out.isEmpty { out += pad + line + "\n" }
        return out
    }

    /// The options and operands of a command in usage order: required options first.
    static func synopsisItems(_ c: CommandInfo) -> [String] {
        let options = c.groups.flatMap(\.options)
        return options.filter(\.required).map(\.synopsis) + options.filter { !$0.required }.map(\.synopsis)
            + (c.operand.map { [$0.synopsis] } ?? [])
    }

    /// `USAGE: castscope analyze [-r FILE]... … FILE...`, every option named, wrapped under
    /// the command name; then the other forms.
    static func fullUsage(_ c: CommandInfo) -> String {
        let head = "USAGE: castscope \(c.name)"
        let pad = String(repeating: " ", count: head.count)
        var lines = [head]
        for item in synopsisItems(c) {
            if lines[lines.count - 1].count + 1 + item.count > width { lines.append(pad) }
            lines[lines.count - 1] += " " + item
        }
        for other in c.otherSynopses { lines.append("       castscope \(c.name) \(other)") }
        return lines.joined(separator: "\n")
    }

    /// The one-line usage of a usage error: `USAGE: castscope extract -o FILE [OPTIONS] FILE...`.
    static func shortUsage(_ c: CommandInfo) -> String {
        let required = c.groups.flatMap(\.options).filter(\.required).map(\.synopsis)
        let optional = c.groups.contains { !$0.options.isEmpty } ? ["[OPTIONS]"] : []
        return (["USAGE: castscope", c.name] + required + optional + (c.operand.map { [$0.synopsis] } ?? []))
            .joined(separator: " ")
    }
}
