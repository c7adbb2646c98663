import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// When a dead plug-in child is started again: 1 s, doubling to 5 min, reset after a healthy minute.
@Suite struct RestartBackoffTests {
    let second: Int64 = 1_000_000_000

    @Test func doublesFromOneSecondToFiveMinutes() {
        var backoff = RestartBackoff()
        let delays = (0..<12).map { _ in backoff.delay(startedAt: 0, now: 2 * second) / second }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
    }

    @Test func aChildHealthyForAMinuteStartsTheCountAgain() {
        var backoff = RestartBackoff()
        for _ in 0..<5 { _ = backoff.delay(startedAt: 0, now: second) }
        #expect(backoff.delay(startedAt: 0, now: 59 * second) == 32 * second)
        #expect(backoff.delay(startedAt: 0, now: 60 * second) == second)
        #expect(backoff.delay(startedAt: 100 * second, now: 101 * second) == 2 * second)
    }
}
