/// Where one record sits: what `head` hands out and `complete` takes back, so that completing a
/// record that the bound dropped meanwhile changes nothing.
package struct QueueEntry: Sendable, Equatable {
    var segment: UInt64
    var offset: UInt64
    /// Whole frame, header included.
    var length: Int

    /// Whether this record and `other` lie in one segment, and none of that segment's records
    /// between them (an owner that reads a segment's records in order knows it missed none).
    package func directlyFollows(_ other: QueueEntry) -> Bool {
        segment == other.segment && offset == other.offset + UInt64(other.length)
    }

    /// Whether both lie in one segment.
    package func sharesSegment(with other: QueueEntry) -> Bool { segment == other.segment }

    /// Whether this record was appended no later than `other` (positions only grow).
    package func isAtOrBefore(_ other: QueueEntry) -> Bool {
        segment < other.segment || (segment == other.segment && offset <= other.offset)
    }
}

/// The oldest record and its place.
package struct QueueHead: Sendable, Equatable {
    package var entry: QueueEntry
    package var record: QueueRecord
    /// How far its owner got into it (`advance`), kept across restarts; 0 for a record not
    /// started, and for every record of a run but the first.
    package var progress: UInt64 = 0
}

/// How a record left the queue, for the counts kept in the cursor.
package enum QueueCompletion: Sendable, Equatable {
    /// Consumed: delivered, accepted by the receiver.
    case delivered
    /// Given up on because the receiver refused it for good: counted as rejected.
    case rejected
    /// Given up on because its owner cannot read it (a kind it does not know): counted as dropped.
    case unreadable
}

/// Lifetime counts of records given up on, kept in the cursor across restarts.
package struct QueueCounters: Sendable, Equatable {
    /// Dropped to stay within the bounds, refused as larger than the queue, found corrupted, or
    /// completed as unreadable.
    package var dropped: UInt64
    /// Completed as rejected.
    package var rejected: UInt64
}

/// The queue's counts read at one instant, for an owner that reports them: `change` grows with
/// every change of them, so of two tallies read by two threads the later one is known.
package struct QueueTally: Sendable, Equatable {
    package var count: Int
    package var bytes: UInt64
    package var droppedWhileOut: Int
    package var counters: QueueCounters
    package var change: UInt64
}
