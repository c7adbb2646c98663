import Logging
import Synchronization

/// Lines of one kind that may repeat with every report (a full queue dropping the oldest, a file
/// that cannot be written) go to the log at most once per interval: the first at once, then one
/// summary per interval while they go on, saying how many were held back ("… (and 244 more like
/// it in the last 10 minutes)"). A queue that stays full otherwise wrote one warning per report,
/// 245 in nine minutes, and buried the journal. The counts themselves are in the sinks' metrics.
package final class LogRateLimiter: Sendable {
    /// Ten minutes, in nanoseconds.
    package static let defaultInterval: UInt64 = 600_000_000_000

    private struct Kind {
        /// When the last line of this kind was written (the first, or a summary).
        var since: UInt64
        var heldBack = 0
        var last: (level: Logger.Level, text: String)? = nil
        var summaryArmed = false
    }

    private let interval: UInt64
    private let clock: any AgentClock
    private let emit: @Sendable (Logger.Level, String) -> Void
    private let kinds = Mutex<[String: Kind]>([:])

    /// `emit` writes a line (under the sink's name, through the agent's logger).
    package init(
        interval: UInt64 = defaultInterval, clock: any AgentClock,
        emit: @escaping @Sendable (Logger.Level, String) -> Void
    ) {
        self.interval = interval
        self.clock = clock
        self.emit = emit
    }

    /// Writes `text` now if no line of `kind` was written in the last interval; otherwise counts
    /// it, and the summary at the interval's end says it (with the last such line's words).
    package func log(_ level: Logger.Level, kind: String, _ text: String) {
        let now = clock.monotonicNow
        let (writeNow, summaryAt) = kinds.withLock { kinds -> (Bool, UInt64?) in
            guard var k = kinds[kind], k.heldBack > 0 || now &- k.since < interval else {
                kinds[kind] = Kind(since: now)
                return (true, nil)
            }
            k.heldBack += 1
            k.last = (level, text)
            let arm = !k.summaryArmed
            k.summaryArmed = true
            kinds[kind] = k
            return (false, arm ? k.since &+ interval : nil)
        }
        if writeNow { emit(level, text) }
        if let summaryAt { clock.schedule(atMonotonic: summaryAt) { [weak self] in self?.summarize(kind) } }
    }

    /// The sink stops: every summary still due is written now, so that a stop never leaves
    /// unsaid the lines held back since the last one. The timers still armed find nothing.
    package func flush() {
        let now = clock.monotonicNow
        let kinds = self.kinds.withLock { kinds in kinds.filter { $0.value.heldBack > 0 }.map(\.key).sorted() }
        for kind in kinds { summarize(kind, at: now) }
    }

    /// The interval is over: the lines held back in it, as one. The next interval starts now, so
    /// a flood that goes on gets one summary per interval, and one that stopped none after this.
    private func summarize(_ kind: String, at now: UInt64? = nil) {
        let now = now ?? clock.monotonicNow
        let line = kinds.withLock { kinds -> (Logger.Level, String)? in
            guard let k = kinds[kind], let last = k.last, k.heldBack > 0 else { return nil }
            kinds[kind] = Kind(since: now)
            let more = k.heldBack == 1 ? "1 more" : "\(k.heldBack) more"
            return (last.level, "\(last.text) (and \(more) like it in the last \(Self.span(now &- k.since)))")
        }
        if let line { emit(line.0, line.1) }
    }

    /// "10 minutes", "1 minute", "45 s".
    package static func span(_ nanoseconds: UInt64) -> String {
        let seconds = (nanoseconds + 500_000_000) / 1_000_000_000
        guard seconds >= 60 else { return "\(seconds) s" }
        let minutes = (seconds + 30) / 60
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }
}
