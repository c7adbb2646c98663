import PathwatchSinkKit
import Synchronization

/// The plug-in children of one agent (or one `once`, one `check-config`): one per plug-in file
/// and `max_memory` (the heap limit is the child's), shared by every probe that runs that file
/// in process isolation. A reload that keeps some probes of a file and adds or removes others
/// creates and destroys only those instances; the child, and the kept instances, go on.
package final class PluginChildren: Sendable {
    private struct Key: Hashable {
        var path: String
        var maxMemoryBytes: UInt64
    }

    private let children = Mutex<[Key: SharedChild]>([:])
    private let launch: ChildLaunch

    /// `clock` times the children's restart backoff; `executable` is the program started as each
    /// child (nil: this one; a test in process names the agent binary).
    package init(clock: any AgentClock = SystemClock(), executable: String? = nil) {
        launch = ChildLaunch(clock: clock, executable: executable ?? ChildProcess.executable)
    }

    /// The child for `plugin` with `maxMemoryBytes`, started on first use, and an instance
    /// reserved in it for `probeID` (reserved under this lock, so that the last instance
    /// leaving cannot close the child under a probe joining it).
    package func reserve(
        plugin: LoadedPlugin, maxMemoryBytes: UInt64, logger: AgentLogger,
        probeID: String, configJSON: String, limits: ProcessProbeHost.ChildLimits
    ) -> (SharedChild, UInt32) {
        children.withLock { children in
            let key = Key(path: plugin.path, maxMemoryBytes: maxMemoryBytes)
            let child =
                children[key]
                ?? SharedChild(plugin: plugin, maxMemoryBytes: maxMemoryBytes, logger: logger, launch: launch)
            children[key] = child
            return (child, child.reserve(probeID: probeID, configJSON: configJSON, limits: limits))
        }
    }

    /// Destroys instance `id` and forgets it; the last instance of a child ends the child.
    package func leave(_ child: SharedChild, _ id: UInt32) {
        child.destroy(id)
        let last = children.withLock { children -> Bool in
            guard child.remove(id) else { return false }
            let key = Key(path: child.plugin.path, maxMemoryBytes: child.maxMemoryBytes)
            if children[key] === child { children[key] = nil }
            return true
        }
        if last { child.close() }
    }
}

/// How the children of one agent are started and timed: the program run as `plugin-child` (the
/// agent itself, or the agent binary a test names) and the clock their restart backoff is on.
package struct ChildLaunch: Sendable {
    package var clock: any AgentClock
    package var executable: String
}
