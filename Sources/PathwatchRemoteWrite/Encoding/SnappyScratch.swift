/// Snappy's output for one request after another, written into one buffer kept between them
/// and copied out at its compressed size. Snappy wants room for more than the request itself
/// (some 175 KB for a request of 1,000 series), past the heap's mmap threshold
/// (`HeapSettings`): made afresh for each request, that room was mapped and faulted in at every
/// report; the compressed request, a fraction of it, comes from the heap's free memory.
/// A class: the reader makes a request's attempts without changing itself otherwise. On the
/// delivery thread only.
final class SnappyScratch {
    private var room: [UInt8] = []

    /// `bytes` compressed, or nil when the library is missing or refused.
    func compress(_ bytes: [UInt8]) -> [UInt8]? {
        let needed = Snappy.maxCompressedLength(bytes.count)
        guard needed > 0 else { return nil }
        if room.count < needed || room.count > KeptRoom.atMost(needed) {
            // A quarter more, so a request a little larger than the last does not make it again.
            room = [UInt8](repeating: 0, count: needed + needed / 4)
        }
        return room.withUnsafeMutableBufferPointer { output in
            Snappy.compress(bytes, into: output).map { Array(UnsafeBufferPointer(rebasing: output[..<$0])) }
        }
    }
}
