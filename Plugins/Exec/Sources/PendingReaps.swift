#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Commands SIGKILL did not end before their sample's deadline (a process stuck in the kernel,
/// in `D` state): the sample returns rather than wait, and they are reaped here by a later
/// sample or when the probe is destroyed, so none is left a zombie for longer than it is stuck.
final class PendingReaps: @unchecked Sendable {
    private var pids: [pid_t] = []
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func add(_ pid: pid_t) {
        pthread_mutex_lock(&mutex)
        pids.append(pid)
        pthread_mutex_unlock(&mutex)
    }

    /// Reaps every pending command that has ended; the count still pending.
    @discardableResult
    func reapEnded() -> Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        pids.removeAll { pid in
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) != 0 else { return false }
            CommandGuard.shared.forget(pid)
            return true
        }
        return pids.count
    }
}
