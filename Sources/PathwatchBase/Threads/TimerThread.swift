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
    }

    private struct Entry {
        var deadline: UInt64
        var token: UInt64

        /// Sooner first; of two due at the same instant, the one scheduled first.
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : token < other.token
        }
    }

    /// A binary min-heap of deadlines, and the jobs still pending by token. A thousand probes
    /// keep two thousand deadlines here and add two and cancel one at every sample: a heap adds
    /// in log n, and a cancel only drops the job (its deadline is dropped when it comes up),
    /// where a sorted list moved half its entries on every add and every cancel.
    private struct State {
        var heap: [Entry] = []
        var jobs: [UInt64: @Sendable () -> Void] = [:]
        var nextToken: UInt64 = 0

        mutating func push(_ entry: Entry) {
            heap.append(entry)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].precedes(heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        mutating func popFirst() -> Entry? {
            guard !heap.isEmpty else { return nil }
            heap.swapAt(0, heap.count - 1)
            let first = heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var soonest = parent
                if left < heap.count, heap[left].precedes(heap[soonest]) { soonest = left }
                if right < heap.count, heap[right].precedes(heap[soonest]) { soonest = right }
                if soonest == parent { break }
                heap.swapAt(parent, soonest)
                parent = soonest
            }
            return first
        }

        /// Drops cancelled entries off the top: the soonest left is a pending one.
        mutating func dropCancelled() {
            while let first = heap.first, jobs[first.token] == nil { _ = popFirst() }
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
            s.dropCancelled()
            let soonest = s.heap.first.map { deadline < $0.deadline } ?? true
            s.push(Entry(deadline: deadline, token: s.nextToken))
            s.jobs[s.nextToken] = job
            return (s.nextToken, soonest)
        }
        if soonest { wake.signal() }
        return Token(value: token)
    }

    /// Forgets a deadline that has not fired. A job already running is not stopped.
    package func cancel(_ token: Token) {
        // The job goes now (what it holds is let go); its deadline when it comes up.
        _ = state.withLock { $0.jobs.removeValue(forKey: token.value) }
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
                s.dropCancelled()
                guard let first = s.heap.first else { return (nil, nil) }
                if first.deadline <= now {
                    _ = s.popFirst()
                    return (s.jobs.removeValue(forKey: first.token), 0)
                }
                return (nil, first.deadline - now)
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
