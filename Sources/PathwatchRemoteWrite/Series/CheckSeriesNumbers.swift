import PathwatchSinkKit

/// The series numbers each check's series had at its probe's last report. A probe's checks
/// nearly always report the same series again (their values change, their labels seldom), so a
/// report is then the checks' values beside numbers already known: no label list made, sorted,
/// hashed and compared per series per report, which was most of what a push cost. A check that
/// is new, or whose series changed (`CheckSeries.sameSeries`), is numbered afresh and kept.
/// Used on the intake thread only.
struct CheckSeriesNumbers {
    private struct Known {
        var check: CheckRecord
        var numbers: [UInt64]
    }

    /// By probe, its checks in the order of its last report.
    private var byProbe: [String: [Known]] = [:]
    /// The probe whose checks the report is at: what it had, how far the report got in it,
    /// and what it has now.
    private var probe: String?
    private var earlier: [Known] = []
    /// Where in `earlier` the report is: just past the check `numbers(for:)` last found.
    private var position = 0
    /// What the probe has now, while it is `earlier`'s first `sameSoFar` checks: nearly every
    /// report, where each check is found where it was with the same series. Those are not
    /// copied (a `CheckRecord` is some ten counted references, copied in and released out for
    /// every check of every report); `kept` stays nil until the report departs from them.
    private var sameSoFar = 0
    private var kept: [Known]?
    /// The book's `forgettings` when every number kept was last found standing.
    private var forgettings = 0
    /// The agent's name the numbers were made with: `instance` is one of the labels.
    private var agent: String?
    /// Samples in the last report: room reserved for the next.
    private(set) var lastCount = 0

    /// Before a report: forgets what no longer holds (the agent renamed, numbers the book
    /// forgot).
    mutating func start(agent name: String, book: some SeriesNumbering) {
        if agent != name {
            byProbe = [:]
            agent = name
        }
        if book.forgettings != forgettings {
            for (probe, checks) in byProbe {
                byProbe[probe] = checks.filter { $0.numbers.allSatisfy(book.knows) }
            }
            forgettings = book.forgettings
        }
    }

    /// The numbers of `check`'s series, when its probe's last report had the same series for
    /// it. Checks come in their report's order, a probe's together; each is then `keepFound`'s
    /// or `keep`'s.
    mutating func numbers(for check: CheckRecord) -> [UInt64]? {
        if probe != check.probe {
            finishProbe()
            probe = check.probe
            earlier = byProbe[check.probe] ?? []
            position = 0
        }
        // In the same place as the last report, nearly always; else wherever it was.
        if position >= earlier.count || earlier[position].check.id != check.id {
            guard let at = earlier.firstIndex(where: { $0.check.id == check.id }) else { return nil }
            position = at
        }
        position += 1
        // Read in place: a copy of the entry would retain every reference of its record.
        guard PrometheusExposition.CheckSeries.sameSeries(check, as: earlier[position - 1].check) else { return nil }
        return earlier[position - 1].numbers
    }

    /// The check `numbers(for:)` just found keeps the numbers it gave, for the next report. What
    /// is kept is the record it was found by: its series are the same as the check's
    /// (`sameSeries` holds), which is all a later report is compared by.
    mutating func keepFound() {
        let found = position - 1
        if kept == nil && found == sameSoFar {
            sameSoFar += 1
            return
        }
        keepApart(earlier[found])
    }

    /// `check`'s series have `numbers` in this report, new or changed since the last: kept for
    /// the next.
    mutating func keep(_ check: CheckRecord, numbers: [UInt64]) {
        keepApart(Known(check: check, numbers: numbers))
    }

    /// After a report of `count` samples.
    mutating func finish(count: Int) {
        finishProbe()
        lastCount = count
    }

    /// `known` is kept where the report no longer follows the probe's last one check for check:
    /// what it kept so far is copied out first, once.
    private mutating func keepApart(_ known: Known) {
        if kept == nil { kept = Array(earlier[..<sameSoFar]) }
        kept?.append(known)
    }

    /// The checks of the probe the report was at are those it had in this report.
    private mutating func finishProbe() {
        if let probe {
            if let kept {
                byProbe[probe] = kept
            } else if sameSoFar < earlier.count {
                byProbe[probe] = Array(earlier[..<sameSoFar])
            }
            // Else every check was found where it was, the same: what the probe had stands.
        }
        probe = nil
        earlier = []
        kept = nil
        sameSoFar = 0
    }
}
