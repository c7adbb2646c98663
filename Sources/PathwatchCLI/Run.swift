import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the agent until SIGINT or SIGTERM; SIGHUP reloads the configuration.")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            await RunCommand.execute(options: options)
        }
    }
}
