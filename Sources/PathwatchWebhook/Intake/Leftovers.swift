import PathwatchAgent

/// What a closing sink could not make durable, and what it had already lost: handed to the
/// successor with the same queue folder, or counted as dropped.
struct Leftovers: Sendable {
    /// Formatted, refused by the state disk, oldest first.
    var payloads: [QueuedPayload]
    /// Not yet formatted, oldest first.
    var batches: [SinkBatch]
    /// Lost before reaching the disk, for the successor's `dropped`.
    var lost: Int

    /// Payloads and batches still to be made durable.
    var count: Int { payloads.count + batches.count }
}
