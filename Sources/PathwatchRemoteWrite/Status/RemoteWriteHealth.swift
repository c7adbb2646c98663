import PathwatchAgent
import PathwatchQueue
import Synchronization

/// What `status()` reports: the queue's records and bytes as last seen, what was dropped and
/// why, the last delivery and the last error. One lock of its own, apart from the disk
/// queue's, so a slow fsync never holds up the agent building its document.
final class RemoteWriteHealth: Sendable {
    /// Why records were given up on, for the log and the tests; the status document carries
    /// their sum as `dropped` and the receiver's refusals as `rejected`.
    struct Drops: Equatable, Sendable {
        /// Past `max_bytes` (the queue dropped the oldest to take a new report, or a report
        /// larger than it), or found damaged.
        var bytes: UInt64 = 0
        /// Older than `max_age` when their turn came.
        var age: UInt64 = 0
        /// Refused for good by the receiver (a 4xx other than 408 and 429).
        var rejected: UInt64 = 0
        /// Never reached the disk (the queue could not be opened or written, or the sink stopped first).
        var lost: UInt64 = 0
    }

    private struct Counts {
        var queued = 0
        var queuedBytes: UInt64 = 0
        /// The queue's lifetime count of records it dropped (for space, damage or age).
        var queueDropped: UInt64 = 0
        var drops = Drops()
        /// The queue's change count of the tally these come from.
        var change: UInt64 = 0

        /// `drops` with the space drops: what the queue dropped that was not for age.
        var split: Drops {
            var d = drops
            d.bytes = queueDropped >= d.age ? queueDropped - d.age : 0
            return d
        }
        var lastDelivery: WallTime?
        var lastError: String?
        var requests: UInt64 = 0
        var samples: UInt64 = 0
    }

    private let counts = Mutex(Counts())
    private let logger: AgentLogger
    private let target: String

    init(target: String, logger: AgentLogger) {
        self.logger = logger
        self.target = target
    }

    /// The status document's entry; `pending` are reports not yet on disk.
    func status(pending: Int) -> SinkStatus {
        counts.withLock { c in
            let d = c.drops
            return SinkStatus(
                type: "remote_write", target: target, queued: c.queued + pending,
                dropped: Int(c.queueDropped + d.rejected + d.lost), rejected: Int(d.rejected), lastDelivery: c.lastDelivery,
                lastError: c.lastError.map(logger.redactor.redact))
        }
    }

    var queued: Int { counts.withLock { $0.queued } }
    var drops: Drops { counts.withLock { $0.split } }
    /// Requests and samples accepted by the receiver since start.
    var delivered: (requests: UInt64, samples: UInt64) { counts.withLock { ($0.requests, $0.samples) } }

    /// Takes the disk queue's counts after it changed. The queue's own `dropped` (for space,
    /// damage or age, which the deliverer completes as unreadable) is split by the age drops
    /// counted here; its `rejected` is the receiver's refusals. Reports the bound took out of
    /// the request being sent count as queued until that request's outcome says whether they
    /// were delivered or dropped, so each report is in exactly one of the counts.
    func observe(_ queue: DurableQueue) {
        let tally = queue.tally
        counts.withLock { c in
            // The intake and the deliverer both observe; a tally read before another's is stale.
            guard tally.change >= c.change else { return }
            c.change = tally.change
            c.queued = tally.count + tally.droppedWhileOut
            c.queuedBytes = tally.bytes
            c.drops.rejected = tally.counters.rejected
            c.queueDropped = tally.counters.dropped
        }
    }

    /// Records dropped for age, which the queue counts among its own drops (its count survives
    /// restarts; the split by reason is this run's, for the log and the tests).
    func countAged(_ count: Int) { counts.withLock { $0.drops.age += UInt64(count) } }

    /// Reports that never reached the disk.
    func countLost(_ count: Int) { counts.withLock { $0.drops.lost += UInt64(count) } }

    func noteError(_ text: String) { counts.withLock { $0.lastError = "\(WallTime.now()): \(text)" } }

    func noteDelivery(samples: Int) {
        counts.withLock { c in
            c.lastDelivery = .now()
            c.requests += 1
            c.samples += UInt64(samples)
        }
    }
}
