import Foundation
import Testing

@testable import PathwatchAgent

/// The executor the agent gives Swift concurrency (its default executor in `pathwatch run`),
/// used here as a task's preferred executor: jobs run on its own named threads, in order of
/// arrival, many at once without loss, and a task's sleep is honoured and resumes there.
@Suite struct TaskThreadPoolTests {
    static let pool = TaskThreadPool(threads: 2, name: "pw-test-tasks")

    static func threadName() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    @Test func tasksRunOnThePoolsOwnThreads() async {
        let name = await Task(executorPreference: Self.pool) { Self.threadName() }.value
        #expect(name == "pw-test-tasks")
    }

    @Test func manyTasksAllComplete() async {
        let total = await withTaskGroup(of: Int.self) { group in
            for i in 1...2_000 { group.addTask(executorPreference: Self.pool) { i } }
            return await group.reduce(0, +)
        }
        #expect(total == 2_000 * 2_001 / 2)
    }

    @Test func aSleepingTaskWakesAfterItsDelayOnThePool() async throws {
        let (elapsed, name) = try await Task(executorPreference: Self.pool) {
            let start = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(150))
            return (ContinuousClock.now - start, Self.threadName())
        }.value
        #expect(elapsed >= .milliseconds(150))
        #expect(name == "pw-test-tasks")
    }

    @Test(arguments: [
        (Duration.seconds(-1), UInt64(0)), (.zero, 0), (.nanoseconds(1), 1), (.milliseconds(1500), 1_500_000_000),
        (.seconds(Int64.max), UInt64.max),
    ])
    func durationsBecomeWholeNanoseconds(duration: Duration, nanoseconds: UInt64) {
        #expect(duration.nanosecondsNonNegative == nanoseconds)
    }
}
