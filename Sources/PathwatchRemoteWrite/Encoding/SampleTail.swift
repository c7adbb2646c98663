/// What follows a series' labels in each `timeseries` entry of one report: `TimeSeries.samples`
/// with its one `Sample`. Every entry of a report has the report's timestamp, so these bytes
/// are made once a report, and each entry copies them in one append and puts its value in,
/// instead of appending a dozen bytes one at a time (the framing and the timestamp's varint,
/// once per series: most of the time spent writing entries).
struct SampleTail {
    /// `TimeSeries.samples`' tag and length, `Sample.value`'s tag and 8 bytes (zero here),
    /// `Sample.timestamp`'s tag and varint: 13 to 22 bytes.
    let bytes: [UInt8]
    /// Where the value's 8 bytes (little-endian) start in `bytes`.
    static let valueOffset = 3

    init(timestamp: Int64) {
        let stamp = UInt64(bitPattern: timestamp)
        let sampleLength = 1 + 8 + 1 + Varint.length(stamp)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + sampleLength)
        bytes.append(0x12)  // TimeSeries.samples: field 2, length-delimited
        bytes.append(UInt8(sampleLength))  // at most 20: a varint of one byte
        bytes.append(0x09)  // Sample.value: field 1, 64-bit
        bytes += repeatElement(0, count: 8)
        bytes.append(0x10)  // Sample.timestamp: field 2, varint (two's complement)
        Varint.append(stamp, to: &bytes)
        self.bytes = bytes
    }

    var count: Int { bytes.count }
}
