import PathwatchQueue

/// The delivery's side of `DenseReport`, for any format: what each series number of one
/// segment stands for, learned from the segment's preamble and its records in order, each
/// definition turned once into what the format builds its requests from (`Entry`: remote
/// write's encoded labels, OTLP's metric identity). Used on the delivery thread only.
package struct SegmentSeries<Entry> {
    private let make: ([TimeSeries.Label]) -> Entry
    /// The segment's record the table has read through (every record of the segment up to
    /// it, and its preamble); nil before the first.
    private var through: QueueEntry?
    private var known: [UInt64: Entry] = [:]

    package init(_ make: @escaping ([TimeSeries.Label]) -> Entry) { self.make = make }

    /// The samples of the dense record `head`, each with its series' entry, in the order the
    /// record has them; a series whose number the segment never defined (its record was lost
    /// before the disk) is left out and counted in `unknown`. Reads what the segment holds
    /// before `head` first when the table has not seen it. Nil when the record cannot be
    /// decoded, or its segment is gone (the bound dropped it while it was out).
    package mutating func samples(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> [(entry: Entry, value: Double)]?
    {
        let entry = head.entry
        if !covers(entry) {
            known = [:]
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
        var samples: [(entry: Entry, value: Double)] = []
        samples.reserveCapacity(contents.samples.count)
        for sample in contents.samples {
            guard let series = known[sample.series] else {
                unknown += 1
                continue
            }
            samples.append((series, sample.value))
        }
        return samples
    }

    /// Whether every record of `entry`'s segment before it has been read.
    private func covers(_ entry: QueueEntry) -> Bool {
        guard let through, entry.sharesSegment(with: through) else { return false }
        return entry.directlyFollows(through) || entry.isAtOrBefore(through)
    }

    private mutating func learn(_ definitions: [DenseReport.Definition]) {
        for definition in definitions where known[definition.series] == nil {
            known[definition.series] = make(definition.labels)
        }
    }
}
