/// Where one record sits: what `head` hands out and `complete` takes back, so that completing a
/// record that the bound dropped meanwhile changes nothing.
public struct QueueEntry: Sendable, Equatable {
    var segment: UInt64
    var offset: UInt64
    /// Whole frame, header included.
    var length: Int
}

/// The oldest record and its place.
public struct QueueHead: Sendable, Equatable {
    public var entry: QueueEntry
    public var record: QueueRecord
}

/// How a record left the queue, for the counts kept in the cursor.
public enum QueueCompletion: Sendable, Equatable {
    /// Consumed: delivered, accepted by the receiver.
    case delivered
    /// Given up on because the receiver refused it for good: counted as rejected.
    case rejected
    /// Given up on because its owner cannot read it (a kind it does not know): counted as dropped.
    case unreadable
}

/// Lifetime counts of records given up on, kept in the cursor across restarts.
public struct QueueCounters: Sendable, Equatable {
    /// Dropped to stay within the bounds, found corrupted, or completed as unreadable.
    public var dropped: UInt64
    /// Completed as rejected.
    public var rejected: UInt64
}
