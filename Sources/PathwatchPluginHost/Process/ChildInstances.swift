import CFaultReport
import Dispatch
import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// The instances one plug-in child hosts: every probe of its plug-in file, each created by its
/// own `create` (its own handle; the ABI is unchanged) and served on a lane of its own.
///
/// A call into one instance must never overlap another call into the same instance (the ABI
/// promises that, as inline probes get it from their runner), and a slow or hung `sample` must
/// not hold a sibling's call. A lane of the child's worker pool gives both: one instance's calls
/// in order, different instances' side by side, and a thread added when a hung call holds one
/// (WorkerPool), so a thousand instances of loadavg share a couple of threads instead of one
/// each. An event-driven instance's descriptor wants a thread that sleeps on it between calls:
/// such an instance has a thread of its own, as its runner has inline.
package final class ChildInstances: Sendable {
    private final class Slot: Sendable {
        /// Where the instance's calls run: `watcher` for an event-driven plug-in, a pool lane otherwise.
        let thread: any JobLane
        /// The thread that also watches the instance's event descriptor; nil for a lane.
        let watcher: SerialThread?
        let instance = Mutex<ProbeInstance?>(nil)
        let id: UInt32

        init(eventDriven: Bool, id: UInt32) {
            self.id = id
            if eventDriven {
                let thread = SerialThread(name: "pw-instance-\(id)", watchingDescriptors: true)
                watcher = thread
                self.thread = thread
            } else {
                watcher = nil
                thread = WorkerPool.shared.lane()
            }
        }

        /// Runs `body` on the instance's lane, with the thread marked as serving this instance
        /// while it runs: a crash or exit() inside the plug-in is then this probe's (CFaultReport).
        func async(_ body: @escaping @Sendable () -> Void) {
            thread.async { [id] in
                pw_fault_report_set_instance(id)
                body()
                pw_fault_report_set_instance(0)
            }
        }
    }

    private let plugin: LoadedPlugin
    private let defaultMaxObservations: Int
    private let slots = Mutex<[UInt32: Slot]>([:])
    /// Replies come from every instance's thread, and go out in order, gathered (FrameOutbox).
    /// The agent gone, there is no one left to serve: the child ends at once (`_exit`: other
    /// threads may be inside the plug-in).
    private let outbox: FrameOutbox
    /// Samples taken from the agent and not yet answered. A sample's answer is held while
    /// others run (a tick's calls), to go with theirs in one write; the last one's goes at
    /// once, and one held longer than the outbox's bound goes with the next (a hung sibling).
    private let samplesRunning = Atomic<Int>(0)

    package init(plugin: LoadedPlugin, socket: Int32, defaultMaxObservations: Int) {
        self.plugin = plugin
        self.defaultMaxObservations = defaultMaxObservations
        outbox = FrameOutbox(socket: socket) { _exit(1) }
    }

    /// Hands `request` to its instance's thread; false for a call this child does not know.
    package func serve(_ call: String, instance id: UInt32, request: JSONValue) -> Bool {
        switch call {
        case "create":
            create(id, request: request)
        case "sample":
            let deadline = CallFrames.deadline(in: request)
            guard let slot = slots.withLock({ $0[id] }) else {
                let missing = CallResult(
                    observations: [], error: "no instance \(id) in this plug-in's child", problems: [])
                send(ResultFrames.encode(.sampled, missing), for: id)
                return true
            }
            samplesRunning.add(1, ordering: .relaxed)
            slot.async { [self] in
                let record = slot.instance.withLock { $0 }?.sampleRecord(by: deadline)
                let othersRunning = samplesRunning.subtract(1, ordering: .relaxed).newValue > 0
                send(
                    record
                        ?? ResultFrames.encode(
                            .sampled, CallResult(observations: [], error: "instance \(id) not created", problems: [])),
                    for: id, held: othersRunning)
                // What the sample made is freed once its record is sent: a large one's heap goes back.
                HeapTrim.consumed(observations: record.map(ResultFrames.observationCount) ?? 0)
            }
        case "destroy":
            let slot = slots.withLock { $0.removeValue(forKey: id) }
            guard let slot else {
                send(Frames.body(["destroyed": true]), for: id)
                return true
            }
            slot.watcher?.unwatch()
            slot.async { [self] in
                slot.instance.withLock { $0 }?.destroy()
                send(Frames.body(["destroyed": true]), for: id)
            }
            slot.thread.finish()
        default:
            return false
        }
        return true
    }

    private func create(_ id: UInt32, request: JSONValue) {
        let slot = Slot(eventDriven: plugin.isEventDriven, id: id)
        slots.withLock { $0[id] = slot }
        let config = request["config"]?.stringValue ?? "{}"
        let deadline = CallFrames.deadline(in: request)
        // handle_event's deadline is the probe's timeout from when the event is served.
        let eventTimeout = CallFrames.timeout(in: request)
        let maxObservations = CallFrames.maxObservations(in: request) ?? defaultMaxObservations
        slot.async { [self, plugin] in
            switch ProbeInstance.create(
                plugin: plugin, configJSON: config, maxObservations: maxObservations, deadline: deadline)
            {
            case .success(let created):
                slot.instance.withLock { $0 = created }
                if let fd = created.eventFileDescriptor(), let watcher = slot.watcher {
                    watcher.watch(
                        fd,
                        onReadable: { [self] in
                            pw_fault_report_set_instance(id)
                            defer { pw_fault_report_set_instance(0) }
                            send(created.handleEventRecord(by: eventTimeout.map { Deadline.after($0) }), for: id)
                        }, onClosed: {},
                        // The agent's runner logs it and shows it in the probe's health.
                        onUndrained: { [self] change in
                            send(
                                Frames.body(["event_descriptor": .string(EventDescriptorNotice(change).wireName)]),
                                for: id)
                        })
                }
                send(Frames.body(["created": true]), for: id)
            case .failure(let error):
                slots.withLock { $0[id] = nil }
                // The empty path as "", not its rendering "(root)", which would parse back as a key.
                let path = error.path.components.isEmpty ? "" : error.path.description
                send(
                    Frames.body(["refused_config": ["path": .string(path), "message": .string(error.message)]]), for: id
                )
                slot.thread.finish()
            }
        }
    }

    /// The agent closed its end: every instance is destroyed on its own thread, and the child
    /// exits once all are (the agent kills a child still busy after a grace).
    package func destroyAll() {
        let all = slots.withLock { s -> [Slot] in
            defer { s.removeAll() }
            return Array(s.values)
        }
        let done = DispatchGroup()
        for slot in all {
            done.enter()
            slot.watcher?.unwatch()
            slot.async {
                slot.instance.withLock { $0 }?.destroy()
                done.leave()
            }
            slot.thread.finish()
        }
        done.wait()
    }

    /// A frame for instance `id`, held to go with the next write when `held`; one too long for
    /// a frame ends the child, as a failed write does.
    private func send(_ body: [UInt8], for id: UInt32, held: Bool = false) {
        guard let header = Frames.header(body: body, instance: id) else { _exit(1) }
        if held {
            outbox.enqueueHeld(header, body)
        } else {
            outbox.enqueue(header, body)
        }
    }
}
