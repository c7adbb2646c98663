/// CRC-32 (IEEE 802.3, the polynomial of zlib and Ethernet), to tell a whole record or cursor
/// slot from a torn or corrupted one after a crash.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<C: Collection>(_ bytes: C, continuing previous: UInt32 = 0) -> UInt32
    where C.Element == UInt8 {
        var crc = ~previous
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}

/// Little-endian integers in byte buffers: the on-disk formats are the same on every host.
enum LittleEndian {
    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Reads a `T` at `offset`; nil when the buffer is too short (never trusts a length).
    static func read<T: FixedWidthInteger, C: RandomAccessCollection>(_ type: T.Type, from bytes: C, at offset: Int)
        -> T?
    where C.Element == UInt8, C.Index == Int {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset + size <= bytes.count else { return nil }
        var value: T = 0
        let start = bytes.startIndex + offset
        for i in 0..<size { value |= T(bytes[start + i]) << (8 * i) }
        return value
    }
}
