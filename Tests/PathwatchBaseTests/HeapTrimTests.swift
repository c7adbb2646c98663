import PathwatchTestSupport
import Testing

@testable import PathwatchBase

/// The heap large reports leave free goes back to the kernel: a trim follows once the reports
/// consumed reach the threshold. (Suites that run beside this one may trim too, so it counts
/// trims from before, not that exactly one came.)
@Suite(.onItsOwnThread) struct HeapTrimTests {
    @Test func aTrimFollowsReportsThatReachTheThreshold() {
        let before = HeapTrim.trims.load(ordering: .relaxed)
        for _ in 0..<4 { HeapTrim.consumed(observations: HeapTrim.threshold / 2) }
        #expect(
            waitUntil(timeout: 20) { HeapTrim.trims.load(ordering: .relaxed) > before },
            "no trim after \(2 * HeapTrim.threshold) observations")
    }
}
