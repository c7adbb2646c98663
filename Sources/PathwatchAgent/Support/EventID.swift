/// Event identifiers: UUID version 7 (RFC 9562) — unique, and ordered by creation time, so a
/// receiver can drop duplicates and sort by id.
enum EventID {
    static func make(at time: WallTime = .now()) -> String {
        // Ten random bytes from the kernel's CSPRNG (the system generator is getrandom), drawn
        // as two 64-bit values: two calls, where a byte at a time made sixteen on the path
        // from a change to its line.
        var generator = SystemRandomNumberGenerator()
        let high = generator.next()
        let low = generator.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        let ms = UInt64(max(0, time.milliseconds))
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return text(of: bytes)
    }

    /// The canonical 8-4-4-4-12 hex form, written into one buffer.
    static func text(of bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var at = 0
            for (i, byte) in bytes.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    buffer[at] = UInt8(ascii: "-")
                    at += 1
                }
                buffer[at] = digits[Int(byte >> 4)]
                buffer[at + 1] = digits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }
}
