/// Bounds-checked reads of native-endian integers (netlink uses host byte order) from byte
/// slices. Offsets are relative to the slice's start; nil means "does not fit".
extension ArraySlice where Element == UInt8 {
    func loadInteger<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T? {
        guard offset >= 0, count >= MemoryLayout<T>.size, offset <= count - MemoryLayout<T>.size else {
            return nil
        }
        return withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// The absolute index of a position relative to the slice start, for error messages that
    /// point into the original datagram.
    func position(_ relative: Int) -> Int { startIndex + relative }
}

/// Netlink pads messages and attributes to 4 bytes (NLMSG_ALIGN, NLA_ALIGN, RTA_ALIGN).
@inline(__always)
func netlinkAlign(_ length: Int) -> Int { (length + 3) & ~3 }

extension Array where Element == UInt8 {
    /// Appends the raw bytes of a C struct or integer, in host byte order.
    mutating func appendBytes<T>(of value: T) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }
}
