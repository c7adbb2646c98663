import PathwatchClockTesting
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport

/// A sink run as the push sinks are: paused until `start`, delivering two waiting items at once,
/// declining what it cannot take yet, and handing what is left to its successor at a close. It
/// records each group it delivered, what the runner said it dropped, and what a close left.
private final class GroupingSink: SinkDelivery {
    struct Record {
        var groups: [[String]] = []
        var drops: [SinkDropReason] = []
        var unsent: [String]?
        /// Deliveries still to decline.
        var declines: Int
    }

    let intakePolicy: SinkIntakePolicy
    var threadName: String { "pw-test-group" }
    var startsPaused: Bool { true }
    var itemsPerDelivery: Int { 2 }
    var closeWait: Double? { 5 }
    private let record: Mutex<Record>

    init(max: Int = 10, declines: Int = 0) {
        intakePolicy = .keepAll(max: max)
        record = Mutex(Record(declines: declines))
    }

    var groups: [[String]] { record.withLock { $0.groups } }
    var drops: [SinkDropReason] { record.withLock { $0.drops } }
    var unsent: [String]? { record.withLock { $0.unsent } }

    func intake(_ batch: SinkBatch) -> SinkIntake<String> { SinkIntake([batch.snapshot.identity.name]) }

    func deliver(_ name: String) -> SinkDeliveryResult { deliver(group: [name]) }

    func deliver(group: [String]) -> SinkDeliveryResult {
        record.withLock { r in
            guard r.declines == 0 else {
                r.declines -= 1
                return .notTaken(retryAfter: SinkRunnerTests.second)
            }
            r.groups.append(group)
            return .delivered
        }
    }

    func noteDropped(_ count: Int, _ reason: SinkDropReason) {
        record.withLock { $0.drops += Array(repeating: reason, count: count) }
    }

    func close(handingOverTo successor: GroupingSink?, unsent: [String]) {
        record.withLock { $0.unsent = unsent }
    }

    func status() -> SinkStatus { SinkStatus(type: "test", target: "here", queued: 0, dropped: 0) }
}

/// What the runner offers a sink whose intake must wait for something (a queue folder another
/// sink still holds): a start held until `start`, groups of items per delivery, retries on the
/// clock of what the sink cannot take yet, and the hand-over of what is left at a reload.
@Suite(.onItsOwnThread) struct SinkRunnerHandOverTests {
    static let second = SinkRunnerTests.second

    @Test func aSinkStartedPausedDeliversNothingUntilStartThenWhatWaitsInGroups() throws {
        let grouping = GroupingSink()
        let sink = SinkRunner(grouping, clock: ManualClock())
        defer { sink.close(handingOverTo: nil) }
        for name in ["a", "b", "c"] { sink.submit(.named(name)) }
        #expect(grouping.groups.isEmpty && sink.status().queued == 3)
        sink.start()
        try #require(waitUntil { grouping.groups.count == 2 }, "\(grouping.groups)")
        // All three waited for the start together: one group of two, then the last.
        #expect(grouping.groups == [["a", "b"], ["c"]])
    }

    @Test func whatTheSinkCannotTakeYetWaitsAndIsOfferedAgainOnTheClock() throws {
        let clock = ManualClock()
        let grouping = GroupingSink(declines: 1)
        let sink = SinkRunner(grouping, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.start()
        sink.submit(.named("a"))
        try #require(waitUntil { clock.deadlines == [ManualClock.start + Self.second] })
        sink.submit(.named("b"))
        #expect(grouping.groups.isEmpty && sink.status().queued == 2 && sink.status().dropped == 0)
        clock.advance(by: Self.second)
        try #require(waitUntil { !grouping.groups.isEmpty }, "the retry came at its time")
        #expect(grouping.groups == [["a", "b"]])
    }

    @Test func aClosingSinkHandsWhatItHoldsAndItsDropsToItsSuccessorAheadOfWhatCameSince() throws {
        let clock = ManualClock()
        let old = GroupingSink(max: 2, declines: 100)
        let new = GroupingSink()
        let sink = SinkRunner(old, clock: clock)
        let successor = SinkRunner(new, clock: clock)
        defer { successor.close(handingOverTo: nil) }
        for name in ["a", "b", "c"] { sink.submit(.named(name)) }
        #expect(old.drops == [.overflow] && sink.status().dropped == 1)
        successor.submit(.named("d"))
        // The close offers what waits once; declined, it hands it over without waiting longer.
        sink.close(handingOverTo: successor)
        #expect(old.unsent == ["b", "c"])
        sink.submit(.named("late"))
        #expect(successor.status().queued == 4 && successor.status().dropped == 1)
        successor.start()
        try #require(waitUntil { new.groups.count == 2 }, "\(new.groups)")
        #expect(new.groups == [["b", "c"], ["d", "late"]])
    }

    @Test func withNoSuccessorWhatIsLeftAtCloseIsDroppedAndCounted() {
        let grouping = GroupingSink(declines: 100)
        let sink = SinkRunner(grouping, clock: ManualClock())
        sink.submit(.named("a"))
        sink.close(handingOverTo: nil)
        #expect(grouping.unsent == ["a"] && sink.status().dropped == 1 && sink.status().queued == 0)
        sink.submit(.named("late"))
        #expect(grouping.drops == [.afterClose] && sink.status().dropped == 2)
    }
}
