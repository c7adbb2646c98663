import Foundation
import Synchronization
import Testing

@testable import PathwatchAgent

/// A thread of its own that runs jobs in order: started paused it holds its jobs until activated;
/// `sync` returns after what was queued before it; a delayed job waits at least its delay;
/// finishing runs what is queued, and later jobs run on the caller.
@Suite(.onItsOwnThread) struct SerialThreadTests {
    @Test func aPausedThreadRunsNothingUntilActivatedThenAllInOrder() {
        let thread = SerialThread(name: "pw-test-paused", paused: true)
        let seen = Mutex<[Int]>([])
        for i in 1...5 { thread.async { seen.withLock { $0.append(i) } } }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(seen.withLock { $0 }.isEmpty, "a paused thread ran a job")
        thread.activate()
        let all = thread.sync { seen.withLock { $0 } }
        #expect(all == [1, 2, 3, 4, 5])
        thread.finish()
    }

    @Test func syncRunsOnTheThreadAfterWhatWasQueued() {
        let thread = SerialThread(name: "pw-test-sync")
        let seen = Mutex<[Int]>([])
        thread.async { usleep(50_000); seen.withLock { $0.append(1) } }
        let (name, before) = thread.sync { () -> (String, [Int]) in
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), seen.withLock { $0 })
        }
        #expect(name == "pw-test-sync")
        #expect(before == [1])
        thread.finish()
    }

    @Test func aDelayedJobWaitsAtLeastItsDelay() {
        let thread = SerialThread(name: "pw-test-later")
        let ran = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        thread.async(afterNanoseconds: 150_000_000) { ran.signal() }
        #expect(ran.wait(timeout: .now() + 5) == .success)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        thread.finish()
    }

    @Test func finishingRunsWhatIsQueuedAndLaterJobsRunOnTheCaller() {
        let thread = SerialThread(name: "pw-test-finish", paused: true)
        let seen = Mutex<[Int]>([])
        thread.async { seen.withLock { $0.append(1) } }
        thread.finish()
        // Paused and finished: the queued job still runs.
        #expect(waitUntil(timeout: 5) { seen.withLock { $0 } == [1] })
        let caller = pthread_self()
        let ranOnCaller = Mutex(false)
        thread.async { ranOnCaller.withLock { $0 = pthread_equal(pthread_self(), caller) != 0 } }
        #expect(ranOnCaller.withLock { $0 })
    }
}
