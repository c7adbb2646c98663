import Glibc
import PathwatchBase

/// Rebuilds a queue's index from its folder when it is opened: which records are still to be
/// consumed, in order, and where appending resumes.
///
/// Every frame from the cursor on is read and its CRC checked. A bad frame at the end of the
/// last segment is the torn tail of an append that a crash interrupted before its fsync (so it
/// was never accepted): the segment is cut there. A bad frame anywhere else is corruption: the
/// rest of that segment cannot be framed again, so it is skipped and said so.
struct QueueRecovery {
    struct Result {
        var entries: [QueueEntry] = []
        var cursor: QueueCursor
        var segments: [UInt64] = []
        /// Bytes cut from the last segment's torn tail.
        var truncatedBytes: UInt64 = 0
        /// Problems worth a log line.
        var notes: [String] = []
    }

    let files: QueueFiles

    func recover() throws(QueueError) -> Result {
        var numbers = try files.segmentNumbers()
        let cursorFD = try files.openFile(files.cursorPath, flags: O_RDONLY | O_CREAT)
        let cursorBytes = try QueueFiles.read(cursorFD, count: 2 * QueueCursor.slotSize, at: 0)
        close(cursorFD)
        var cursor: QueueCursor
        if let stored = QueueCursor.newest(in: cursorBytes) {
            cursor = stored
        } else {
            cursor = QueueCursor(segment: numbers.first ?? 1, offset: 0)
            if cursorBytes.contains(where: { $0 != 0 }) {
                return try restartWithoutCursor(numbers)
            }
        }
        var result = Result(cursor: cursor)
        // Segments wholly before the cursor were delivered; a crash kept them from being removed.
        for n in numbers where n < cursor.segment { unlink(files.segmentPath(n)) }
        numbers.removeAll { $0 < cursor.segment }
        if let first = numbers.first, first > cursor.segment {
            // The cursor's own segment is gone (delivered and removed): resume at the next one.
            cursor = QueueCursor(
                segment: first, offset: 0, dropped: cursor.dropped, rejected: cursor.rejected,
                generation: cursor.generation)
        }
        for (i, n) in numbers.enumerated() {
            let start = n == cursor.segment ? cursor.offset : 0
            try scan(segment: n, from: start, isLast: i == numbers.count - 1, into: &result)
        }
        result.cursor = cursor
        result.segments = numbers
        return result
    }

    /// Both cursor slots are damaged: deliver everything still on disk again rather than lose it.
    private func restartWithoutCursor(_ numbers: [UInt64]) throws(QueueError) -> Result {
        var result = Result(cursor: QueueCursor(segment: numbers.first ?? 1, offset: 0))
        result.notes.append("the cursor file is damaged; every payload still on disk will be delivered again")
        for (i, n) in numbers.enumerated() {
            try scan(segment: n, from: 0, isLast: i == numbers.count - 1, into: &result)
        }
        result.segments = numbers
        return result
    }

    private func scan(segment n: UInt64, from start: UInt64, isLast: Bool, into result: inout Result) throws(QueueError)
    {
        let path = files.segmentPath(n)
        let fd = try files.openFile(path, flags: O_RDWR)
        defer { close(fd) }
        let size = QueueFiles.size(of: fd)
        let bytes = try QueueFiles.read(fd, count: Int(size), at: 0)
        var offset = Int(min(start, size))
        while offset < bytes.count {
            guard let length = QueueFrame.frameLength(in: bytes, at: offset) else {
                if isLast {
                    let cut = UInt64(bytes.count - offset)
                    guard ftruncate(fd, off_t(offset)) == 0, fdatasync(fd) == 0 else {
                        throw QueueError(description: "cannot cut the torn tail of \(path): \(errnoText())")
                    }
                    result.truncatedBytes += cut
                    result.notes.append("cut \(cut) bytes of an unfinished append from the end of \(path)")
                } else {
                    result.notes.append(
                        "\(path) is corrupted at byte \(offset); the rest of it (\(bytes.count - offset) bytes) is skipped"
                    )
                }
                return
            }
            // A preamble belongs to the segment, not to the records: read only with its prologue.
            if !QueueFrame.isPreamble(in: bytes, at: offset) {
                result.entries.append(QueueEntry(segment: n, offset: UInt64(offset), length: length))
            }
            offset += length
        }
    }
}
