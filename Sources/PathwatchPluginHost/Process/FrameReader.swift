import Glibc
import PathwatchJSON
import PathwatchSinkKit

/// The agent's calls as a plug-in child reads them (Frames: a length, then the body): what one
/// `recv` brings, taken frame by frame (FrameBuffer). Reading the length and then the body cost
/// two system calls a call; a tick's calls to a thousand probes arrive together, and are read
/// in a few.
package struct FrameReader {
    /// The most one `recv` takes.
    package static let chunk = 64 << 10

    private let fd: Int32
    private var frames = FrameBuffer(routed: false)

    package init(fd: Int32) { self.fd = fd }

    /// The next frame, parsed; nil at end of stream, on an error, or for a frame that is not JSON
    /// or whose length no frame has.
    package mutating func next() -> JSONValue? {
        guard let body = nextBody() else { return nil }
        return try? JSONParser.parse(bytes: body)
    }

    /// The next frame's body; nil at end of stream, on an error, or for a length no frame has.
    package mutating func nextBody() -> [UInt8]? {
        while true {
            switch frames.next() {
            case .frame(_, let body): return body
            case .malformed: return nil
            case .incomplete: guard receive() else { return nil }
            }
        }
    }

    /// Appends what the socket has, waiting for at least a byte; false at end of stream or on
    /// an error.
    private mutating func receive() -> Bool {
        while true {
            let (n, error) = withUnsafeTemporaryAllocation(byteCount: Self.chunk, alignment: 1) { chunk in
                let n = recv(fd, chunk.baseAddress, chunk.count, 0)
                let error = errno
                if n > 0 { frames.append(UnsafeRawBufferPointer(rebasing: chunk[0..<n])) }
                return (n, error)
            }
            if n < 0 && error == EINTR { continue }
            return n > 0
        }
    }
}
