import PathwatchQueue

/// `replay: "live_first"`: while a backlog drains, each new report is sent first, alone, and the
/// backlog fills in behind it. The queue lets records leave only in order, so a report sent
/// ahead stays queued and is noted here as delivered; when the drain reaches it, it leaves
/// without being sent again. The note lives in memory: after a restart such a report is sent
/// once more, in order, an identical sample, which receivers accept. On the delivery thread only.
struct LiveFirstReplay {
    /// Reports delivered ahead of the backlog and still queued, oldest first.
    private var deliveredAhead: [QueueEntry] = []
    /// The newest report tried ahead: it is not tried ahead again (refused or failed, it goes
    /// in order with the backlog).
    private var tried: QueueEntry?
    /// What the series numbers of the newest segment stand for: the drain reads another segment
    /// with its own table.
    var table = SeriesTable()

    /// The newest report, when it is to go ahead of `run` (the oldest reports, about to be
    /// sent): not in it, not delivered ahead already, not tried ahead before.
    mutating func candidate(in queue: DurableQueue, after run: [QueueHead]) throws(QueueError) -> QueueHead? {
        guard let last = run.last?.entry,
            let newest = try queue.newest(if: { [tried, deliveredAhead] entry in
                !entry.isAtOrBefore(last) && entry != tried && !deliveredAhead.contains(entry)
            })
        else { return nil }
        tried = newest.entry
        return newest
    }

    mutating func noteDelivered(_ entry: QueueEntry) { deliveredAhead.append(entry) }

    /// Of `run` (the oldest reports, in order): the reports at its start that were delivered
    /// ahead, which leave without being sent, and the rest of the run up to the next such report.
    mutating func split(_ run: [QueueHead]) -> (delivered: [QueueEntry], toSend: [QueueHead]) {
        guard let first = run.first?.entry else { return ([], []) }
        // What the bound dropped, or the drain completed, is no longer queued.
        deliveredAhead.removeAll { $0.isAtOrBefore(first) && $0 != first }
        let delivered = run.prefix { deliveredAhead.contains($0.entry) }.map(\.entry)
        if !delivered.isEmpty {
            deliveredAhead.removeFirst(delivered.count)
            return (delivered, [])
        }
        return ([], Array(run.prefix { !deliveredAhead.contains($0.entry) }))
    }
}
