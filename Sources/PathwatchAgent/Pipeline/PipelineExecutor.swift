import Glibc
import PathwatchBase
import Synchronization

/// The serial executor of the agent's pipeline (AgentPipeline, an actor whose executor this is):
/// work runs one piece at a time, first in, first out, on the thread that hands it in when no
/// other is running the pipeline at that moment; otherwise it is queued, and the thread running
/// the pipeline runs it before it lets go. Reports from every probe's thread, timers and reloads
/// queue their work here, so batches reach the sinks in the order the check book made them: the
/// order is kept by the queue, not put back afterwards.
///
/// Why no thread of its own: a report would then wake a second thread and wait for a switch to
/// it, a cost paid at every report of an idle agent, for nothing the order needs. Every thread
/// that hands work in is one of the agent's own (a probe's lane or child reader, the timer
/// thread, a reload's or stop's thread), never the task pool's, so the moment a sink's submit or
/// the log may block is spent where it was before the pipeline was an actor.
final class PipelineExecutor: SerialExecutor, Sendable {
    /// Two stacks make a queue: work goes onto `incoming`; `outgoing` is `incoming` reversed,
    /// taken from its end. `running` is set while a thread runs the pipeline.
    private struct Queue {
        var incoming: [@Sendable () -> Void] = []
        var outgoing: [@Sendable () -> Void] = []
        var running = false

        mutating func pop() -> (@Sendable () -> Void)? {
            if outgoing.isEmpty {
                outgoing = incoming.reversed()
                incoming.removeAll(keepingCapacity: true)
            }
            return outgoing.popLast()
        }
    }

    private let queue = Mutex(Queue())
    /// The thread running the pipeline now (its pthread id), 0 when none is.
    private let runner = Atomic<UInt>(0)
    /// Set by `finish`: work handed in after it is dropped (its agent is gone).
    private let finished = Atomic<Bool>(false)
    /// Work queued through `runHeld` and not yet run.
    private let held = Atomic<Int>(0)

    /// How much `runHeld` work may wait before a sender is held: far more than a thousand
    /// probes changing at once queue, far less than memory allows.
    static let heldLimit = 4_096

    init() {}

    /// Whether work is queued behind what runs now (a burst of reports is being worked through).
    var hasQueuedWork: Bool { queue.withLock { !$0.incoming.isEmpty || !$0.outgoing.isEmpty } }

    /// True on the thread running the pipeline, while it does.
    var isRunningHere: Bool { runner.load(ordering: .acquiring) == UInt(pthread_self()) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        run { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// The runtime asks this when code claims the actor's isolation outside a task (the work
    /// handed to `run`, which `AgentPipeline.send` passes to `assumeIsolated`): only the thread
    /// running the pipeline has it.
    func checkIsolated() {
        precondition(isRunningHere, "not running the agent's pipeline")
    }

    /// Runs `work` after everything handed in before it: here and now when the pipeline is idle
    /// (with whatever is handed in meanwhile), else on the thread running it.
    func run(_ work: @escaping @Sendable () -> Void) {
        guard !finished.load(ordering: .acquiring) else { return }
        let runHere = queue.withLock { q -> Bool in
            q.incoming.append(work)
            guard !q.running else { return false }
            q.running = true
            return true
        }
        if runHere { runQueued() }
    }

    /// Runs the queue until it is empty, then lets the pipeline go.
    private func runQueued() {
        runner.store(UInt(pthread_self()), ordering: .releasing)
        while true {
            let next = queue.withLock { q -> (@Sendable () -> Void)? in
                if let next = q.pop() { return next }
                // Let go under the lock: the next thread to hand work in runs it.
                runner.store(0, ordering: .releasing)
                q.running = false
                return nil
            }
            guard let next else { return }
            next()
        }
    }

    /// `run`, for a sender that must not outrun the pipeline: a probe's reports. While
    /// `heldLimit` such pieces of work wait, the sender waits too (a plug-in firing events in a
    /// loop is slowed to the pipeline's pace, as the agent's lock once slowed it), so the queue
    /// cannot grow without bound. The wait polls every millisecond: it happens only when the
    /// pipeline is that far behind, never in its ordinary running.
    func runHeld(_ work: @escaping @Sendable () -> Void) {
        while held.load(ordering: .relaxed) >= Self.heldLimit, !finished.load(ordering: .relaxed), !isRunningHere {
            usleep(1_000)
        }
        held.add(1, ordering: .relaxed)
        run { [self] in
            held.subtract(1, ordering: .relaxed)
            work()
        }
    }

    /// Runs `work` after everything handed in before it, and returns its result. Never from the
    /// pipeline's own work, which would wait for itself.
    func runAndWait<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        precondition(!isRunningHere, "the agent's pipeline cannot wait for itself")
        precondition(!finished.load(ordering: .acquiring), "the agent's pipeline has finished")
        // Run here (the pipeline was idle), the work is done before the wait, which returns at once.
        return waitForResult(of: work) { run($0) }
    }

    /// Drops work handed in from now on: the agent is gone.
    func finish() {
        finished.store(true, ordering: .releasing)
    }
}
