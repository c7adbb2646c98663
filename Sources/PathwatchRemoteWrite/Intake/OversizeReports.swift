import PathwatchAgent
import Synchronization

/// Reports larger than `max_bytes`: the queue refuses them (its bound is the bytes it keeps, and
/// a report is kept whole so that it is delivered or dropped as one), and counts them as
/// dropped. How large a report is depends on the checks the plug-ins report, so it is known only
/// when they do, never when the configuration is checked. Said once when it starts, with the
/// size that would be needed, and once when reports fit again; `last_error` says it meanwhile.
/// Used from the intake thread only.
final class OversizeReports: Sendable {
    private let refusedInARow = Atomic<Int>(0)
    private let name: String
    private let maxBytes: ByteSize
    private let logger: AgentLogger
    private let health: RemoteWriteHealth

    init(name: String, maxBytes: ByteSize, logger: AgentLogger, health: RemoteWriteHealth) {
        self.name = name
        self.maxBytes = maxBytes
        self.logger = logger
        self.health = health
    }

    /// A report of `bytes` (`series` series) was refused.
    func refused(bytes: Int, series: Int) {
        let text = "a report of \(ByteSize(bytes: UInt64(bytes))) (\(series) series) is larger than max_bytes (\(maxBytes)) and was dropped"
        health.noteError(text)
        if refusedInARow.wrappingAdd(1, ordering: .relaxed).newValue == 1 {
            logger.error("\(name): \(text); every report this large is dropped and counted until max_bytes is raised above its size")
        }
    }

    /// A report fitted.
    func fitted() {
        let count = refusedInARow.exchange(0, ordering: .relaxed)
        if count > 0 { logger.notice("\(name): reports fit max_bytes again; \(count) were dropped as larger than it") }
    }
}
