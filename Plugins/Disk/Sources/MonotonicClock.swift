#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// CLOCK_MONOTONIC, the clock the statvfs deadline waits on (immune to wall-clock steps).
enum MonotonicClock {
    static func nowNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    static func timeSpec(nanoseconds: Int64) -> timespec {
        var spec = timespec()
        spec.tv_sec = Int(nanoseconds / 1_000_000_000)
        spec.tv_nsec = Int(nanoseconds % 1_000_000_000)
        return spec
    }
}
