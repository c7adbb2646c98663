/// What comes before a record in its segment, for an owner whose records are read against what
/// its segment said earlier (`append(_:preamble:)`): remote_write defines a series' labels once
/// per segment, and a record names it by a number after that.
extension DurableQueue {
    /// The preamble of `entry`'s segment and every intact record written before `entry` in
    /// it, consumed and dropped ones included (they leave the disk only with their segment).
    /// Nil when the segment is gone: the bound dropped it, and `entry` with it, while the
    /// record was out with the owner.
    package func prologue(of entry: QueueEntry) throws(QueueError) -> SegmentPrologue? {
        try state.withLock { s throws(QueueError) -> SegmentPrologue? in
            guard s.segments.contains(entry.segment) else { return nil }
            let fd = try s.readDescriptor(for: entry.segment)
            let bytes = try QueueFiles.read(fd, count: Int(entry.offset), at: 0)
            var prologue = SegmentPrologue()
            var offset = 0
            // A damaged frame ends what can be framed; recovery skipped the rest of the segment
            // after one, so no record read later lies beyond it.
            while offset < bytes.count, let length = QueueFrame.frameLength(in: bytes, at: offset) {
                let record = Array(bytes[(offset + QueueFrame.headerSize)..<(offset + length)])
                if QueueFrame.isPreamble(in: bytes, at: offset) {
                    prologue.preamble = QueueFrame.decode(record: record, version: QueueFrame.preambleVersion)?.body
                } else if let decoded = QueueFrame.decode(record: record) {
                    prologue.records.append(decoded)
                }
                offset += length
            }
            return prologue
        }
    }
}

/// A segment's preamble and the records before some record of it.
package struct SegmentPrologue: Sendable, Equatable {
    package var preamble: [UInt8]?
    package var records: [QueueRecord] = []

    package init(preamble: [UInt8]? = nil, records: [QueueRecord] = []) {
        self.preamble = preamble
        self.records = records
    }
}
