import CPathwatchProbe
import PathwatchJSON

/// The moment by which the host needs the running call to return: for `sample(into:)` the
/// probe's `timeout` from when the host started the sample, for `init(config:)` the create
/// timeout, for `handleEvent(into:)` the probe's timeout from when the event was served.
///
/// Read it as `Deadline.current` inside those calls (on the calling thread; hand it to threads
/// of your own). It is nil when the host sets none (an agent built before deadlines existed):
/// keep your own defaults then. Fit every wait inside it — connect, DNS, replies — so the
/// verdict is reported instead of the call being cut off: the host kills a plug-in still
/// running 1 s after its deadline.
///
///     let wait = Deadline.current?.allowing(config.timeout) ?? config.timeout
public struct Deadline: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// CLOCK_MONOTONIC nanoseconds (`MonotonicClock.nowNanoseconds()` is the same clock).
    public var monotonicNanoseconds: Int64

    public init(monotonicNanoseconds: Int64) { self.monotonicNanoseconds = monotonicNanoseconds }

    /// `duration` from now.
    public static func after(_ duration: ConfigDuration) -> Deadline {
        Deadline(monotonicNanoseconds: MonotonicClock.nowNanoseconds() + duration.nanoseconds)
    }

    /// The running call's deadline, bound by ProbeKit around each call into the probe; nil when
    /// the host set none. Tests bind it with `Deadline.$current.withValue(…)` or through
    /// `ProbeTester`.
    @TaskLocal public static var current: Deadline?

    /// Time left until the deadline; zero once it has passed.
    public var remaining: ConfigDuration {
        ConfigDuration(nanoseconds: max(0, monotonicNanoseconds - MonotonicClock.nowNanoseconds()))
    }

    public var hasPassed: Bool { MonotonicClock.nowNanoseconds() >= monotonicNanoseconds }

    /// How long a wait starting now may last: `wanted`, cut to the time left less a margin kept
    /// for reporting what was seen (a tenth of the time left, at most 100 ms). Zero when no time
    /// is left.
    public func allowing(_ wanted: ConfigDuration) -> ConfigDuration {
        let left = remaining.nanoseconds
        let margin = min(Self.maximumMargin.nanoseconds, left / 10)
        return ConfigDuration(nanoseconds: max(0, min(wanted.nanoseconds, left - margin)))
    }

    /// The most `allowing` keeps back for reporting.
    public static let maximumMargin = ConfigDuration.milliseconds(100)

    public static func < (a: Deadline, b: Deadline) -> Bool { a.monotonicNanoseconds < b.monotonicNanoseconds }

    /// "in 1.4s" or "passed 20ms ago", for logs and test failures.
    public var description: String {
        let left = monotonicNanoseconds - MonotonicClock.nowNanoseconds()
        return left >= 0
            ? "in \(ConfigDuration(nanoseconds: left))" : "passed \(ConfigDuration(nanoseconds: -left)) ago"
    }
}

extension Deadline {
    /// The deadline a host handed in `error` (nil for 0 or a host whose pw_error predates it).
    init?(of error: UnsafePointer<pw_error>?) {
        guard let error else { return nil }
        let nanoseconds = pw_call_deadline_ns(error)
        guard nanoseconds > 0, nanoseconds <= UInt64(Int64.max) else { return nil }
        self.init(monotonicNanoseconds: Int64(nanoseconds))
    }

    /// Runs `body` with `Deadline.current` bound to the deadline in `error`.
    static func binding<T>(from error: UnsafePointer<pw_error>?, _ body: () throws -> T) rethrows -> T {
        try $current.withValue(Deadline(of: error), operation: body)
    }
}
