import PathwatchAgent
import PathwatchQueue

/// Opens the sink's disk queue, and decides what a failure to open it is worth saying. A sink
/// being replaced hands the folder over within moments, so a busy folder is news only when it
/// lasts; any other failure (permissions, a full disk) is logged once per different error.
/// Used on the intake thread only.
struct QueueOpening {
    let folder: String
    let limits: DurableQueue.Limits
    /// Monotonic time the folder was first found busy, while it stays so.
    private var busySince: UInt64?
    private var busyLogged = false
    /// The last error opening the queue that was logged.
    private var loggedError: String?

    /// How long a busy folder goes unreported.
    static let busyQuietNanoseconds: UInt64 = 2_000_000_000

    init(folder: String, limits: DurableQueue.Limits) {
        self.folder = folder
        self.limits = limits
    }

    /// The last attempt found the folder owned by another (retry soon, not in a while).
    var isBusy: Bool { busySince != nil }

    /// The queue, or nil after noting the failure in the log and `last_error` when it is news.
    mutating func open(name: String, logger: AgentLogger, health: WebhookHealth) -> DurableQueue? {
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
        let now = monotonicNanoseconds()
        let since = busySince ?? now
        busySince = since
        guard !busyLogged, now - since >= Self.busyQuietNanoseconds else { return false }
        busyLogged = true
        return true
    }
}
