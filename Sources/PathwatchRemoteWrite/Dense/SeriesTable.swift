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

    /// The `timeseries` entries of the dense record `head`, each stamped with the record's time
    /// (`SegmentSeries.forEachSample` says which are left out, and when it is nil),
    /// written one after another into one buffer, where entry `i` ends at `ends[i]`, with each
    /// entry's series key (`key(of:)`).
    mutating func keyedEntries(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> (bytes: [UInt8], ends: [Int], keys: [UInt64])?
    {
        let tail = SampleTail(timestamp: head.record.enqueuedAtMilliseconds)
        var bytes = reusedBuffer()
        var ends: [Int] = []
        var keys: [UInt64] = []
        let room = lastBytes
        // The buffer is taken out of `self` for the read: the closures below append to it and
        // read from it while `series` is being changed, and two accesses to `self` may not
        // overlap. Taken out, not copied, and put back whatever happens.
        var labels = LabelBytes()
        swap(&labels, &self.labels)
        defer { swap(&labels, &self.labels) }
        let read = try series.forEachSample(of: head, in: queue, unknown: &unknown) { made in
            let encoded = WriteRequestEncoder.labels(made)
            return SeriesSpan(labels: labels.append(encoded), key: Self.key(of: encoded))
        } count: { count in
            // An entry is its labels and some 24 bytes of framing, sample and time: room for
            // as many as the last report's, or a guess, grown once at most.
            bytes.reserveCapacity(max(room, count * 128))
            ends.reserveCapacity(count)
            keys.reserveCapacity(count)
        } sample: { entry, value in
            labels.withBytes(entry.labels) {
                WriteRequestEncoder.appendEntry(labels: $0, value: value, tail: tail, to: &bytes)
            }
            ends.append(bytes.count)
            keys.append(entry.key)
        }
        compact(&labels)
        guard read else { return nil }
        lastBytes = bytes.count
        kept = bytes
        return (bytes, ends, keys)
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
