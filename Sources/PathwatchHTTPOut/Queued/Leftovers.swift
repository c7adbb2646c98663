import PathwatchAgent
import PathwatchQueue

/// What a closing sink could not make durable, and what it had already lost: handed to the
/// successor with the same queue folder, or counted as dropped.
package struct Leftovers: Sendable {
    /// Encoded, refused by the state disk, oldest first.
    var records: [QueueRecord]
    /// Not yet encoded, oldest first.
    var batches: [SinkBatch]
    /// Lost before reaching the disk, for the successor's `dropped`.
    var lost: Int

    /// Records and batches still to be made durable.
    var count: Int { records.count + batches.count }
}
