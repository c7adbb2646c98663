import PathwatchBase
import PathwatchQueue
import PathwatchSinkKit

/// Opens the sink's disk queue, and decides what a failure to open it is worth saying. A sink
/// being replaced hands the folder over within moments, so a busy folder is news only when it
/// lasts; any other failure (permissions, a full disk) is logged once per different error.
/// Used on the sink runner's thread only.
package struct QueueOpening {
    package let folder: String
    package let limits: DurableQueue.Limits
    /// The folder's former name, moved to `folder` before the first attempt.
    private var former: String?
    /// Monotonic time the folder was first found busy, while it stays so.
    private var busySince: UInt64?
    private var busyLogged = false
    /// The last error opening the queue that was logged.
    private var loggedError: String?
    /// What the quiet time of a busy folder is measured on.
    private let clock: any AgentClock

    /// How long a busy folder goes unreported.
    package static let busyQuietNanoseconds: UInt64 = 2_000_000_000

    package init(
        folder: String, limits: DurableQueue.Limits, former: String? = nil, clock: any AgentClock = SystemClock()
    ) {
        self.folder = folder
        self.clock = clock
        self.limits = limits
        self.former = former
    }

    /// The last attempt found the folder owned by another (retry soon, not in a while).
    package var isBusy: Bool { busySince != nil }

    /// The queue, or nil after noting the failure in the log and `last_error` when it is news.
    package mutating func open(name: String, logger: AgentLogger, health: DeliveryHealth) -> DurableQueue? {
        if let former {
            self.former = nil
            if let problem = QueueFolder.migrate(from: former, to: folder) { logger.error("\(name): \(problem)") }
        }
        do {
            let queue = try DurableQueue(folder: folder, limits: limits)
            busySince = nil
            loggedError = nil
            return queue
        } catch {
            if isNews(error) {
                logger.log(error.busy ? .warning : .error, "\(name): cannot open its queue: \(error)")
                health.noteError("cannot open the queue: \(error)")
            }
            return nil
        }
    }

    private mutating func isNews(_ error: QueueError) -> Bool {
        guard error.busy else {
            busySince = nil
            defer { loggedError = error.description }
            return loggedError != error.description
        }
        let now = clock.monotonicNow
        let since = busySince ?? now
        busySince = since
        guard !busyLogged, now - since >= Self.busyQuietNanoseconds else { return false }
        busyLogged = true
        return true
    }
}
