import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The statvfs deadline waits on CLOCK_MONOTONIC (ProbeKit's `MonotonicClock`), as a timespec.
extension MonotonicClock {
    static func timeSpec(nanoseconds: Int64) -> timespec {
        var spec = timespec()
        spec.tv_sec = Int(nanoseconds / 1_000_000_000)
        spec.tv_nsec = Int(nanoseconds % 1_000_000_000)
        return spec
    }
}
