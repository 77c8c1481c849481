import Pipeline
/// `castscope help [COMMAND]` and `castscope help --man`.
enum HelpCommand {
    struct Options {
        var command: String?
        var man = false
    }

    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "help",
            abstract: "Show the help of castscope or of a command.",
            discussion: "`castscope help COMMAND` is the same as `castscope COMMAND --help`.",
            groups: [
                OptionGroup(
                    "OPTIONS",
                    [
                        .flag("--man", help: "Print the manual page of castscope and every command (roff, man(7)).") {
                            $0.man = true
                        }
                    ])
            ],
            operands: OperandSpec(
                name: "COMMAND", help: "The command to show the help of.", repeating: false, optional: true,
                completion: .command
            ) { o, v throws(UsageError) in
                if o.command != nil { throw UsageError("unexpected argument '\(v)'") }
                o.command = v
            },
            defaults: Options())
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let spec = spec
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        if o.man {
            Output.standardOutput.write(ManPage.render(Commands.all.map(\.info)))
            return .success
        }
        guard let name = o.command else {
            Output.standardOutput.write(Commands.overview)
            return .success
        }
        switch Commands.find(name) {
        case .success(let entry):
            Output.standardOutput.write(Help.text(entry.info))
            return .success
        case .failure(let error):
            error.report(command: "help", usage: Help.shortUsage(spec.info))
            return .usage
        }
    }
}

/// `castscope completion bash|zsh|fish`: the shell completion script, generated from the specs.
enum CompletionCommand {
    enum Shell: String, ChoiceValue {
        case bash, zsh, fish

        var help: String {
            switch self {
            case .bash: "For bash (bash-completion)."
            case .zsh: "For zsh (compinit)."
            case .fish: "For fish."
            }
        }
    }

    struct Options {
        var shell: Shell?
    }

    static var spec: CommandSpec<Options> {
        CommandSpec(
            name: "completion",
            abstract: "Print the shell completion script for bash, zsh or fish.",
            discussion: """
                Prints a script that completes castscope's commands, options and their values. To use it
                now: `source <(castscope completion bash)`; `make install` puts all three where the shells
                look for them.
                """,
            groups: [],
            operands: OperandSpec(
                name: "SHELL", help: "bash, zsh or fish.", repeating: false,
                completion: .choices(Shell.allCases.map(\.rawValue))
            ) { o, v throws(UsageError) in
                if o.shell != nil { throw UsageError("unexpected argument '\(v)'") }
                o.shell = try Shell.parse(v, option: "shell")
            },
            defaults: Options(),
            validate: { o throws(UsageError) in
                if o.shell == nil { throw UsageError("name a shell: bash, zsh or fish") }
            })
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        let o: Options
        switch spec.parseOrExit(arguments) {
        case .success(let parsed): o = parsed
        case .failure(let exit): return exit.status
        }
        let commands = Commands.all.map(\.info)
        switch o.shell! {
        case .bash: Output.standardOutput.write(Completion.bash(commands))
        case .zsh: Output.standardOutput.write(Completion.zsh(commands))
        case .fish: Output.standardOutput.write(Completion.fish(commands))
        }
        return .success
    }
}
