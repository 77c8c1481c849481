import Pipeline

// castscope: the command-line front end. Argument parsing, exit codes and wiring only; the
// work is done in PcapCapture, WireFormat and Reports. The commands and their options are
// declared in CLI/ (one spec per command); Commands.main dispatches on the first argument.

let version = "0.1.0"

MemoryPolicy.apply()
finish(Commands.main(Array(CommandLine.arguments.dropFirst())))
