import Testing

@testable import PathwatchFileSink

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
            let written = max(arrives, FileSink.earliestWrite(after: lastWrite, spacing: spacing))
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
        #expect(FileSink.earliestWrite(after: 100 * Self.second, spacing: 10 * Self.second) == 109 * Self.second)
    }
}
