/// Cuts a TCP byte stream into DNS messages, each preceded by its two-byte length.
struct TCPFramer {
    private var pending: [UInt8] = []

    /// No part of a message is waiting for the rest.
    var isEmpty: Bool { pending.isEmpty }

    /// The messages `bytes` completes.
    mutating func take(_ bytes: UnsafeRawBufferPointer) -> [[UInt8]] {
        pending += bytes
        var messages: [[UInt8]] = []
        while pending.count >= 2 {
            let length = Int(pending[0]) << 8 | Int(pending[1])
            guard pending.count >= 2 + length else { break }
            messages.append(Array(pending[2..<2 + length]))
            pending.removeFirst(2 + length)
        }
        return messages
    }
}
