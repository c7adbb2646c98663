import Glibc

/// Event identifiers: UUID version 7 (RFC 9562) — unique, and ordered by creation time, so a
/// receiver can drop duplicates and sort by id.
package enum EventID {
    package static func make(at time: WallTime = .now()) -> String {
        // The ten bytes after the timestamp from the kernel's CSPRNG in one getrandom call
        // (glibc's arc4random_buf), where two 64-bit draws of the system generator made two on
        // the path from a change to its line (and a byte at a time, sixteen).
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress! + 6, 10) }
        let ms = UInt64(max(0, time.milliseconds))
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return text(of: bytes)
    }

    /// The canonical 8-4-4-4-12 hex form, written into one buffer.
    package static func text(of bytes: [UInt8]) -> String {
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
