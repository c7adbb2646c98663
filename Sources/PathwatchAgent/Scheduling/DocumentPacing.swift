import PathwatchJSON

/// When the whole state goes to the sinks. A report that raises change events, changes a check's
/// state (announced or not) or completes the first picture of the host goes at once, with its
/// events, in order. Any other report only changes what the next document will say: the first
/// after a quiet window goes at once, and those that follow within the window are folded into
/// one batch at its end. So the sinks that present the whole state (a file rewritten, a page,
/// `/metrics`, a stdout line per document) get at most one document per window however many
/// probes report, and a lone report is not held back. A probe that reports again while its last report is still held sends the held
/// batch first (`holds`): every report reaches a document before the next one replaces it.
///
/// The window is the shortest probe interval: every probe reports about once in it, and no
/// sample waits longer than its own interval to be seen. With a thousand probes each report
/// used to build, copy and render the whole estate, so cost grew with the square of the probes.
struct DocumentPacing {
    enum Decision: Equatable {
        /// Build the batch now, for the probes `takePending` returns.
        case now
        /// Held; the batch for it goes at this monotonic instant (arm a timer for it).
        case later(UInt64)
        /// Held; a timer for the batch that will carry it is already armed.
        case held
    }

    /// Nanoseconds between documents.
    var window: UInt64
    private var lastPublished: UInt64?
    private var timerArmed = false
    /// Probes reported since the last batch, each once, in the order they reported.
    private var pending: [String] = []
    private var pendingSet: Set<String> = []
    /// The agent is stopping: no timer will fire, so nothing is held.
    var stopping = false

    init(window: UInt64) { self.window = window }

    /// The shortest interval of `probes`, or `fallback` when there are none.
    static func window(intervals: [ConfigDuration], fallback: ConfigDuration) -> UInt64 {
        UInt64(max(1, (intervals.map(\.nanoseconds).min() ?? fallback.nanoseconds)))
    }

    /// `probe` reported at `now`; `urgent` when the report raised events, changed a check's state
    /// or completed the first picture, which never wait.
    mutating func report(_ probe: String, at now: UInt64, urgent: Bool) -> Decision {
        if pendingSet.insert(probe).inserted { pending.append(probe) }
        if urgent || stopping { return .now }
        // A probe on a grid of the window's length reports a moment early as often as late: a
        // tenth of the window is scheduling's, so that one probe's reports each go at once.
        guard let last = lastPublished, now &- last < window - window / 10 else { return timerArmed ? .held : .now }
        if timerArmed { return .held }
        timerArmed = true
        return .later(last &+ window)
    }

    /// Whether a report of `probe` is held: its next one must not replace it unseen.
    func holds(_ probe: String) -> Bool { pendingSet.contains(probe) }

    /// A batch is being built at `now`: the probes it speaks for, and nothing is pending after.
    mutating func takePending(at now: UInt64) -> [String] {
        lastPublished = now
        defer {
            pending = []
            pendingSet = []
        }
        return pending
    }

    /// The armed timer fired: true when a batch is owed (something was held since).
    mutating func timerFired() -> Bool {
        timerArmed = false
        return !pending.isEmpty
    }
}
