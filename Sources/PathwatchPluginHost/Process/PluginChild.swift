import CFaultReport
import CPathwatchProbe
import Dispatch
import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// The child side of process isolation: `pathwatch plugin-child` loads one plug-in file and
/// hosts every instance the agent creates of it (one per probe using that file), reading the
/// agent's calls over the socketpair on descriptor 3 and handing each to its instance's own
/// thread (ChildInstances), which also polls an event-driven instance's descriptor and streams
/// what `handle_event` emits. Its stdout and stderr are pipes the agent reads: whatever the
/// plug-in prints goes there.
package enum PluginChild {
    /// The descriptor the agent hands the socketpair's child end on.
    package static let socketDescriptor: Int32 = 3
    /// Where the child writes the instance a crash or exit() happened in (CFaultReport).
    package static let faultDescriptor: Int32 = 4
    /// Where the child hands its call guard's listener to the agent (AgentSignalGuard).
    package static let supervisionDescriptor: Int32 = 5

    package struct Options: Sendable {
        /// The plug-in to serve; with `describeOnly`, every file to describe, in order.
        package var paths: [String]
        package var describeOnly: Bool
        package var maxMemoryBytes: UInt64?
        package var maxObservations: Int
        package init(paths: [String], describeOnly: Bool, maxMemoryBytes: UInt64?, maxObservations: Int) {
            self.paths = paths
            self.describeOnly = describeOnly
            self.maxMemoryBytes = maxMemoryBytes
            self.maxObservations = maxObservations
        }
    }

    /// Serves until the agent closes the socket; returns the exit status.
    package static func serve(_ options: Options) -> Int32 {
        // The agent's heap settings, before the plug-ins' threads allocate (HeapSettings).
        HeapSettings.applyInChild()
        let fd = socketDescriptor
        let agentPidfd = options.describeOnly ? -1 : AgentSignalGuard.openAgentPidfd()
        AgentSignalGuard.install(supervision: supervisionDescriptor)
        if let bytes = options.maxMemoryBytes {
            // RLIMIT_DATA bounds the heap (brk and private anonymous mappings): a leaking plug-in
            // gets NULL from malloc, or dies, in its own process.
            var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
            _ = setrlimit(Int32(RLIMIT_DATA.rawValue), &limit)
        }
        if options.describeOnly {
            // One frame per file, in order: if a file's constructor ends this process, the agent
            // knows which one it was from the frames it got, and goes on in a new child.
            for path in options.paths {
                let frame: JSONValue
                switch PluginLoader.load(path) {
                case .failure(let refusal): frame = ["file": .string(path), "refused": .string(refusal.reason)]
                case .success(let loaded): frame = ["file": .string(path), "described": WireCodec.encode(loaded)]
                }
                guard Frames.write(body: Frames.body(frame), instance: 0, to: fd) else { return 1 }
            }
            return 0
        }
        guard let path = options.paths.first else { return 64 }
        // The agent's sockets are this process's alone: a process the plug-in starts must not
        // keep them open after this one is gone (the agent learns of its end from them).
        _ = fcntl(socketDescriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(faultDescriptor, F_SETFD, FD_CLOEXEC)
        exitWhenOrphaned(agentPidfd)
        pw_fault_report_install(faultDescriptor)
        let plugin: LoadedPlugin
        switch PluginLoader.load(path) {
        case .failure(let refusal):
            _ = Frames.write(body: Frames.body(["refused": .string(refusal.reason)]), instance: 0, to: fd)
            return 0
        case .success(let loaded):
            plugin = loaded
            guard Frames.write(body: Frames.body(["described": WireCodec.encode(loaded)]), instance: 0, to: fd) else {
                return 1
            }
        }
        let instances = ChildInstances(plugin: plugin, socket: fd, defaultMaxObservations: options.maxObservations)
        var calls = FrameReader(fd: fd)
        while true {
            guard let request = calls.next() else {
                instances.destroyAll()
                // What the plug-in started and left running ends with this process, found while
                // its parent links still lead here (ProcessSweep).
                ProcessSweep.end(treeOf: getpid())
                return 0
            }
            guard let call = request["call"]?.stringValue, let id = CallFrames.instance(in: request),
                instances.serve(call, instance: id, request: request)
            else { return 1 }
        }
    }

    /// A child must not outlive its agent (a spinning plug-in would keep its core after the
    /// agent was killed). PR_SET_PDEATHSIG follows the thread that started the child, and the
    /// agent starts children from worker threads that come and go, so a thread of the child's
    /// own waits for the agent to end instead; it runs even while the plug-in spins. It waits on
    /// the agent's pidfd, readable when the agent ends: no wake-up until then (a thousand idle
    /// children used to wake once a second each to look). Without a pidfd (a kernel before 5.3)
    /// it looks for a new parent once a second.
    private static func exitWhenOrphaned(_ agentPidfd: Int32) {
        if agentPidfd >= 0 {
            SerialThread(name: "pw-orphan-watch").async {
                var ended = pollfd(fd: agentPidfd, events: Int16(POLLIN), revents: 0)
                while poll(&ended, 1, -1) < 0, errno == EINTR {}
                _exit(70)
            }
            return
        }
        let parent = getppid()
        SerialThread(name: "pw-orphan-watch").async {
            while getppid() == parent { sleep(1) }
            _exit(70)
        }
    }
}
