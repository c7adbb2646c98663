import PathwatchProbeKit
import CPathwatchProbe
import Dispatch

/// The child side of process isolation: `pathwatch plugin-child` loads one plug-in and serves
/// the agent's calls over the socketpair on descriptor 3, one at a time, on one thread. Between
/// calls it polls the instance's event descriptor itself and streams what `handle_event` emits.
/// Its stdout and stderr are pipes the agent reads: whatever the plug-in prints goes there.
public enum PluginChild {
    /// The descriptor the agent hands the socketpair's child end on.
    public static let socketDescriptor: Int32 = 3

    public struct Options: Sendable {
        /// The plug-in to serve; with `describeOnly`, every file to describe, in order.
        public var paths: [String]
        public var describeOnly: Bool
        public var maxMemoryBytes: UInt64?
        public var maxObservations: Int
        public init(paths: [String], describeOnly: Bool, maxMemoryBytes: UInt64?, maxObservations: Int) {
            self.paths = paths
            self.describeOnly = describeOnly
            self.maxMemoryBytes = maxMemoryBytes
            self.maxObservations = maxObservations
        }
    }

    /// Serves until the agent closes the socket; returns the exit status.
    public static func serve(_ options: Options) -> Int32 {
        let fd = socketDescriptor
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
                guard Frames.write(frame, to: fd) else { return 1 }
            }
            return 0
        }
        guard let path = options.paths.first else { return 64 }
        exitWhenOrphaned()
        let plugin: LoadedPlugin
        switch PluginLoader.load(path) {
        case .failure(let refusal):
            _ = Frames.write(["refused": .string(refusal.reason)], to: fd)
            return 0
        case .success(let loaded):
            plugin = loaded
            guard Frames.write(["described": WireCodec.encode(loaded)], to: fd) else { return 1 }
        }
        var instance: ProbeInstance?
        var eventFD: Int32?
        // handle_event's deadline is the probe's timeout from when the event is served.
        var eventTimeout: ConfigDuration?
        while true {
            var polls = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            if let eventFD { polls.append(pollfd(fd: eventFD, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&polls, nfds_t(polls.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                return 1
            }
            if polls.count > 1, polls[1].revents != 0, let instance {
                guard Frames.write(body: instance.handleEventRecord(by: eventTimeout.map { Deadline.after($0) }), to: fd) else { return 1 }
            }
            guard polls[0].revents != 0 else { continue }
            guard let request = Frames.read(from: fd), let call = request["call"]?.stringValue else {
                instance?.destroy()
                return 0
            }
            let reply: [UInt8]
            switch call {
            case "sample":
                guard let instance else { return 1 }
                reply = instance.sampleRecord(by: CallFrames.deadline(in: request))
            case "create":
                let created = ProbeInstance.create(
                    plugin: plugin, configJSON: request["config"]?.stringValue ?? "{}", maxObservations: options.maxObservations,
                    deadline: CallFrames.deadline(in: request))
                switch created {
                case .success(let created):
                    instance = created
                    eventFD = created.eventFileDescriptor()
                    eventTimeout = CallFrames.timeout(in: request)
                    reply = Frames.body(["created": true])
                case .failure(let error):
                    // The empty path as "", not its rendering "(root)", which would parse back as a key.
                    let path = error.path.components.isEmpty ? "" : error.path.description
                    reply = Frames.body(["refused_config": ["path": .string(path), "message": .string(error.message)]])
                }
            case "destroy":
                instance?.destroy()
                instance = nil
                eventFD = nil
                reply = Frames.body(["destroyed": true])
            default:
                return 1
            }
            guard Frames.write(body: reply, to: fd) else { return 1 }
        }
    }

    /// A child must not outlive its agent (a spinning plug-in would keep its core after the
    /// agent was killed). PR_SET_PDEATHSIG follows the thread that started the child, and the
    /// agent starts children from worker threads that come and go, so a thread of the child's
    /// own looks for a new parent once a second instead; it runs even while the plug-in spins.
    private static func exitWhenOrphaned() {
        let parent = getppid()
        SerialThread(name: "pw-orphan-watch").async {
            while getppid() == parent { sleep(1) }
            _exit(70)
        }
    }
}
