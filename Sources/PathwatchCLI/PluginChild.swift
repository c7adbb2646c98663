import ArgumentParser
import PathwatchAgent
import PathwatchCommands
import PathwatchPluginHost

extension Pathwatch {
    /// The child of process isolation: the agent re-runs itself with this hidden subcommand to
    /// load one plug-in and serve its calls over descriptor 3. Not for people. The agent's
    /// executable reads the command lines it writes itself (PluginChildArguments); this
    /// definition gives every other form ArgumentParser's messages.
    struct PluginChildCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plugin-child", abstract: "Serve one plug-in to the agent (internal).", shouldDisplay: false)

        @Option(help: "The plug-in library (several with --describe).") var plugin: [String]
        @Flag(help: "Only read each file's descriptor, then exit.") var describe = false
        @Option(help: "Heap limit in bytes (RLIMIT_DATA).") var maxMemory: UInt64?
        @Option(help: "Observations one call may emit.") var maxObservations = PluginChildServing.defaultMaxObservations

        func run() async throws {
            await PluginChildServing.serve(
                PluginChild.Options(
                    paths: plugin, describeOnly: describe, maxMemoryBytes: maxMemory, maxObservations: maxObservations))
        }
    }
}
