import Synchronization

/// Jobs run one at a time, in the order given, on whichever thread of a `WorkerPool` is free:
/// what a `SerialThread` promises (calls into one probe instance never overlap), without a
/// thread of its own sleeping between them.
package final class WorkLane: JobLane {
    private struct Jobs {
        var pending: [@Sendable () -> Void] = []
        /// Queued on the pool or running there.
        var scheduled = false
        var finishing = false
    }

    private let pool: WorkerPool
    private let jobs = Mutex(Jobs())

    init(pool: WorkerPool) { self.pool = pool }

    /// Queues `job`; returns at once. After `finish`, runs it on the caller.
    package func async(_ job: @escaping @Sendable () -> Void) {
        let (inline, schedule) = jobs.withLock { j -> (Bool, Bool) in
            if j.finishing && !j.scheduled && j.pending.isEmpty { return (true, false) }
            j.pending.append(job)
            defer { j.scheduled = true }
            return (false, !j.scheduled)
        }
        if inline {
            job()
        } else if schedule {
            pool.schedule(self)
        }
    }

    /// What is queued still runs; jobs given once it has are run by whoever gives them.
    package func finish() { jobs.withLock { $0.finishing = true } }

    /// Runs jobs until none is left, on the pool's thread that took this lane.
    func runJobs() {
        while let job = jobs.withLock({ j -> (@Sendable () -> Void)? in
            guard !j.pending.isEmpty else {
                j.scheduled = false
                return nil
            }
            return j.pending.removeFirst()
        }) {
            job()
        }
    }
}

/// Somewhere to run jobs one at a time, in order: a thread of their own (`SerialThread`) or a
/// lane of a pool (`WorkLane`).
package protocol JobLane: AnyObject, Sendable {
    func async(_ job: @escaping @Sendable () -> Void)
    /// Runs what is queued; later jobs run on the caller.
    func finish()
}

extension SerialThread: JobLane {}
