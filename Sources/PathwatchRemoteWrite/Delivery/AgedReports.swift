import Logging
import PathwatchHTTPOut
import PathwatchJSON
import PathwatchQueue

/// `max_age` on the delivery thread: reports older than it leave the queue unsent, counted and
/// said, before a request carries them and while delivery waits. Shared by the formats that
/// queue reports (remote write, OTLP).
package struct AgedReports {
    /// While holding, the queue is still looked at this often for reports past `max_age`.
    package static let checkSeconds = 10.0

    let maxAge: ConfigDuration
    let context: PushContext

    package init(maxAge: ConfigDuration, context: PushContext) {
        self.maxAge = maxAge
        self.context = context
    }

    /// The reports at the start of `run` that are past `max_age` (said when there are some).
    package func expired(_ run: [QueueHead]) -> [QueueEntry] {
        let oldest = oldestKept
        let expired = run.prefix { $0.record.enqueuedAtMilliseconds < oldest }.map(\.entry)
        if !expired.isEmpty { logAged(expired.count) }
        return expired
    }

    /// Drops the oldest reports while they are older than `max_age`, counted.
    package func housekeep(_ queue: DurableQueue) {
        let oldest = oldestKept
        guard let run = try? queue.heads(upTo: Int.max, while: { $0.enqueuedAtMilliseconds < oldest }) else { return }
        let expired = run.prefix { $0.record.enqueuedAtMilliseconds < oldest }
        guard !expired.isEmpty else { return }
        do {
            try queue.complete(run: expired.map(\.entry), as: .unreadable)
        } catch {
            context.note(error: "cannot advance the queue: \(error)", level: .error)
        }
        context.health.observe(queue)
        logAged(expired.count)
    }

    private var oldestKept: Int64 { context.clock.wallNow.milliseconds - maxAge.nanoseconds / 1_000_000 }

    private func logAged(_ count: Int) {
        context.logRepeated(
            .warning, kind: "dropped-aged", "dropped the \(count) oldest reports, older than max_age (\(maxAge))")
    }
}
