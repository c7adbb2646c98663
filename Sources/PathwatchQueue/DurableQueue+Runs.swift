/// Reading and completing a run of the oldest records at once, for an owner that sends several
/// in one request (the webhook sink's batches): the run is read in order and completed with one
/// cursor move, so a crash, a `kill -9` or a hand-over to another owner finds either the whole
/// run queued or none of it, never a part.
extension DurableQueue {
    /// Up to `limit` of the oldest records, in order, each with its place, left in place; after
    /// the head (which comes whatever `accept` answers), only while `accept` takes each record.
    /// `accept` sees every record read, the head first, so it can keep a running total (the
    /// samples a request may carry). A damaged record at the head is dropped and counted (as
    /// `head()` does); one further on ends the run before it, and is dropped when it reaches
    /// the head.
    package func heads(upTo limit: Int, while accept: (QueueRecord) -> Bool = { _ in true }) throws(QueueError)
        -> [QueueHead]
    {
        try state.withLock { s throws(QueueError) -> [QueueHead] in
            var run: [QueueHead] = []
            var index = s.head
            while run.count < max(limit, 1), index < s.entries.count {
                let entry = s.entries[index]
                if let record = try s.read(entry) {
                    guard accept(record) || run.isEmpty else { break }
                    run.append(QueueHead(entry: entry, record: record, progress: run.isEmpty ? s.cursor.progress : 0))
                    index += 1
                } else if run.isEmpty {
                    s.dropHead()
                    s.cursor.dropped += 1
                    try s.moveCursor()
                    index = s.head
                } else {
                    break
                }
            }
            try s.handOut(through: run.last?.entry)
            return run
        }
    }

    /// Removes a run that `heads(upTo:)` handed out, with one cursor move. Records of it that
    /// the bound dropped while it was being sent are skipped, and counted as the run is: not
    /// at all when it was delivered (they reached the receiver); the rest must still be the oldest.
    package func complete(run: [QueueEntry], as completion: QueueCompletion) throws(QueueError) {
        try state.withLock { s throws(QueueError) in
            var removed = 0
            for entry in run where s.count > 0 && s.entries[s.head] == entry {
                s.dropHead()
                removed += 1
            }
            guard removed > 0 else {
                if s.settleRunOut(as: completion) { try s.writeCursor() }
                return
            }
            try s.finishCompletion(of: removed, as: completion)
        }
    }
}
