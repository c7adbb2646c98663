#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// CLOCK_MONOTONIC: the clock for deadlines and for rates over real elapsed time, which
/// wall-clock steps (NTP, an operator's `date -s`) never move.
public enum MonotonicClock {
    public static func nowNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
