import PathwatchBase
import PathwatchQueue

/// The delivery's side of `DenseReport`: what each series number of one segment stands for,
/// as the protobuf bytes of its labels, learned from the segment's preamble and its records in
/// order. Requests are built from it without decoding a label twice. Used on the delivery
/// thread only.
struct SeriesTable {
    /// The segment's record the table has read through (every record of the segment up to
    /// it, and its preamble); nil before the first.
    private var through: QueueEntry?
    /// `TimeSeries.labels` entries, encoded, by series number, each with its key (`key(of:)`).
    private var labels: [UInt64: (bytes: [UInt8], key: UInt64)] = [:]

    /// The `timeseries` entries of the dense record `head`, each stamped with the record's time,
    /// in the order the record has them; a series whose number the segment never defined (its
    /// record was lost before the disk) is left out and counted in `unknown`. Reads what the
    /// segment holds before `head` first when the table has not seen it. Nil when the record
    /// cannot be decoded, or its segment is gone (the bound dropped it while it was out).
    mutating func entries(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> [[UInt8]]?
    {
        try keyedEntries(of: head, in: queue, unknown: &unknown)?.entries
    }

    /// `entries(of:in:unknown:)`, with each entry's series key (`key(of:)`).
    mutating func keyedEntries(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> (entries: [[UInt8]], keys: [UInt64])?
    {
        let entry = head.entry
        if !covers(entry) {
            labels = [:]
            through = nil
            guard let prologue = try queue.prologue(of: entry) else { return nil }
            if let preamble = prologue.preamble, let contents = DenseReport.contents(of: preamble, preamble: true) {
                learn(contents.definitions)
            }
            for record in prologue.records where record.kind == DenseReport.kind {
                if let contents = DenseReport.contents(of: record.body) { learn(contents.definitions) }
            }
        }
        guard let contents = DenseReport.contents(of: head.record.body) else { return nil }
        learn(contents.definitions)
        through = entry
        var entries: [[UInt8]] = []
        var keys: [UInt64] = []
        entries.reserveCapacity(contents.samples.count)
        keys.reserveCapacity(contents.samples.count)
        let stamp = head.record.enqueuedAtMilliseconds
        for sample in contents.samples {
            guard let series = labels[sample.series] else {
                unknown += 1
                continue
            }
            entries.append(WriteRequestEncoder.entry(labels: series.bytes, value: sample.value, timestamp: stamp))
            keys.append(series.key)
        }
        return (entries, keys)
    }

    /// Whether every record of `entry`'s segment before it has been read.
    private func covers(_ entry: QueueEntry) -> Bool {
        guard let through, entry.sharesSegment(with: through) else { return false }
        return entry.directlyFollows(through) || entry.isAtOrBefore(through)
    }

    private mutating func learn(_ definitions: [DenseReport.Definition]) {
        for definition in definitions where labels[definition.series] == nil {
            let bytes = WriteRequestEncoder.labels(definition.labels)
            labels[definition.series] = (bytes, Self.key(of: bytes))
        }
    }

    /// A series' key, which `SeriesShards` cuts a run by: FNV-1a of its encoded labels, which
    /// stay the same across segments and restarts (a series number does not).
    static func key(of labels: [UInt8]) -> UInt64 { FNV1a.hash(labels) }
}
