import PathwatchQueue

/// The delivery's side of `DenseReport`, for any format: what each series number of one
/// segment stands for, learned from the segment's preamble and its records in order, each
/// definition turned once, by the caller's `make`, into what the format builds its requests
/// from (`Entry`: where remote write's encoded labels lie in `LabelBytes`, OTLP's metric
/// identity). Used on the delivery thread only.
///
/// A new segment's preamble defines again nearly every series of the segment before, with the
/// same labels under the same numbers (the intake numbers a series once per run). What was made
/// of such a definition is kept: the labels' bytes are compared with those kept, and only a
/// series whose definition differs is made again. Making them all again (strings, encoding and
/// hash for every series) cost a sink pushing 1,000 series a second about a tenth of its CPU
/// at the start of every segment.
package struct SegmentSeries<Entry> {
    /// What each sample's look-up reads: nothing counted by reference when `Entry` is not, so
    /// handing a sample its entry retains and releases nothing.
    private struct Known {
        var entry: Entry
        /// The reading it was last defined in: it stands only in the current one.
        var reading: UInt64
    }

    /// The segment's record the table has read through (every record of the segment up to
    /// it, and its preamble); nil before the first.
    private var through: QueueEntry?
    private var known: [UInt64: Known] = [:]
    /// Each known series' definition as the queue keeps it (`DenseBody.definitions`), compared
    /// only when a series is defined again: apart from `known`, which every sample reads.
    private var definitions: [UInt64: [UInt8]] = [:]
    /// Counts the times a segment was read from its start (its preamble).
    private var reading: UInt64 = 0
    /// Counts every change to what a number stands for (an entry made, a segment read from its
    /// start): while it stands, a number names the entry it named before.
    private(set) var changes: UInt64 = 0

    package init() {}

    /// The entries the table holds: those of the current reading, and those of the reading
    /// before that a definition may still keep.
    package var entries: some Sequence<Entry> { known.values.lazy.map(\.entry) }

    /// Changes every entry the table holds in place (a format that moves what its entries
    /// point into).
    package mutating func updateEntries(_ update: (inout Entry) -> Void) {
        for index in known.values.indices { update(&known.values[index].entry) }
    }

    /// The samples of the dense record `head`, each with its series' entry, in the order the
    /// record has them (once every definition the record needs is made, by `make`); a series
    /// whose number the segment never defined (its record was lost before the disk) is left out
    /// and counted in `unknown`. Reads what the segment holds before `head` first when the table
    /// has not seen it. Nil when the record cannot be decoded, or its segment is gone (the bound
    /// dropped it while it was out).
    package mutating func samples(
        of head: QueueHead, in queue: DurableQueue, unknown: inout Int, make: ([TimeSeries.Label]) -> Entry
    ) throws(QueueError) -> [(entry: Entry, value: Double)]? {
        guard let body = try body(of: head, in: queue, make: make) else { return nil }
        var samples: [(entry: Entry, value: Double)] = []
        samples.reserveCapacity(body.samples.count)
        for (series, value) in body.samples {
            guard let entry = entry(of: series) else {
                unknown += 1
                continue
            }
            samples.append((entry, value))
        }
        return samples
    }

    /// The dense record `head`, once every definition it needs is made (`samples(of:)`); nil
    /// when it cannot be decoded, or its segment is gone.
    mutating func body(
        of head: QueueHead, in queue: DurableQueue, make: ([TimeSeries.Label]) -> Entry
    ) throws(QueueError) -> DenseBody? {
        let entry = head.entry
        if !covers(entry) {
            through = nil
            startReading()
            guard let prologue = try queue.prologue(of: entry) else { return nil }
            if let preamble = prologue.preamble, let body = DenseBody(preamble, preamble: true) { learn(body, make) }
            for record in prologue.records where record.kind == DenseReport.kind {
                if let body = DenseBody(record.body) { learn(body, make) }
            }
        }
        guard let body = DenseBody(head.record.body) else { return nil }
        learn(body, make)
        through = entry
        return body
    }

    /// What `series` stands for in the segment being read; nil when the segment never defined it.
    func entry(of series: UInt64) -> Entry? {
        guard let index = known.index(forKey: series), known.values[index].reading == reading else { return nil }
        return known.values[index].entry
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
        definitions = definitions.filter { known[$0.key] != nil }
        reading += 1
        changes += 1
    }

    /// A series keeps its first definition in a reading; one the reading before had with the
    /// same labels keeps what was made of them.
    private mutating func learn(_ body: DenseBody, _ make: ([TimeSeries.Label]) -> Entry) {
        for (series, range) in body.definitions {
            let labels = body.payload[range]
            if let index = known.index(forKey: series) {
                if known.values[index].reading == reading { continue }
                if definitions[series]?.elementsEqual(labels) == true {
                    known.values[index].reading = reading
                    continue
                }
            }
            known[series] = Known(entry: make(body.labels(range)), reading: reading)
            definitions[series] = Array(labels)
            changes += 1
        }
    }
}
