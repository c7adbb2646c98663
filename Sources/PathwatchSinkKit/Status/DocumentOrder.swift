#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sorts checks into document order: by their probe's place, then by id as Swift orders
/// strings. Ids that are all ASCII (nearly every id) are compared as bytes, which is the same
/// order: String comparison orders by Unicode scalars, and ASCII bytes are those scalars. Any
/// other pair is compared as Strings. At 500 checks the String comparisons were a third of
/// building the document's order, each going through the standard library's normalisation
/// checks before its memcmp.
package enum DocumentOrder {
    /// Positions into `keys`, in document order.
    package static func positions(of keys: [(place: Int, id: String)]) -> [Int] {
        // Every id's bytes in one buffer, so a comparison reads them without reaching into a String.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.count * 24)
        var entries: [Entry] = []
        entries.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() {
            var id = key.id
            let start = bytes.count
            let ascii = id.withUTF8 { utf8 in
                bytes.append(contentsOf: utf8)
                return utf8.allSatisfy { $0 < 0x80 }
            }
            entries.append(
                Entry(place: key.place, start: start, length: bytes.count - start, ascii: ascii, position: position))
        }
        bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress
            entries.sort { a, b in
                if a.place != b.place { return a.place < b.place }
                guard a.ascii && b.ascii, let base else { return keys[a.position].id < keys[b.position].id }
                return bytesPrecede(base + a.start, a.length, base + b.start, b.length)
            }
        }
        return entries.map(\.position)
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s: how a probe's check ids are sorted
    /// (`CheckBook.records(ofProbe:)`, `PrometheusExposition.forEachSource`). One memcmp where
    /// both strings lie in contiguous storage, as native strings do: the generic
    /// `lexicographicallyPrecedes` of two UTF-8 views takes its bytes one at a time through
    /// their iterators, some 550 instructions a pair of ids against some 85.
    ///
    /// `forEachSource`'s check that a probe's view is in id order still compares the generic
    /// way: there, calling this made the release build copy every record it visited (some 420
    /// instructions a check), which cost what the comparison saved.
    package static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                // An empty string's buffer may have no address; it precedes any other.
                guard let xBase = x.baseAddress, let yBase = y.baseAddress else { return x.count < y.count }
                return bytesPrecede(xBase, x.count, yBase, y.count)
            }
        }
        if let compared, let compared { return compared }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether the `xCount` bytes at `x` sort before the `yCount` at `y`: by their common part,
    /// then the shorter first.
    private static func bytesPrecede(_ x: UnsafeRawPointer, _ xCount: Int, _ y: UnsafeRawPointer, _ yCount: Int) -> Bool
    {
        let order = memcmp(x, y, min(xCount, yCount))
        return order != 0 ? order < 0 : xCount < yCount
    }

    private struct Entry {
        var place: Int
        var start: Int
        var length: Int
        var ascii: Bool
        var position: Int
    }
}
