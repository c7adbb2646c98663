import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPOut

/// The webhook's inbox: bounded, in order, one intake job at a time, and after close a place
/// that says where late batches go.
@Suite struct BatchInboxTests {
    func batch(_ ms: Int64) -> SinkBatch {
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "web-01"), time: WallTime(milliseconds: ms), checks: [], path: .unmonitored)
        return SinkBatch(events: [], snapshot: snapshot)
    }

    func times(_ batches: [SinkBatch]) -> [Int64] { batches.map(\.time.milliseconds) }

    @Test func onlyTheFirstBatchSinceTheLastJobAsksForOne() {
        let inbox = BatchInbox()
        guard case .parked(wakeIntake: true, lost: 0) = inbox.put(batch(1)) else {
            Issue.record("first batch")
            return
        }
        guard case .parked(wakeIntake: false, lost: 0) = inbox.put(batch(2)) else {
            Issue.record("second batch")
            return
        }
        #expect(times(inbox.take(upTo: 10)) == [1, 2])
        // Found empty: the job ends, and the next batch asks for another.
        #expect(inbox.take(upTo: 10).isEmpty)
        guard case .parked(wakeIntake: true, lost: 0) = inbox.put(batch(3)) else {
            Issue.record("after the job")
            return
        }
    }

    @Test func pastTheBoundTheOldestBatchGoes() {
        let inbox = BatchInbox()
        for n in 1...inbox.maxBatches { _ = inbox.put(batch(Int64(n))) }
        guard case .parked(_, lost: 1) = inbox.put(batch(0)) else {
            Issue.record("one over the bound")
            return
        }
        #expect(inbox.count == inbox.maxBatches)
        #expect(times(inbox.take(upTo: 1)) == [2])
    }

    @Test func aSuccessorsBatchesGoAheadAndLateOnesAreRedirected() {
        let inbox = BatchInbox()
        _ = inbox.put(batch(3))
        inbox.prepend([batch(1), batch(2)])
        #expect(times(inbox.close(afterwards: .refuse)) == [1, 2, 3])
        guard case .afterClose(.refuse) = inbox.put(batch(4)) else {
            Issue.record("after close")
            return
        }
        #expect(inbox.count == 0)
    }
}
