import PathwatchProbeKit

/// Starting the shared child, creating its instances, and what happens when it ends.
extension SharedChild {
    /// Starts a child and waits until it says what it loaded; with `lifecycle` held. False when
    /// it did not load: its end (killed here when it hangs) has scheduled the restart.
    func startChild() -> Bool {
        // The observation bound and the events' deadlines are each instance's, in its create.
        let arguments = ["--plugin", plugin.path, "--max-memory", String(maxMemoryBytes)]
        let child: ChildProcess
        let started = ChildProcess.start(
            arguments: arguments, label: { [weak self] in self?.label ?? "plug-in" }, logger: logger,
            route: { [weak self] id, message in self?.route(id, message) },
            ended: { [weak self] status, faultIn, stderrTail in self?.childEnded(status, faultIn: faultIn, stderrTail: stderrTail) })
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
            s.startedAt = MonotonicClock.nowNanoseconds()
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
    func create(_ id: UInt32) -> Creation {
        let sending = state.withLock { s -> (ChildProcess, Member)? in
            guard let child = s.child, s.loaded, let member = s.members[id], member.refused == nil else { return nil }
            member.mailbox.reset()
            s.members[id]?.call = "create"
            return (child, member)
        }
        guard let (child, member) = sending else { return .pending }
        let limits = member.limits
        let frame = CallFrames.create(
            instance: id, config: member.configJSON, by: .after(limits.createTimeout), probeTimeout: limits.probeTimeout,
            maxObservations: limits.maxObservations)
        if !child.send(frame) { child.kill() }
        let reply = member.mailbox.next(within: limits.createTimeout.seconds + CallDeadlines.grace.seconds)
        state.withLock { $0.members[id]?.call = nil }
        switch reply {
        case .frame(let frame)?:
            if let refusal = frame["refused_config"] {
                return .refused(JSONPathError(
                    path: JSONPath(parsing: refusal["path"]?.stringValue ?? ""),
                    message: refusal["message"]?.stringValue ?? "plug-in \(plugin.name) refused its configuration without saying why"))
            }
            state.withLock { s in
                guard s.child === child, var m = s.members[id] else { return }
                if m.everCreated { m.health.restarts += 1 }
                m.everCreated = true
                m.created = true
                m.health.state = .running
                m.health.pid = child.pid
                s.members[id] = m
            }
            return .created
        case .ended?:
            return .pending
        case .sampled?, nil:
            let cause = "plug-in create \(CallDeadlines.overran(limits.createTimeout)); killed"
            killChild(Kill(culprit: id, culpritCause: cause, siblingCause: "plug-in restarted: probe \(member.probeID) \(cause)"))
            _ = member.mailbox.next(within: 5)
            return .pending
        }
    }

    /// A frame from the child for instance `id`, on the child's reader thread.
    func route(_ id: UInt32, _ message: ChildProcess.Message) {
        let member = state.withLock { $0.members[id] }
        guard let member else { return }
        switch message {
        case .event(let result):
            // A malformed event is dropped; the instance's next sample says what it sees.
            if let result { member.events?(result) }
        case .sampled(let result): member.mailbox.post(.sampled(result))
        case .frame(let frame):
            // Said of its own accord, not a reply: it must not answer a call in flight.
            if let said = frame["event_descriptor"] {
                if let notice = said.stringValue.flatMap(EventDescriptorNotice.init(wireName:)) { member.descriptorNotices?(notice) }
                return
            }
            member.mailbox.post(.frame(frame))
        case .ended: break
        }
    }

    /// The child ended (on its reader thread, reaped): every instance it hosted ended with it.
    /// Each probe learns the cause, a call in flight gets it as its reply, and the child is
    /// started again after the backoff — unless the last instance left. The cause names the
    /// probe whose thread crashed or called exit() (`faultIn`, reported by the child itself);
    /// failing that, the calls that were in flight. A child that died of a signal has the last
    /// lines it wrote to stderr added (`stderrTail`, redacted and escaped): a Swift plug-in's
    /// runtime says there why it trapped, which the signal alone does not.
    func childEnded(_ status: Int32, faultIn: UInt32?, stderrTail: String?) {
        let now = MonotonicClock.nowNanoseconds()
        // What the ended child said of its instances' event descriptors no longer holds.
        for notices in state.withLock({ $0.members.values.compactMap(\.descriptorNotices) }) { notices(.instanceEnded) }
        let outcome = state.withLock { s -> (cause: String, delay: Int64, probes: Int)? in
            let kill = s.kill
            let wasLoaded = s.loaded
            s.child = nil
            s.loaded = false
            s.kill = nil
            guard !s.closed, !s.members.isEmpty else { return nil }
            let inFlight = s.members.sorted { $0.key < $1.key }.compactMap { id, m in m.call.map { (id, "\($0) of probe \(m.probeID)") } }
            let during: String
            if let faultIn, let member = s.members[faultIn] {
                during = member.call.map { "during \($0) of probe \(member.probeID)" } ?? "while probe \(member.probeID) handled an event"
            } else if inFlight.isEmpty {
                during = wasLoaded ? "between calls" : "while loading"
            } else {
                let named = inFlight.prefix(3).map(\.1).joined(separator: ", ")
                during = "during " + named + (inFlight.count > 3 ? " and \(inFlight.count - 3) more calls" : "")
            }
            let signaled = status & 0x7F != 0
            let crash = "\(ChildEnd.describe(status)) \(during)" + (signaled ? stderrTail.map { "; its last stderr: \($0)" } ?? "" : "")
            for (id, var member) in s.members {
                let cause = kill.map { id == $0.culprit ? $0.culpritCause : $0.siblingCause } ?? crash
                if member.call != nil { member.mailbox.post(.ended(cause)) }
                member.created = false
                member.health.pid = nil
                if member.refused == nil {
                    member.health.state = .restarting
                    member.health.lastError = cause
                }
                s.members[id] = member
            }
            let delay = s.backoff.delay(startedAt: s.startedAt, now: now)
            s.restartScheduled = true
            return (kill?.siblingCause ?? crash, delay, s.members.count)
        }
        guard let outcome else { return }
        logger.warning("plug-in \(plugin.name) (\(Plural.count(outcome.probes, "probe"))): \(outcome.cause); starting it again in \(outcome.delay / 1_000_000_000)s")
        scheduleRestart(afterNanoseconds: outcome.delay)
    }

    /// A child that could not even be started (no process to be had): as if it ended at once.
    private func failedToStart(_ reason: String) {
        let now = MonotonicClock.nowNanoseconds()
        let delay = state.withLock { s -> Int64? in
            guard !s.closed else { return nil }
            for id in s.members.keys {
                s.members[id]?.health.state = .restarting
                s.members[id]?.health.lastError = reason
            }
            s.restartScheduled = true
            return s.backoff.delay(startedAt: s.startedAt, now: now)
        }
        logger.warning("plug-in \(plugin.name): \(reason)")
        if let delay { scheduleRestart(afterNanoseconds: delay) }
    }

    private func scheduleRestart(afterNanoseconds delay: Int64) {
        TimerThread.shared.schedule(afterNanoseconds: UInt64(max(0, delay))) { [weak self] in
            guard let self else { return }
            // Starting a child and creating instances block: on a thread of their own.
            let thread = SerialThread(name: "pw-restart")
            thread.async { [self] in restart() }
            thread.finish()
        }
    }

    /// Starts the child again and creates every instance it hosts, in the order they joined.
    func restart() {
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
