import Glibc
import PathwatchProbeKit
import PathwatchSinkKit

/// One rule that silences checks: a window of `agent.quiet` (weekly times, or a start and an
/// end) or a silence `pathwatch silence` added (until a time). `checks` are shell globs
/// (`fnmatch`) on the check's id, which begins with its probe's (`api/*`).
package struct SilenceRule: Sendable, Equatable {
    package enum When: Sendable, Equatable {
        /// From `from` until `until`, wall-clock milliseconds.
        case between(from: Int64, until: Int64)
        /// Every `period` minutes (a day, 1,440, or a week, 10,080, from Sunday 00:00), from
        /// minute `start` for `length` minutes, in the host's local time.
        case repeating(period: Int, start: Int, length: Int)
    }

    package static let maxPatterns = 32
    package static let maxPatternBytes = 256

    package var checks: [String]
    package var when: When

    package init(checks: [String], when: When) {
        self.checks = checks
        self.when = when
    }

    package func covers(_ check: String, at now: WallTime) -> Bool { isActive(at: now) && matches(check) }

    package func matches(_ check: String) -> Bool { checks.contains { fnmatch($0, check, 0) == 0 } }

    package func isActive(at now: WallTime) -> Bool {
        switch when {
        case .between(let from, let until): return (from..<until).contains(now.milliseconds)
        case .repeating(let period, let start, let length):
            let minute = Self.localMinute(now, period: period)
            return (minute - start + period) % period < length
        }
    }

    /// Over for good: a `between` whose end has passed (a repeating one never is).
    package func isOver(at now: WallTime) -> Bool {
        if case .between(_, let until) = when { return now.milliseconds >= until }
        return false
    }

    /// The first instant after `now` at which the rule starts or stops being active; nil when
    /// it never will again. A repeating rule's is counted in local minutes (a clock change in
    /// between moves it; the caller looks again then).
    package func nextChange(after now: WallTime) -> WallTime? {
        switch when {
        case .between(let from, let until):
            return [from, until].filter { $0 > now.milliseconds }.min().map { WallTime(milliseconds: $0) }
        case .repeating(let period, let start, let length):
            let minute = Self.localMinute(now, period: period)
            let toStart = (start - minute + period) % period
            let toEnd = (start + length - minute + period) % period
            let minutes = [toStart, toEnd].map { $0 == 0 ? period : $0 }.min()!
            let minuteStart = now.milliseconds - now.milliseconds % 60_000
            return WallTime(milliseconds: minuteStart + Int64(minutes) * 60_000)
        }
    }

    /// Minutes since Sunday 00:00 (a week) or since midnight (a day), in local time.
    static func localMinute(_ time: WallTime, period: Int) -> Int {
        var seconds = time_t(time.milliseconds / 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let ofDay = Int(parts.tm_hour) * 60 + Int(parts.tm_min)
        return period == 1440 ? ofDay : Int(parts.tm_wday) * 1440 + ofDay
    }

    /// Globs as a rule takes them: 1 to 32, each 1 to 256 bytes without NUL; nil when not.
    package static func validPatterns(_ patterns: [String]) -> Bool {
        (1...maxPatterns).contains(patterns.count)
            && patterns.allSatisfy { !$0.isEmpty && $0.utf8.count <= maxPatternBytes && !$0.utf8.contains(0) }
    }
}
