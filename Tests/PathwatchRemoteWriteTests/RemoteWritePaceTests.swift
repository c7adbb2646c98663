import PathwatchAgent
import PathwatchSinkKit
import Testing

@testable import PathwatchRemoteWrite

/// When the agent's own series go: once in each agent interval, however many probes report and
/// however their reports drift, and at once when the path's series would change.
@Suite struct RemoteWritePaceTests {
    /// Four probes at 10 s and one at 5 s, each report up to 400 ms late: the agent's series go
    /// once in each 10 s slot, with the first report in it.
    @Test func onceAnIntervalWhateverTheProbesAndTheirJitter() {
        var pace = AgentSeriesPace(interval: .seconds(10))
        var generator = SplitMix(seed: 7)
        var reports: [Int64] = []
        for slot in 0..<360 {
            let base = Int64(slot) * 10_000 + 1_000_000
            reports += (0..<4).map { _ in base + Int64(generator.next() % 400) }
            reports += [base, base + 5_000].map { $0 + Int64(generator.next() % 400) }
        }
        let sent = reports.sorted().filter { pace.take(at: $0, path: .unmonitored) }
        #expect(sent.count == 360, "\(sent.count) sends for 360 intervals")
        let gaps = zip(sent.dropFirst(), sent).map { $0 - $1 }
        #expect(
            gaps.allSatisfy { $0 >= 9_000 && $0 <= 11_000 }, "\(gaps.filter { $0 < 9_000 || $0 > 11_000 }.prefix(5))")
    }

    /// Probes reporting every second under a 10 s interval: once every 10 s, not every report.
    @Test func fasterProbesDoNotMakeItMoreOften() {
        var pace = AgentSeriesPace(interval: .seconds(10))
        let sent = (0..<600).map { Int64($0) * 1_000 + 5 }.filter { pace.take(at: $0, path: .unmonitored) }
        #expect(sent.count == 60 || sent.count == 61, "\(sent.count) sends in 600 s")
        #expect(zip(sent.dropFirst(), sent).allSatisfy { $0 - $1 >= 7_500 }, "\(sent.prefix(8))")
    }

    @Test func aChangeOfThePathsSeriesGoesAtOnceItsWordingDoesNot() {
        var pace = AgentSeriesPace(interval: .seconds(10))
        func take(at time: Int64, path: PathSummary) -> Bool { pace.take(at: time, path: path) }
        var reworded = PathSummary.offline
        reworded.description = "offline, said otherwise"
        #expect(take(at: 1_000, path: .offline), "the first report")
        #expect(!take(at: 2_000, path: .offline))
        #expect(!take(at: 3_000, path: reworded), "only the description changed: no series did")
        #expect(take(at: 3_500, path: .unmonitored), "the path's status changed")
        #expect(!take(at: 4_000, path: .unmonitored))
        #expect(
            take(at: 10_900, path: .unmonitored),
            "the next turn is an interval after the first, the change did not move it")
        #expect(!take(at: 12_000, path: .unmonitored))
        #expect(take(at: 60_000, path: .unmonitored), "after a pause, the first report")
        #expect(!take(at: 64_000, path: .unmonitored), "and turns start again from it")
        #expect(take(at: 65_600, path: .unmonitored))
    }

    /// A fixed sequence, so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
