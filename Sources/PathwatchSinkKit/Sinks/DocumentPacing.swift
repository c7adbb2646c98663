import PathwatchJSON

/// When the whole state goes to the sinks. A report that raises change events, changes a check's
/// state (announced or not) or completes the first picture of the host goes at once, with its
/// events, in order. Any other report only changes what the next document will say: it goes in
/// a batch once reports pause for `settle`. So the sinks that present the whole state (a file
/// rewritten, a page, `/metrics`, a stdout line per document) get about one document per tick
/// however many probes report, each carrying the tick's reports, not the tick before. A probe
/// that reports again while its last report is still held sends the held batch first (`holds`):
/// every report reaches a document before the next one replaces it.
///
/// Ticks are the window's multiples on the monotonic clock, the grid that probes of one interval
/// sample on together (`ProbeRunner`). The first document of a tick goes once its burst pauses,
/// however soon after the tick before. A report of a tick that already had its document (a
/// sample that took longer than the others) goes in a later document of the same tick, held at
/// most as long again as the tick had taken when its last document went: a tick whose reports
/// trickle in over the whole window makes about ten documents, not one per report. Before,
/// such a report waited for a window after the tick's first document, and so did the next
/// tick's burst behind it: with ten probes of 1,000 endpoints whose samples ended a few hundred
/// milliseconds apart, nine of them showed the tick before for most of an interval.
///
/// The window is the shortest probe interval: every probe reports about once in it, and no
/// sample waits longer than its own interval to be seen. With a thousand probes each report
/// used to build, copy and render the whole estate, so cost grew with the square of the probes.
package struct DocumentPacing {
    package enum Decision: Equatable {
        /// Build the batch now, for the probes `takePending` returns.
        case now
        /// Held; the batch for it goes at this monotonic instant (arm a timer for it).
        case later(UInt64)
        /// Held; a timer for the batch that will carry it is already armed.
        case held
    }

    /// What the armed timer's firing calls for.
    package enum Fired: Equatable {
        /// Build the batch now.
        case publish
        /// Reports are still coming in: arm the timer again for this instant.
        case wait(until: UInt64)
        /// Nothing was held since the last batch.
        case idle
    }

    /// Nanoseconds between ticks.
    package var window: UInt64
    /// The last batch: when it went, and the tick whose reports it carried.
    private var lastPublished: (at: UInt64, tick: UInt64?)?
    private var timerArmed = false
    /// When the first report the armed timer is for came: a batch is held no longer than a
    /// window after it, however steadily reports keep coming.
    private var heldSince: UInt64 = 0
    private var lastReport: UInt64 = 0
    /// The tick of the latest report (its grid instant), and when its first report came.
    private var tick: (instant: UInt64, firstReport: UInt64)?
    /// Probes reported since the last batch, each once, in the order they reported.
    private var pending: [String] = []
    private var pendingSet: Set<String> = []
    /// The agent is stopping: no timer will fire, so nothing is held.
    package var stopping = false

    package init(window: UInt64) { self.window = window }

    /// The shortest interval of `probes`, or `fallback` when there are none.
    package static func window(intervals: [ConfigDuration], fallback: ConfigDuration) -> UInt64 {
        UInt64(max(1, (intervals.map(\.nanoseconds).min() ?? fallback.nanoseconds)))
    }

    /// How long reports must pause before their batch goes: 100 ms, or a twentieth of a shorter
    /// window. A thousand probes' answers to one tick come back within tens of milliseconds in
    /// a release build; a lone report is seen that much later, as the price of one document per
    /// tick that carries all of it.
    package var settle: UInt64 { min(100_000_000, window / 20) }

    /// `probe` reported at `now`; `urgent` when the report raised events, changed a check's state
    /// or completed the first picture, which never wait.
    package mutating func report(_ probe: String, at now: UInt64, urgent: Bool) -> Decision {
        if pendingSet.insert(probe).inserted { pending.append(probe) }
        lastReport = now
        let reportTick = now - now % max(1, window)
        if tick?.instant != reportTick { tick = (reportTick, now) }
        if urgent || stopping { return .now }
        if timerArmed { return .held }
        timerArmed = true
        heldSince = now
        var due = now &+ settle
        // A later report of a tick that had its document: held as long again as the tick had
        // taken by then, so a tick's documents grow apart and stay few.
        if let last = lastPublished, let tick, last.tick == tick.instant, last.at >= tick.firstReport {
            due = max(due, last.at &+ (last.at - tick.firstReport))
        }
        return .later(due)
    }

    /// The grid instant of the tick the latest report belongs to: what a sink's own spacing
    /// counts between (`SinkBatch.tick`).
    package var currentTick: UInt64? { tick?.instant }

    /// Whether a report of `probe` is held: its next one must not replace it unseen.
    package func holds(_ probe: String) -> Bool { pendingSet.contains(probe) }

    /// A batch is being built at `now`: the probes it speaks for, and nothing is pending after.
    package mutating func takePending(at now: UInt64) -> [String] {
        lastPublished = (at: now, tick: tick?.instant)
        defer {
            pending = []
            pendingSet = []
        }
        return pending
    }

    /// The armed timer fired at `now` (or the agent stops and asks what is held).
    package mutating func timerFired(at now: UInt64) -> Fired {
        timerArmed = false
        guard !pending.isEmpty else { return .idle }
        let quiet = lastReport &+ settle
        if !stopping, now < quiet, quiet &- heldSince < window {
            timerArmed = true
            return .wait(until: quiet)
        }
        return .publish
    }
}
