import Glibc
import PathwatchJSON

/// The agent's calls as a plug-in child reads them (Frames: a length, then the body): what one
/// `recv` brings, taken frame by frame. Reading the length and then the body cost two system
/// calls a call; a tick's calls to a thousand probes arrive together, and are read in a few.
struct FrameReader {
    /// The most one `recv` takes.
    static let chunk = 64 << 10

    private let fd: Int32
    private var bytes: [UInt8] = []
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: FrameReader.chunk)

    init(fd: Int32) { self.fd = fd }

    /// The next frame, parsed; nil at end of stream, on an error, or for a frame that is not JSON
    /// or whose length no frame has.
    mutating func next() -> JSONValue? {
        guard let body = nextBody() else { return nil }
        return try? JSONParser.parse(bytes: body)
    }

    /// The next frame's body; nil at end of stream, on an error, or for a length no frame has.
    mutating func nextBody() -> [UInt8]? {
        while true {
            if bytes.count - start >= 4 {
                let length = Int(Frames.word(at: start, in: bytes))
                guard length <= Frames.maximumLength else { return nil }
                if bytes.count - start >= 4 + length {
                    let body = Array(bytes[(start + 4)..<(start + 4 + length)])
                    start += 4 + length
                    return body
                }
            }
            guard receive() else { return nil }
        }
    }

    /// Appends what the socket has (waiting for at least a byte); false at end of stream or on
    /// an error. What was already taken is dropped first, and a large frame's room given back.
    private mutating func receive() -> Bool {
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= Self.chunk)
        } else if start > 0 {
            bytes.removeFirst(start)
        }
        start = 0
        while true {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            scratch.withUnsafeBytes { bytes.append(contentsOf: $0.prefix(n)) }
            return true
        }
    }
}
