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
package final class DurableQueue: Sendable {
    /// The bounds: past either, the oldest records are dropped (and counted) to make room.
    package struct Limits: Sendable, Equatable {
        package var records: Int
        package var bytes: UInt64

        package init(records: Int, bytes: UInt64) {
            self.records = records
            self.bytes = bytes
        }
    }

    /// What an append did: how many records it accepted, and how many old (or oversized new)
    /// records it had to drop to stay within the limits, with the two kinds an owner tells apart
    /// in its log.
    package struct AppendResult: Sendable, Equatable {
        package var accepted = 0
        package var dropped = 0
        /// Of `dropped`, records of this batch that were never queued: larger than the queue's
        /// bytes (or than any record may be), or the oldest of a batch larger than the queue.
        package var refused = 0
        /// Of `dropped`, old records that were out with the owner (`head`, `heads`): counted only
        /// when that run ends, and not at all if it is completed as delivered.
        package var droppedWhileOut = 0
        /// The records went into a fresh segment, after the preamble `append` was given.
        package var startedSegment = false

        package init(accepted: Int = 0, dropped: Int = 0, refused: Int = 0, droppedWhileOut: Int = 0) {
            self.accepted = accepted
            self.dropped = dropped
            self.refused = refused
            self.droppedWhileOut = droppedWhileOut
        }

        /// Old records the bound dropped that were not out with the owner.
        package var droppedOldest: Int { dropped - refused - droppedWhileOut }
    }

    static let cursorSyncInterval: UInt64 = 100_000_000
    /// Once the queue is empty and its segment holds this much consumed data, a fresh segment
    /// is started so the old one is removed: consumed records must not hold disk space that new
    /// ones need (on a small disk, 4 MiB segments were never rolled at all).
    static let reclaimBytes: UInt64 = 64 << 10

    package let limits: Limits
    let segmentLimit: UInt64
    let state: Mutex<QueueState>
    /// Problems found while opening (torn tail cut, corruption skipped), for the owner's log.
    package let recoveryNotes: [String]

    /// Opens (creating if needed) the queue in `folder` and takes its lock; throws an error with
    /// `busy` set when another owner holds the folder.
    package init(folder: String, limits: Limits) throws(QueueError) {
        let files = QueueFiles(folder: folder)
        self.limits = limits
        // Small enough that a consumed segment is freed soon, and that the bound, which frees
        // room a whole segment at a time, keeps most of `bytes` queued; large enough to batch
        // many records.
        segmentLimit = min(4 << 20, max(QueueState.blockSize, limits.bytes / 8))
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
                files: files, entries: recovered.entries,
                liveBytes: recovered.entries.reduce(0) { $0 + UInt64($1.length) },
                cursor: recovered.cursor, segments: recovered.segments + [appendSegment], appendSegment: appendSegment,
                appendFD: appendFD, cursorFD: cursorFD, lockFD: lockFD)
            for segment in recovered.segments {
                opened.sealedBytes[segment] = QueueFiles.size(atPath: files.segmentPath(segment))
            }
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
    package var count: Int { state.withLock { $0.count } }
    /// Bytes queued, framing included.
    package var bytes: UInt64 { state.withLock { $0.liveBytes } }
    package var counters: QueueCounters {
        state.withLock { QueueCounters(dropped: $0.cursor.dropped, rejected: $0.cursor.rejected) }
    }

    /// Writes and syncs `records` at the end, first dropping the oldest as the limits require.
    ///
    /// `preamble` gives the bytes a segment starts with, for an owner whose records are read
    /// against something said once per segment (remote_write's series labels): it is asked
    /// when this append is the first into a segment, and what it gives (unless empty) is
    /// written ahead of the records in the same write and sync. Records of a segment are only
    /// ever dropped with their segment's start still on disk, so the preamble and every record
    /// before one (`prologue(of:)`) are there as long as it is.
    package func append(_ records: [QueueRecord], preamble: () -> [UInt8] = { [] }) throws(QueueError)
        -> AppendResult
    {
        var frames = records.map(QueueFrame.encode)
        return try state.withLock { s throws(QueueError) -> AppendResult in
            guard !s.closed else { throw QueueError(description: "the queue is closed") }
            var result = AppendResult()
            // A record larger than a frame may be could be written but never read back.
            frames.removeAll { frame in
                guard frame.count > QueueFrame.headerSize + QueueFrame.maxRecordSize else { return false }
                result.refused += 1
                return true
            }
            result.dropped = result.refused
            s.cursor.dropped += UInt64(result.refused)
            // Asked once, and only when a segment starts: its bytes count against the bound too.
            var opening: [UInt8]?
            func preambleFrame() -> [UInt8] {
                if let opening { return opening }
                let body = preamble()
                let frame = body.isEmpty ? [] : QueueFrame.encodePreamble(body)
                opening = frame
                return frame
            }
            var roll = s.appendSize >= segmentLimit
            func opens() -> UInt64 { roll || s.appendSize == 0 ? UInt64(preambleFrame().count) : 0 }
            // A batch larger than the queue (alone in a fresh segment) keeps only its newest part.
            func keepWhatFitsAlone() {
                var refused = 0
                while !frames.isEmpty,
                    frames.count > limits.records
                        || QueueState.cursorFootprint
                            + QueueState.segmentAllocated(UInt64(frames.reduce(0) { $0 + $1.count }) + opens())
                            > limits.bytes
                {
                    frames.removeFirst()
                    refused += 1
                }
                result.refused += refused
                result.dropped += refused
                s.cursor.dropped += UInt64(refused)
            }
            keepWhatFitsAlone()
            guard !frames.isEmpty else {
                if result.refused > 0 { try s.writeCursor() }
                return result
            }
            let incoming = UInt64(frames.reduce(0) { $0 + $1.count })
            // The bound is on the folder's size (QueueFootprint): dropped records free their room
            // only with the last record of their segment, so whole segments go.
            while s.count > 0
                && (s.count + frames.count > limits.records || s.liveBytes + incoming > limits.bytes
                    || s.footprint(adding: incoming + opens(), inNewSegment: roll) > limits.bytes)
            {
                if s.dropHeadForRoom() { result.droppedWhileOut += 1 }
                result.dropped += 1
            }
            // Empty, but the append segment's consumed records leave no room: a fresh segment,
            // and that one is removed. The segment starts with its preamble, which the first
            // fitting did not count: the batch is fitted again with it.
            if s.count == 0 && s.appendSize > 0
                && (s.spaceShort || s.footprint(adding: incoming, inNewSegment: roll) > limits.bytes)
            {
                roll = true
                keepWhatFitsAlone()
            }
            if roll { try s.roll() }
            // What was dropped leaves the disk before the batch is written, not after: the
            // folder is within the bound at every instant, not only between appends.
            if result.dropped > result.refused || roll { try s.moveCursor() }
            guard !frames.isEmpty else { return result }
            let first = s.appendSize == 0 ? preambleFrame() : []
            try s.write(frames, after: first)
            result.accepted = frames.count
            result.startedSegment = !first.isEmpty
            try s.moveCursor()
            return result
        }
    }

    /// The oldest record and its place (to hand back to `complete`), or nil when empty.
    /// A record whose bytes fail their CRC now is dropped, counted, and the next one returned.
    package func head() throws(QueueError) -> QueueHead? {
        try heads(upTo: 1).first
    }

    /// Removes `entry` once it was consumed or given up on. Does nothing when it is no longer
    /// the oldest (it was dropped for space while it was being sent) but count it as
    /// `completion` says: delivered, it is not counted as dropped.
    package func complete(_ entry: QueueEntry, as completion: QueueCompletion) throws(QueueError) {
        try complete(run: [entry], as: completion)
    }

    /// Notes that the owner consumed the oldest record up to `progress` (its own measure: the
    /// parts of it already sent), so that a restart resumes there instead of sending those parts
    /// again. Written like a completion; `heads` hands it back with the record. When `entry` is
    /// no longer the oldest (the bound dropped it while it was out), the record counts as dropped.
    package func advance(_ entry: QueueEntry, to progress: UInt64) throws(QueueError) {
        try state.withLock { s throws(QueueError) in
            guard s.count > 0, s.entries[s.head] == entry else {
                if s.settleRunOut(as: .unreadable) { try s.writeCursor() }
                return
            }
            // Nothing of the run was dropped: the record the bound would drop first is still here.
            _ = s.settleRunOut(as: .delivered)
            s.cursor.progress = progress
            try s.writeCursor()
            try s.syncCursorIfDue()
        }
    }

    /// Records the bound dropped while they were out with the owner, not yet counted: they
    /// count as dropped unless their run is completed as delivered.
    package var droppedWhileOut: Int { state.withLock { $0.droppedWhileOut } }

    /// Every count at once. Each change of them writes the cursor, whose generation tells the order.
    package var tally: QueueTally {
        state.withLock { s in
            QueueTally(
                count: s.count, bytes: s.liveBytes, droppedWhileOut: s.droppedWhileOut,
                counters: QueueCounters(dropped: s.cursor.dropped, rejected: s.cursor.rejected),
                change: s.cursor.generation)
        }
    }

    /// Syncs the cursor and releases the folder.
    package func close() { state.withLock { $0.close() } }

    deinit { close() }
}
