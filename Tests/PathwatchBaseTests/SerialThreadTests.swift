import Foundation
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchBase

/// A thread of its own that runs jobs in order: started paused it holds its jobs until activated;
/// `sync` returns after what was queued before it; a delayed job waits at least its delay;
/// finishing runs what is queued, and later jobs run on the caller. A thread that watches a
/// descriptor serves its readiness on the thread, between jobs, until it is unwatched or closed.
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
        thread.async {
            usleep(50_000)
            seen.withLock { $0.append(1) }
        }
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

    /// A pipe whose read end the thread watches; each readiness reads one byte and records the
    /// serving thread's name.
    final class WatchedPipe: Sendable {
        let read: Int32
        let write: Int32
        let served = Mutex<[String]>([])
        let closed = DispatchSemaphore(value: 0)

        init() {
            var fds: [Int32] = [-1, -1]
            precondition(pipe(&fds) == 0)
            (read, write) = (fds[0], fds[1])
        }

        func onReadable() {
            var byte: UInt8 = 0
            _ = Glibc.read(read, &byte, 1)
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            served.withLock { $0.append(name.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }

        func poke() {
            var byte: UInt8 = 1
            _ = Glibc.write(write, &byte, 1)
        }
    }

    @Test func aWatchedDescriptorIsServedOnTheThreadUntilUnwatched() {
        let thread = SerialThread(name: "pw-test-watch", watchingDescriptors: true)
        let pipe = WatchedPipe()
        defer {
            close(pipe.read)
            close(pipe.write)
        }
        let watching = thread.watch(pipe.read, onReadable: { pipe.onReadable() }, onClosed: { pipe.closed.signal() })
        #expect(watching)
        for _ in 1...3 {
            pipe.poke()
            let before = pipe.served.withLock { $0.count }
            _ = waitUntil(timeout: 2, interval: 0.001) { pipe.served.withLock { $0.count } != before }
        }
        #expect(pipe.served.withLock { $0 } == ["pw-test-watch", "pw-test-watch", "pw-test-watch"])
        // Jobs still run between readinesses.
        #expect(thread.sync { 42 } == 42)
        thread.unwatch()
        _ = thread.sync { 0 }
        pipe.poke()
        Thread.sleep(forTimeInterval: 0.2)
        #expect(pipe.served.withLock { $0.count } == 3, "a readiness was served after unwatch")
        thread.finish()
    }

    @Test func aDescriptorClosedUnderTheWatchIsReportedOnceAndNoLongerPolled() {
        let thread = SerialThread(name: "pw-test-closed", watchingDescriptors: true)
        let pipe = WatchedPipe()
        defer { close(pipe.write) }
        let watching = thread.watch(pipe.read, onReadable: { pipe.onReadable() }, onClosed: { pipe.closed.signal() })
        #expect(watching)
        _ = thread.sync { close(pipe.read) }
        #expect(pipe.closed.wait(timeout: .now() + 2) == .success, "the closed descriptor was not reported")
        #expect(pipe.closed.wait(timeout: .now() + 0.2) == .timedOut, "the closed descriptor was reported twice")
        #expect(thread.sync { 7 } == 7)
        thread.finish()
    }

    @Test func aThreadNotStartedWatchingRefusesToWatch() {
        let thread = SerialThread(name: "pw-test-nowatch")
        let watching = thread.watch(0, onReadable: {}, onClosed: {})
        #expect(!watching)
        thread.finish()
    }
}
