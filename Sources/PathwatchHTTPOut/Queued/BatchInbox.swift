import PathwatchAgent
import Synchronization

/// Batches handed to the sink and not yet formatted: `submit` only parks them here, so neither
/// the agent nor the other sinks ever wait on this sink's disk. Bounded by the sinks' one intake
/// rule (`SinkQueue`, keeping every batch); past the bound the oldest are dropped (counted by
/// the caller), which happens only if the disk stalls for long.
package final class BatchInbox: Sendable {
    package static let defaultMaxBatches = 10_000
    package let maxBatches: Int

    /// A batch can reach a sink after a reload closed it: the agent picks its sinks under its
    /// lock but submits outside it. Such a batch goes to the successor, or counts as lost.
    package enum AfterClose: Sendable {
        case forward(any Sink)
        case refuse
    }

    /// What became of a batch put in.
    package enum Placement {
        /// Parked; `wakeIntake` when no intake job is scheduled yet. `lost` older batches were
        /// dropped to stay within the bound.
        case parked(wakeIntake: Bool, lost: Int)
        case afterClose(AfterClose)
    }

    private struct Box {
        var batches: SinkQueue<SinkBatch>
        /// An intake job will take what is parked: no need to schedule another.
        var scheduled = false
        /// Set when the sink has closed: where batches put in after that go.
        var afterClose: AfterClose?
    }

    private let box: Mutex<Box>

    package init(maxBatches: Int = BatchInbox.defaultMaxBatches) {
        self.maxBatches = maxBatches
        box = Mutex(Box(batches: SinkQueue(policy: .keepAll(max: maxBatches))))
    }

    package var count: Int { box.withLock { $0.batches.count } }

    package func put(_ batch: SinkBatch) -> Placement {
        box.withLock { b in
            if let after = b.afterClose { return .afterClose(after) }
            let droppedBefore = b.batches.dropped
            b.batches.put([batch])
            let lost = b.batches.dropped - droppedBefore
            defer { b.scheduled = true }
            return .parked(wakeIntake: !b.scheduled, lost: lost)
        }
    }

    /// Notes that an intake job is scheduled (the first one, which opens the queue).
    package func markScheduled() { box.withLock { $0.scheduled = true } }

    /// Up to `limit` of the oldest batches; none means the intake job is done (a batch put in
    /// from now on schedules another).
    package func take(upTo limit: Int) -> [SinkBatch] {
        box.withLock { b in
            let taken = b.batches.take(upTo: limit)
            if taken.isEmpty { b.scheduled = false }
            return taken
        }
    }

    /// Puts a replaced sink's batches ahead of everything parked since.
    package func prepend(_ batches: [SinkBatch]) { box.withLock { $0.batches.putBack(batches) } }

    /// Closes the inbox: returns what it held; batches put in from now on go `afterwards`.
    /// Under the one lock, so a batch submitted meanwhile is either returned here or redirected.
    package func close(afterwards: AfterClose) -> [SinkBatch] {
        box.withLock { b in
            b.afterClose = afterwards
            return b.batches.takeAll()
        }
    }
}
