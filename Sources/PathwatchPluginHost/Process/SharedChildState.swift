import PathwatchSinkKit

/// What a shared child (SharedChild) keeps behind its lock: the running child, the instances it
/// hosts and the restart backoff, and how each changes as calls come and go and the child ends.
/// Bookkeeping only: sending, waiting and killing are the shared child's.
package struct SharedChildState {
    package struct Member {
        package let probeID: String
        package let configJSON: String
        package let limits: ProcessProbeHost.ChildLimits
        package let mailbox = Mailbox()
        /// Where its health is kept: read for every report's status without this state's lock.
        package let healthCell = HealthCell()
        /// Created in the running child.
        package var created = false
        package var everCreated = false
        /// The plug-in refused the configuration it had accepted, on a restart: no more calls.
        package var refused: String?
        /// The call in flight ("sample", "create", "destroy"), to name in a crash's cause; set
        /// through `setCall`, which counts the samples in flight.
        package fileprivate(set) var call: String?
        package var health: ProbeHealth {
            get { healthCell.current }
            nonmutating set { healthCell.current = newValue }
        }
    }

    /// Why the agent killed the child: what the probe whose call it was reports, and what its
    /// siblings report.
    package struct Kill {
        package var culprit: UInt32?
        package var culpritCause: String
        package var siblingCause: String
    }

    /// Why a sample is not sent: what the probe reports instead.
    package struct SampleRefusal: Error { var cause: String }

    package var child: ChildProcess?
    /// The child has said what it loaded.
    package var loaded = false
    package var startedAt: Int64 = 0
    package var backoff = RestartBackoff()
    package var restartScheduled = false
    package var kill: Kill?
    package var members: [UInt32: Member] = [:]
    package var nextID: UInt32 = 1
    /// The last instance left: the child's end is expected, and not followed by a restart.
    package var closed = false
    /// Samples sent and not over: a sample that finds another in flight is a tick's call among
    /// others, and is held a moment to cross with them (FrameOutbox.enqueueHeld).
    package private(set) var samplesInFlight = 0

    /// Adds `member`, not yet created; the number it gets names it on the wire.
    package mutating func reserve(_ member: Member) -> UInt32 {
        let id = nextID
        nextID += 1
        member.health.state = .restarting
        members[id] = member
        return id
    }

    /// Marks instance `id`'s sample in flight: the child to send it to, the mailbox its answer
    /// comes to, and whether another sample is in flight (the call is then held to go with the
    /// next); or why it cannot go.
    package mutating func beginSample(_ id: UInt32) -> Result<SampleSending, SampleRefusal> {
        guard let index = members.index(forKey: id) else {
            return .failure(SampleRefusal(cause: "plug-in not running"))
        }
        // Read in place: a thousand probes' calls take this lock, and a copy of the member
        // (its strings, its health) under it is retains and releases every sibling waits for.
        if let refused = members.values[index].refused { return .failure(SampleRefusal(cause: refused)) }
        guard let child, members.values[index].created else {
            return .failure(SampleRefusal(cause: members.values[index].health.lastError ?? "plug-in restarting"))
        }
        let mailbox = members.values[index].mailbox
        mailbox.reset()
        setCall("sample", at: index)
        return .success(SampleSending(child: child, mailbox: mailbox, held: samplesInFlight > 1))
    }

    /// Where a sample goes, and how.
    package struct SampleSending {
        package let child: ChildProcess
        package let mailbox: Mailbox
        /// Another sample is in flight: this one may wait a moment for a write to go with.
        package let held: Bool
    }

    /// Marks instance `id`'s call in flight (nil: none), keeping the count of samples.
    package mutating func setCall(_ call: String?, of id: UInt32) {
        guard let index = members.index(forKey: id) else { return }
        setCall(call, at: index)
    }

    private mutating func setCall(_ call: String?, at index: [UInt32: Member].Index) {
        if members.values[index].call == "sample" { samplesInFlight -= 1 }
        if call == "sample" { samplesInFlight += 1 }
        members.values[index].call = call
    }

    /// Instance `id`'s sample sent to `child` is over after `took` milliseconds, `answered` with
    /// a result or not.
    package mutating func endSample(_ id: UInt32, answered: CallResult?, from child: ChildProcess, took: Double) {
        guard let index = members.index(forKey: id) else { return }
        setCall(nil, at: index)
        members.values[index].health.lastDurationMilliseconds = took
        // An answer the child sent just before it ended can be taken in after its end was:
        // the cause of that end, which the next sample reports, must stand.
        guard let answered, self.child === child else { return }
        members.values[index].health.state = .running
        members.values[index].health.lastError = answered.error
    }

    /// Marks instance `id`'s create in flight in the loaded child: the child and the member; nil
    /// when there is no loaded child, or the plug-in refused the instance's configuration.
    package mutating func beginCreate(_ id: UInt32) -> (ChildProcess, Member)? {
        guard let child, loaded, let member = members[id], member.refused == nil else { return nil }
        member.mailbox.reset()
        setCall("create", of: id)
        return (child, member)
    }

    /// Marks instance `id`'s destroy in flight: the child and the mailbox its answer comes to;
    /// nil when the instance is not created in a running child.
    package mutating func beginDestroy(_ id: UInt32) -> (ChildProcess, Mailbox)? {
        guard let child, let member = members[id], member.created else { return nil }
        member.mailbox.reset()
        setCall("destroy", of: id)
        return (child, member.mailbox)
    }

    /// The child is to be killed for `kill` (the first reason stands): the child, if one runs.
    package mutating func killing(_ kill: Kill) -> ChildProcess? {
        if child != nil, self.kill == nil { self.kill = kill }
        return child
    }

    /// Instance `id` was created in `child` (if that is still the running one).
    package mutating func created(_ id: UInt32, in child: ChildProcess) {
        guard self.child === child, var m = members[id] else { return }
        if m.everCreated { m.health.restarts += 1 }
        m.everCreated = true
        m.created = true
        m.health.state = .running
        m.health.pid = child.pid
        members[id] = m
    }

    /// Forgets instance `id`; true when it was the last.
    package mutating func remove(_ id: UInt32) -> Bool {
        setCall(nil, of: id)
        members[id] = nil
        if members.isEmpty { closed = true }
        return members.isEmpty
    }

    /// The child ended at `now` with `status`: every instance ended with it. The cause, the delay
    /// before the restart, how many probes it hosted, and the calls in flight with the cause each
    /// gets as its reply (posted by the caller once this lock is let go: a sample's answer runs
    /// its probe's handler, which takes this lock); nil once the last instance left (no restart).
    package mutating func childEnded(_ status: Int32, faultIn: UInt32?, stderrTail: String?, at now: Int64) -> (
        cause: String, delay: Int64, probes: Int, calls: [(Mailbox, String)]
    )? {
        let kill = self.kill
        let wasLoaded = loaded
        child = nil
        loaded = false
        self.kill = nil
        guard !closed, !members.isEmpty else { return nil }
        let crash =
            "\(ChildEnd.describe(status)) \(crashMoment(faultIn: faultIn, wasLoaded: wasLoaded))"
            + (status & 0x7F != 0 ? stderrTail.map { "; its last stderr: \($0)" } ?? "" : "")
        var calls: [(Mailbox, String)] = []
        for (id, var member) in members {
            let cause = kill.map { id == $0.culprit ? $0.culpritCause : $0.siblingCause } ?? crash
            if member.call != nil { calls.append((member.mailbox, cause)) }
            member.created = false
            member.health.pid = nil
            if member.refused == nil {
                member.health.state = .restarting
                member.health.lastError = cause
            }
            members[id] = member
        }
        let delay = backoff.delay(startedAt: startedAt, now: now)
        restartScheduled = true
        return (kill?.siblingCause ?? crash, delay, members.count, calls)
    }

    /// When the child ended, in words: during the call of the probe whose thread crashed or
    /// called exit() (`faultIn`, as the child reported it), else during the calls in flight.
    private func crashMoment(faultIn: UInt32?, wasLoaded: Bool) -> String {
        if let faultIn, let member = members[faultIn] {
            return member.call.map { "during \($0) of probe \(member.probeID)" }
                ?? "while probe \(member.probeID) handled an event"
        }
        let inFlight = members.sorted { $0.key < $1.key }.compactMap { _, m in
            m.call.map { "\($0) of probe \(m.probeID)" }
        }
        if inFlight.isEmpty { return wasLoaded ? "between calls" : "while loading" }
        return "during " + inFlight.prefix(3).joined(separator: ", ")
            + (inFlight.count > 3 ? " and \(inFlight.count - 3) more calls" : "")
    }

    /// No child could be started at `now`: every instance says `reason`; the delay before the
    /// next try, nil once the last instance left.
    package mutating func failedToStart(_ reason: String, at now: Int64) -> Int64? {
        guard !closed else { return nil }
        for id in members.keys {
            members[id]?.health.state = .restarting
            members[id]?.health.lastError = reason
        }
        restartScheduled = true
        return backoff.delay(startedAt: startedAt, now: now)
    }

    /// How the child's output is labelled in the log: the probe, or the plug-in and its probes.
    package func label(plugin: String) -> String {
        let ids = members.values.map(\.probeID).sorted()
        if ids.count == 1 { return "probe \(ids[0])" }
        let named = ids.prefix(3).joined(separator: ", ") + (ids.count > 3 ? " and \(ids.count - 3) more" : "")
        return "plug-in \(plugin) (probes \(named))"
    }
}
