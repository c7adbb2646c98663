import PathwatchBase
import PathwatchQueue

/// Remote write's `SegmentSeries`: each series number of a segment as the protobuf bytes of
/// its labels, so requests are built without encoding a label twice. The bytes lie in one
/// buffer (`LabelBytes`), the entries only say where. Used on the delivery thread only.
struct SeriesTable {
    private var series = SegmentSeries<SeriesSpan>()
    private var labels = LabelBytes()
    /// The bytes of the last report's entries: the next is nearly always as large.
    private var lastBytes = 0
    /// The last report's entries, their buffer kept for the next report's: a request for 1,000
    /// series is some 150 KB, past the heap's mmap threshold (`HeapSettings`), so a buffer made
    /// afresh was mapped and faulted in page by page at every report. Written again only once
    /// the request that carried it is gone (while it is still held, the buffer is copied on
    /// write, as a fresh one would be made).
    private var kept: [UInt8] = []
    /// How the entries in `kept` lie: the series number of each, where each ends, their keys,
    /// the length of their sample tail, and the table's `changes` they were written at.
    private var layout: Layout?
    /// Reports whose entries were `restamped`: the tests see which way each was written.
    private(set) var restampedReports = 0

    private struct Layout {
        var numbers: [UInt64]
        var ends: [Int]
        var keys: [UInt64]
        var tailCount: Int
        var changes: UInt64
    }

    /// The `timeseries` entries of the dense record `head`, each stamped with the record's time
    /// (`SegmentSeries.samples(of:)` says which are left out, and when it is nil),
    /// written one after another into one buffer, where entry `i` ends at `ends[i]`, with each
    /// entry's series key (`key(of:)`).
    mutating func keyedEntries(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> (bytes: [UInt8], ends: [Int], keys: [UInt64])?
    {
        // The buffer is taken out of `self` for the read: the closures below append to it and
        // read from it while `series` is being changed, and two accesses to `self` may not
        // overlap. Taken out, not copied, and put back whatever happens.
        var labels = LabelBytes()
        swap(&labels, &self.labels)
        defer { swap(&labels, &self.labels) }
        let body = try series.body(of: head, in: queue) { made in
            let encoded = WriteRequestEncoder.labels(made)
            return SeriesSpan(labels: labels.append(encoded), key: Self.key(of: encoded))
        }
        compact(&labels)
        guard let body else { return nil }
        let tail = SampleTail(timestamp: head.record.enqueuedAtMilliseconds)
        if let restamped = restamped(body, tail: tail) { return restamped }
        var bytes = reusedBuffer()
        var ends: [Int] = []
        var keys: [UInt64] = []
        // An entry is its labels and some 24 bytes of framing, sample and time: room for as
        // many as the last report's, or a guess, grown once at most.
        bytes.reserveCapacity(max(lastBytes, body.samples.count * 128))
        ends.reserveCapacity(body.samples.count)
        keys.reserveCapacity(body.samples.count)
        for (number, value) in body.samples {
            guard let entry = series.entry(of: number) else {
                unknown += 1
                continue
            }
            labels.withBytes(entry.labels) {
                WriteRequestEncoder.appendEntry(labels: $0, value: value, tail: tail, to: &bytes)
            }
            ends.append(bytes.count)
            keys.append(entry.key)
        }
        lastBytes = bytes.count
        kept = bytes
        // Only a report whose every series was known can be the next one's layout: its entries
        // are then one for each number, in order.
        layout =
            ends.count == body.samples.count
            ? Layout(
                numbers: body.samples.map(\.series), ends: ends, keys: keys, tailCount: tail.count,
                changes: series.changes)
            : nil
        return (bytes, ends, keys)
    }

    /// The last report's entries with this report's values and time written over theirs, when
    /// the report names the same series in the same order, the table has changed none of them
    /// since, and the time's varint is as long: nearly every report. Each entry's framing and
    /// labels are then the bytes `kept` holds already; only its sample is written. Writing every
    /// entry afresh (a look-up of its series, its labels copied, an append) was most of what a
    /// request's entries cost.
    private mutating func restamped(_ body: DenseBody, tail: SampleTail) -> (
        bytes: [UInt8], ends: [Int], keys: [UInt64]
    )? {
        guard let layout, layout.changes == series.changes, layout.tailCount == tail.count,
            layout.numbers.count == body.samples.count, kept.count == layout.ends.last ?? 0,
            zip(layout.numbers, body.samples).allSatisfy({ $0 == $1.series })
        else { return nil }
        // Taken out of `kept`: written in place when no request holds it still, else copied
        // first (a request is never written over).
        var bytes: [UInt8] = []
        swap(&bytes, &kept)
        bytes.withUnsafeMutableBytes { out in
            tail.withBytes { tailBytes in
                for (end, sample) in zip(layout.ends, body.samples) {
                    let start = end - tailBytes.count
                    UnsafeMutableRawBufferPointer(rebasing: out[start..<end]).copyMemory(
                        from: UnsafeRawBufferPointer(tailBytes))
                    out.storeBytes(
                        of: sample.value.bitPattern.littleEndian, toByteOffset: start + SampleTail.valueOffset,
                        as: UInt64.self)
                }
            }
        }
        kept = bytes
        restampedReports += 1
        return (bytes, layout.ends, layout.keys)
    }

    /// Lets go of the labels of series the table no longer holds, every so often
    /// (`LabelBytes.compact`).
    private mutating func compact(_ labels: inout LabelBytes) {
        guard labels.dueForCheck else { return }
        let live = series.entries.reduce(0) { $0 + $1.labels.count }
        labels.compact(live: live) { move in series.updateEntries { move(&$0.labels) } }
    }

    /// The kept buffer emptied, its room kept; a fresh one when a large report grew it far
    /// beyond what the last report took, so one burst does not hold its memory for good.
    private mutating func reusedBuffer() -> [UInt8] {
        var bytes: [UInt8] = []
        // Taken out, not copied: the buffer's only owner once the last request is gone.
        swap(&bytes, &kept)
        guard bytes.capacity <= KeptRoom.atMost(lastBytes) else { return [] }
        bytes.removeAll(keepingCapacity: true)
        return bytes
    }

    /// The room the series' encoded labels take (the tests hold it to a bound).
    var labelRoom: Int { labels.bytes.capacity }

    /// A series' key, which `SeriesShards` cuts a run by: FNV-1a of its encoded labels, which
    /// stay the same across segments and restarts (a series number does not).
    static func key(of labels: [UInt8]) -> UInt64 { FNV1a.hash(labels) }
}
