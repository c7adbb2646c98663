import Dispatch
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// One plug-in child shared by every probe that runs the same plug-in file in process isolation
/// (with the same `max_memory`: the heap limit is the child's): it loads the library once and
/// hosts one instance per probe, each made by its own `create` with its own handle. A thousand
/// probes of one plug-in cost one child, not a thousand (about 9 ms and a process's private
/// pages each).
///
/// Calls go straight to the child, each naming its instance, and their replies come back to the
/// instance's mailbox: calls for different instances are in flight at once, and the child runs
/// each instance on a thread of its own (ChildInstances), so a slow sample of one does not hold
/// its siblings. Starting the child and creating instances in it run one at a time (`lifecycle`).
///
/// The price of sharing: when the child ends — a crash, an `exit`, or a kill because one
/// instance overran its deadline by the grace — every instance it hosted ends with it. Each of
/// their probes reports the cause, naming the probe whose call it was ("plug-in crashed: SIGSEGV
/// (signal 11) during sample of probe X"), and the child is started again with the backoff,
/// re-creating every instance. Inline probes and other plug-in files are not touched.
package final class SharedChild: Sendable {
    package let plugin: LoadedPlugin
    package let maxMemoryBytes: UInt64
    package let logger: AgentLogger
    package let launch: ChildLaunch

    package typealias Member = SharedChildState.Member
    package typealias Kill = SharedChildState.Kill

    package let state = Mutex(SharedChildState())
    /// Each member's inbox, for the reader thread (SharedChildInbox says why apart from `state`).
    package let inboxes = Mutex<[UInt32: SharedChildInbox]>([:])
    /// Held while a child starts or instances are created in it (on the caller's own thread).
    package let lifecycle = DispatchSemaphore(value: 1)

    package init(plugin: LoadedPlugin, maxMemoryBytes: UInt64, logger: AgentLogger, launch: ChildLaunch) {
        (self.plugin, self.maxMemoryBytes, self.logger, self.launch) = (plugin, maxMemoryBytes, logger, launch)
    }

    /// Adds an instance for `probeID`, not yet created; its number names it on the wire.
    package func reserve(probeID: String, configJSON: String, limits: ProcessProbeHost.ChildLimits) -> UInt32 {
        let member = Member(probeID: probeID, configJSON: configJSON, limits: limits)
        let id = state.withLock { $0.reserve(member) }
        inboxes.withLock { $0[id] = SharedChildInbox(mailbox: member.mailbox) }
        return id
    }

    /// What creating an instance came to.
    package enum Creation {
        case created
        case refused(JSONPathError)
        /// Not created now: the child ended, or waits to restart; the instance is created with
        /// the others when it starts again.
        case pending
    }

    /// Creates instance `id` (reserved), starting the child first when none runs.
    package func join(_ id: UInt32) -> Creation {
        lifecycle.wait()
        defer { lifecycle.signal() }
        let (running, waiting) = state.withLock { s in (s.child != nil && s.loaded, s.restartScheduled) }
        if waiting { return .pending }
        if !running, !startChild() { return .pending }
        return create(id)
    }

    /// Samples instance `id`: sends the call and lets this thread go; `done` gets the result on
    /// the child's reader thread (or the cause, when the child ends or `release` lets the call
    /// go). A thousand probes' samples then cost no thread a wait each. While the child
    /// restarts, `done` gets the cause it ended with at once, on this thread.
    package func sample(_ id: UInt32, by deadline: Deadline, then done: @escaping @Sendable (CallResult) -> Void) {
        let started = MonotonicClock.nowNanoseconds()
        // A thousand probes share this child and its lock: each call takes it twice, once to
        // send and once with the answer.
        let ready = state.withLock { $0.beginSample(id) }
        let sending: SharedChildState.SampleSending
        switch ready {
        case .failure(let refusal):
            let took = Double(MonotonicClock.nowNanoseconds() - started) / 1e6
            state.withLock { $0.members[id]?.health.lastDurationMilliseconds = took }
            return done(CallResult(observations: [], error: refusal.cause, problems: []))
        case .success(let ready): sending = ready
        }
        let child = sending.child
        sending.mailbox.whenAnswered { [self] reply in
            let took = Double(MonotonicClock.nowNanoseconds() - started) / 1e6
            state.withLock { $0.endSample(id, answered: reply.sampled, from: child, took: took) }
            guard let result = reply.sampleResult else {
                let cause = "plug-in answered sample with something else than its result; killed"
                let sibling = "plug-in restarted: probe \(probeID(id)) \(cause)"
                killChild(Kill(culprit: id, culpritCause: cause, siblingCause: sibling))
                return done(CallResult(observations: [], error: cause, problems: []))
            }
            done(result)
        }
        // A child that cannot take the call is dying: its end reaches the mailbox. At a tick a
        // thousand probes' calls find each other in flight, and cross in a few writes (FrameOutbox).
        if !child.send(CallFrames.sample(instance: id, by: deadline), held: sending.held) { child.kill() }
    }

    package func probeID(_ id: UInt32) -> String { state.withLock { $0.members[id]?.probeID ?? "?" } }

    /// Lets the caller of instance `id`'s call in flight go, with `cause` as its result, and
    /// leaves the call to finish in the child: a probe being stopped need not take its siblings
    /// down for a call that would have returned (its destroy waits behind it, and kills the
    /// child only if it does not return within 2 s).
    package func release(_ id: UInt32, cause: String) {
        let call = state.withLock { s -> Mailbox? in
            guard let member = s.members[id], member.call == "sample" else { return nil }
            return member.mailbox
        }
        // Outside the lock: the answer runs the probe's handler, which takes it.
        call?.answerIfAwaited(.ended(cause))
    }

    /// Kills the running child for `kill`'s reason; its end does the rest.
    package func killChild(_ kill: Kill) {
        state.withLock { $0.killing(kill) }?.kill()
    }

    /// Where instance `id`'s health is kept (read without this child's lock).
    package func healthCell(of id: UInt32) -> HealthCell {
        state.withLock { $0.members[id]?.healthCell } ?? HealthCell()
    }

    package func forwardEvents(of id: UInt32, to deliver: @escaping @Sendable (CallResult) -> Void) {
        inboxes.withLock { $0[id]?.events = deliver }
    }

    package func forwardDescriptorNotices(of id: UInt32, to notice: @escaping @Sendable (EventDescriptorNotice) -> Void)
    {
        inboxes.withLock { $0[id]?.descriptorNotices = notice }
    }

    /// Destroys instance `id` in the child (a destroy that does not return within 2 s kills
    /// the child). The instance stays a member until `remove`.
    package func destroy(_ id: UInt32) {
        let sent = state.withLock { $0.beginDestroy(id) }
        guard let (child, mailbox) = sent else { return }
        if child.send(CallFrames.destroy(instance: id)) {
            switch mailbox.answerPastSamples(within: 2) {
            case .frame?:
                state.withLock { $0.setCall(nil, of: id) }
                return
            case .ended?: return
            case .sampled?, nil: break
            }
        }
        let cause = "destroy did not return within 2s; killed"
        killChild(
            Kill(culprit: id, culpritCause: cause, siblingCause: "plug-in restarted: probe \(probeID(id)) \(cause)"))
    }

    /// Forgets instance `id`; true when it was the last (the caller then `close`s).
    package func remove(_ id: UInt32) -> Bool {
        inboxes.withLock { $0[id] = nil }
        return state.withLock { $0.remove(id) }
    }

    /// No instance left: the child sees the end of its input and exits (killed after 2 s if
    /// busy); waiting for it means what it printed on the way out is logged first.
    package func close() {
        let child = state.withLock { s -> ChildProcess? in
            defer { s.child = nil }
            return s.child
        }
        child?.finish()
        child?.waitForEnd(seconds: 3)
    }

    /// How the child's output is labelled in the log: the probe, or the plug-in and its probes.
    package var label: String { state.withLock { $0.label(plugin: plugin.name) } }
}
