extension DurableQueue {
    /// The oldest records, in order, for an owner that sends several per request: the head (as
    /// `head()` returns it), then the records after it for as long as `accept` takes them and
    /// there are fewer than `limit`. `accept` sees every record in order, the head first (which
    /// is returned whatever it answers), so it can keep a running total. Nothing leaves the queue: each is completed, in order, once
    /// it was delivered. A damaged record after the head ends the run; it is dropped when it
    /// becomes the head.
    public func oldest(limit: Int, accept: (QueueRecord) -> Bool) throws(QueueError) -> [QueueHead] {
        guard let first = try head() else { return [] }
        var run = [first]
        _ = accept(first.record)
        try state.withLock { s throws(QueueError) in
            guard s.count > 0, s.entries[s.head] == first.entry else { return }
            var index = s.head + 1
            while run.count < limit, index < s.entries.count {
                let entry = s.entries[index]
                let fd = try s.readDescriptor(for: entry.segment)
                let bytes = try QueueFiles.read(fd, count: entry.length, at: entry.offset)
                guard QueueFrame.frameLength(in: bytes, at: 0) == entry.length,
                    let record = QueueFrame.decode(record: Array(bytes[QueueFrame.headerSize...])), accept(record)
                else { return }
                run.append(QueueHead(entry: entry, record: record))
                index += 1
            }
        }
        return run
    }
}
