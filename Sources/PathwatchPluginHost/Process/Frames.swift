import Glibc
import PathwatchJSON
import PathwatchSinkKit

/// Length-prefixed frames over the socketpair between the agent and a plug-in's child: four
/// bytes of length (little-endian), then that many bytes of JSON, or of a call's result
/// (ResultFrames). These calls block, always on threads of their own.
///
/// One child hosts every instance of its plug-in file, so what the child sends is routed: after
/// the length come four bytes naming the instance the frame is for (little-endian; 0 for the
/// child itself: what it loaded), then the body. The agent's calls name their instance in the
/// JSON (CallFrames). The agent takes routed frames from the bytes as they arrive
/// (FrameBuffer), never blocking inside one; the child reads the calls as they arrive too
/// (FrameReader).
package enum Frames {
    /// A frame beyond this is taken as a broken peer, not a message (100,000 observations of
    /// short text fit in a few MiB).
    package static let maximumLength = 64 << 20

    /// A frame's body for `value`.
    package static func body(_ value: JSONValue) -> [UInt8] {
        var body: [UInt8] = []
        JSONSerializer.write(value, into: &body)
        return body
    }

    /// Sends a routed frame: the length, the instance, then the body as it is.
    package static func write(body: [UInt8], instance: UInt32, to fd: Int32) -> Bool {
        guard let header = header(body: body, instance: instance) else { return false }
        return header.withUnsafeBytes { writeAll(fd, $0) } && body.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// What goes before `body`: its length, and the instance when the frame is routed; nil when
    /// the body is too long for a frame.
    package static func header(body: [UInt8], instance: UInt32? = nil) -> [UInt8]? {
        let length = body.count + (instance == nil ? 0 : 4)
        guard length <= maximumLength else { return nil }
        return littleEndian(UInt32(length)) + (instance.map(littleEndian) ?? [])
    }

    private static func littleEndian(_ word: UInt32) -> [UInt8] {
        [UInt8(word & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word >> 16 & 0xFF), UInt8(word >> 24)]
    }

    /// The four bytes at `offset`, little-endian: a frame's length, or the instance it is for.
    package static func word(at offset: Int, in bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    /// Sends all of `bytes`, going on after a short write or an interrupt; false when the other
    /// end is gone or the socket failed.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
