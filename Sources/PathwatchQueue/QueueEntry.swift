/// Where one record sits: what `head` hands out and `complete` takes back, so that completing a
/// record that the bound dropped meanwhile changes nothing.
public struct QueueEntry: Sendable, Equatable {
    var segment: UInt64
    var offset: UInt64
    /// Whole frame, header included.
    var length: Int

    /// Whether this record was appended no later than `other` (positions only grow).
    func isAtOrBefore(_ other: QueueEntry) -> Bool {
        segment < other.segment || (segment == other.segment && offset <= other.offset)
    }
}

/// The oldest record and its place.
public struct QueueHead: Sendable, Equatable {
    public var entry: QueueEntry
    public var record: QueueRecord
    /// How far its owner got into it (`advance`), kept across restarts; 0 for a record not
    /// started, and for every record of a run but the first.
    public var progress: UInt64 = 0
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
    /// Dropped to stay within the bounds, refused as larger than the queue, found corrupted, or
    /// completed as unreadable.
    public var dropped: UInt64
    /// Completed as rejected.
    public var rejected: UInt64
}

/// The queue's counts read at one instant, for an owner that reports them: `change` grows with
/// every change of them, so of two tallies read by two threads the later one is known.
public struct QueueTally: Sendable, Equatable {
    public var count: Int
    public var bytes: UInt64
    public var droppedWhileOut: Int
    public var counters: QueueCounters
    public var change: UInt64
}
