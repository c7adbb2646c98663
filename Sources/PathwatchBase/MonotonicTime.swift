import Glibc

/// Monotonic time in nanoseconds, for intervals and deadlines (never steps with the wall clock).
/// CLOCK_MONOTONIC, as the SDK's `MonotonicClock` reads it.
package func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
