import Foundation
import Testing

/// Runs each test of a suite on a thread of its own instead of Swift concurrency's cooperative
/// pool. These tests block — they wait for processes, sockets, namespaces and deadlines — and
/// the pool has one thread per core: two blocking tests on a two-core machine used to stall
/// every other test, so unit tests that take a tenth of a second alone took a minute in the
/// full run. With this trait the blocking happens on threads made for it, and the pool stays
/// free for the tests that never block.
///
/// At most `BlockingTestSlots.capacity` such tests run at once, so a small machine is not
/// swamped with agents, namespaces and browsers all at the same moment, yet enough to keep it
/// busy: these tests mostly wait.
public struct OnItsOwnThread: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    @TaskLocal static var active = false

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope, or a test already inside one (nested suites): nothing to add.
        guard testCase != nil, !Self.active else {
            try await function()
            return
        }
        await BlockingTestSlots.shared.acquire()
        let executor = ThreadExecutor(name: "test-thread")
        do {
            try await Self.$active.withValue(true) {
                try await withTaskExecutorPreference(executor) { try await function() }
            }
        } catch {
            executor.finish()
            await BlockingTestSlots.shared.release()
            throw error
        }
        executor.finish()
        await BlockingTestSlots.shared.release()
    }
}

extension Trait where Self == OnItsOwnThread {
    /// Runs the suite's tests on threads of their own (they block); see `OnItsOwnThread`.
    public static var onItsOwnThread: Self { Self() }
}

/// Bounds how many blocking tests run at once, waiting without holding a thread.
actor BlockingTestSlots {
    /// Three per core: blocking tests mostly wait on processes and the network. On two cores, with
    /// one per core the whole run kept 0.6 of a core busy and took 11 min; with three per core,
    /// 1.5 cores and 4.5 min. `PATHWATCH_TEST_SLOTS` sets another count (1 runs them one by one,
    /// to tell a test that fails under load from one that fails alone).
    static let capacity =
        ProcessInfo.processInfo.environment["PATHWATCH_TEST_SLOTS"].flatMap { Int($0) }.map { max(1, $0) }
        ?? 3 * max(1, ProcessInfo.processInfo.activeProcessorCount)
    static let shared = BlockingTestSlots()

    private var free = BlockingTestSlots.capacity
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// A task executor with one thread: every job of the task that prefers it runs there, in order.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finishing = false
    private var ended = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if ended {
            // A task that outlived its test (an unstructured Task inherits the preference).
            condition.unlock()
            Thread.detachNewThread { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once its queue is empty.
    func finish() {
        condition.lock()
        finishing = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finishing { condition.wait() }
            if jobs.isEmpty {
                ended = true
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
