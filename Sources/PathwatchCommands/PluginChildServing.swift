import PathwatchAgent

/// The child of process isolation: the agent re-runs itself as `pathwatch plugin-child …` to load
/// one plug-in and serve its calls over descriptor 3.
public enum PluginChildServing {
    /// `--max-observations` when the agent gives none (both readings of the command line).
    public static let defaultMaxObservations = 10_000

    /// Serves on the calling thread until the agent is done, then ends the process with the
    /// serving loop's status. The agent's executable calls this from its main thread.
    public static func serveOnThisThread(_ options: PluginChild.Options) -> Never {
        exitProcess(PluginChild.serve(options))
    }

    /// `serveOnThisThread` from an asynchronous command (the command-line companion's reading).
    public static func serve(_ options: PluginChild.Options) async -> Never {
        // The serving loop blocks on its socket: on a thread of its own, not the cooperative pool.
        exitProcess(await onThreadOfItsOwn(named: "pw-plugin-child") { PluginChild.serve(options) })
    }
}
