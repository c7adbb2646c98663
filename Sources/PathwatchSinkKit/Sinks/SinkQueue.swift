/// A sink's bounded intake under its policy: what waits for delivery, and what was dropped.
/// A value under its runner's lock; the rules alone, so tests can hold them without a thread.
package struct SinkQueue<Item: Sendable>: Sendable {
    package let policy: SinkIntakePolicy
    package private(set) var items: [Item] = []
    /// Accepted and never to be delivered: pushed out past the bound, still waiting at a stop,
    /// or submitted after it.
    package private(set) var dropped = 0

    package init(policy: SinkIntakePolicy) { self.policy = policy }

    package var count: Int { items.count }
    package var isEmpty: Bool { items.isEmpty }

    package mutating func put(_ new: [Item]) {
        switch policy {
        case .keepAll(let max):
            items += new
            trim(to: max)
        case .keepLatest:
            if let latest = new.last { items = [latest] }
        }
    }

    /// Everything waiting, oldest first; the queue is empty after.
    package mutating func takeAll() -> [Item] {
        defer { items = [] }
        return items
    }

    /// Up to `limit` of the oldest items; the rest wait.
    package mutating func take(upTo limit: Int) -> [Item] {
        let taken = Array(items.prefix(limit))
        items.removeFirst(taken.count)
        return taken
    }

    /// Puts items taken but not delivered (or a replaced sink's) back ahead of what came since,
    /// dropping none: they were within the bound when taken, and the next `put` trims the
    /// oldest again. Under `keepLatest`, only while nothing came since: the newest item wins.
    package mutating func putBack(_ taken: [Item]) {
        switch policy {
        case .keepAll:
            items.insert(contentsOf: taken, at: 0)
        case .keepLatest:
            if items.isEmpty { items = taken }
        }
    }

    /// Drops the oldest past `max`, counting them.
    private mutating func trim(to max: Int) {
        let excess = items.count - max
        guard excess > 0 else { return }
        items.removeFirst(excess)
        dropped += excess
    }

    /// Items that will not be delivered: counted as dropped.
    package mutating func drop(_ count: Int) { dropped += count }

    /// Drops what waits, counting it.
    package mutating func dropAll() { dropped += takeAll().count }
}
