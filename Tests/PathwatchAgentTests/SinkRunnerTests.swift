import Dispatch
import Foundation
import PathwatchClockTesting
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport

/// A sink that records the documents it delivers, by the agent name each batch carries. A name
/// starting with "!" is urgent; one starting with "fail" fails. While `held`, each delivery
/// waits for the test to let it through.
private final class RecordingSink: SinkDelivery {
    let intakePolicy: SinkIntakePolicy
    let spacing: DocumentSpacing?
    let finishWithin: Double?
    var threadName: String { "pw-test-sink" }
    private let state = Mutex<(delivered: [String], entered: Int, held: Bool)>(([], 0, false))
    private let gate = DispatchSemaphore(value: 0)

    let deliversOnCaller: Bool
    /// The delivery `close` handed over to, once closed.
    let successor = Mutex<RecordingSink??>(nil)

    init(
        _ policy: SinkIntakePolicy, spacing: UInt64? = nil, finishWithin: Double? = nil, held: Bool = false,
        onCaller: Bool = false
    ) {
        intakePolicy = policy
        self.spacing = spacing.map(DocumentSpacing.init)
        self.finishWithin = finishWithin
        deliversOnCaller = onCaller
        state.withLock { $0.held = held }
    }

    /// On the caller, as a pipe that takes what it is given would; declined while held.
    func deliverOnCaller(_ names: [String]) -> SinkDeliveryResult? {
        guard !state.withLock({ $0.held }) else { return nil }
        state.withLock {
            $0.entered += names.count
            $0.delivered += names
        }
        return .delivered
    }

    func close(handingOverTo successor: RecordingSink?) { self.successor.withLock { $0 = .some(successor) } }

    var delivered: [String] { state.withLock { $0.delivered } }
    var entered: Int { state.withLock { $0.entered } }

    /// Lets every delivery through, those waiting and those to come.
    func release() {
        let waiting = state.withLock { s -> Int in
            s.held = false
            return s.entered - s.delivered.count
        }
        for _ in 0..<max(waiting, 0) { gate.signal() }
    }

    func intake(_ batch: SinkBatch) -> SinkIntake<String> {
        let name = batch.snapshot.identity.name
        return SinkIntake([name], urgent: name.hasPrefix("!"))
    }

    func deliver(_ name: String) -> SinkDeliveryResult {
        let held = state.withLock { s -> Bool in
            s.entered += 1
            return s.held
        }
        if held { gate.wait() }
        state.withLock { $0.delivered.append(name) }
        return name.hasPrefix("fail") ? .failed("\(name) refused") : .delivered
    }

    func status() -> SinkStatus { SinkStatus(type: "test", target: "here", queued: 0, dropped: 0) }
}

/// The one runner every sink runs under: its intake (every item within a bound, or the latest),
/// its pacing, its drain at a stop and its status, on a clock the test moves by hand, so no rule
/// of time here waits for time to pass.
@Suite(.onItsOwnThread) struct SinkRunnerTests {
    static let second: UInt64 = 1_000_000_000

    /// Whether a call made on a thread of its own has returned.
    final class Returned: Sendable {
        private let flag = Atomic<Bool>(false)
        var done: Bool { flag.load(ordering: .acquiring) }
        func set() { flag.store(true, ordering: .releasing) }
    }

    /// Runs `body` on a thread of its own (a drain blocks until the test moves the clock).
    static func inBackground(_ body: @escaping @Sendable () -> Void) -> Returned {
        let returned = Returned()
        Thread {
            body()
            returned.set()
        }.start()
        return returned
    }

    /// A runner whose sink is delivering "a", held there until the test releases it.
    private static func busy(
        _ policy: SinkIntakePolicy, finishWithin: Double? = nil, clock: ManualClock = ManualClock()
    ) throws -> (RecordingSink, SinkRunner<RecordingSink>) {
        let recorder = RecordingSink(policy, finishWithin: finishWithin, held: true)
        let sink = SinkRunner(recorder, clock: clock)
        sink.submit(.named("a"))
        try #require(waitUntil { recorder.entered == 1 })
        return (recorder, sink)
    }

    @Test func theQueueKeepsEveryItemWithinItsBoundAndCountsTheOldestItDrops() {
        var all = SinkQueue<Int>(policy: .keepAll(max: 3))
        all.put([1, 2])
        all.put([3, 4, 5])
        #expect(all.items == [3, 4, 5] && all.dropped == 2)
        var latest = SinkQueue<Int>(policy: .keepLatest)
        latest.put([1])
        latest.put([2, 3])
        #expect(latest.items == [3] && latest.dropped == 0)
    }

    @Test func aBusySinkKeepsEveryBatchUpToItsBoundAndCountsTheRest() throws {
        let (recorder, sink) = try Self.busy(.keepAll(max: 3))
        defer { sink.close(handingOverTo: nil) }
        for name in ["b", "c", "d", "e"] { sink.submit(.named(name)) }
        #expect(sink.status().queued == 3 && sink.status().dropped == 1)
        recorder.release()
        try #require(waitUntil { recorder.delivered.count == 4 }, "\(recorder.delivered)")
        #expect(recorder.delivered == ["a", "c", "d", "e"])
        #expect(sink.status().queued == 0 && sink.status().dropped == 1)
    }

    @Test func aSinkThatKeepsTheLatestDeliversOnlyTheNewestAndDropsNothing() throws {
        let (recorder, sink) = try Self.busy(.keepLatest)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("b"))
        sink.submit(.named("c"))
        #expect(sink.status().queued == 1 && sink.status().dropped == 0)
        recorder.release()
        try #require(waitUntil { recorder.delivered.count == 2 })
        #expect(recorder.delivered == ["a", "c"])
    }

    @Test func deliveriesWaitForTheSpacingOnTheClockUnlessUrgent() throws {
        let clock = ManualClock()
        let recorder = RecordingSink(.keepLatest, spacing: 10 * Self.second)
        let sink = SinkRunner(recorder, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        let start = ManualClock.start
        sink.submit(.named("a"))
        try #require(waitUntil { recorder.delivered == ["a"] })
        sink.submit(.named("b"))
        // Nine tenths of the spacing after the last delivery began: the one rule of spacing.
        #expect(clock.deadlines == [start + 9 * Self.second])
        clock.advance(to: start + 9 * Self.second - 1)
        #expect(sink.status().queued == 1 && recorder.delivered == ["a"])
        sink.submit(.named("!c"))
        try #require(waitUntil { recorder.delivered == ["a", "!c"] }, "an urgent batch waits for nothing")
        clock.advance(to: start + 9 * Self.second)
        sink.submit(.named("d"))
        #expect(clock.deadlines.last == start + 9 * Self.second - 1 + 9 * Self.second)
        clock.advance(by: 9 * Self.second)
        try #require(waitUntil { recorder.delivered == ["a", "!c", "d"] }, "\(recorder.delivered)")
    }

    @Test func aDrainDeliversWhatWaitsForItsSpacingAtOnce() throws {
        let clock = ManualClock()
        let recorder = RecordingSink(.keepLatest, spacing: 10 * Self.second)
        let sink = SinkRunner(recorder, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("a"))
        try #require(waitUntil { recorder.delivered == ["a"] })
        sink.submit(.named("b"))
        let drained = Self.inBackground { sink.drain(timeout: 5, stopAskedAt: nil) }
        try #require(waitUntil { drained.done }, "the drain waited for the spacing")
        #expect(recorder.delivered == ["a", "b"] && sink.status().dropped == 0)
    }

    @Test func aDrainEndsAtItsTimeoutOnTheClockAndDropsWhatIsLeft() throws {
        let clock = ManualClock()
        let (recorder, sink) = try Self.busy(.keepAll(max: 10), clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("b"))
        sink.submit(.named("c"))
        let drained = Self.inBackground { sink.drain(timeout: 5, stopAskedAt: nil) }
        try #require(waitUntil { clock.deadlines == [ManualClock.start + 5 * Self.second] })
        #expect(!drained.done)
        clock.advance(by: 5 * Self.second)
        try #require(waitUntil { drained.done })
        #expect(sink.status().dropped == 2 && sink.status().queued == 0)
        sink.submit(.named("d"))
        #expect(sink.status().dropped == 3, "what comes after the drain is dropped and counted")
        recorder.release()
        try #require(waitUntil { recorder.delivered == ["a"] })
    }

    @Test func aStopWaitsForTheItemInProgressUpToItsFinishingTime() throws {
        let clock = ManualClock()
        let (recorder, sink) = try Self.busy(.keepAll(max: 10), finishWithin: 15, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("b"))
        let drained = Self.inBackground { sink.drain(timeout: 5, stopAskedAt: nil) }
        try #require(waitUntil { !clock.deadlines.isEmpty })
        clock.advance(by: 5 * Self.second)
        // The drain's time is over: "b" will not start, and "a" gets until 15 s to end whole.
        try #require(waitUntil { clock.deadlines == [ManualClock.start + 15 * Self.second] })
        #expect(!drained.done)
        recorder.release()
        try #require(waitUntil { drained.done })
        #expect(recorder.delivered == ["a"] && sink.status().dropped == 1)
    }

    @Test func theItemInProgressIsWaitedForUpToItsFinishingTimeFromWhenTheStopWasAsked() throws {
        let clock = ManualClock()
        let (recorder, sink) = try Self.busy(.keepAll(max: 10), finishWithin: 15, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("b"))
        // The stop was asked for 10 s before the drain: the probes took that long to stop.
        let asked = clock.monotonicNow
        clock.advance(by: 10 * Self.second)
        let drained = Self.inBackground { sink.drain(timeout: 5, stopAskedAt: asked) }
        try #require(waitUntil { clock.deadlines == [asked + 15 * Self.second] }, "\(clock.deadlines)")
        clock.advance(by: 5 * Self.second)
        try #require(waitUntil { drained.done }, "waited past 15 s from the stop for \"a\"")
        #expect(sink.status().dropped == 1, "\"b\" did not start")
        recorder.release()
        try #require(waitUntil { recorder.delivered == ["a"] })
    }

    @Test func aDrainThatBeginsPastTheFinishingTimeStartsNothingAndWaitsForNothing() throws {
        let clock = ManualClock()
        let (recorder, sink) = try Self.busy(.keepAll(max: 10), finishWithin: 15, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("b"))
        let asked = clock.monotonicNow
        clock.advance(by: 20 * Self.second)
        let drained = Self.inBackground { sink.drain(timeout: 5, stopAskedAt: asked) }
        try #require(waitUntil { drained.done }, "\(clock.deadlines)")
        #expect(sink.status().dropped == 1 && recorder.delivered.isEmpty)
        recorder.release()
    }

    @Test func aSinkThatCanDeliversOnTheSubmittersThreadAndItsOwnWhenItDeclines() throws {
        let recorder = RecordingSink(.keepAll(max: 10), onCaller: true)
        let sink = SinkRunner(recorder, clock: ManualClock())
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("a"))
        #expect(recorder.delivered == ["a"], "delivered before submit returned")
        let held = RecordingSink(.keepAll(max: 10), held: true, onCaller: true)
        let declined = SinkRunner(held, clock: ManualClock())
        defer { declined.close(handingOverTo: nil) }
        declined.submit(.named("b"))
        try #require(waitUntil { held.entered == 1 }, "the runner's thread took what the caller declined")
        held.release()
        try #require(waitUntil { held.delivered == ["b"] })
    }

    @Test func aClosedSinkHandsOverToItsSuccessorsDeliveryAndTakesNothingMore() throws {
        let old = RecordingSink(.keepLatest)
        let new = RecordingSink(.keepLatest)
        let sink = SinkRunner(old, clock: ManualClock())
        let successor = SinkRunner(new, clock: ManualClock())
        defer { successor.close(handingOverTo: nil) }
        sink.close(handingOverTo: successor)
        #expect(old.successor.withLock { $0.flatMap { $0 } } === new)
        sink.submit(.named("late"))
        #expect(sink.status().dropped == 1 && old.delivered.isEmpty)
    }

    @Test func theStatusCarriesTheLastDeliveryAndErrorOnTheClock() throws {
        let clock = ManualClock()
        let recorder = RecordingSink(.keepAll(max: 10))
        let sink = SinkRunner(recorder, clock: clock)
        defer { sink.close(handingOverTo: nil) }
        sink.submit(.named("a"))
        try #require(waitUntil { sink.status().lastDelivery != nil })
        clock.advance(by: Self.second)
        sink.submit(.named("fail-b"))
        try #require(waitUntil { sink.status().lastError != nil })
        let status = sink.status()
        #expect(status.type == "test" && status.target == "here")
        #expect(status.lastDelivery == ManualClock.wall(at: ManualClock.start))
        #expect(status.lastError == "fail-b refused")
        sink.submit(.named("c"))
        try #require(waitUntil { sink.status().lastError == nil })
        #expect(sink.status().lastDelivery == ManualClock.wall(at: ManualClock.start + Self.second))
    }
}
