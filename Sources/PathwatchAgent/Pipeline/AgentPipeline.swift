import PathwatchBase
import PathwatchProbeKit
import PathwatchSinkKit

/// The agent's state and the order of its reports, in one isolation domain the compiler checks:
/// an actor whose executor runs one piece of work at a time, in the order handed in
/// (PipelineExecutor). Probe runners, timers and the agent's start, reload and stop send it
/// work; it applies each report to the check book, asks the pacing what goes out, and hands
/// each batch to every sink as it makes it, so batches reach the sinks in the order the book
/// made them.
///
/// A batch is made of values: the book as it stands, each probe's health as its last report
/// brought it (ProbeStatusTable) and each sink's status. No sink reads the agent's state back,
/// and nothing here waits on a sink: `submit` only queues.
actor AgentPipeline {
    nonisolated let executor: PipelineExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    var state: AgentState
    let identity: AgentIdentity
    let logger: AgentLogger
    let observer: (any AgentObserver)?
    /// What reports are stamped with and paced documents are timed on.
    let clock: any AgentClock

    init(
        state: AgentState, identity: AgentIdentity, logger: AgentLogger, observer: (any AgentObserver)?,
        clock: any AgentClock
    ) {
        executor = PipelineExecutor()
        self.state = state
        self.identity = identity
        self.logger = logger
        self.observer = observer
        self.clock = clock
    }

    /// Queues `work` after everything sent before it; returns at once. How a probe's runner hands
    /// over a report and a timer its due batch, from their own threads.
    nonisolated func send(_ work: @escaping @Sendable (isolated AgentPipeline) -> Void) {
        executor.run { self.assumeIsolated { work($0) } }
    }

    /// `send` for a probe's report: a sender that outruns the pipeline by far waits
    /// (PipelineExecutor.runHeld).
    nonisolated func sendReport(_ work: @escaping @Sendable (isolated AgentPipeline) -> Void) {
        executor.runHeld { self.assumeIsolated { work($0) } }
    }

    /// Runs `work` after everything sent before it and returns its result: the agent's start,
    /// reload and stop, from threads of their own (never from the pipeline's own work).
    nonisolated func call<T: Sendable>(_ work: @escaping @Sendable (isolated AgentPipeline) -> T) -> T {
        executor.runAndWait { self.assumeIsolated { work($0) } }
    }

    /// The agent is gone: work sent from now on is dropped.
    nonisolated func finish() { executor.finish() }
}
