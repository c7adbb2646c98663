import ArgumentParser
import Dispatch
import PathwatchAgent

extension Pathwatch {
    /// The child of process isolation: the agent re-runs itself with this hidden subcommand to
    /// load one plug-in and serve its calls over descriptor 3. Not for people.
    struct PluginChildCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plugin-child", abstract: "Serve one plug-in to the agent (internal).", shouldDisplay: false)

        @Option(help: "The plug-in library (several with --describe).") var plugin: [String]
        @Flag(help: "Only read each file's descriptor, then exit.") var describe = false
        @Option(help: "Heap limit in bytes (RLIMIT_DATA).") var maxMemory: UInt64?
        @Option(help: "Observations one call may emit.") var maxObservations = Self.defaultMaxObservations

        /// `--max-observations` when the agent gives none (both readings of the command line).
        static let defaultMaxObservations = 10_000

        func run() async throws {
            await Self.serve(PluginChild.Options(paths: plugin, describeOnly: describe, maxMemoryBytes: maxMemory, maxObservations: maxObservations))
        }

        /// Serves until the agent is done, then ends the process with the serving loop's status.
        static func serve(_ options: PluginChild.Options) async -> Never {
            // The serving loop blocks on its socket: on a thread of its own, not the cooperative pool.
            let status: Int32 = await withCheckedContinuation { done in
                DispatchQueue(label: "pathwatch.plugin-child").async { done.resume(returning: PluginChild.serve(options)) }
            }
            exitProcess(status)
        }
    }
}
