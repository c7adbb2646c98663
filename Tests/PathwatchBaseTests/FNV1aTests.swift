import PathwatchBase
import Testing

/// FNV-1a names queue folders and cuts remote write's runs by series, so its values must never
/// change: bytes in contiguous storage (hashed in place) and in a sequence without it (copied
/// first) hash the same, and give the published test vectors.
@Suite struct FNV1aTests {
    @Test func contiguousBytesAndOtherSequencesHashTheSame() {
        // The published FNV-1a 64-bit vectors: "" and "a" and "foobar".
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
        for length in [0, 1, 7, 150, 4_099] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(FNV1a.hash(bytes) == FNV1a.hash(bytes.lazy.map { $0 }), "\(length) bytes")
        }
    }
}
