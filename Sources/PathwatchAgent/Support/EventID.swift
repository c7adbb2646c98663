/// Event identifiers: UUID version 7 (RFC 9562) — unique, and ordered by creation time, so a
/// receiver can drop duplicates and sort by id.
enum EventID {
    static func make(at time: WallTime = .now()) -> String {
        // The system generator draws from the kernel's CSPRNG (getrandom).
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let ms = UInt64(max(0, time.milliseconds))
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        let hex = bytes.map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return hex[0..<4].joined() + "-" + hex[4..<6].joined() + "-" + hex[6..<8].joined() + "-"
            + hex[8..<10].joined() + "-" + hex[10..<16].joined()
    }
}
