import PathwatchJSON
import PathwatchProbeKit

/// Runs the statvfs calls of one sample under one deadline on the probe's worker thread, and
/// remembers calls that are still stuck so that no second call is ever started on their mount
/// point while the first is inside the kernel.
///
/// Threads: one worker for the probe's life, asleep between samples (an idle agent creates
/// none; the first release started a thread per mount per sample). When a call runs longer than
/// a quarter of the timeout and mounts are waiting behind it, the worker is left to that call
/// and a fresh worker takes the rest, so a dead mount delays no other mount and costs one thread.
///
/// Not thread-safe: the host never calls one probe instance from two threads at once.
final class StatvfsRunner {
    /// What became of one mount point's call in this sample.
    enum Result: Equatable {
        case stats(FilesystemStats)
        case failed(Int32)
        /// The call (or its turn) did not come within the timeout.
        case timedOut
        /// A call from an earlier sample is still stuck (for this many nanoseconds); none was
        /// started now.
        case stillBlocked(nanoseconds: Int64)
    }

    typealias Worker = StatvfsWorkers.Worker

    let timeoutNanoseconds: Int64
    private let workers: StatvfsWorkers
    /// The healthy worker, asleep between samples; nil until first needed or after it was left
    /// to a stuck call.
    private var worker: Worker?
    /// Workers left inside a call that did not return, by mount point (under the workers' lock).
    private var stuck: [String: Worker] = [:]

    init(timeoutNanoseconds: Int64, statFunction: @escaping StatFunction) {
        self.timeoutNanoseconds = timeoutNanoseconds
        self.workers = StatvfsWorkers(statFunction: statFunction)
    }

    deinit {
        // The healthy worker exits; stuck ones exit when the kernel lets them go.
        workers.withLock {
            worker?.abandoned = true
            workers.broadcast()
        }
    }

    /// After this long inside one call, the mounts queued behind it move to a fresh worker.
    private var stallNanoseconds: Int64 { max(timeoutNanoseconds / 4, 1_000_000) }

    /// Worker threads started since the probe was created.
    var threadsStarted: Int { workers.withLock { workers.spawned } }

    /// Mount points whose call is still inside the kernel.
    var stuckMountPoints: [String] {
        workers.withLock { stuck.filter { $0.value.current != nil }.keys.sorted() }
    }

    /// How long the last run waited at most: the timeout, or less when the sample's deadline
    /// left less.
    private(set) var lastWait = ConfigDuration(nanoseconds: 0)

    /// The calls for `mountPoints` under the timeout, cut to what `sampleDeadline` leaves (less
    /// a margin to report in) when given: one result for each, in the same order. The mount
    /// points are distinct (the mount table's visible ones, or a configuration that refuses a
    /// path listed twice), so results are placed by position and no mount point is hashed
    /// unless a call is stuck.
    func run(_ mountPoints: [String], within sampleDeadline: Deadline? = nil) -> [Result] {
        let now = MonotonicClock.nowNanoseconds()
        let timeout = ConfigDuration(nanoseconds: timeoutNanoseconds)
        lastWait = sampleDeadline?.allowing(timeout) ?? timeout
        // A mount never reached by the deadline timed out: every place is written below,
        // this is only its value until then.
        var results = [Result](repeating: .timedOut, count: mountPoints.count)
        workers.lock()
        defer { workers.unlock() }
        // A stuck call that returned since the last sample frees its mount point again.
        if !stuck.isEmpty { stuck = stuck.filter { $0.value.current != nil } }
        var unassigned: [Worker.Call] = []
        unassigned.reserveCapacity(mountPoints.count)
        for (index, mountPoint) in mountPoints.enumerated() {
            if !stuck.isEmpty, let blocked = stuck[mountPoint], let call = blocked.current {
                results[index] = .stillBlocked(nanoseconds: now - call.startedAt)
            } else {
                unassigned.append(Worker.Call(index: index, mountPoint: mountPoint))
            }
        }
        let deadline = now + lastWait.nanoseconds
        var active: [Worker] = []
        while true {
            if !unassigned.isEmpty {
                if let current = readyWorker(failing: unassigned, into: &results) {
                    current.enqueue(unassigned)
                    if !active.contains(where: { $0 === current }) { active.append(current) }
                    workers.broadcast()
                }
                unassigned = []
            }
            for w in active {
                for done in w.finished { results[done.index] = done.outcome.result }
                w.finished.removeAll(keepingCapacity: true)
            }
            guard active.contains(where: { $0.hasWaiting || $0.current != nil }) else { break }
            let t = MonotonicClock.nowNanoseconds()
            if t >= deadline { break }
            if let w = worker, let call = w.current, w.hasWaiting, t - call.startedAt >= stallNanoseconds {
                // Leave this worker to its slow call; the mounts behind it go to a fresh one.
                unassigned = w.takeWaiting()
                w.abandoned = true
                worker = nil
                continue
            }
            // The worker wakes us when its queue runs empty, not after each call: while mounts
            // wait behind a call, look again when that call (or one not begun yet) would stall.
            var stallCheck = deadline
            if let w = worker, w.hasWaiting { stallCheck = (w.current?.startedAt ?? t) + stallNanoseconds }
            workers.wait(untilMonotonicNanoseconds: min(deadline, max(stallCheck, t + 1_000_000)))
        }
        // At the deadline: a call still running is stuck; mounts never reached timed out (their
        // places already say so).
        for w in active {
            _ = w.takeWaiting()
            guard let call = w.current else { continue }
            results[call.call.index] = .timedOut
            stuck[call.call.mountPoint] = w
            w.abandoned = true
            if w === worker { worker = nil }
        }
        return results
    }

    /// The healthy worker, started if needed (lock held). When no thread can be made, every
    /// call in `calls` fails with the error and nil is returned.
    private func readyWorker(failing calls: [Worker.Call], into results: inout [Result]) -> Worker? {
        if let worker { return worker }
        let fresh = Worker()
        if let error = workers.spawn(fresh) {
            for call in calls { results[call.index] = .failed(error) }
            return nil
        }
        worker = fresh
        return fresh
    }
}

extension StatOutcome {
    var result: StatvfsRunner.Result {
        switch self {
        case .stats(let stats): .stats(stats)
        case .failed(let code): .failed(code)
        }
    }
}
