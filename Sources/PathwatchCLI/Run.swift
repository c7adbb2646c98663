import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the agent until SIGINT or SIGTERM; SIGHUP reloads the configuration.")

        @OptionGroup var options: CommonOptions

        /// Handed back to `pathwatch` in the plain form: the agent runs only there.
        func run() throws {
            AgentExecutable.replaceProcess(
                with: PlainArguments(command: .run, options: options.plain), program: CommandLine.arguments[0])
        }
    }
}
