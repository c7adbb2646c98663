import Dispatch
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// The process host: the plug-in is loaded and called in a supervised child, `pathwatch
/// plugin-child`, never in the agent. The child is shared by every probe of the same plug-in
/// file (SharedChild); this host is one probe's instance in it. A child that crashes, exits or
/// aborts makes the call fail with the cause ("plug-in crashed: SIGSEGV (signal 11) during
/// sample of probe X") and is started again with backoff; one whose call overruns its deadline
/// by more than the grace is killed (no thread is ever left inside a plug-in). Each call's
/// deadline goes to the child in its frame, which hands it to the plug-in. Calls are serialised
/// by the caller; a sample's answer comes on the child's reader thread.
package final class ProcessProbeHost: ProbeHost, Sendable {
    package let plugin: LoadedPlugin
    package var isolation: Isolation { .process }
    package let probeID: String
    private let children: PluginChildren
    private let child: SharedChild
    private let instance: UInt32
    private let healthCell: HealthCell
    private let destroyed = Atomic<Bool>(false)

    package struct ChildLimits: Sendable {
        package var maxMemoryBytes: UInt64
        package var maxObservations: Int
        /// The probe's timeout: the deadline of the events the child serves itself.
        package var probeTimeout: ConfigDuration
        /// Loading the plug-in, and then creating an instance, may each take this long (create
        /// is told it as its deadline, and killed only after the grace).
        package var createTimeout: ConfigDuration

        package init(maxMemoryBytes: UInt64, maxObservations: Int, probeTimeout: ConfigDuration) {
            self.maxMemoryBytes = maxMemoryBytes
            self.maxObservations = maxObservations
            self.probeTimeout = probeTimeout
            createTimeout = CallDeadlines.createTimeout(probeTimeout: probeTimeout)
        }
    }

    /// A host for `probeID`, its instance created in its plug-in file's child (started first
    /// when none runs). A configuration the plug-in refuses comes back as the error; a child
    /// that dies while creating does not: the host is returned failed, and its samples say why
    /// until a restart succeeds.
    package static func create(
        plugin: LoadedPlugin, probeID: String, configJSON: String, limits: ChildLimits, logger: AgentLogger,
        children: PluginChildren
    ) -> Result<ProcessProbeHost, JSONPathError> {
        let (child, instance) = children.reserve(
            plugin: plugin, maxMemoryBytes: limits.maxMemoryBytes, logger: logger, probeID: probeID,
            configJSON: configJSON, limits: limits)
        if case .refused(let error) = child.join(instance) {
            children.leave(child, instance)
            return .failure(error)
        }
        return .success(
            ProcessProbeHost(plugin: plugin, probeID: probeID, children: children, child: child, instance: instance))
    }

    private init(plugin: LoadedPlugin, probeID: String, children: PluginChildren, child: SharedChild, instance: UInt32)
    {
        self.plugin = plugin
        self.probeID = probeID
        self.children = children
        self.child = child
        self.instance = instance
        healthCell = child.healthCell(of: instance)
    }

    /// Sends the call and lets this thread go: `done` runs on the child's reader thread.
    package func sample(by deadline: Deadline, then done: @escaping @Sendable (CallResult) -> Void) {
        child.sample(instance, by: deadline, then: done)
    }

    /// Waits for the answer on this thread (a trial, a test).
    package func sample(by deadline: Deadline) -> CallResult {
        let answer = Mutex<CallResult?>(nil)
        let answered = DispatchSemaphore(value: 0)
        child.sample(instance, by: deadline) { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        answered.wait()
        return answer.withLock { $0 } ?? CallResult(observations: [], error: "plug-in gave no answer", problems: [])
    }

    /// The child polls its plug-in's descriptor itself.
    package func eventFileDescriptor() -> Int32? { nil }
    package func handleEvent(by deadline: Deadline) -> CallResult {
        CallResult(observations: [], error: nil, problems: [])
    }

    package func forwardEvents(to deliver: @escaping @Sendable (CallResult) -> Void) {
        child.forwardEvents(of: instance, to: deliver)
    }

    /// The child guards the descriptor it polls, and says when it throttles it (DrainGuard).
    package func forwardDescriptorNotices(to notice: @escaping @Sendable (EventDescriptorNotice) -> Void) {
        child.forwardDescriptorNotices(of: instance, to: notice)
    }

    /// Kills the child, and with it every sibling instance: no thread can be taken back from
    /// a plug-in otherwise. This probe reports the reason; its siblings, that it was this one.
    package func abandonRunningCall(reason: String) {
        child.killChild(
            SharedChild.Kill(
                culprit: instance, culpritCause: "\(reason); plug-in restarted",
                siblingCause: "plug-in restarted: probe \(probeID) \(reason)"))
    }

    /// Stopping (a reload that removes the probe, the agent's stop): the caller is let go at
    /// once and the call left to finish, so siblings are not restarted for a call that returns;
    /// the destroy that follows kills the child only if it is still hung 2 s later.
    package func abandonRunningCallToStop() {
        child.release(instance, cause: "stopped")
    }

    package var health: ProbeHealth { healthCell.current }

    /// The child's answers all come through one socket and one reader, shared by every sibling.
    package var answerMayBeUnread: Bool { child.state.withLock { $0.child }?.answerMayBeUnread ?? false }

    /// Destroys the instance; the last one of its child ends the child (and waits for it, so
    /// what it printed on the way out is logged before the agent goes on or exits).
    package func destroy() {
        guard !destroyed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        children.leave(child, instance)
    }
}
