import PathwatchSinkKit

/// When to start a child again after it died: 1 s, doubling to 5 min; a child that stayed
/// healthy for a minute starts the count again.
package struct RestartBackoff: Sendable {
    package static let first: Int64 = 1_000_000_000
    package static let longest: Int64 = 300_000_000_000
    package static let healthyAfter: Int64 = 60_000_000_000

    package private(set) var consecutive = 0

    /// The delay before the next start, for a child that started at `startedAt` and died at `now`.
    package mutating func delay(startedAt: Int64, now: Int64) -> Int64 {
        if now - startedAt >= Self.healthyAfter { consecutive = 0 }
        consecutive += 1
        let doublings = min(consecutive - 1, 20)
        return min(Self.first << Int64(doublings), Self.longest)
    }
}
