import PathwatchQueue
import PathwatchSinkKit
import Synchronization

/// What a pushing sink's `status()` reports: the queue's counts as last seen, what was lost
/// before reaching the disk, what waits in memory for it, the last delivery and the last error.
/// One lock of its own, apart from the disk queue's, so a slow fsync never holds up the agent
/// building its document.
///
/// Every record is in exactly one count: `queued` (on disk, held in memory for it, or not yet
/// encoded), or `dropped` (the queue's drops for space, damage or age, the receiver's refusals,
/// and what never reached the disk), of which `rejected` are the refusals. Records the bound
/// took out of the request being sent stay queued until that request's outcome says whether
/// they were delivered or dropped.
package final class DeliveryHealth: Sendable {
    private struct Counts {
        var queued = 0
        var queueDropped: UInt64 = 0
        var queueRejected: UInt64 = 0
        /// The queue's change count of the tally these come from.
        var change: UInt64 = 0
        var lostInMemory = 0
        /// Records encoded but not yet on disk because appends fail.
        var heldInMemory = 0
        /// Why records are held in memory, while they are: it outranks delivery errors in
        /// `last_error`, since it is what stands between the agent and losing them.
        var stateDiskError: String?
        var lastDelivery: WallTime?
        var lastError: String?
    }

    private let counts = Mutex(Counts())
    private let logger: AgentLogger
    private let type: String
    private let noun: String
    private let target: HTTPTarget
    /// What stamps `last_delivery` and `last_error`.
    private let clock: any AgentClock

    /// `type` is the sink's (`webhook`), `noun` what it calls its records (`payloads`),
    /// `target` its URL, shown redacted.
    package init(
        type: String, noun: String, target: HTTPTarget, logger: AgentLogger, clock: any AgentClock = SystemClock()
    ) {
        self.type = type
        self.noun = noun
        self.logger = logger
        self.target = target
        self.clock = clock
    }

    /// The status document's entry. What the runner holds before it reaches the queue is the
    /// runner's to count (SinkRunner adds its intake).
    package func status() -> SinkStatus {
        counts.withLock { c in
            SinkStatus(
                type: type, target: logger.redactor.redact(target.display), queued: c.queued + c.heldInMemory,
                dropped: Int(c.queueDropped + c.queueRejected) + c.lostInMemory, rejected: Int(c.queueRejected),
                lastDelivery: c.lastDelivery, lastError: (c.stateDiskError ?? c.lastError).map(logger.redactor.redact))
        }
    }

    /// Records on disk.
    package var queued: Int { counts.withLock { $0.queued } }
    /// Records waiting in memory for the state disk.
    package var heldInMemory: Int { counts.withLock { $0.heldInMemory } }

    /// Takes the disk queue's counts after it changed. The intake and the deliverer both
    /// observe; a tally read before another's is stale and ignored.
    package func observe(_ queue: DurableQueue) {
        let tally = queue.tally
        counts.withLock { c in
            guard tally.change >= c.change else { return }
            c.change = tally.change
            c.queued = tally.count + tally.droppedWhileOut
            c.queueDropped = tally.counters.dropped
            c.queueRejected = tally.counters.rejected
        }
    }

    /// `last_error`, stamped with the time.
    package func noteError(_ text: String) { counts.withLock { $0.lastError = "\(clock.wallNow): \(text)" } }

    package func noteDelivery() { counts.withLock { $0.lastDelivery = clock.wallNow } }

    /// Records that never reached the disk.
    package func countLost(_ count: Int) { counts.withLock { $0.lostInMemory += count } }

    /// `count` records now wait in memory because the state disk refuses them (`why`). True
    /// when none waited before: the moment worth a log line.
    package func holding(_ count: Int, because why: String) -> Bool {
        counts.withLock { c in
            let firstTime = c.heldInMemory == 0
            c.heldInMemory = count
            c.lastError = "\(clock.wallNow): \(why); \(count) \(noun) held in memory"
            c.stateDiskError = c.lastError
            return firstTime
        }
    }

    /// The state disk took what was held: returns how many records that was.
    package func diskTookHeldRecords() -> Int {
        counts.withLock { c in
            defer {
                c.heldInMemory = 0
                c.stateDiskError = nil
            }
            return c.heldInMemory
        }
    }

    /// Closing: what was lost goes to the successor with the leftovers; nothing is held here
    /// any more.
    package func handOver() -> Int {
        counts.withLock { c in
            c.heldInMemory = 0
            return c.lostInMemory
        }
    }

    /// Opening as a successor: what the replaced sink lost, and the records it held.
    package func adopt(lost: Int, held: Int) {
        counts.withLock { c in
            c.lostInMemory += lost
            c.heldInMemory += held
        }
    }
}
