#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `count` jobs on at most `width` threads at once: the calling thread (the probe's sampling
/// thread) and `width - 1` threads of the probe's own, all joined before `run` returns. Every
/// wait a job does (poll, waitpid) blocks one of these threads, never Swift's task pool.
enum WorkerThreads {
    static func run(count: Int, width: Int, _ job: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let queue = JobQueue(count: count, job: job)
        var threads: [pthread_t] = []
        for _ in 1..<max(1, min(width, count)) {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(queue).toOpaque()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setstacksize(&attributes, 512 * 1024)
            let rc = pthread_create(
                &thread, &attributes,
                { raw in
                    Unmanaged<JobQueue>.fromOpaque(raw!).takeRetainedValue().work()
                    return nil
                }, box)
            pthread_attr_destroy(&attributes)
            if rc == 0 { threads.append(thread) } else { Unmanaged<JobQueue>.fromOpaque(box).release() }
        }
        queue.work()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// The next job's index, under a lock.
    private final class JobQueue: @unchecked Sendable {
        private var next = 0
        private let count: Int
        private let job: @Sendable (Int) -> Void
        private var mutex = pthread_mutex_t()

        init(count: Int, job: @escaping @Sendable (Int) -> Void) {
            self.count = count
            self.job = job
            pthread_mutex_init(&mutex, nil)
        }

        deinit { pthread_mutex_destroy(&mutex) }

        func work() {
            while true {
                pthread_mutex_lock(&mutex)
                let index = next
                next += 1
                pthread_mutex_unlock(&mutex)
                guard index < count else { return }
                job(index)
            }
        }
    }
}
