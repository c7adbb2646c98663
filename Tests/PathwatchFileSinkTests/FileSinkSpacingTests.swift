import Foundation
import Logging
import PathwatchClockTesting
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchFileSink
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport

/// The file sink's spacing between writes of documents that changed nothing: the agent's
/// documents come about once an interval, on the probes' grid, each a little early or late. A
/// write that follows one late by some phase catches up with them, instead of holding every
/// later document back by that phase for good.
@Suite struct FileSinkSpacingTests {
    static let second: UInt64 = 1_000_000_000

    /// Documents at 0.1 s past each 10 s tick, ±50 ms, after a first write at 7 s past a tick
    /// (the first document at start, before the probes were on the grid): how long the last
    /// documents waited for the file.
    static func waits(writes count: Int) -> [UInt64] {
        let spacing = 10 * second
        var lastWrite = 7 * second
        var waits: [UInt64] = []
        for tick in 1...count {
            let jitter = tick % 2 == 0 ? 50_000_000 : -50_000_000
            let arrives = UInt64(Int64(tick) * Int64(spacing) + 100_000_000 + Int64(jitter))
            let written = max(arrives, DocumentSpacing(spacing).earliestNext(after: lastWrite))
            waits.append(written - arrives)
            lastWrite = written
        }
        return waits
    }

    @Test func writesCatchUpWithDocumentsThatComeAMomentEarly() {
        let waits = Self.waits(writes: 20)
        #expect(waits.first! > 5 * Self.second, "the first document waits for the spacing")
        #expect(waits.suffix(5).allSatisfy { $0 == 0 }, "\(waits)")
    }

    @Test func writesStayAtLeastNineTenthsOfTheSpacingApart() {
        #expect(DocumentSpacing(10 * Self.second).earliestNext(after: 100 * Self.second) == 109 * Self.second)
    }
}

/// The spacing as the running sink keeps it, on a clock the test moves: the first document is
/// written at once; one that changed nothing after it waits for nine tenths of the spacing from
/// that write, on the clock, and the newest document waiting then is the one written.
@Suite(.onItsOwnThread) struct FileSinkSpacingClockTests {
    static let second: UInt64 = 1_000_000_000

    /// A file sink of `spacing` seconds in a folder of its own, run on a clock the test moves,
    /// and what its file says.
    struct Fixture {
        let dir: URL
        let clock = ManualClock()
        let sink: SinkRunner<FileSink>
        let path: String

        init(spacing: Int64) throws {
            dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-file-spacing")
            path = dir.appendingPathComponent("status.json").path
            let logger = AgentLogger(logger: Logger(label: "file-spacing"), redactor: SecretRedactor())
            let file = FileSink(
                path: path, pretty: false, triggers: [.every], spacing: .seconds(spacing), logger: logger,
                clock: clock)
            sink = SinkRunner(file, clock: clock)
        }

        func written() -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

        func close() {
            sink.close(handingOverTo: nil)
            TestEnvironment.removeTemporaryDirectory(dir)
        }
    }

    @Test func aDocumentThatChangedNothingWaitsForTheSpacingOnTheSinksClock() throws {
        let fixture = try Fixture(spacing: 10)
        defer { fixture.close() }
        let (sink, clock) = (fixture.sink, fixture.clock)
        func written() -> String { fixture.written() }
        let start = ManualClock.start
        sink.submit(.named("first"))
        try #require(waitUntil(timeout: 10) { written().contains("\"first\"") }, "the first document was not written")
        // The status notes a delivery once the file is in place: a moment after it, not with it.
        #expect(
            waitUntil(timeout: 10) { sink.status().lastDelivery == ManualClock.wall(at: start) }, "\(sink.status())")
        sink.submit(.named("second"))
        sink.submit(.named("third"))
        // One write waits, on the clock, for 9 s (the spacing less its tenth) after the first.
        #expect(clock.deadlines == [start + 9 * Self.second])
        clock.advance(to: start + 9 * Self.second - 1)
        #expect(sink.status().queued == 1 && written().contains("\"first\""))
        clock.advance(to: start + 9 * Self.second)
        try #require(waitUntil(timeout: 10) { written().contains("\"third\"") }, "written: \(written())")
        #expect(
            waitUntil(timeout: 10) { sink.status().lastDelivery == ManualClock.wall(at: start + 9 * Self.second) },
            "\(sink.status())")
        #expect(waitUntil(timeout: 10) { sink.status().queued == 0 }, "\(sink.status())")
    }

    /// Ticks of 10 s and a spacing of 60 s (an agent whose fastest probe is six times as fast):
    /// a later document of the tick last written (a slower probe's reports) is written at once,
    /// not a spacing after the write, and the next ticks' documents wait for the spacing after
    /// the tick written, the newest of them written then.
    @Test func aLaterDocumentOfTheTickWrittenGoesAtOnceAndOtherTicksWaitForTheSpacing() throws {
        let fixture = try Fixture(spacing: 60)
        defer { fixture.close() }
        let (sink, clock) = (fixture.sink, fixture.clock)
        func written() -> String { fixture.written() }
        let tick = ManualClock.start
        sink.submit(.named("first", tick: tick))
        try #require(waitUntil(timeout: 10) { written().contains("\"first\"") }, "the first document was not written")
        try #require(waitUntil(timeout: 10) { sink.status().queued == 0 && sink.status().lastDelivery != nil })
        clock.advance(by: 3 * Self.second)
        sink.submit(.named("slower", tick: tick))
        #expect(clock.deadlines.isEmpty, "held: \(clock.deadlines)")
        try #require(waitUntil(timeout: 10) { written().contains("\"slower\"") }, "written: \(written())")
        try #require(waitUntil(timeout: 10) { sink.status().queued == 0 })
        clock.advance(to: tick + 10 * Self.second + 100_000_000)
        sink.submit(.named("next", tick: tick + 10 * Self.second))
        clock.advance(to: tick + 20 * Self.second + 100_000_000)
        sink.submit(.named("after", tick: tick + 20 * Self.second))
        #expect(clock.deadlines == [tick + 54 * Self.second])
        clock.advance(to: tick + 54 * Self.second - 1)
        #expect(sink.status().queued == 1 && written().contains("\"slower\""))
        clock.advance(to: tick + 54 * Self.second)
        try #require(waitUntil(timeout: 10) { written().contains("\"after\"") }, "written: \(written())")
    }
}
