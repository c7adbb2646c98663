import NIOCore
import Synchronization

/// Failed credentials per client address: after `allowed` failures within `window`, the address
/// is answered 429 until the window ends, without a credential being looked at. The table holds
/// at most `capacity` addresses; when full, expired entries go first, then the oldest.
final class FailedAttemptLimiter: Sendable {
    static let allowed = 10
    static let window = TimeAmount.seconds(60)
    static let capacity = 1024

    private struct Entry {
        var start: NIODeadline
        var failures: Int
    }

    private let table = Mutex<[String: Entry]>([:])

    /// Seconds until the address may try again, or nil when it may now.
    func blockedFor(_ address: String, now: NIODeadline = .now()) -> Int? {
        table.withLock { t in
            guard let entry = t[address] else { return nil }
            let end = entry.start + Self.window
            if end <= now {
                t[address] = nil
                return nil
            }
            guard entry.failures >= Self.allowed else { return nil }
            return max(1, Int((end - now).nanoseconds / 1_000_000_000) + 1)
        }
    }

    func failed(_ address: String, now: NIODeadline = .now()) {
        table.withLock { t in
            if var entry = t[address], entry.start + Self.window > now {
                entry.failures += 1
                t[address] = entry
                return
            }
            if t[address] == nil && t.count >= Self.capacity {
                t = t.filter { $0.value.start + Self.window > now }
                if t.count >= Self.capacity, let oldest = t.min(by: { $0.value.start < $1.value.start })?.key {
                    t[oldest] = nil
                }
            }
            t[address] = Entry(start: now, failures: 1)
        }
    }

    /// Addresses held in the table (for tests of its bound).
    var count: Int { table.withLock { $0.count } }

    func succeeded(_ address: String) { table.withLock { _ = $0.removeValue(forKey: address) } }
}
