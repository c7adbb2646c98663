import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The threads that make one probe instance's statvfs calls, and the one lock and condition they
/// share with the sampling thread. A worker lives as long as the probe and sleeps between
/// samples, so an idle agent creates no threads; only a call stuck in the kernel (a dead NFS
/// server, a hung FUSE daemon) costs a thread, which it keeps until the kernel lets go.
final class StatvfsWorkers: @unchecked Sendable {
    /// One thread's work. Every field is read and written under the shared lock only.
    final class Worker {
        /// One mount point's call, and where its result goes in the sample's list.
        struct Call {
            var index: Int
            var mountPoint: String
        }
        /// Calls not started yet, in order, from `next` on: taken by moving `next`, not by
        /// removing the first element, which moved every call behind it (a table of 500
        /// mounts moved 125,000 entries a sample).
        private(set) var queue: [Call] = []
        private(set) var next = 0
        /// The call inside the kernel now, and when it started (CLOCK_MONOTONIC).
        var current: (call: Call, startedAt: Int64)?
        /// Calls that returned and were not collected yet.
        var finished: [(index: Int, outcome: StatOutcome)] = []
        /// Set when the runner gives up on this thread: it exits once its queue is empty.
        var abandoned = false

        /// Whether calls wait that have not started.
        var hasWaiting: Bool { next < queue.count }

        func enqueue(_ calls: [Call]) {
            if next == queue.count {
                queue.removeAll(keepingCapacity: true)
                next = 0
            }
            queue += calls
        }

        /// Takes the calls not started yet off this worker.
        func takeWaiting() -> [Call] {
            defer {
                queue.removeAll(keepingCapacity: true)
                next = 0
            }
            return Array(queue[next...])
        }

        /// The next call to make, taken off the queue.
        func startNext() -> Call? {
            guard next < queue.count else { return nil }
            defer { next += 1 }
            return queue[next]
        }
    }

    /// statvfs needs very little stack, and a stuck call keeps its stack as long as it is stuck.
    static let stackSize = 256 * 1024

    let statFunction: StatFunction
    /// Threads started so far (under the lock): the measure of "no threads at idle".
    private(set) var spawned = 0
    // pthread objects must not move once initialised: they live in their own allocations.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(statFunction: @escaping StatFunction) {
        self.statFunction = statFunction
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

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Wakes every thread waiting on the condition. Call with the lock held.
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (lock held) until woken or the CLOCK_MONOTONIC deadline passes.
    func wait(untilMonotonicNanoseconds deadline: Int64) {
        var limit = MonotonicClock.timeSpec(nanoseconds: deadline)
        _ = pthread_cond_timedwait(condition, mutex, &limit)
    }

    /// Starts a detached thread serving `worker` (lock held); the pthread_create error when none
    /// could be made. The thread holds a reference to these workers until it exits.
    func spawn(_ worker: Worker) -> Int32? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        let context = Unmanaged.passRetained(Job(workers: self, worker: worker)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
                job.workers.serve(job.worker)
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return status
        }
        spawned += 1
        return nil
    }

    private final class Job {
        let workers: StatvfsWorkers
        let worker: Worker
        init(workers: StatvfsWorkers, worker: Worker) {
            self.workers = workers
            self.worker = worker
        }
    }

    /// The worker thread: one call at a time, oldest first; asleep while there is nothing to do.
    private func serve(_ worker: Worker) {
        lock()
        while true {
            while !worker.hasWaiting && !worker.abandoned {
                pthread_cond_wait(condition, mutex)
            }
            guard let call = worker.startNext() else { break }
            worker.current = (call, MonotonicClock.nowNanoseconds())
            unlock()
            let outcome = statFunction(call.mountPoint)
            lock()
            worker.current = nil
            worker.finished.append((call.index, outcome))
            // The sampling thread waits for the whole queue, not for each call (it wakes by
            // itself to look for a stalled one): waking it after every mount cost two context
            // switches per mount, more than the statvfs call.
            if !worker.hasWaiting { broadcast() }
        }
        unlock()
    }
}
