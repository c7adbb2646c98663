import Glibc
import PathwatchBase

/// What a `DurableQueue` keeps under its lock: the index of live records, the open files and
/// the cursor, with the steps that keep them consistent on disk. Every method runs under the
/// queue's lock.
struct QueueState {
    let files: QueueFiles
    var entries: [QueueEntry]
    var head = 0
    var liveBytes: UInt64
    var cursor: QueueCursor
    var segments: [UInt64]
    var appendSegment: UInt64
    var appendFD: Int32
    var appendSize: UInt64 = 0
    /// The size of every segment but the append one (QueueFootprint).
    var sealedBytes: [UInt64: UInt64] = [:]
    var readFD: (segment: UInt64, fd: Int32)?
    var cursorFD: Int32
    var lockFD: Int32
    var cursorDirty = false
    var lastCursorSync: UInt64 = 0
    var closed = false
    /// An append failed (a full disk, most likely): reclaim consumed segments eagerly.
    var spaceShort = false
    /// The newest record of the run `head`/`heads` last handed out: the one its owner is sending.
    var outThrough: QueueEntry?
    /// Records of that run the bound dropped while it was out. Whether they were lost is known
    /// only when the run ends: delivered, they were not, and counting them dropped as well
    /// would count one record twice (a counter cannot take back a count once shown).
    var droppedWhileOut = 0

    var count: Int { entries.count - head }

    /// Removes the oldest live record from the index (the cursor moves in `moveCursor`).
    mutating func dropHead() {
        liveBytes -= UInt64(entries[head].length)
        head += 1
    }

    /// The record at `entry`, or nil when its bytes no longer pass their length and CRC.
    mutating func read(_ entry: QueueEntry) throws(QueueError) -> QueueRecord? {
        let fd = try readDescriptor(for: entry.segment)
        let bytes = try QueueFiles.read(fd, count: entry.length, at: entry.offset)
        guard QueueFrame.frameLength(in: bytes, at: 0) == entry.length else { return nil }
        return QueueFrame.decode(record: Array(bytes[QueueFrame.headerSize...]))
    }

    /// Drops the oldest record to make room: counted now, or when its run ends if it is out
    /// with the owner. True when it was out.
    mutating func dropHeadForRoom() -> Bool {
        let out = outThrough.map { entries[head].isAtOrBefore($0) } ?? false
        dropHead()
        if out { droppedWhileOut += 1 } else { cursor.dropped += 1 }
        return out
    }

    /// The run that was out ended as `completion`: what the bound dropped of it counts with the
    /// rest of the run (nothing when delivered). True when that changed the tally, so the caller
    /// writes the cursor (whose generation orders tallies).
    mutating func settleRunOut(as completion: QueueCompletion) -> Bool {
        defer {
            droppedWhileOut = 0
            outThrough = nil
        }
        guard droppedWhileOut > 0 else { return false }
        count(droppedWhileOut, as: completion)
        return true
    }

    /// A run is handed out: whatever the bound dropped of the previous one was not delivered.
    mutating func handOut(through last: QueueEntry?) throws(QueueError) {
        if settleRunOut(as: .unreadable) { try writeCursor() }
        outThrough = last
    }

    mutating func count(_ records: Int, as completion: QueueCompletion) {
        switch completion {
        case .delivered: break
        case .rejected: cursor.rejected += UInt64(records)
        case .unreadable: cursor.dropped += UInt64(records)
        }
    }

    /// After `removed` records left the head through `complete`: counts them, moves the cursor
    /// once, reclaims the segment when the queue is empty, and syncs the cursor when it is due.
    mutating func finishCompletion(of removed: Int, as completion: QueueCompletion) throws(QueueError) {
        count(removed, as: completion)
        _ = settleRunOut(as: completion)
        try moveCursor()
        if count == 0 && (appendSize >= DurableQueue.reclaimBytes || (spaceShort && appendSize > 0)) {
            // Best effort: a failed roll keeps the current segment, which is still valid.
            if (try? roll()) != nil { try moveCursor() }
        }
        try syncCursorIfDue()
    }

    /// Syncs the cursor when the queue is empty or the last sync is `cursorSyncInterval` old.
    mutating func syncCursorIfDue() throws(QueueError) {
        if count == 0 || monotonicNanoseconds() - lastCursorSync >= DurableQueue.cursorSyncInterval { try syncCursor() }
    }

    /// Points the cursor at the oldest live record (or the end), writes it, and removes the
    /// segments it has passed. Also compacts the in-memory index. The owner's progress belongs
    /// to the record the cursor pointed at, so it starts again at 0 when that one left.
    mutating func moveCursor() throws(QueueError) {
        let (segment, offset) = count > 0 ? (entries[head].segment, entries[head].offset) : (appendSegment, appendSize)
        if segment != cursor.segment || offset != cursor.offset { cursor.progress = 0 }
        cursor.segment = segment
        cursor.offset = offset
        if head > 4096 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        try writeCursor()
        while let first = segments.first, first < cursor.segment {
            segments.removeFirst()
            if let r = readFD, r.segment == first {
                QueueFiles.closeDescriptor(r.fd)
                readFD = nil
            }
            unlink(files.segmentPath(first))
            sealedBytes[first] = nil
        }
    }

    /// Writes the cursor into the slot after the last one written: a process crash cannot undo
    /// it, a power loss can until `syncCursor`.
    mutating func writeCursor() throws(QueueError) {
        cursor.generation += 1
        let slot = Int(cursor.generation % 2)
        try QueueFiles.write(cursorFD, cursor.encoded(), at: UInt64(slot * QueueCursor.slotSize))
        cursorDirty = true
    }

    mutating func syncCursor() throws(QueueError) {
        guard cursorDirty else { return }
        try QueueFiles.sync(cursorFD)
        cursorDirty = false
        lastCursorSync = monotonicNanoseconds()
    }

    /// Starts the next segment; its name is made durable before anything in it is accepted.
    mutating func roll() throws(QueueError) {
        let next = appendSegment + 1
        let fd = try files.openFile(files.segmentPath(next), flags: O_WRONLY | O_CREAT | O_TRUNC)
        do {
            try files.syncFolder()
        } catch {
            QueueFiles.closeDescriptor(fd)
            unlink(files.segmentPath(next))
            throw error
        }
        QueueFiles.closeDescriptor(appendFD)
        sealedBytes[appendSegment] = appendSize
        appendFD = fd
        appendSegment = next
        appendSize = 0
        segments.append(next)
    }

    /// Writes `frames` at the end of the append segment, after `preamble` (a frame that is not
    /// a record, or nothing), and syncs them; on failure cuts what may have been written, so
    /// nothing of them counts.
    mutating func write(_ frames: [[UInt8]], after preamble: [UInt8] = []) throws(QueueError) {
        var buffer: [UInt8] = preamble
        buffer.reserveCapacity(preamble.count + frames.reduce(0) { $0 + $1.count })
        var added: [QueueEntry] = []
        var offset = appendSize + UInt64(preamble.count)
        for frame in frames {
            added.append(QueueEntry(segment: appendSegment, offset: offset, length: frame.count))
            offset += UInt64(frame.count)
            buffer += frame
        }
        do throws(QueueError) {
            try QueueFiles.write(appendFD, buffer, at: appendSize)
            try QueueFiles.sync(appendFD)
        } catch {
            _ = ftruncate(appendFD, off_t(appendSize))
            spaceShort = true
            try moveCursor()
            throw QueueError(
                description: "cannot append to \(files.segmentPath(appendSegment)): \(error.description)",
                diskFull: error.diskFull)
        }
        appendSize = offset
        spaceShort = false
        entries += added
        liveBytes += UInt64(buffer.count - preamble.count)
    }

    /// The descriptor to read `segment` through (one kept open at a time).
    mutating func readDescriptor(for segment: UInt64) throws(QueueError) -> Int32 {
        if let r = readFD, r.segment == segment { return r.fd }
        // Forgotten before the open, which may fail: a closed number kept here would be closed
        // again later, when the kernel may have given it to the append segment.
        if let r = readFD { QueueFiles.closeDescriptor(r.fd) }
        readFD = nil
        let fd = try files.openFile(files.segmentPath(segment), flags: O_RDONLY)
        readFD = (segment, fd)
        return fd
    }

    /// Syncs the cursor and closes every descriptor, the lock's last.
    mutating func close() {
        guard !closed else { return }
        closed = true
        if settleRunOut(as: .unreadable) { try? writeCursor() }
        try? syncCursor()
        QueueFiles.closeDescriptor(appendFD)
        QueueFiles.closeDescriptor(cursorFD)
        if let r = readFD { QueueFiles.closeDescriptor(r.fd) }
        readFD = nil
        QueueFiles.closeDescriptor(lockFD)
    }
}
