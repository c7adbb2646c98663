import PathwatchJSON
import PathwatchSinkKit

/// When a report also carries the series of no one probe (the build's, the path's, the sinks',
/// `pathwatch_up`): once in each agent interval, and at once when the path changes.
///
/// Every probe's report would otherwise repeat them: with four probes each would arrive four
/// times an interval. Once an interval is the agent's own resolution, what a scrape at that
/// interval would see. The path is sent at the report that changed it too, so its transitions
/// are stored when observed rather than up to an interval later. Sending only on change is
/// not enough: the sinks' counts move at nearly every report, and `pathwatch_up` and the build
/// never change but must keep arriving (a receiver treats a series with no sample for five
/// minutes as gone).
///
/// Turns come once an interval, each one interval after the one before. A report takes its
/// turn when it comes at most a quarter of an interval early: probes sampled at the agent's
/// interval report a little early or late, and a turn missed by a few milliseconds would
/// otherwise wait for the next report, or a whole interval. Over any stretch of time the
/// agent's series go once per interval (plus the path's changes), evenly spaced when some probe
/// reports at the agent's interval.
struct AgentSeriesPace {
    let intervalMilliseconds: Int64
    /// When the next turn is; nil before the first report.
    private var nextTurn: Int64?
    private var lastPath: PathSeries?

    /// What the `pathwatch_path_*` series show of a path; the rest of it (its description, a
    /// DNS problem's wording) is not sent, and its changes do not count.
    private struct PathSeries: Equatable {
        var status: PathSummary.Status
        var type: String
        var interface: String?
        var expensive: Bool
        var internet: PathSummary.Internet?

        init(_ path: PathSummary) {
            (status, type, interface, expensive, internet) = (
                path.status, path.type, path.interface, path.expensive, path.internet
            )
        }
    }

    init(interval: ConfigDuration) {
        intervalMilliseconds = max(1, interval.nanoseconds / 1_000_000)
    }

    /// How early a report may take its turn.
    var slack: Int64 { intervalMilliseconds / 4 }

    /// Whether the report at `time` (milliseconds, never before the last report's) with `path`
    /// carries the agent's series; if so, they are counted as sent.
    mutating func take(at time: Int64, path: PathSummary) -> Bool {
        let shown = PathSeries(path)
        let changed = lastPath != shown
        lastPath = shown
        guard let turn = nextTurn else {
            nextTurn = time + intervalMilliseconds
            return true
        }
        guard time >= turn - slack else { return changed }
        // After a pause (no report for more than an interval) the turns start again from this
        // report rather than catching up with several sends at once.
        nextTurn = max(turn + intervalMilliseconds, time + intervalMilliseconds - slack)
        return true
    }
}
