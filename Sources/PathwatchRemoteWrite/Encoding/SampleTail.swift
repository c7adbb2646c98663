/// What follows a series' labels in each `timeseries` entry of one report: `TimeSeries.samples`
/// with its one `Sample`. Every entry of a report has the report's timestamp, so these bytes
/// are made once a report, and each entry copies them in one append and puts its value in,
/// instead of appending a dozen bytes one at a time (the framing and the timestamp's varint,
/// once per series: most of the time spent writing entries).
///
/// The bytes are held in the value itself, not in an array: an array would be retained and
/// released at every entry it is appended to, one pair of atomic operations per sample.
struct SampleTail {
    /// `TimeSeries.samples`' tag and length, `Sample.value`'s tag and 8 bytes (zero here),
    /// `Sample.timestamp`'s tag and varint: 13 to 22 bytes, the first `count` of these 24.
    private var storage: (UInt64, UInt64, UInt64) = (0, 0, 0)
    let count: Int
    /// Where the value's 8 bytes (little-endian) start in the tail.
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
        count = bytes.count
        withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: bytes) }
    }

    /// The tail's bytes, for the length of `body`.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in
            UnsafeRawBufferPointer(rebasing: raw[..<count]).withMemoryRebound(to: UInt8.self, body)
        }
    }
}
