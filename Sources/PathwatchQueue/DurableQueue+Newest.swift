/// Reading the newest record ahead of the others, for an owner that sends what is new before a
/// backlog (remote_write's `replay: "live_first"`). The record still leaves only in order, by
/// `complete` once it is the oldest: the owner remembers that it was sent.
extension DurableQueue {
    /// The newest record and its place, left in place and not handed out (the bound may drop it
    /// meanwhile, as it may any record); nil when the queue is empty, when `wanted` declines its
    /// place (asked before the record is read: a drain asks before every request), or when the
    /// record is damaged (it is dropped when it reaches the head).
    package func newest(if wanted: (QueueEntry) -> Bool = { _ in true }) throws(QueueError) -> QueueHead? {
        try state.withLock { s throws(QueueError) -> QueueHead? in
            guard s.count > 0, let entry = s.entries.last, wanted(entry), let record = try s.read(entry) else {
                return nil
            }
            return QueueHead(entry: entry, record: record, progress: s.count == 1 ? s.cursor.progress : 0)
        }
    }
}
