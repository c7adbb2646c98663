#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PathwatchProbeKit

/// A countdown one thread waits on with a deadline while worker threads count it down.
///
/// A worker may outlive the wait (its statvfs is stuck); it keeps the latch alive through its
/// own reference and counts down into a latch nobody waits on any more, which is harmless.
final class CompletionLatch: @unchecked Sendable {
    // pthread objects must not move once initialised: they live in their own allocations.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending: Int

    init(count: Int) {
        pending = count
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func countDown() {
        pthread_mutex_lock(mutex)
        pending -= 1
        if pending <= 0 { pthread_cond_broadcast(condition) }
        pthread_mutex_unlock(mutex)
    }

    /// Waits until every worker has counted down or the CLOCK_MONOTONIC deadline passes.
    /// Returns true when all finished in time.
    @discardableResult
    func wait(untilMonotonicNanoseconds deadline: Int64) -> Bool {
        var limit = MonotonicClock.timeSpec(nanoseconds: deadline)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while pending > 0 {
            if pthread_cond_timedwait(condition, mutex, &limit) == ETIMEDOUT { break }
        }
        return pending <= 0
    }
}
