import Dispatch
import Synchronization

/// Every deadline of the agent on one thread: probe intervals, sample timeouts, a file sink's
/// next write. Each fires by running a short job on this thread (jobs hand real work to their
/// own thread). One sleeping thread, woken only when something is due, instead of a timer
/// source and a borrowed pool worker per deadline.
package final class TimerThread: Sendable {
    /// The agent's timers: started on first use, lives as long as the process.
    package static let shared = TimerThread(name: "pw-timers")

    package struct Token: Sendable, Hashable {
        fileprivate var value: UInt64
        /// Where the entry sits in the sorted list: a cancel finds it by binary search.
        fileprivate var deadline: UInt64
    }

    private struct Entry {
        var deadline: UInt64
        var token: UInt64
        var job: @Sendable () -> Void
    }

    private struct State {
        /// Sorted by deadline, soonest last (removal from the end is cheap).
        var entries: [Entry] = []
        var nextToken: UInt64 = 0

        /// The first index whose deadline is sooner than `deadline` (binary search): a new
        /// entry goes there, after every entry due at the same instant or later.
        func firstIndex(before deadline: UInt64) -> Int {
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].deadline < deadline { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let thread: SerialThread
    /// Loop iterations so far: the watchdog's evidence that the thread that drives every
    /// interval and timeout still comes round.
    private let turns = Atomic<UInt64>(0)

    private init(name: String) {
        thread = SerialThread(name: name)
        thread.async { [self] in loop() }
    }

    /// Runs `job` on this thread `nanoseconds` from now.
    @discardableResult
    package func schedule(afterNanoseconds nanoseconds: UInt64, _ job: @escaping @Sendable () -> Void) -> Token {
        schedule(atMonotonic: monotonicNanoseconds() &+ nanoseconds, job)
    }

    /// Runs `job` on this thread at the monotonic instant `deadline` (nanoseconds).
    @discardableResult
    package func schedule(atMonotonic deadline: UInt64, _ job: @escaping @Sendable () -> Void) -> Token {
        let (token, soonest) = state.withLock { s -> (UInt64, Bool) in
            s.nextToken += 1
            let index = s.firstIndex(before: deadline)
            s.entries.insert(Entry(deadline: deadline, token: s.nextToken, job: job), at: index)
            return (s.nextToken, index == s.entries.count - 1)
        }
        if soonest { wake.signal() }
        return Token(value: token, deadline: deadline)
    }

    /// Forgets a deadline that has not fired. A job already running is not stopped. A thousand
    /// probes keep two thousand deadlines here and cancel one at every sample, so the entry is
    /// found by its deadline, not by a walk of the list.
    package func cancel(_ token: Token) {
        state.withLock { s in
            var index = token.deadline == .max ? 0 : s.firstIndex(before: token.deadline + 1)
            while index < s.entries.count, s.entries[index].deadline == token.deadline {
                if s.entries[index].token == token.value {
                    s.entries.remove(at: index)
                    return
                }
                index += 1
            }
        }
    }

    /// Wakes the thread for one more turn, and returns the turns it had made before.
    package func nudge() -> UInt64 {
        let before = turns.load(ordering: .acquiring)
        wake.signal()
        return before
    }

    private func loop() {
        while true {
            let turn = turns.add(1, ordering: .releasing).newValue
            Failpoint.wedgeTimerThread(atTurn: turn)
            let now = monotonicNanoseconds()
            let (due, wait) = state.withLock { s -> ((@Sendable () -> Void)?, UInt64?) in
                guard let last = s.entries.last else { return (nil, nil) }
                if last.deadline <= now {
                    s.entries.removeLast()
                    return (last.job, 0)
                }
                return (nil, last.deadline - now)
            }
            if let due {
                due()
                continue
            }
            if let wait {
                _ = self.wake.wait(timeout: .now() + .nanoseconds(Int(min(wait, UInt64(Int.max)))))
            } else {
                self.wake.wait()
            }
        }
    }
}
