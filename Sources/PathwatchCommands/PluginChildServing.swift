import PathwatchAgent
import PathwatchBase
import PathwatchPluginHost

/// The child of process isolation: the agent re-runs itself as `pathwatch plugin-child …` to load
/// one plug-in and serve its calls over descriptor 3.
package enum PluginChildServing {
    /// `--max-observations` when the agent gives none (both readings of the command line).
    package static let defaultMaxObservations = 10_000

    /// Serves on the calling thread until the agent is done, then ends the process with the
    /// serving loop's status. The agent's executable calls this from its main thread.
    package static func serveOnThisThread(_ options: PluginChild.Options) -> Never {
        exitProcess(PluginChild.serve(options))
    }

    /// `serveOnThisThread` from an asynchronous command (the command-line companion's reading).
    package static func serve(_ options: PluginChild.Options) async -> Never {
        // The serving loop blocks on its socket: on a thread of its own, not the cooperative pool.
        exitProcess(await onThreadOfItsOwn(named: "pw-plugin-child") { PluginChild.serve(options) })
    }
}
