/// The 64-bit FNV-1a hash of some bytes: fast, stable across runs and releases, and not
/// cryptographic. A queue folder's name is one (what names the receiver, never written out), so
/// its value must never change; remote write's `max_parallel` cuts a run by one of each series'
/// labels.
package enum FNV1a {
    /// Hashed through a buffer: a caller in another module gets this function unspecialized, and
    /// a loop over the generic sequence would step through it by protocol calls (some 50,000
    /// instructions for a series' 150 bytes of labels, where the buffer's loop takes a few
    /// hundred). A sequence with no contiguous storage is copied into an array first.
    package static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        bytes.withContiguousStorageIfAvailable(hash(buffer:)) ?? Array(bytes).withUnsafeBufferPointer(hash(buffer:))
    }

    private static func hash(buffer: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in buffer {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
