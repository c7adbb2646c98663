import Glibc
import PathwatchBase
import Synchronization

/// The agent's pipeline thread as a serial executor: the one thread on which the check book,
/// the path, the pacing and the hand-over to sinks run (AgentPipeline, an actor whose executor
/// this is). Reports from every probe's thread, timers and reloads queue their work here, first
/// in, first out, so batches reach the sinks in the order the check book made them: the order
/// is kept by the queue, not put back afterwards. The thread is the agent's own, not the task
/// pool's, because handing over to sinks and writing the log may block for a moment.
final class PipelineExecutor: SerialExecutor, Sendable {
    private let thread: SerialThread
    /// The thread's id, set by its first job; `checkIsolated` compares against it.
    private let threadID = Atomic<UInt>(0)
    /// Set by `finish`: work queued after it is dropped (its agent is gone).
    private let finished = Atomic<Bool>(false)
    /// Work queued through `runHeld` and not yet run.
    private let held = Atomic<Int>(0)

    /// How much `runHeld` work may wait before a sender is held: far more than a thousand
    /// probes changing at once queue, far less than memory allows.
    static let heldLimit = 4_096

    init(name: String = "pw-pipeline") {
        thread = SerialThread(name: name)
        thread.async { [self] in threadID.store(UInt(pthread_self()), ordering: .releasing) }
    }

    /// True on the pipeline thread itself.
    var isOnThread: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        run { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// The runtime asks this when code claims the actor's isolation outside a task (the work
    /// queued by `run`, which `AgentPipeline.send` hands to `assumeIsolated`): only the
    /// pipeline thread has it.
    func checkIsolated() {
        precondition(isOnThread, "not on the agent's pipeline thread")
    }

    /// Queues `work` on the pipeline thread, after everything queued before it; returns at once.
    func run(_ work: @escaping @Sendable () -> Void) {
        guard !finished.load(ordering: .acquiring) else { return }
        thread.async { [self] in
            // A job that runs on the caller (the thread had ended) would not be isolated.
            if isOnThread { work() }
        }
    }

    /// `run`, for a sender that must not outrun the pipeline: a probe's reports. While
    /// `heldLimit` such pieces of work wait, the sender waits too (a plug-in firing events in a
    /// loop is slowed to the pipeline's pace, as the agent's lock once slowed it), so the queue
    /// cannot grow without bound. The wait polls every millisecond: it happens only when the
    /// pipeline is that far behind, never in its ordinary running.
    func runHeld(_ work: @escaping @Sendable () -> Void) {
        while held.load(ordering: .relaxed) >= Self.heldLimit, !finished.load(ordering: .relaxed), !isOnThread {
            usleep(1_000)
        }
        held.add(1, ordering: .relaxed)
        run { [self] in
            held.subtract(1, ordering: .relaxed)
            work()
        }
    }

    /// Runs `work` on the pipeline thread after everything queued before it, and returns its
    /// result. Never from the pipeline thread itself, which would wait for itself.
    func runAndWait<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        precondition(!isOnThread, "the pipeline thread cannot wait for itself")
        return thread.sync(work)
    }

    /// Lets the thread end once what is queued has run; later work is dropped.
    func finish() {
        finished.store(true, ordering: .releasing)
        thread.finish()
    }
}
