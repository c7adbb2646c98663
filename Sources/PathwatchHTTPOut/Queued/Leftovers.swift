import PathwatchQueue

/// What a closing sink's writer could not make durable, and what it had already lost: handed to
/// the successor, or counted as dropped. (Batches not yet encoded are its runner's, which
/// hands them to the successor's runner.)
package struct Leftovers: Sendable {
    /// Encoded, refused by the state disk, oldest first.
    var records: [QueueRecord]
    /// Lost before reaching the disk, for the successor's `dropped`.
    var lost: Int
}
