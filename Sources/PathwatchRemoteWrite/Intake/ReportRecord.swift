import PathwatchQueue

/// One report as the queue keeps it: its series as `DenseReport` numbers and values (kind 2),
/// stamped with the report's time. The id is `<time ms>.<series>`: the series count lets the
/// deliverer fill a request up to `max_samples_per_send` without decoding the bodies.
///
/// Releases before 0.2.0 queued kind 1, the report's `WriteRequest.timeseries` entries
/// themselves (every label of every sample); a queue left by one is still read and sent
/// (`ReportEntries.joined`), so an upgrade loses nothing queued.
package enum ReportRecord {
    static let joinedKind: UInt8 = 1

    static func make(_ contents: DenseReport.Contents, timestamp: Int64) -> QueueRecord {
        QueueRecord(
            kind: DenseReport.kind, id: "\(timestamp).\(contents.samples.count)", enqueuedAtMilliseconds: timestamp,
            body: DenseReport.body(contents))
    }

    /// The series (one sample each) a record holds; nil for a record this release cannot read.
    package static func samples(in record: QueueRecord) -> Int? {
        guard record.kind == DenseReport.kind || record.kind == joinedKind, let dot = record.id.lastIndex(of: ".")
        else { return nil }
        return Int(record.id[record.id.index(after: dot)...])
    }
}

/// A queued report's `timeseries` entries, as a request carries them.
enum ReportEntries {
    /// Kind 1: the entries as one run of bytes, `count` of them.
    case joined([UInt8], count: Int)
    /// Kind 2: the entries built from the segment's series table, one after another in `bytes`
    /// (entry `i` ends at `ends[i]`), each with its series' key (`SeriesTable.key(of:)`): only
    /// such reports are cut into parallel requests.
    case separate([UInt8], ends: [Int], keys: [UInt64])

    var count: Int {
        switch self {
        case .joined(_, let count): count
        case .separate(_, let ends, _): ends.count
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .joined(let bytes, _): bytes
        case .separate(let bytes, _, _): bytes
        }
    }

    /// Entries `range` (counted from 0) as one run of bytes; nil when there are fewer.
    func slice(_ range: Range<Int>) -> [UInt8]? {
        switch self {
        case .joined(let bytes, _): SeriesEntries.slice(bytes, entries: range).map(Array.init)
        case .separate(let bytes, let ends, _):
            range.upperBound <= ends.count
                ? Array(bytes[Self.start(of: range.lowerBound, ends)..<Self.end(of: range, ends)]) : nil
        }
    }

    /// Where entry `index` starts, of entries ending at `ends`.
    static func start(of index: Int, _ ends: [Int]) -> Int { index == 0 ? 0 : ends[index - 1] }

    private static func end(of range: Range<Int>, _ ends: [Int]) -> Int {
        range.isEmpty ? start(of: range.lowerBound, ends) : ends[range.upperBound - 1]
    }
}
