/// What the queue's folder takes on disk, which `max_bytes` bounds: every segment file whole
/// (dropped and consumed records stay in a segment until the cursor passes all of it) and the
/// cursor, each rounded up to whole blocks as the file system allocates them. Counting only the
/// live records let a 64 KiB queue take 132 KiB: the segment whose oldest records had been
/// dropped for room stayed on disk beside the one being filled.
extension QueueState {
    /// The allocation unit counted per file (ext4's and tmpfs's; larger on few file systems).
    static let blockSize: UInt64 = 4096

    static func allocated(_ bytes: UInt64) -> UInt64 { (bytes + blockSize - 1) / blockSize * blockSize }

    /// A segment file's blocks, and the block of extent tree ext4 gives a file in more than four
    /// pieces: four extents fit in the inode, and a segment appended while other files grow on
    /// the same disk is cut into more (a busy machine's build took one 1 MiB queue 4 KiB past
    /// its bound). `du` counts that block, so the bound does; a segment of four blocks or fewer
    /// has at most four extents.
    static func segmentAllocated(_ bytes: UInt64) -> UInt64 {
        let blocks = allocated(bytes)
        return blocks > 4 * blockSize ? blocks + blockSize : blocks
    }

    /// The cursor file: its two slots, always present.
    static let cursorFootprint = allocated(UInt64(2 * QueueCursor.slotSize))

    /// The folder's size once `incoming` bytes are appended, at the end of the append segment
    /// or (`inNewSegment`) in a fresh one, and the segments the cursor then passes are removed.
    func footprint(adding incoming: UInt64, inNewSegment: Bool) -> UInt64 {
        let oldest = count > 0 ? entries[head].segment : (inNewSegment ? appendSegment + 1 : appendSegment)
        var total = Self.cursorFootprint
        for segment in segments where segment >= oldest {
            let size = segment == appendSegment ? appendSize + (inNewSegment ? 0 : incoming) : sealedBytes[segment] ?? 0
            total += Self.segmentAllocated(size)
        }
        if inNewSegment { total += Self.segmentAllocated(incoming) }
        return total
    }
}
