import PathwatchSinkKit

/// Frames (Frames) taken from a socket as the bytes arrive rather than read whole: the routed
/// frames a child sends the agent, or the agent's calls as the child reads them (FrameReader),
/// which name no instance.
///
/// Why the agent's reader never blocks inside a frame: a child that dies while one of its
/// threads is half-way through a frame (a sibling's crash ends the process between the length
/// and the body) leaves the rest unwritten for good, and a process its plug-in forked keeps the
/// socket open, so no end of stream comes either. A reader waiting for the rest would stop
/// watching the child's pidfd and never learn that it ended; with this buffer it reads what is
/// there, keeps the cut frame, and goes back to waiting on the socket and the pidfd together.
package struct FrameBuffer {
    package enum Next: Equatable {
        case frame(instance: UInt32, body: [UInt8])
        /// Not all of the next frame has arrived yet.
        case incomplete
        /// The length cannot be a frame's: a broken peer.
        case malformed
    }

    /// Whether an instance's four bytes follow each length (a child's frames to the agent).
    package let routed: Bool
    private var bytes: [UInt8] = []
    private var start = 0

    package init(routed: Bool = true) { self.routed = routed }

    /// Bytes received but not yet taken as frames (a frame cut off by the child's end).
    package var pending: Int { bytes.count - start }

    package mutating func append(_ chunk: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: chunk)
    }

    /// Takes the next whole frame (instance 0 when frames are not routed).
    package mutating func next() -> Next {
        let header = routed ? 8 : 4
        guard pending >= header else { return compacted(.incomplete) }
        let length = Int(Frames.word(at: start, in: bytes))
        guard length >= header - 4, length <= Frames.maximumLength else { return .malformed }
        guard pending >= 4 + length else { return compacted(.incomplete) }
        let instance = routed ? Frames.word(at: start + 4, in: bytes) : 0
        let body = Array(bytes[(start + header)..<(start + 4 + length)])
        start += 4 + length
        return .frame(instance: instance, body: body)
    }

    /// Drops the frames already taken before waiting for more: the buffer holds only what is
    /// not yet a frame, and gives back the room a large frame needed once it is taken.
    private mutating func compacted(_ next: Next) -> Next {
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 << 10)
            start = 0
        } else if start > 0 {
            bytes.removeFirst(start)
            start = 0
        }
        return next
    }
}
