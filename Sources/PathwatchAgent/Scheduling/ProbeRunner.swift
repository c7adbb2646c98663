import Dispatch
import PathwatchBase
import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// Drives one probe instance: samples it every interval on a lane of the agent's worker pool
/// (calls into one instance never overlap, and a thousand probes share a few threads), hands
/// each call its deadline and enforces it. An inline event-driven probe has a thread of its own
/// instead, which sleeps on its event descriptor and serves each readiness in turn with its
/// samples, so a kernel notice wakes only this thread. Its deadlines (the next interval, the
/// running sample's timeout, the grace after it) are read and scheduled on the agent's clock:
/// the kernel's, with jobs on the agent's one timer thread, but for a test that moves it. The
/// deadline a call is handed is on that clock too (a plug-in reads the kernel's: the two are the
/// same clock outside tests).
///
/// A sample's deadline is its timeout from the tick that started it; the plug-in is told it and
/// fits its waits inside it. One still running `CallDeadlines.grace` after it turns the probe's
/// checks unknown ("overran its 5s deadline by more than 1s") and is given up on (a child is
/// killed); while it is still inside the plug-in, no further sample is started (a hung read keeps
/// one thread, never a pile of them), and its result, if it ever comes, is dropped as stale.
/// Other probes have their own lanes and timers; the pool adds a thread when a hung call holds
/// one (WorkerPool), so none waits on this one for more than a moment.
final class ProbeRunner: Sendable {
    let id: String
    let instance: any ProbeHost
    let interval: ConfigDuration
    let timeout: ConfigDuration
    /// Where reports go, each with the host's health as it stands when it is sent.
    private let sendReport: @Sendable (ProbeReport, ProbeHealth) -> Void
    private let logger: AgentLogger
    private let calls: any JobLane
    /// What every interval, deadline and grace is read and scheduled on.
    private let clock: any AgentClock
    /// An inline event-driven plug-in's descriptor, watched by `eventThread` between its jobs.
    private let eventDescriptor: Int32?
    /// The thread of an inline event-driven probe, which is also its `calls`; nil otherwise.
    private let eventThread: SerialThread?

    private struct State {
        var inFlight = false
        var callNumber = 0
        var timedOut = false
        var stopped = false
        /// A sample was asked for at once while one was running: take another when it returns.
        var againWhenDone = false
        /// The next interval's timer.
        var tickTimer: ClockTimer?
        /// Counts the ticks scheduled: a tick due at once may schedule the next before its own
        /// scheduling has returned, and the newer timer is the one to keep.
        var ticksScheduled = 0
        /// The running sample's give-up timer, cancelled when the sample returns: otherwise the
        /// timer thread wakes once more for every sample, only to find it done.
        var graceTimer: ClockTimer?
    }
    private let state = Mutex(State())
    private let reportedProblems = Mutex<Set<String>>([])
    /// What the plug-in's last call got refused, or why it was given up on, if anything: shown
    /// as the probe's `last_error` (a check it emitted twice is otherwise only a line in the log).
    private let lastRefusal = Mutex<String?>(nil)
    private let undeclared: UndeclaredMetricNotes
    /// Whether the plug-in drains its event descriptor (DrainGuard), wherever it is watched.
    private let descriptorHealth: EventDescriptorHealth

    /// `clock`: the agent's (a test's, to run intervals, deadlines and the grace in virtual time).
    init(
        id: String, instance: any ProbeHost, interval: ConfigDuration, timeout: ConfigDuration, logger: AgentLogger,
        clock: any AgentClock, report: @escaping @Sendable (ProbeReport, ProbeHealth) -> Void
    ) {
        self.id = id
        self.clock = clock
        self.instance = instance
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
        self.sendReport = report
        descriptorHealth = EventDescriptorHealth(probeID: id, logger: logger)
        undeclared = UndeclaredMetricNotes(plugin: instance.plugin, probe: id, logger: logger)
        eventDescriptor = instance.eventFileDescriptor()
        if eventDescriptor != nil {
            let thread = SerialThread(name: "pw-probe-\(id)", watchingDescriptors: true)
            eventThread = thread
            calls = thread
        } else {
            eventThread = nil
            calls = WorkerPool.shared.lane()
        }
    }

    func start() {
        // A child polls its plug-in's event descriptor itself and streams the results here, on
        // its reader thread: the thread its samples' answers come on, so both stay in order.
        instance.forwardEvents { [weak self] result in
            guard let self, !state.withLock({ $0.stopped }) else { return }
            deliver(result, asEvent: true)
        }
        instance.forwardDescriptorNotices { [descriptorHealth] in descriptorHealth.note($0) }
        if let fd = eventDescriptor, let eventThread {
            let watching = eventThread.watch(
                fd, onReadable: { [weak self] in self?.serveEvent() },
                onClosed: { [weak self] in
                    guard let self else { return }
                    logger.warning(
                        "probe \(id): the plug-in closed its event descriptor \(fd); it reports at its interval only")
                },
                onUndrained: { [descriptorHealth] in descriptorHealth.note(EventDescriptorNotice($0)) })
            if !watching {
                logger.error(
                    "probe \(id): no descriptor left to watch the plug-in's events with; it reports at its interval only"
                )
            }
        }
        scheduleTick(at: clock.monotonicNow)
    }

    /// The interval's next tick. The first is at start; the others are on the grid of the
    /// interval's multiples on the monotonic clock, which every probe of the same interval
    /// shares (no drift, and no phase of its own): a thousand probes started over a few seconds
    /// then sample together once an interval, and their calls to a shared child cross in a few
    /// writes each way instead of one wake-up chain per probe. The first grid point is at least
    /// half an interval after the first tick. A grid point already past (the machine was
    /// suspended, the timer thread held up) is skipped, not fired in a burst. Stopping is seen
    /// by the firing tick itself, so a cancel that loses a race changes nothing.
    private func scheduleTick(at deadline: UInt64) {
        let number = state.withLock { s -> Int in
            s.ticksScheduled += 1
            return s.ticksScheduled
        }
        let timer = clock.schedule(atMonotonic: deadline) { [weak self] in
            guard let self, !state.withLock({ $0.stopped }) else { return }
            let period = UInt64(max(1, interval.nanoseconds))
            let after = max(deadline &+ period / 2, clock.monotonicNow)
            scheduleTick(at: (after / period + 1) * period)
            tick(due: deadline)
        }
        state.withLock { s in if s.ticksScheduled == number { s.tickTimer = timer } }
    }

    /// A call is inside the plug-in (a hung one, after its timeout).
    var callRunning: Bool { state.withLock { $0.inFlight } }

    /// The host's health; when the host itself has no error, an event descriptor the plug-in
    /// does not drain, or else the last call's refused observations, as its error.
    var health: ProbeHealth {
        var health = instance.health
        if health.lastError == nil { health.lastError = descriptorHealth.problem ?? lastRefusal.withLock { $0 } }
        return health
    }

    /// `once`: one sample, now, under its deadline, reported through `report` like any other
    /// (a hung one as "overran its … deadline …"); no interval, no events.
    func sampleOnce() { tick() }

    /// Stops sampling and destroys the instance once no call is inside it. A hung instance is
    /// never destroyed under a running call: its thread runs the destroy only after the call
    /// returns. `destroyed` runs after the destroy.
    func stop(destroyed: (@Sendable () -> Void)? = nil) {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        state.withLock { $0.tickTimer }?.cancel()
        // No readiness is served after this: the destroy below may close the descriptor.
        eventThread?.unwatch()
        // A call inside the plug-in lets this thread go (a child's destroy then kills it if it
        // is still stuck); inline, nothing can be stopped.
        if state.withLock({ $0.inFlight }) { instance.abandonRunningCallToStop() }
        calls.async { [instance] in
            instance.destroy()
            destroyed?()
        }
        // The lane (or thread) ends once the destroy has run (a hung call keeps it until it returns).
        calls.finish()
    }

    /// Samples at once, outside the interval (the path changed). When a sample is running, one
    /// more follows as soon as it returns, and the running one's result is dropped: what it saw
    /// may predate the change.
    func sampleNow() {
        let busy = state.withLock { s -> Bool in
            if s.inFlight { s.againWhenDone = true }
            return s.inFlight
        }
        if !busy { tick() }
    }

    /// Starts a sample. Its deadline is its timeout from `due`, the grid point it was scheduled
    /// for, when it has one and is not more than 10 ms past (a tick that came late, the timer
    /// thread held up, keeps its whole timeout).
    private func tick(due: UInt64? = nil) {
        let call = state.withLock { s -> Int? in
            guard !s.stopped, !s.inFlight else { return nil }
            s.inFlight = true
            s.timedOut = false
            s.callNumber += 1
            return s.callNumber
        }
        guard let call else {
            logger.debug("probe \(id): previous sample still running; skipping this interval")
            return
        }
        let now = clock.monotonicNow
        let start = due.map { now &- $0 < 10_000_000 ? $0 : now } ?? now
        let deadline = CallDeadlines.deadline(from: Int64(start), after: timeout)
        // Set before the call starts, so the call's end always finds it to cancel.
        let grace = giveUp(call, at: deadline)
        state.withLock { $0.graceTimer = grace }
        calls.async { [self] in
            instance.sample(by: deadline) { [self] result in sampled(result, by: deadline) }
        }
    }

    /// A sample's result, where the host hands it: on the lane (inline), or on a child's reader
    /// thread, which lets the lane go while the child works (a thousand probes' samples are
    /// then no thread's wait each); events from a child come on that same thread, in order.
    private func sampled(_ result: CallResult, by deadline: Deadline) {
        let (stopped, late, again, grace) = state.withLock { s -> (Bool, Bool, Bool, ClockTimer?) in
            s.inFlight = false
            defer {
                s.againWhenDone = false
                s.graceTimer = nil
            }
            return (s.stopped, s.timedOut, s.againWhenDone && !s.stopped, s.graceTimer)
        }
        grace?.cancel()
        // Stopped under it (a reload removed the probe, the agent stops): nothing to report,
        // and nothing went wrong.
        if stopped { return }
        if again {
            // Asked for a fresh sample while this one ran (the path changed under it): what it
            // saw may be the old path's, so the next one, starting now, speaks instead.
            tick()
            logger.debug("probe \(id): a sample that started before the path changed was superseded")
            return
        }
        if late {
            // Said when it was given up on ("overran its … deadline"); this is only its end (its
            // return, or in a child the kill).
            logger.debug("probe \(id): the sample given up on ended; its result was dropped")
            return
        }
        let now = Int64(clamping: clock.monotonicNow)
        if now >= deadline.monotonicNanoseconds {
            // Within the grace: taken, but the plug-in should fit its waits inside its deadline.
            let late = ConfigDuration(nanoseconds: now - deadline.monotonicNanoseconds)
            logger.debug("probe \(id): a sample returned \(late) after its \(timeout) deadline")
        }
        deliver(result, asEvent: false)
    }

    /// The plug-in has its deadline and the grace after it; then call number `call` is given up on.
    private func giveUp(_ call: Int, at deadline: Deadline) -> ClockTimer {
        let due = deadline.monotonicNanoseconds &+ CallDeadlines.grace.nanoseconds
        // However far behind the agent's reading is, the call is given up on by then.
        let latest = due &+ max(timeout.nanoseconds, CallDeadlines.grace.nanoseconds)
        return clock.schedule(atMonotonic: UInt64(due)) { [self] in expire(call, latest: latest) }
    }

    /// How soon a call whose answer may be waiting unread is looked at again.
    static let unreadAnswerRecheckNanoseconds: Int64 = 250_000_000

    private func expire(_ call: Int, latest: Int64) {
        let now = Int64(clamping: clock.monotonicNow)
        let waiting = state.withLock { $0.inFlight && $0.callNumber == call && !$0.stopped }
        if now < latest, waiting, instance.answerMayBeUnread {
            // The answer may have come in time and wait, unread, behind others the agent is still
            // handling (a thousand probes changing at once): the agent is behind, not the plug-in.
            clock.schedule(atMonotonic: UInt64(now &+ Self.unreadAnswerRecheckNanoseconds)) { [self] in
                expire(call, latest: latest)
            }
            return
        }
        let expired = state.withLock { s -> Bool in
            guard s.inFlight, s.callNumber == call, !s.timedOut, !s.stopped else { return false }
            s.timedOut = true
            return true
        }
        if expired {
            // A child is killed (and started again); an inline call keeps its thread.
            let overran = CallDeadlines.overran(timeout)
            let message = instance.isolation == .process ? "\(overran); plug-in restarted" : overran
            logger.warning("probe \(id): sample \(message)")
            instance.abandonRunningCall(reason: overran)
            // The probe's last error until a call of it returns in time, in both isolations:
            // inline, the host forgets its reason when the late call returns.
            lastRefusal.withLock { $0 = message }
            report(.failure(message))
        }
    }

    /// Hands `result` on with the health it leaves the host in: the agent keeps no other view
    /// of it, and asks the runner nothing back.
    private func report(_ result: ProbeReport) { sendReport(result, health) }

    /// Serves one readiness of the event descriptor, on the probe's thread, between samples.
    private func serveEvent() {
        if !state.withLock({ $0.stopped }) { deliver(instance.handleEvent(by: eventDeadline()), asEvent: true) }
    }

    /// An event call's deadline: the probe's timeout from when the readiness is served.
    private func eventDeadline() -> Deadline {
        CallDeadlines.deadline(from: Int64(clamping: clock.monotonicNow), after: timeout)
    }

    private func deliver(_ result: CallResult, asEvent: Bool) {
        // A plug-in that emits garbage does so every sample: say it once, then only at debug level.
        for problem in result.problems {
            let first = reportedProblems.withLock { $0.insert(problem).inserted }
            logger.log(first ? .warning : .debug, "probe \(id): \(problem)")
        }
        let refusal = result.problems.first.map { first in
            result.problems.count == 1
                ? first : "\(result.problems.count) problems in the last call; the first: \(first)"
        }
        lastRefusal.withLock { $0 = refusal }
        undeclared.note(result.observations)
        if let error = result.error {
            logger.warning("probe \(id): \(error)")
            report(.failure(error))
        } else if result.observations.isEmpty, result.refused > 0, let first = result.problems.first {
            // Nothing the plug-in said could be kept: its checks are unknown, with the reason,
            // rather than an "ok" of no checks at all.
            let noun =
                result.refused == 1 ? "its only observation was" : "all \(result.refused) of its observations were"
            report(.failure("\(noun) refused: \(first)"))
        } else {
            report(asEvent ? .event(result.observations) : .sample(result.observations))
        }
    }
}
