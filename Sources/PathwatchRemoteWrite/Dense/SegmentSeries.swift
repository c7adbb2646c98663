import PathwatchQueue

/// The delivery's side of `DenseReport`, for any format: what each series number of one
/// segment stands for, learned from the segment's preamble and its records in order, each
/// definition turned once into what the format builds its requests from (`Entry`: remote
/// write's encoded labels, OTLP's metric identity). Used on the delivery thread only.
///
/// A new segment's preamble defines again nearly every series of the segment before, with the
/// same labels under the same numbers (the intake numbers a series once per run). What was made
/// of such a definition is kept: the labels' bytes are compared with those kept, and only a
/// series whose definition differs is made again. Making them all again (strings, encoding and
/// hash for every series) cost a sink pushing 1,000 series a second about a tenth of its CPU
/// at the start of every segment.
package struct SegmentSeries<Entry> {
    private struct Known {
        /// The definition's labels as the queue keeps them (`DenseBody.definitions`).
        var labels: [UInt8]
        var entry: Entry
        /// The reading it was last defined in: it stands only in the current one.
        var reading: UInt64
    }

    private let make: ([TimeSeries.Label]) -> Entry
    /// The segment's record the table has read through (every record of the segment up to
    /// it, and its preamble); nil before the first.
    private var through: QueueEntry?
    private var known: [UInt64: Known] = [:]
    /// Counts the times a segment was read from its start (its preamble).
    private var reading: UInt64 = 0

    package init(_ make: @escaping ([TimeSeries.Label]) -> Entry) { self.make = make }

    /// The samples of the dense record `head`, each with its series' entry, in the order the
    /// record has them (`forEachSample`).
    package mutating func samples(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> [(entry: Entry, value: Double)]?
    {
        var samples: [(entry: Entry, value: Double)] = []
        let read = try forEachSample(of: head, in: queue, unknown: &unknown) { count in
            samples.reserveCapacity(count)
        } sample: { entry, value in
            samples.append((entry, value))
        }
        return read ? samples : nil
    }

    /// Hands each sample of the dense record `head` with its series' entry to `sample`, in the
    /// order the record has them, after `count` with how many the record has; a series whose
    /// number the segment never defined (its record was lost before the disk) is left out and
    /// counted in `unknown`. Reads what the segment holds before `head` first when the table has
    /// not seen it. False when the record cannot be decoded, or its segment is gone (the bound
    /// dropped it while it was out).
    package mutating func forEachSample(
        of head: QueueHead, in queue: DurableQueue, unknown: inout Int, count: (Int) -> Void,
        sample: (Entry, Double) -> Void
    ) throws(QueueError) -> Bool {
        let entry = head.entry
        if !covers(entry) {
            through = nil
            startReading()
            guard let prologue = try queue.prologue(of: entry) else { return false }
            if let preamble = prologue.preamble, let body = DenseBody(preamble, preamble: true) { learn(body) }
            for record in prologue.records where record.kind == DenseReport.kind {
                if let body = DenseBody(record.body) { learn(body) }
            }
        }
        guard let body = DenseBody(head.record.body) else { return false }
        learn(body)
        through = entry
        count(body.samples.count)
        for (series, value) in body.samples {
            guard let index = known.index(forKey: series), known.values[index].reading == reading else {
                unknown += 1
                continue
            }
            sample(known.values[index].entry, value)
        }
        return true
    }

    /// Whether every record of `entry`'s segment before it has been read.
    private func covers(_ entry: QueueEntry) -> Bool {
        guard let through, entry.sharesSegment(with: through) else { return false }
        return entry.directlyFollows(through) || entry.isAtOrBefore(through)
    }

    /// A segment is read from its start: what the reading before defined is kept for the
    /// definitions that repeat it, the rest goes.
    private mutating func startReading() {
        known = known.filter { $0.value.reading == reading }
        reading += 1
    }

    /// A series keeps its first definition in a reading; one the reading before had with the
    /// same labels keeps what was made of them.
    private mutating func learn(_ body: DenseBody) {
        for (series, range) in body.definitions {
            let labels = body.payload[range]
            if let index = known.index(forKey: series) {
                if known.values[index].reading == reading { continue }
                if known.values[index].labels.elementsEqual(labels) {
                    known.values[index].reading = reading
                    continue
                }
            }
            known[series] = Known(labels: Array(labels), entry: make(body.labels(range)), reading: reading)
        }
    }
}
