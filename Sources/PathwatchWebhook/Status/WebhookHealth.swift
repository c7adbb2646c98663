import PathwatchAgent
import PathwatchQueue
import Synchronization

/// What `status()` reports: the queue's counts as last seen, what was lost before reaching the
/// disk, what waits in memory for it, the last delivery and the last error. One lock of its
/// own, apart from the disk queue's, so a slow fsync never holds up the agent building its
/// document.
final class WebhookHealth: Sendable {
    private struct Counts {
        var queued = 0
        var diskDropped: UInt64 = 0
        var diskRejected: UInt64 = 0
        var lostInMemory = 0
        /// Payloads formatted but not yet on disk because appends fail.
        var heldInMemory = 0
        /// Why payloads are held in memory, while they are: it outranks delivery errors in
        /// `last_error`, since it is what stands between the agent and losing payloads.
        var stateDiskError: String?
        var lastDelivery: WallTime?
        var lastError: String?
    }

    private let counts = Mutex(Counts())
    private let logger: AgentLogger
    private let target: WebhookTarget

    init(target: WebhookTarget, logger: AgentLogger) {
        self.logger = logger
        self.target = target
    }

    /// The status document's entry; `pendingBatches` are batches not yet formatted.
    func status(pendingBatches: Int) -> SinkStatus {
        counts.withLock { c in
            SinkStatus(
                type: "webhook", target: logger.redactor.redact(target.display), queued: c.queued + c.heldInMemory + pendingBatches,
                dropped: Int(c.diskDropped + c.diskRejected) + c.lostInMemory, rejected: Int(c.diskRejected),
                lastDelivery: c.lastDelivery, lastError: (c.stateDiskError ?? c.lastError).map(logger.redactor.redact))
        }
    }

    /// Payloads on disk.
    var queued: Int { counts.withLock { $0.queued } }
    /// Payloads waiting in memory for the state disk.
    var heldInMemory: Int { counts.withLock { $0.heldInMemory } }

    /// Takes the disk queue's counts after it changed.
    func observe(_ queue: DurableQueue) {
        let count = queue.count
        let counters = queue.counters
        counts.withLock { c in
            c.queued = count
            c.diskDropped = counters.dropped
            c.diskRejected = counters.rejected
        }
    }

    /// `last_error`, stamped with the time.
    func noteError(_ text: String) { counts.withLock { $0.lastError = "\(WallTime.now()): \(text)" } }

    func noteDelivery() { counts.withLock { $0.lastDelivery = .now() } }

    func countLost(_ count: Int) { counts.withLock { $0.lostInMemory += count } }

    /// `count` payloads now wait in memory because the state disk refuses them (`why`). True
    /// when none waited before: the moment worth a log line.
    func holding(_ count: Int, because why: String) -> Bool {
        counts.withLock { c in
            let firstTime = c.heldInMemory == 0
            c.heldInMemory = count
            c.lastError = "\(WallTime.now()): \(why); \(count) payloads held in memory"
            c.stateDiskError = c.lastError
            return firstTime
        }
    }

    /// The state disk took what was held: returns how many payloads that was.
    func diskTookHeldPayloads() -> Int {
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
    func handOver() -> Int {
        counts.withLock { c in
            c.heldInMemory = 0
            return c.lostInMemory
        }
    }

    /// Opening as a successor: what the replaced sink lost, and the payloads it held.
    func adopt(lost: Int, held: Int) {
        counts.withLock { c in
            c.lostInMemory += lost
            c.heldInMemory += held
        }
    }
}
