import PathwatchAgent
import Synchronization

/// A webhook sink's queue on disk: payloads in order, bounded, surviving `kill -9` and restarts.
///
/// Why segments and a cursor rather than one file per payload: an append is one write(2) and
/// one fdatasync for a whole batch of payloads (a burst of 500 changes costs one sync, not 1,000
/// file creations and folder syncs), and delivery advances a 64-byte cursor in place instead of
/// unlinking a file per payload. Crash consistency comes from the framing (length + CRC per
/// record, a torn tail is cut on open) and from the cursor's two alternating slots (see
/// QueueCursor). A segment is removed once the cursor has moved past it.
///
/// Guarantees:
///  - `append` returns only after the payloads are written and fdatasync'd; only then are they
///    accepted. A crash before that loses them; a crash after it loses nothing.
///  - Payloads come out in the order they were appended; one leaves only through `complete`
///    (delivered with a 2xx, or refused for good) or as the oldest when the queue is full.
///  - After `complete`, the cursor is written at once (a process crash cannot undo it) and
///    fdatasync'd at least every `cursorSyncInterval` and whenever the queue empties, so a
///    power loss can repeat at most that much recent delivery; a `kill -9` repeats at most the
///    payload that was in flight.
final class DurableQueue: Sendable {
    typealias Entry = QueueRecovery.Entry

    struct Limits: Sendable {
        var events: Int
        var bytes: UInt64
    }

    /// What an append did: how many payloads it accepted, and how many old (or oversized new)
    /// payloads it had to drop to stay within the limits.
    struct AppendResult: Equatable {
        var accepted = 0
        var dropped = 0
    }

    static let cursorSyncInterval: UInt64 = 100_000_000
    /// Once the queue is empty and its segment holds this much delivered data, a fresh segment
    /// is started so the old one is removed: delivered payloads must not hold disk space that
    /// new ones need (on a small state disk, 4 MiB segments were never rolled at all).
    static let reclaimBytes: UInt64 = 64 << 10

    let files: QueueFiles
    let limits: Limits
    let segmentLimit: UInt64

    private struct State {
        var entries: [Entry]
        var head = 0
        var liveBytes: UInt64
        var cursor: QueueCursor
        var segments: [UInt64]
        var appendSegment: UInt64
        var appendFD: Int32
        var appendSize: UInt64 = 0
        var readFD: (segment: UInt64, fd: Int32)?
        var cursorFD: Int32
        var lockFD: Int32
        var cursorDirty = false
        var lastCursorSync: UInt64 = 0
        var closed = false
        /// An append failed (a full disk, most likely): reclaim delivered segments eagerly.
        var spaceShort = false

        var count: Int { entries.count - head }
    }

    private let state: Mutex<State>
    /// Problems found while opening (torn tail cut, corruption skipped), for the log.
    let recoveryNotes: [String]

    /// Opens (creating if needed) the queue in `folder` and takes its lock; throws an error with
    /// `busy` set when another owner holds the folder.
    init(folder: String, limits: Limits) throws(QueueFiles.IOError) {
        let files = QueueFiles(folder: folder)
        self.files = files
        self.limits = limits
        // Small enough that a delivered segment is freed soon, large enough to batch many payloads.
        segmentLimit = min(4 << 20, max(64 << 10, limits.bytes / 8))
        try files.createFolder()
        let lockFD = try files.lock()
        do {
            let recovered = try QueueRecovery(files: files).recover()
            let cursorFD = try files.openFile(files.cursorPath, flags: O_RDWR | O_CREAT)
            // Always append to a fresh segment: never after a tail that recovery had to cut.
            let appendSegment = max(recovered.segments.last ?? 0, recovered.cursor.segment) + 1
            let appendFD = try files.openFile(files.segmentPath(appendSegment), flags: O_WRONLY | O_CREAT | O_TRUNC)
            try files.syncFolder()
            let live = recovered.entries.reduce(UInt64(0)) { $0 + UInt64($1.length) }
            state = Mutex(State(
                entries: recovered.entries, liveBytes: live, cursor: recovered.cursor, segments: recovered.segments + [appendSegment],
                appendSegment: appendSegment, appendFD: appendFD, cursorFD: cursorFD, lockFD: lockFD))
            recoveryNotes = recovered.notes
        } catch {
            QueueFiles.closeDescriptor(lockFD)
            throw error
        }
        try state.withLock { s throws(QueueFiles.IOError) in
            try moveCursor(&s)
            try syncCursor(&s)
        }
    }

    var count: Int { state.withLock { $0.count } }
    var bytes: UInt64 { state.withLock { $0.liveBytes } }
    var counters: (dropped: UInt64, rejected: UInt64) { state.withLock { ($0.cursor.dropped, $0.cursor.rejected) } }

    /// Writes and syncs `payloads` at the end, first dropping the oldest as the limits require.
    func append(_ payloads: [QueuedPayload]) throws(QueueFiles.IOError) -> AppendResult {
        var frames = payloads.map(QueueFrame.encode)
        return try state.withLock { s throws(QueueFiles.IOError) -> AppendResult in
            guard !s.closed else { throw QueueFiles.IOError(description: "the queue is closed") }
            var result = AppendResult()
            // A batch larger than the queue keeps only its newest part.
            while frames.count > limits.events || UInt64(frames.reduce(0) { $0 + $1.count }) > limits.bytes {
                frames.removeFirst()
                result.dropped += 1
            }
            guard !frames.isEmpty else {
                s.cursor.dropped += UInt64(result.dropped)
                try writeCursor(&s)
                return result
            }
            let incoming = UInt64(frames.reduce(0) { $0 + $1.count })
            while s.count > 0 && (s.count + frames.count > limits.events || s.liveBytes + incoming > limits.bytes) {
                s.liveBytes -= UInt64(s.entries[s.head].length)
                s.head += 1
                result.dropped += 1
            }
            s.cursor.dropped += UInt64(result.dropped)
            if s.appendSize >= segmentLimit || (s.spaceShort && s.count == 0 && s.appendSize > 0) { try roll(&s) }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(Int(incoming))
            var added: [Entry] = []
            var offset = s.appendSize
            for frame in frames {
                added.append(Entry(segment: s.appendSegment, offset: offset, length: frame.count))
                offset += UInt64(frame.count)
                buffer += frame
            }
            do throws(QueueFiles.IOError) {
                try QueueFiles.write(s.appendFD, buffer, at: s.appendSize)
                try QueueFiles.sync(s.appendFD)
            } catch {
                // Nothing of this batch counts: cut what may have been written.
                _ = ftruncate(s.appendFD, off_t(s.appendSize))
                s.spaceShort = true
                try moveCursor(&s)
                throw QueueFiles.IOError(
                    description: "cannot append to \(files.segmentPath(s.appendSegment)): \(error.description)", diskFull: error.diskFull)
            }
            s.appendSize = offset
            s.spaceShort = false
            s.entries += added
            s.liveBytes += incoming
            result.accepted = frames.count
            try moveCursor(&s)
            return result
        }
    }

    /// The oldest payload and its place (to hand back to `complete`), or nil when empty.
    /// A payload whose bytes fail their CRC now is dropped, counted, and the next one returned.
    func head() throws(QueueFiles.IOError) -> (entry: Entry, payload: QueuedPayload)? {
        try state.withLock { s throws(QueueFiles.IOError) -> (entry: Entry, payload: QueuedPayload)? in
            while s.count > 0 {
                let entry = s.entries[s.head]
                let fd = try readFD(for: entry.segment, &s)
                let bytes = try QueueFiles.read(fd, count: entry.length, at: entry.offset)
                if QueueFrame.frameLength(in: bytes, at: 0) == entry.length,
                    let payload = QueueFrame.decode(record: Array(bytes[QueueFrame.headerSize...]))
                {
                    return (entry, payload)
                }
                s.liveBytes -= UInt64(entry.length)
                s.head += 1
                s.cursor.dropped += 1
                try moveCursor(&s)
            }
            return nil
        }
    }

    /// Removes `entry` once it was delivered or refused for good. Does nothing when it is no
    /// longer the oldest (it was dropped for space while it was being sent).
    func complete(_ entry: Entry, rejected: Bool) throws(QueueFiles.IOError) {
        try state.withLock { s throws(QueueFiles.IOError) in
            guard s.count > 0, s.entries[s.head] == entry else { return }
            s.liveBytes -= UInt64(entry.length)
            s.head += 1
            if rejected { s.cursor.rejected += 1 }
            try moveCursor(&s)
            if s.count == 0 && (s.appendSize >= Self.reclaimBytes || (s.spaceShort && s.appendSize > 0)) {
                // Best effort: a failed roll keeps the current segment, which is still valid.
                if (try? roll(&s)) != nil { try moveCursor(&s) }
            }
            if s.count == 0 || monotonicNanoseconds() - s.lastCursorSync >= Self.cursorSyncInterval { try syncCursor(&s) }
        }
    }

    /// Syncs the cursor and releases the folder.
    func close() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            try? syncCursor(&s)
            QueueFiles.closeDescriptor(s.appendFD)
            QueueFiles.closeDescriptor(s.cursorFD)
            if let r = s.readFD { QueueFiles.closeDescriptor(r.fd) }
            s.readFD = nil
            QueueFiles.closeDescriptor(s.lockFD)
        }
    }

    deinit { close() }

    // MARK: - Under the lock

    /// Points the cursor at the oldest live payload (or the end), writes it, and removes the
    /// segments it has passed. Also compacts the in-memory index.
    private func moveCursor(_ s: inout State) throws(QueueFiles.IOError) {
        if s.count > 0 {
            s.cursor.segment = s.entries[s.head].segment
            s.cursor.offset = s.entries[s.head].offset
        } else {
            s.cursor.segment = s.appendSegment
            s.cursor.offset = s.appendSize
        }
        if s.head > 4096 && s.head * 2 > s.entries.count {
            s.entries.removeFirst(s.head)
            s.head = 0
        }
        try writeCursor(&s)
        while let first = s.segments.first, first < s.cursor.segment {
            s.segments.removeFirst()
            if let r = s.readFD, r.segment == first {
                QueueFiles.closeDescriptor(r.fd)
                s.readFD = nil
            }
            unlink(files.segmentPath(first))
        }
    }

    private func writeCursor(_ s: inout State) throws(QueueFiles.IOError) {
        s.cursor.generation += 1
        let slot = Int(s.cursor.generation % 2)
        try QueueFiles.write(s.cursorFD, s.cursor.encoded(), at: UInt64(slot * QueueCursor.slotSize))
        s.cursorDirty = true
    }

    private func syncCursor(_ s: inout State) throws(QueueFiles.IOError) {
        guard s.cursorDirty else { return }
        try QueueFiles.sync(s.cursorFD)
        s.cursorDirty = false
        s.lastCursorSync = monotonicNanoseconds()
    }

    /// Starts the next segment; its name is made durable before anything in it is accepted.
    private func roll(_ s: inout State) throws(QueueFiles.IOError) {
        let next = s.appendSegment + 1
        let fd = try files.openFile(files.segmentPath(next), flags: O_WRONLY | O_CREAT | O_TRUNC)
        do {
            try files.syncFolder()
        } catch {
            QueueFiles.closeDescriptor(fd)
            unlink(files.segmentPath(next))
            throw error
        }
        QueueFiles.closeDescriptor(s.appendFD)
        s.appendFD = fd
        s.appendSegment = next
        s.appendSize = 0
        s.segments.append(next)
    }

    private func readFD(for segment: UInt64, _ s: inout State) throws(QueueFiles.IOError) -> Int32 {
        if let r = s.readFD, r.segment == segment { return r.fd }
        if let r = s.readFD { QueueFiles.closeDescriptor(r.fd) }
        let fd = try files.openFile(files.segmentPath(segment), flags: O_RDONLY)
        s.readFD = (segment, fd)
        return fd
    }
}
