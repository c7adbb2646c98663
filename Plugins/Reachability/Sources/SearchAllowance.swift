import CPCRE2
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What one phase of a search may spend: CPU time of the searching thread (which a loaded
/// machine does not stretch, so a verdict does not depend on the load) and wall time up to the
/// sample's deadline. Read by PCRE2's callout, which the automatic callouts call before each
/// pattern item tried: a search ends at one of these however many bytes it covers.
struct SearchAllowance {
    /// CLOCK_THREAD_CPUTIME_ID nanoseconds at which the phase stops.
    var cpuStop: Int64
    /// CLOCK_MONOTONIC nanoseconds at which the phase stops (the sample's deadline, less the
    /// margin kept to report in); Int64.max without a deadline.
    var wallStop: Int64
    var calls = 0
    /// Set when the callout ended the search.
    var reached: BoundedRegex.Limit?

    /// `cpu` nanoseconds of this thread's CPU from now, and no later than `wallStop`.
    init(cpu: Int64, wallStop: Int64) {
        cpuStop = Self.threadCPU() + cpu
        self.wallStop = wallStop
    }

    /// The clocks are read once every this many callouts (a callout costs tens of nanoseconds,
    /// a clock read about a microsecond): the stop is late by a millisecond at most.
    static let callsPerCheck = 1024

    /// The limit reached now, if any.
    func check() -> BoundedRegex.Limit? {
        if MonotonicClock.nowNanoseconds() >= wallStop { return .deadline }
        if Self.threadCPU() >= cpuStop { return .cpu }
        return nil
    }

    static func threadCPU() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Installs the callout that spends `allowance` on `context`, for the duration of `body`.
    static func withCallout<T>(
        on context: OpaquePointer, _ allowance: inout SearchAllowance, _ body: () -> T
    ) -> T {
        withUnsafeMutablePointer(to: &allowance) { pointer in
            pcre2_set_callout_8(
                context,
                { _, raw in
                    let allowance = raw!.assumingMemoryBound(to: SearchAllowance.self)
                    allowance.pointee.calls &+= 1
                    guard allowance.pointee.calls % SearchAllowance.callsPerCheck == 0 else { return 0 }
                    guard let reached = allowance.pointee.check() else { return 0 }
                    allowance.pointee.reached = reached
                    return PCRE2_ERROR_CALLOUT
                }, pointer)
            return body()
        }
    }
}
