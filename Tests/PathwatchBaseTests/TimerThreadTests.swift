import Dispatch
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchBase

/// The agent's one timer thread: jobs run in the order of their deadlines (of those due at the
/// same instant, in the order they were scheduled), and a cancelled one never runs, whichever of
/// many entries due at the same instant it is.
@Suite(.onItsOwnThread) struct TimerThreadTests {
    @Test func cancelledDeadlinesNeverRunAndTheRestRunInOrder() {
        let timers = TimerThread.shared
        let start = monotonicNanoseconds() &+ 100_000_000
        let ran = Mutex<[(index: Int, deadline: UInt64)]>([])
        // 300 entries on 10 instants, 30 of them due at each: ties are the hard case for the search.
        var tokens: [TimerThread.Token] = []
        for index in 0..<300 {
            let deadline = start &+ UInt64(index % 10) * 1_000_000
            tokens.append(timers.schedule(atMonotonic: deadline) { ran.withLock { $0.append((index, deadline)) } })
        }
        for index in stride(from: 1, to: 300, by: 2) { timers.cancel(tokens[index]) }
        // Due after every other entry: once it has run, every entry due before it has.
        let done = DispatchSemaphore(value: 0)
        timers.schedule(atMonotonic: start &+ 20_000_000) { done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let seen = ran.withLock { $0 }
        #expect(seen.map(\.index).sorted() == Array(stride(from: 0, to: 300, by: 2)))
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.deadline <= $1.deadline }, "out of order")
        #expect(
            zip(seen, seen.dropFirst()).allSatisfy { $0.deadline < $1.deadline || $0.index < $1.index },
            "jobs due at the same instant ran out of the order they were scheduled in")
    }

    @Test func aCancelOfAJobThatRanChangesNothing() {
        let timers = TimerThread.shared
        let done = DispatchSemaphore(value: 0)
        let token = timers.schedule(afterNanoseconds: 1_000_000) { done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        timers.cancel(token)
        let later = DispatchSemaphore(value: 0)
        timers.schedule(afterNanoseconds: 1_000_000) { later.signal() }
        #expect(later.wait(timeout: .now() + 10) == .success)
    }
}
