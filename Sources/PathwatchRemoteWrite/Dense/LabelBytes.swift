/// Every series' labels as remote write encodes them (`WriteRequestEncoder.labels`), one after
/// another in one buffer, each series' entry holding only where its bytes lie (`SeriesSpan`).
/// An entry that held its own array was retained and released about three times a sample as a
/// request was built (out of the table, into the append, out of it); a range into one buffer
/// is copied as two integers. Used on the delivery thread only.
struct LabelBytes {
    private(set) var bytes: [UInt8] = []
    /// The buffer's size when the dead share was last checked: checked again once it doubles,
    /// so the check costs a pass over the entries only every so often.
    private var checkedAt = 0

    /// `labels` added at the end; where they lie.
    mutating func append<Bytes: Collection<UInt8>>(_ labels: Bytes) -> Range<Int> {
        let start = bytes.count
        bytes += labels
        return start..<bytes.count
    }

    /// The bytes at `range` (one `append` returned), handed to `body` without a copy.
    func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Whether the buffer has doubled since `compact` last looked at it: only then is it worth
    /// a pass over the entries to count the bytes they still point at.
    var dueForCheck: Bool { bytes.count > 0 && bytes.count >= 2 * checkedAt }

    /// A series that leaves (or is defined anew) leaves its bytes behind. When more than half
    /// of the buffer is dead (`live` the bytes the entries still point at), it is made again
    /// with the live bytes alone, and `rewrite` hands each entry's range to be moved there.
    /// Checked each time the buffer doubles, the buffer stays within about four times the
    /// labels in use, whatever series come and go.
    mutating func compact(live: Int, rewrite: ((inout Range<Int>) -> Void) -> Void) {
        if bytes.count - live > bytes.count / 2 {
            var fresh = LabelBytes()
            fresh.bytes.reserveCapacity(live)
            rewrite { range in range = fresh.append(bytes[range]) }
            self.bytes = fresh.bytes
        }
        checkedAt = bytes.count
    }
}

/// Remote write's entry for one series of a segment: where its encoded labels lie in
/// `LabelBytes`, and its key (`SeriesTable.key(of:)`). Integers only, nothing counted by
/// reference.
struct SeriesSpan {
    var labels: Range<Int>
    let key: UInt64
}
