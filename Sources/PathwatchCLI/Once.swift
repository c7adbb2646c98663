import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct Once: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "once",
            abstract:
                "Sample every probe once and print the status document; exit 0 ok, 1 warning, 2 critical, 3 unknown.")

        @OptionGroup var options: CommonOptions

        @Option(
            help:
                "Output format: json (the status document), text (a table for people) or nagios (one Nagios/Icinga plug-in line with performance data; a configuration error is then UNKNOWN, exit 3)."
        )
        var format: OnceFormat = .json

        /// Handed back to `pathwatch` in the plain form: the agent runs only there.
        func run() throws {
            AgentExecutable.replaceProcess(
                with: PlainArguments(command: .once, options: options.plain, format: format),
                program: CommandLine.arguments[0])
        }
    }
}
