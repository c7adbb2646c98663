import PathwatchProbeKit
/// Runs the statvfs calls of one sample concurrently under one deadline, and remembers calls
/// that are still stuck so that no second call is ever started on their mount point while the
/// first is inside the kernel: a dead mount costs one thread, not one thread per sample.
///
/// Not thread-safe: the host never calls one probe instance from two threads at once.
final class StatvfsRunner {
    /// What became of one mount point's call in this sample.
    enum Result: Equatable {
        case stats(FilesystemStats)
        case failed(Int32)
        /// The call started in this sample did not return within the timeout.
        case timedOut
        /// A call from an earlier sample is still stuck (for this many nanoseconds); none was
        /// started now.
        case stillBlocked(nanoseconds: Int64)
    }

    let timeoutNanoseconds: Int64
    private let statFunction: StatFunction
    private var stuck: [String: StatvfsCall] = [:]

    init(timeoutNanoseconds: Int64, statFunction: @escaping StatFunction) {
        self.timeoutNanoseconds = timeoutNanoseconds
        self.statFunction = statFunction
    }

    /// Mount points whose call is still inside the kernel.
    var stuckMountPoints: [String] { stuck.filter { $0.value.outcome == nil }.keys.sorted() }

    func run(_ mountPoints: [String]) -> [String: Result] {
        // A stuck call that finished since the last sample frees its mount point again.
        stuck = stuck.filter { $0.value.outcome == nil }
        var results: [String: Result] = [:]
        let now = MonotonicClock.nowNanoseconds()
        var toStart: [String] = []
        for mountPoint in Set(mountPoints).sorted() {
            if let blocked = stuck[mountPoint] {
                results[mountPoint] = .stillBlocked(nanoseconds: now - blocked.startedAt)
            } else {
                toStart.append(mountPoint)
            }
        }
        guard !toStart.isEmpty else { return results }

        let latch = CompletionLatch(count: toStart.count)
        var started: [StatvfsCall] = []
        for mountPoint in toStart {
            let call = StatvfsCall(mountPoint: mountPoint, latch: latch, statFunction: statFunction)
            if let error = call.start() {
                latch.countDown()
                results[mountPoint] = .failed(error)
            } else {
                started.append(call)
            }
        }
        latch.wait(untilMonotonicNanoseconds: now + timeoutNanoseconds)
        for call in started {
            switch call.outcome {
            case .stats(let stats)?: results[call.mountPoint] = .stats(stats)
            case .failed(let code)?: results[call.mountPoint] = .failed(code)
            case nil:
                stuck[call.mountPoint] = call
                results[call.mountPoint] = .timedOut
            }
        }
        return results
    }
}
