import PathwatchProbeKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One statvfs call on a thread of its own, so that a mount that never answers (a dead NFS
/// server, a hung FUSE daemon) holds that thread only and never the sample.
final class StatvfsCall: Sendable {
    let mountPoint: String
    let startedAt: Int64
    private let statFunction: StatFunction
    private let latch: CompletionLatch
    private let result = Mutex<StatOutcome?>(nil)

    /// Stack of the worker thread: statvfs needs very little, and a stuck call keeps its
    /// stack for as long as the kernel holds it.
    static let stackSize = 256 * 1024

    init(mountPoint: String, latch: CompletionLatch, statFunction: @escaping StatFunction) {
        self.mountPoint = mountPoint
        self.latch = latch
        self.statFunction = statFunction
        self.startedAt = MonotonicClock.nowNanoseconds()
    }

    /// The outcome once the call returned; nil while it is still inside the kernel.
    var outcome: StatOutcome? { result.withLock { $0 } }

    /// Starts the call on a detached thread. Returns the pthread_create error when no thread
    /// could be made (the caller reports it; nothing is left running).
    func start() -> Int32? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        // The thread owns one reference until it finishes, whatever happens to the probe.
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<StatvfsCall>.fromOpaque(raw).takeRetainedValue().runOnWorker()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<StatvfsCall>.fromOpaque(context).release()
            return status
        }
        return nil
    }

    private func runOnWorker() {
        let outcome = statFunction(mountPoint)
        result.withLock { $0 = outcome }
        latch.countDown()
    }
}
