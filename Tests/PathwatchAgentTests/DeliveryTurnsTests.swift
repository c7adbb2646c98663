import Foundation
import PathwatchBase
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent

/// Batches reach the sinks in the order of their turns, whichever thread gets there first: a
/// later turn waits for every earlier one, an earlier one never waits for a later one.
@Suite(.onItsOwnThread) struct DeliveryTurnsTests {
    @Test func turnsRunInTheirOrderWhateverOrderTheirThreadsArriveIn() {
        let turns = DeliveryTurns()
        let ran = Mutex<[UInt64]>([])
        let threads = (1...6).map { i in
            SerialThread(name: "pw-test-turn\(i)")
        }
        let done = DispatchSemaphore(value: 0)
        // The later turns arrive first, each a little before the one below it.
        for (index, thread) in threads.enumerated().reversed() {
            let turn = UInt64(index + 1)
            thread.async {
                turns.take(turn) { ran.withLock { $0.append(turn) } }
                done.signal()
            }
            usleep(20_000)
        }
        for _ in threads {
            #expect(done.wait(timeout: .now() + 10) == .success, "a turn never ran: \(ran.withLock { $0 })")
        }
        #expect(ran.withLock { $0 } == [1, 2, 3, 4, 5, 6])
        threads.forEach { $0.finish() }
    }

    @Test func aTurnWhosePredecessorsAreDoneRunsOnTheCallerAtOnce() {
        let turns = DeliveryTurns()
        var order: [Int] = []
        turns.take(1) { order.append(1) }
        turns.take(2) { order.append(2) }
        #expect(order == [1, 2])
    }
}
