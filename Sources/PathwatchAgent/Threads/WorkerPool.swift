import Dispatch
import Synchronization

/// A few threads that run many serial lanes (`WorkLane`): each lane's jobs one at a time and in
/// order, different lanes side by side. A thousand probes that each sample for a millisecond
/// every ten seconds need a thread or two between them, not a thousand (each with its stack,
/// each woken on its own).
///
/// The pool grows with blocked work, not with lanes: it keeps `steady` threads, and when lanes
/// are waiting and every thread is busy (a plug-in call that hangs holds its thread until it
/// returns or its deadline gives it up), it adds one thread every `growthDelay` until someone is
/// free, up to `limit`. A hung call therefore delays others' calls by at most a growth step, and
/// a storm of hung calls costs threads as it would have before, never more. Threads beyond
/// `steady` end after `idleLifetime` without work.
///
/// Why not libdispatch's global queues: the agent keeps its idle wake-ups to the timers it
/// needs (TaskThreadPool says why), and its blocking calls must not run on Swift concurrency's
/// pool. Why not a thread per lane, as before: at a thousand probes that was 1,041 threads and
/// a lock they all contended on.
package final class WorkerPool: Sendable {
    /// The probes' pool: the agent's probe runners, or a plug-in child's instances.
    package static let shared = WorkerPool(name: "pw-work", steady: 2, limit: 512)

    /// How long waiting lanes wait, with every thread busy, before another thread is added.
    let growthDelay: UInt64
    /// How long a thread beyond the steady ones waits for work before it ends, in seconds.
    let idleLifetime: Double

    private struct State {
        var ready = LaneQueue()
        var threads = 0
        var busy = 0
        /// A growth check is due on the timer thread.
        var growthArmed = false
    }

    let name: String
    let steady: Int
    let limit: Int
    private let state = Mutex(State())
    /// One signal per lane made ready: wakes a waiting thread to take it.
    private let readySignal = DispatchSemaphore(value: 0)

    package init(name: String, steady: Int, limit: Int, growthDelayNanoseconds: UInt64 = 20_000_000, idleLifetime: Double = 30) {
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
        let (spawn, arm) = state.withLock { s -> (Bool, Bool) in
            s.ready.push(lane)
            let free = s.threads - s.busy
            guard s.ready.count > free else { return (false, false) }
            if s.threads < steady {
                s.threads += 1
                return (true, false)
            }
            guard !s.growthArmed, s.threads < limit else { return (false, false) }
            s.growthArmed = true
            return (false, true)
        }
        readySignal.signal()
        if spawn { startThread() }
        if arm { armGrowth() }
    }

    /// With every thread still busy and lanes still waiting a growth step later, one more thread.
    private func armGrowth() {
        TimerThread.shared.schedule(afterNanoseconds: growthDelay) { [self] in
            let (spawn, again) = state.withLock { s -> (Bool, Bool) in
                s.growthArmed = false
                guard !s.ready.isEmpty, s.busy >= s.threads, s.threads < limit else { return (false, false) }
                s.threads += 1
                s.growthArmed = true
                return (true, true)
            }
            if spawn { startThread() }
            if again { armGrowth() }
        }
    }

    private func startThread() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            let pool = Unmanaged<WorkerPool>.fromOpaque(context!).takeRetainedValue()
            pool.work()
            return nil
        }, box)
        if started == 0 {
            pthread_detach(thread)
            return
        }
        // No thread to be had (the process is at its limit): those there are take the work.
        Unmanaged<WorkerPool>.fromOpaque(box).release()
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
        while true {
            let signalled = readySignal.wait(timeout: .now() + idleLifetime) == .success
            let lane = state.withLock { s -> WorkLane?? in
                if let lane = s.ready.pop() {
                    s.busy += 1
                    return .some(lane)
                }
                // Woken for a lane another thread took on its way round, or idle for long.
                if !signalled, s.threads > steady {
                    s.threads -= 1
                    return .none
                }
                return .some(nil)
            }
            guard let lane else { return }
            guard let lane else { continue }
            lane.runJobs()
            state.withLock { $0.busy -= 1 }
        }
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
