import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// Starting the shared child, creating its instances, and what happens when it ends.
extension SharedChild {
    /// Starts a child and waits until it says what it loaded; with `lifecycle` held. False when
    /// it did not load: its end (killed here when it hangs) has scheduled the restart.
    package func startChild() -> Bool {
        // The observation bound and the events' deadlines are each instance's, in its create.
        let arguments = ["--plugin", plugin.path, "--max-memory", String(maxMemoryBytes)]
        let child: ChildProcess
        let started = ChildProcess.start(
            arguments: arguments, executable: launch.executable, label: { [weak self] in self?.label ?? "plug-in" },
            logger: logger,
            route: { [weak self] id, message in self?.route(id, message) },
            ended: { [weak self] status, faultIn, stderrTail in
                self?.childEnded(status, faultIn: faultIn, stderrTail: stderrTail)
            }, clock: launch.clock)
        switch started {
        case .failure(let error):
            failedToStart(error.reason)
            return false
        case .success(let running): child = running
        }
        let loadTimeout = state.withLock { s -> ConfigDuration in
            s.child = child
            s.loaded = false
            s.kill = nil
            s.startedAt = Int64(launch.clock.monotonicNow)
            return s.members.values.map(\.limits.createTimeout).max() ?? .seconds(5)
        }
        switch child.next(within: loadTimeout.seconds) {
        case .frame(let frame)?:
            if let reason = frame["refused"]?.stringValue {
                let cause = "plug-in refused while loading: \(reason)"
                killChild(Kill(culprit: nil, culpritCause: cause, siblingCause: cause))
                return false
            }
            state.withLock { $0.loaded = true }
            return true
        case .ended?:
            return false
        case .sampled?, .event?:
            let cause = "plug-in answered out of turn while loading; killed"
            killChild(Kill(culprit: nil, culpritCause: cause, siblingCause: cause))
            return false
        case nil:
            let cause = "plug-in did not load within \(loadTimeout); killed"
            killChild(Kill(culprit: nil, culpritCause: cause, siblingCause: cause))
            return false
        }
    }

    /// Creates instance `id` in the running child; with `lifecycle` held.
    package func create(_ id: UInt32) -> Creation {
        let sending = state.withLock { $0.beginCreate(id) }
        guard let (child, member) = sending else { return .pending }
        let limits = member.limits
        let frame = CallFrames.create(
            instance: id, config: member.configJSON, by: .after(limits.createTimeout),
            probeTimeout: limits.probeTimeout,
            maxObservations: limits.maxObservations)
        if !child.send(frame) { child.kill() }
        let reply = member.mailbox.next(within: limits.createTimeout.seconds + CallDeadlines.grace.seconds)
        state.withLock { $0.setCall(nil, of: id) }
        switch reply {
        case .frame(let frame)?:
            if let refusal = CallFrames.configRefusal(in: frame, plugin: plugin.name) { return .refused(refusal) }
            state.withLock { $0.created(id, in: child) }
            return .created
        case .ended?:
            return .pending
        case .sampled?, nil:
            let cause = "plug-in create \(CallDeadlines.overran(limits.createTimeout)); killed"
            killChild(
                Kill(
                    culprit: id, culpritCause: cause,
                    siblingCause: "plug-in restarted: probe \(member.probeID) \(cause)"))
            _ = member.mailbox.next(within: 5)
            return .pending
        }
    }

    /// A frame from the child for instance `id`, on the child's reader thread.
    package func route(_ id: UInt32, _ message: ChildProcess.Message) {
        inboxes.withLock { $0[id] }?.take(message)
    }

    /// The child ended (on its reader thread, reaped): every instance it hosted ended with it.
    /// Each probe learns the cause, a call in flight gets it as its reply, and the child is
    /// started again after the backoff — unless the last instance left. The cause names the
    /// probe whose thread crashed or called exit() (`faultIn`, reported by the child itself);
    /// failing that, the calls that were in flight. A child that died of a signal has the last
    /// lines it wrote to stderr added (`stderrTail`, redacted and escaped): a Swift plug-in's
    /// runtime says there why it trapped, which the signal alone does not.
    package func childEnded(_ status: Int32, faultIn: UInt32?, stderrTail: String?) {
        let now = Int64(launch.clock.monotonicNow)
        // What the ended child said of its instances' event descriptors no longer holds.
        for notices in inboxes.withLock({ $0.values.compactMap(\.descriptorNotices) }) { notices(.instanceEnded) }
        let outcome = state.withLock { $0.childEnded(status, faultIn: faultIn, stderrTail: stderrTail, at: now) }
        guard let outcome else { return }
        for (mailbox, cause) in outcome.calls { mailbox.post(.ended(cause)) }
        logger.warning(
            "plug-in \(plugin.name) (\(Plural.count(outcome.probes, "probe"))): \(outcome.cause); starting it again in \(outcome.delay / 1_000_000_000)s"
        )
        scheduleRestart(at: now + outcome.delay)
    }

    /// A child that could not even be started (no process to be had): as if it ended at once.
    private func failedToStart(_ reason: String) {
        let now = Int64(launch.clock.monotonicNow)
        let delay = state.withLock { $0.failedToStart(reason, at: now) }
        logger.warning("plug-in \(plugin.name): \(reason)")
        if let delay { scheduleRestart(at: now + delay) }
    }

    private func scheduleRestart(at deadline: Int64) {
        launch.clock.schedule(atMonotonic: UInt64(max(0, deadline))) { [weak self] in
            guard let self else { return }
            // Starting a child and creating instances block: on a thread of their own.
            let thread = SerialThread(name: "pw-restart")
            thread.async { [self] in restart() }
            thread.finish()
        }
    }

    /// Starts the child again and creates every instance it hosts, in the order they joined.
    package func restart() {
        lifecycle.wait()
        defer { lifecycle.signal() }
        let go = state.withLock { s -> Bool in
            s.restartScheduled = false
            return !s.closed && s.child == nil && !s.members.isEmpty
        }
        guard go, startChild() else { return }
        var tried: Set<UInt32> = []
        while let id = state.withLock({ s in
            s.members.filter { !$0.value.created && $0.value.refused == nil && !tried.contains($0.key) }.keys.min()
        }) {
            tried.insert(id)
            switch create(id) {
            case .created: continue
            case .refused(let error):
                let cause = "plug-in refused its configuration on restart: \(error)"
                state.withLock { s in
                    s.members[id]?.refused = cause
                    s.members[id]?.health.state = .failed
                    s.members[id]?.health.lastError = cause
                }
            case .pending:
                return
            }
        }
    }
}
