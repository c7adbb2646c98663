import Dispatch
import Synchronization

/// A few threads that run many serial lanes (`WorkLane`): each lane's jobs one at a time and in
/// order, different lanes side by side. A thousand probes that each sample for a millisecond
/// every ten seconds need a thread or two between them, not a thousand (each with its stack,
/// each woken on its own).
///
/// The pool grows with blocked work, not with lanes or bursts: it keeps `steady` threads, and
/// adds one only when lanes are waiting, every thread is busy, and not one job finished for a
/// whole `growthDelay` (a plug-in call that hangs holds its thread until it returns or its
/// deadline gives it up). A burst of quick calls is served by the threads there are; a storm of
/// hung calls costs threads as it would have before, never more, up to `limit`. The thread
/// that went idle last is woken first, so threads beyond `steady` that the work no longer needs
/// stay idle and end after `idleLifetime`.
///
/// Why not libdispatch's global queues: the agent keeps its idle wake-ups to the timers it
/// needs (TaskThreadPool says why), and its blocking calls must not run on Swift concurrency's
/// pool. Why not a thread per lane, as before: at a thousand probes that was 1,041 threads and
/// a lock they all contended on.
package final class WorkerPool: Sendable {
    /// The probes' pool: the agent's probe runners, or a plug-in child's instances.
    package static let shared = WorkerPool(name: "pw-work", steady: 2, limit: 512)

    /// How long waiting lanes wait, with every thread busy and none finishing, before another
    /// thread is added.
    let growthDelay: UInt64
    /// How long a thread beyond the steady ones waits for work before it ends, in seconds.
    let idleLifetime: Double

    /// A thread waiting for work, woken by its own semaphore.
    private final class Idler: Sendable {
        let wake = DispatchSemaphore(value: 0)
    }

    private struct State {
        var ready = LaneQueue()
        var threads = 0
        var busy = 0
        /// Idle threads, the one that went idle last at the end: it is woken first.
        var idle: [Idler] = []
        /// Jobs' lanes finished since start: whether work moved since a growth check was armed.
        var finished: UInt64 = 0
        /// A growth check is due on the timer thread.
        var growthArmed = false
    }

    let name: String
    let steady: Int
    let limit: Int
    private let state = Mutex(State())

    package init(
        name: String, steady: Int, limit: Int, growthDelayNanoseconds: UInt64 = 20_000_000, idleLifetime: Double = 10
    ) {
        self.name = name
        self.steady = max(1, steady)
        self.limit = max(self.steady, limit)
        growthDelay = growthDelayNanoseconds
        self.idleLifetime = idleLifetime
    }

    /// A new lane on this pool.
    package func lane() -> WorkLane { WorkLane(pool: self) }

    /// How many threads the pool has now.
    package var threadCount: Int { state.withLock { $0.threads } }

    /// `lane` has jobs and is not queued or running: queue it, and make sure a thread will take it.
    func schedule(_ lane: WorkLane) {
        let (wake, spawn, arm) = state.withLock { s -> (Idler?, Bool, UInt64?) in
            s.ready.push(lane)
            if let idler = s.idle.popLast() { return (idler, false, nil) }
            if s.threads < steady {
                s.threads += 1
                return (nil, true, nil)
            }
            guard !s.growthArmed, s.threads < limit else { return (nil, false, nil) }
            s.growthArmed = true
            return (nil, false, s.finished)
        }
        wake?.wake.signal()
        if spawn { startThread() }
        if let arm { armGrowth(finishedBefore: arm) }
    }

    /// A growth step later: one more thread if lanes still wait, every thread is busy and none
    /// finished a lane since; else, while lanes wait, another look a step later.
    private func armGrowth(finishedBefore: UInt64) {
        TimerThread.shared.schedule(afterNanoseconds: growthDelay) { [self] in
            let (spawn, again) = state.withLock { s -> (Bool, UInt64?) in
                s.growthArmed = false
                guard !s.ready.isEmpty, s.idle.isEmpty, s.threads < limit else { return (false, nil) }
                let stalled = s.finished == finishedBefore && s.busy >= s.threads
                if stalled { s.threads += 1 }
                s.growthArmed = true
                return (stalled, s.finished)
            }
            if spawn { startThread() }
            if let again { armGrowth(finishedBefore: again) }
        }
    }

    private func startThread() {
        if startDetachedThread({ self.work() }) { return }
        // No thread to be had (the process is at its limit): those there are take the work.
        let none = state.withLock { s -> Bool in
            s.threads -= 1
            return s.threads == 0
        }
        // Not one thread: run what waits here rather than lose it.
        if none { drainOnCaller() }
    }

    private func drainOnCaller() {
        while let lane = state.withLock({ $0.ready.pop() }) { lane.runJobs() }
    }

    private func work() {
        setThreadName(name)
        let me = Idler()
        while true {
            let (lane, mayEnd) = state.withLock { s -> (WorkLane?, Bool) in
                guard let lane = s.ready.pop() else {
                    if !s.idle.contains(where: { $0 === me }) { s.idle.append(me) }
                    return (nil, s.threads > steady)
                }
                s.busy += 1
                return (lane, false)
            }
            if let lane {
                lane.runJobs()
                state.withLock { s in
                    s.busy -= 1
                    s.finished &+= 1
                }
                continue
            }
            // Woken: whoever woke it took it off the idle list and queued a lane. A thread the
            // pool keeps whatever happens sleeps until then: timing out only to stay woke every
            // idle agent and plug-in child once per `idleLifetime` for nothing. (Should the pool
            // grow while it sleeps, the threads added end in its place.)
            guard mayEnd else {
                me.wake.wait()
                continue
            }
            guard me.wake.wait(timeout: .now() + idleLifetime) == .timedOut else { continue }
            let outcome = state.withLock { s -> IdleOutcome in
                // Taken off the list at the last moment: its wake-up is on the way.
                guard let index = s.idle.firstIndex(where: { $0 === me }) else { return .wokenLate }
                guard s.threads > steady else { return .stay }
                s.idle.remove(at: index)
                s.threads -= 1
                return .leave
            }
            switch outcome {
            case .leave: return
            case .stay: continue
            case .wokenLate: me.wake.wait()
            }
        }
    }

    private enum IdleOutcome {
        /// A thread beyond the steady ones, idle for its whole lifetime: it ends.
        case leave
        /// A steady thread: it waits on.
        case stay
        /// A lane was handed to it as its wait ran out.
        case wokenLate
    }
}

/// Lanes waiting for a thread, first in first out: two stacks, `incoming` reversed into
/// `outgoing` when that runs out.
private struct LaneQueue {
    private var incoming: [WorkLane] = []
    private var outgoing: [WorkLane] = []

    var count: Int { incoming.count + outgoing.count }
    var isEmpty: Bool { incoming.isEmpty && outgoing.isEmpty }

    mutating func push(_ lane: WorkLane) { incoming.append(lane) }

    mutating func pop() -> WorkLane? {
        if outgoing.isEmpty {
            outgoing = incoming.reversed()
            incoming.removeAll(keepingCapacity: true)
        }
        return outgoing.popLast()
    }
}
