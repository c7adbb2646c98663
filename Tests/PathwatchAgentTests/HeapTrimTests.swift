import Synchronization
import Testing

@testable import PathwatchAgent

#if canImport(Glibc)
import Glibc
#endif

/// The heap large reports leave free goes back to the kernel: a trim follows once the reports
/// consumed reach the threshold, and several such reports within the delay make one trim.
@Suite(.onItsOwnThread) struct HeapTrimTests {
    /// Waits (in 10 ms steps, up to 20 s) until `condition` holds; false if it never did.
    static func wait(until condition: () -> Bool) -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test func aTrimFollowsReportsThatReachTheThreshold() {
        let before = HeapTrim.trims.load(ordering: .relaxed)
        for _ in 0..<4 { HeapTrim.consumed(observations: HeapTrim.threshold / 2) }
        #expect(Self.wait { HeapTrim.trims.load(ordering: .relaxed) > before }, "no trim after \(2 * HeapTrim.threshold) observations")
    }
}
