import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract:
                "Validate the configuration and every plug-in it names, without running probes; exit 0 valid, 78 invalid."
        )

        @OptionGroup var options: CommonOptions

        /// Checked by the agent's executable, which reads every sink kind as the agent runs it.
        func run() throws {
            AgentExecutable.replaceProcess(
                with: PlainArguments(command: .checkConfig, options: options.plain), program: CommandLine.arguments[0])
        }
    }
}
