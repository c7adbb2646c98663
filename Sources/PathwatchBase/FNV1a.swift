/// The 64-bit FNV-1a hash of some bytes: fast, stable across runs and releases, and not
/// cryptographic. A queue folder's name is one (what names the receiver, never written out), so
/// its value must never change; remote write's `max_parallel` cuts a run by one of each series'
/// labels.
package enum FNV1a {
    package static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// The same for bytes in an array, in a loop of its own: a caller in another module gets
    /// the generic version unspecialized, which steps through the bytes by protocol calls (some
    /// 50,000 instructions for a series' 150 bytes of labels, where this takes a few hundred).
    package static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in buffer {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
    }
}
