import PathwatchQueue

@testable import PathwatchRemoteWrite

extension SeriesTable {
    /// The entries of `keyedEntries(of:in:unknown:)` one by one, as the tests compare them.
    mutating func entries(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> [[UInt8]]?
    {
        guard let built = try keyedEntries(of: head, in: queue, unknown: &unknown) else { return nil }
        var start = 0
        return built.ends.map { end in
            defer { start = end }
            return Array(built.bytes[start..<end])
        }
    }
}
