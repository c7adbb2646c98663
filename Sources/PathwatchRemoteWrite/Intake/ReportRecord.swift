import PathwatchQueue

/// One report as the queue keeps it: its `WriteRequest.timeseries` entries (uncompressed, so
/// any run of records joins into one request), stamped with the report's time. The id is
/// `<time ms>.<series>`: the series count lets the deliverer fill a request up to
/// `max_samples_per_send` without decoding the bodies.
enum ReportRecord {
    static let kind: UInt8 = 1

    static func make(entries: [UInt8], series: Int, timestamp: Int64) -> QueueRecord {
        QueueRecord(kind: kind, id: "\(timestamp).\(series)", enqueuedAtMilliseconds: timestamp, body: entries)
    }

    /// The series (one sample each) a record holds; nil for a record this release cannot read.
    static func samples(in record: QueueRecord) -> Int? {
        guard record.kind == kind, let dot = record.id.lastIndex(of: ".") else { return nil }
        return Int(record.id[record.id.index(after: dot)...])
    }
}
