import Glibc
import Synchronization

/// An ordered queue of records on disk, bounded, surviving `kill -9` and restarts, in a folder
/// its owner names. It knows nothing of what the records hold: the webhook sink keeps HTTP
/// bodies in it, and any sink that must keep what it sends across outages can do the same.
///
/// Why segments and a cursor rather than one file per record: an append is one write(2) and one
/// fdatasync for a whole batch of records (a burst of 500 costs one sync, not 1,000 file
/// creations and folder syncs), and consuming advances a 64-byte cursor in place instead of
/// unlinking a file per record. Crash consistency comes from the framing (length + CRC per
/// record, a torn tail is cut on open) and from the cursor's two alternating slots (see
/// QueueCursor). A segment is removed once the cursor has moved past it.
///
/// Guarantees:
///  - `append` returns only after the records are written and fdatasync'd; only then are they
///    accepted. A crash before that loses them; a crash after it loses nothing.
///  - Records come out in the order they were appended; one leaves only through `complete`
///    or as the oldest when the queue is full.
///  - After `complete`, the cursor is written at once (a process crash cannot undo it) and
///    fdatasync'd at least every `cursorSyncInterval` and whenever the queue empties, so a
///    power loss can repeat at most that much recent consumption; a `kill -9` repeats at most
///    the record that was in flight.
///
/// One lock guards it all; every call may block on the disk, so call it from a thread of the
/// owner's, never from Swift's cooperative pool.
public final class DurableQueue: Sendable {
    /// The bounds: past either, the oldest records are dropped (and counted) to make room.
    public struct Limits: Sendable, Equatable {
        public var records: Int
        public var bytes: UInt64

        public init(records: Int, bytes: UInt64) {
            self.records = records
            self.bytes = bytes
        }
    }

    /// What an append did: how many records it accepted, and how many old (or oversized new)
    /// records it had to drop to stay within the limits.
    public struct AppendResult: Sendable, Equatable {
        public var accepted = 0
        public var dropped = 0

        public init(accepted: Int = 0, dropped: Int = 0) {
            self.accepted = accepted
            self.dropped = dropped
        }
    }

    static let cursorSyncInterval: UInt64 = 100_000_000
    /// Once the queue is empty and its segment holds this much consumed data, a fresh segment
    /// is started so the old one is removed: consumed records must not hold disk space that new
    /// ones need (on a small disk, 4 MiB segments were never rolled at all).
    static let reclaimBytes: UInt64 = 64 << 10

    public let limits: Limits
    let segmentLimit: UInt64
    let state: Mutex<QueueState>
    /// Problems found while opening (torn tail cut, corruption skipped), for the owner's log.
    public let recoveryNotes: [String]

    /// Opens (creating if needed) the queue in `folder` and takes its lock; throws an error with
    /// `busy` set when another owner holds the folder.
    public init(folder: String, limits: Limits) throws(QueueError) {
        let files = QueueFiles(folder: folder)
        self.limits = limits
        // Small enough that a consumed segment is freed soon, large enough to batch many records.
        segmentLimit = min(4 << 20, max(64 << 10, limits.bytes / 8))
        try files.createFolder()
        let lockFD = try files.lock()
        var opened: QueueState
        do {
            let recovered = try QueueRecovery(files: files).recover()
            let cursorFD = try files.openFile(files.cursorPath, flags: O_RDWR | O_CREAT)
            // Always append to a fresh segment: never after a tail that recovery had to cut.
            let appendSegment = max(recovered.segments.last ?? 0, recovered.cursor.segment) + 1
            let appendFD = try files.openFile(files.segmentPath(appendSegment), flags: O_WRONLY | O_CREAT | O_TRUNC)
            try files.syncFolder()
            opened = QueueState(
                files: files, entries: recovered.entries, liveBytes: recovered.entries.reduce(0) { $0 + UInt64($1.length) },
                cursor: recovered.cursor, segments: recovered.segments + [appendSegment], appendSegment: appendSegment,
                appendFD: appendFD, cursorFD: cursorFD, lockFD: lockFD)
            recoveryNotes = recovered.notes
        } catch {
            QueueFiles.closeDescriptor(lockFD)
            throw error
        }
        do {
            try opened.moveCursor()
            try opened.syncCursor()
        } catch {
            opened.close()
            throw error
        }
        state = Mutex(opened)
    }

    /// Records queued.
    public var count: Int { state.withLock { $0.count } }
    /// Bytes queued, framing included.
    public var bytes: UInt64 { state.withLock { $0.liveBytes } }
    public var counters: QueueCounters { state.withLock { QueueCounters(dropped: $0.cursor.dropped, rejected: $0.cursor.rejected) } }

    /// Writes and syncs `records` at the end, first dropping the oldest as the limits require.
    public func append(_ records: [QueueRecord]) throws(QueueError) -> AppendResult {
        var frames = records.map(QueueFrame.encode)
        return try state.withLock { s throws(QueueError) -> AppendResult in
            guard !s.closed else { throw QueueError(description: "the queue is closed") }
            var result = AppendResult()
            // A batch larger than the queue keeps only its newest part.
            while frames.count > limits.records || UInt64(frames.reduce(0) { $0 + $1.count }) > limits.bytes {
                frames.removeFirst()
                result.dropped += 1
            }
            guard !frames.isEmpty else {
                s.cursor.dropped += UInt64(result.dropped)
                try s.writeCursor()
                return result
            }
            let incoming = UInt64(frames.reduce(0) { $0 + $1.count })
            while s.count > 0 && (s.count + frames.count > limits.records || s.liveBytes + incoming > limits.bytes) {
                s.dropHead()
                result.dropped += 1
            }
            s.cursor.dropped += UInt64(result.dropped)
            if s.appendSize >= segmentLimit || (s.spaceShort && s.count == 0 && s.appendSize > 0) { try s.roll() }
            try s.write(frames)
            result.accepted = frames.count
            try s.moveCursor()
            return result
        }
    }

    /// The oldest record and its place (to hand back to `complete`), or nil when empty.
    /// A record whose bytes fail their CRC now is dropped, counted, and the next one returned.
    public func head() throws(QueueError) -> QueueHead? {
        try state.withLock { s throws(QueueError) -> QueueHead? in
            while s.count > 0 {
                let entry = s.entries[s.head]
                let fd = try s.readDescriptor(for: entry.segment)
                let bytes = try QueueFiles.read(fd, count: entry.length, at: entry.offset)
                if QueueFrame.frameLength(in: bytes, at: 0) == entry.length,
                    let record = QueueFrame.decode(record: Array(bytes[QueueFrame.headerSize...]))
                {
                    return QueueHead(entry: entry, record: record)
                }
                s.dropHead()
                s.cursor.dropped += 1
                try s.moveCursor()
            }
            return nil
        }
    }

    /// Removes `entry` once it was consumed or given up on. Does nothing when it is no longer
    /// the oldest (it was dropped for space while it was being sent).
    public func complete(_ entry: QueueEntry, as completion: QueueCompletion) throws(QueueError) {
        try state.withLock { s throws(QueueError) in
            guard s.count > 0, s.entries[s.head] == entry else { return }
            s.dropHead()
            switch completion {
            case .delivered: break
            case .rejected: s.cursor.rejected += 1
            case .unreadable: s.cursor.dropped += 1
            }
            try s.moveCursor()
            if s.count == 0 && (s.appendSize >= Self.reclaimBytes || (s.spaceShort && s.appendSize > 0)) {
                // Best effort: a failed roll keeps the current segment, which is still valid.
                if (try? s.roll()) != nil { try s.moveCursor() }
            }
            if s.count == 0 || monotonicNanoseconds() - s.lastCursorSync >= Self.cursorSyncInterval { try s.syncCursor() }
        }
    }

    /// Syncs the cursor and releases the folder.
    public func close() { state.withLock { $0.close() } }

    deinit { close() }
}
