import CLinkStateEvents
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A one-shot monotonic timer (timerfd, non-blocking): readable once it has expired, until
/// `takeExpiry` reads it. Arming it while it is armed keeps the earlier deadline, so a burst of
/// link changes is served by one timer.
final class SpeedReadTimer {
    let fileDescriptor: Int32
    private(set) var isArmed = false

    init() throws(ProbeSampleError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw ProbeSampleError("cannot create a timer: \(systemErrorText(errno))") }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Fires `nanoseconds` from now, unless already armed.
    func arm(afterNanoseconds nanoseconds: Int) {
        guard !isArmed else { return }
        var setting = itimerspec()
        setting.it_value.tv_sec = nanoseconds / 1_000_000_000
        setting.it_value.tv_nsec = nanoseconds % 1_000_000_000
        // A failure leaves the timer unarmed: the speeds wait for the next sample instead.
        isArmed = timerfd_settime(fileDescriptor, 0, &setting, nil) == 0
    }

    /// True (once) when the armed timer has expired; false when it has not, or is not armed.
    /// Only an armed timer is read, so an event with no speed read pending costs no system call.
    func takeExpiry() -> Bool {
        guard isArmed else { return false }
        var expirations: UInt64 = 0
        guard read(fileDescriptor, &expirations, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size else {
            return false
        }
        isArmed = false
        return true
    }

    /// Stops an armed timer (a sample read every speed itself).
    func disarm() {
        guard isArmed else { return }
        var setting = itimerspec()
        _ = timerfd_settime(fileDescriptor, 0, &setting, nil)
        // A disarmed timerfd reads as not expired, even if it had expired unread.
        isArmed = false
    }
}
