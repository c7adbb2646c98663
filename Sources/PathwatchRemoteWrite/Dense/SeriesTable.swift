import PathwatchBase
import PathwatchQueue

/// Remote write's `SegmentSeries`: each series number of a segment as the protobuf bytes of
/// its labels, so requests are built without encoding a label twice. Used on the delivery
/// thread only.
struct SeriesTable {
    private var series = SegmentSeries { labels -> (bytes: [UInt8], key: UInt64) in
        let bytes = WriteRequestEncoder.labels(labels)
        return (bytes, SeriesTable.key(of: bytes))
    }
    /// The bytes of the last report's entries: the next is nearly always as large.
    private var lastBytes = 0

    /// The `timeseries` entries of the dense record `head`, each stamped with the record's time
    /// (`SegmentSeries.forEachSample` says which are left out, and when it is nil),
    /// written one after another into one buffer, where entry `i` ends at `ends[i]`, with each
    /// entry's series key (`key(of:)`).
    mutating func keyedEntries(of head: QueueHead, in queue: DurableQueue, unknown: inout Int) throws(QueueError)
        -> (bytes: [UInt8], ends: [Int], keys: [UInt64])?
    {
        let stamp = head.record.enqueuedAtMilliseconds
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var keys: [UInt64] = []
        let room = lastBytes
        let read = try series.forEachSample(of: head, in: queue, unknown: &unknown) { count in
            // An entry is its labels and some 24 bytes of framing, sample and time: room for
            // as many as the last report's, or a guess, grown once at most.
            bytes.reserveCapacity(max(room, count * 128))
            ends.reserveCapacity(count)
            keys.reserveCapacity(count)
        } sample: { entry, value in
            WriteRequestEncoder.appendEntry(labels: entry.bytes, value: value, timestamp: stamp, to: &bytes)
            ends.append(bytes.count)
            keys.append(entry.key)
        }
        guard read else { return nil }
        lastBytes = bytes.count
        return (bytes, ends, keys)
    }

    /// A series' key, which `SeriesShards` cuts a run by: FNV-1a of its encoded labels, which
    /// stay the same across segments and restarts (a series number does not).
    static func key(of labels: [UInt8]) -> UInt64 { FNV1a.hash(labels) }
}
