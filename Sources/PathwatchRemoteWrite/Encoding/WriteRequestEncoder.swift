/// Prometheus remote write 1.0's `WriteRequest` in protobuf's wire format, written by hand:
///
///     WriteRequest { repeated TimeSeries timeseries = 1; }
///     TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
///     Label        { string name = 1; string value = 2; }
///     Sample       { double value = 1; int64 timestamp = 2; }
///
/// A repeated field's entries may be written one after another, so a `WriteRequest` is just
/// its `timeseries` entries concatenated: a request is the entries of a run of queue records
/// joined, each series' labels encoded once while they stay the same (`SeriesTable`).
/// Why by hand rather than swift-protobuf is in the module's README.
enum WriteRequestEncoder {
    /// The `timeseries` entries (field 1 of `WriteRequest`) of `series`, each with one sample
    /// at `timestamp` (milliseconds since the epoch).
    static func entries(of series: [TimeSeries], timestamp: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(series.count * 128)
        let tail = SampleTail(timestamp: timestamp)
        for one in series {
            labels(one.labels).withUnsafeBufferPointer {
                appendEntry(labels: $0, value: one.value, tail: tail, to: &out)
            }
        }
        return out
    }

    /// `TimeSeries.labels` (field 1, repeated) of `labels`, encoded: a series' part that stays
    /// the same from one sample to the next.
    static func labels(_ labels: [TimeSeries.Label]) -> [UInt8] {
        var body: [UInt8] = []
        for label in labels {
            let name = label.name.utf8
            let value = label.value.utf8
            body.append(0x0A)  // TimeSeries.labels: field 1, length-delimited
            Varint.append(UInt64(fieldLength(name.count) + fieldLength(value.count)), to: &body)
            body.append(0x0A)  // Label.name
            Varint.append(UInt64(name.count), to: &body)
            body += name
            body.append(0x12)  // Label.value
            Varint.append(UInt64(value.count), to: &body)
            body += value
        }
        return body
    }

    /// One `timeseries` entry, a series' encoded `labels` and one sample (`tail`, the report's
    /// timestamp, with `value` put in), written at the end of `out`: a request's entries go into
    /// one buffer (its room reserved by the caller), none made apart and copied in. The entry is
    /// put together in a temporary buffer and appended whole: one append an entry, not one for
    /// each of its three parts (each append checks the array's room and uniqueness again).
    static func appendEntry(
        labels: UnsafeBufferPointer<UInt8>, value: Double, tail: SampleTail, to out: inout [UInt8]
    ) {
        // WriteRequest.timeseries: field 1, length-delimited; the tag and a varint of 10 bytes at most.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 11 + labels.count + tail.count) { entry in
            entry[0] = 0x0A
            var at = 1 + Varint.write(UInt64(labels.count + tail.count), to: entry, at: 1)
            let labelsAt = at
            at += UnsafeMutableBufferPointer(rebasing: entry[labelsAt...]).initialize(fromContentsOf: labels)
            let tailAt = at
            at += tail.withBytes {
                UnsafeMutableBufferPointer(rebasing: entry[tailAt...]).initialize(fromContentsOf: $0)
            }
            let valueAt = tailAt + SampleTail.valueOffset
            UnsafeMutableRawBufferPointer(entry).storeBytes(
                of: value.bitPattern.littleEndian, toByteOffset: valueAt, as: UInt64.self)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: entry[..<at]))
        }
    }

    /// A length-delimited field's size: tag, length, bytes.
    static func fieldLength(_ count: Int) -> Int { 1 + Varint.length(UInt64(count)) + count }
}
