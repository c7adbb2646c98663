#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs one call into a plug-in on a thread of its own, and waits for it until a moment: how
/// `ProbeTester` holds a call to its deadline as the host does, without blocking the test's
/// thread past it. A call still running then is left to its thread (as the inline host leaves
/// it); the tester never calls into that instance again.
final class CallThread: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var finished = false
    private var body: (() -> Void)?

    private init(_ body: @escaping () -> Void) {
        self.body = body
        pthread_mutex_init(&mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Runs `body` on a new thread; true when it returned by `monotonicNanoseconds`.
    static func run(until monotonicNanoseconds: Int64, _ body: @escaping () -> Void) -> Bool {
        let call = CallThread(body)
        let retained = Unmanaged.passRetained(call).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                let call = Unmanaged<CallThread>.fromOpaque(raw!).takeRetainedValue()
                call.body?()
                call.body = nil
                pthread_mutex_lock(&call.mutex)
                call.finished = true
                pthread_cond_broadcast(&call.condition)
                pthread_mutex_unlock(&call.mutex)
                return nil
            }, retained)
        guard started == 0 else {
            Unmanaged<CallThread>.fromOpaque(retained).release()
            body()
            return true
        }
        pthread_detach(thread)
        var until = timespec(
            tv_sec: Int(monotonicNanoseconds / 1_000_000_000), tv_nsec: Int(monotonicNanoseconds % 1_000_000_000))
        pthread_mutex_lock(&call.mutex)
        defer { pthread_mutex_unlock(&call.mutex) }
        while !call.finished {
            if pthread_cond_timedwait(&call.condition, &call.mutex, &until) == ETIMEDOUT { return call.finished }
        }
        return true
    }
}
