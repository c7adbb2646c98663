import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A reading of CLOCK_MONOTONIC in nanoseconds. Rates are computed over the real time between
/// two counter readings on this clock, which wall-clock steps (NTP, an operator's `date -s`)
/// never move.
package struct MonotonicInstant: Sendable, Equatable, Comparable {
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    package static func now() -> MonotonicInstant { MonotonicInstant(nanoseconds: MonotonicClock.nowNanoseconds()) }

    /// The midpoint of two instants: the best single time stamp for counters the kernel read
    /// somewhere between a request and its reply.
    package static func midpoint(_ a: MonotonicInstant, _ b: MonotonicInstant) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: a.nanoseconds + (b.nanoseconds - a.nanoseconds) / 2)
    }

    /// Seconds from `earlier` to `self`; zero or negative when the clock did not advance.
    package func seconds(since earlier: MonotonicInstant) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1e9
    }

    package static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}
