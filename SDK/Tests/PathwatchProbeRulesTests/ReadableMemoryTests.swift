import Testing

@testable import PathwatchProbeRules

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The memory map a plug-in's descriptor is checked against is read from /proc/self/maps byte by
/// byte; these hold it to what splitting each line into fields read, line by line.
@Suite struct ReadableMemoryTests {
    /// The map as the parser before this one read it: each line split into fields, the
    /// addresses made into Strings and read with radix 16.
    static func reference(_ text: [UInt8]) -> [ReadableMemory.Region] {
        var regions: [ReadableMemory.Region] = []
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count >= 2 else { continue }
            let range = fields[0].split(separator: UInt8(ascii: "-"))
            let perms = Array(fields[1])
            guard range.count == 2, perms.count >= 3,
                let start = UInt(String(decoding: range[0], as: UTF8.self), radix: 16),
                let end = UInt(String(decoding: range[1], as: UTF8.self), radix: 16), start < end
            else { continue }
            regions.append(
                .init(
                    start: start, end: end, readable: perms[0] == UInt8(ascii: "r"),
                    executable: perms[2] == UInt8(ascii: "x")))
        }
        return regions.sorted { $0.start < $1.start }
    }

    static func same(_ a: [ReadableMemory.Region]?, _ b: [ReadableMemory.Region]) -> Bool {
        guard let a, a.count == b.count else { return false }
        return zip(a, b).allSatisfy {
            $0.start == $1.start && $0.end == $1.end && $0.readable == $1.readable && $0.executable == $1.executable
        }
    }

    static func ownMap() throws -> [UInt8] {
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            text += chunk[0..<n]
        }
        return text
    }

    @Test func thisProcesssMapReadsAsSplittingItDid() throws {
        let text = try Self.ownMap()
        let parsed = ReadableMemory.parse(text).regions
        #expect(parsed?.count ?? 0 > 10)
        #expect(Self.same(parsed, Self.reference(text)))
    }

    @Test func linesOfTheKernelsShapesReadAsSplittingThemDid() {
        let text = """
            55d0c0a00000-55d0c0a20000 r--p 00000000 fe:01 1234   /usr/bin/pathwatch
            55d0c0a20000-55d0c0b00000 r-xp 00020000 fe:01 1234   /usr/bin/pathwatch
            7f0000000000-7f0000021000 rw-p 00000000 00:00 0
            7ffd1c3e2000-7ffd1c403000 rw-p 00000000 00:00 0                          [stack]
            7f1000000000-7f1000001000 ---p 00000000 00:00 0
            7f2000000000-7f2000001000 r--s 00000000 00:05 77   /memfd:a file with spaces (deleted)
            ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
            7F3000000000-7F3000001000 R-XP 00000000 00:00 0
            10-20 r-x
            """
        let bytes = Array(text.utf8)
        let parsed = ReadableMemory.parse(bytes).regions
        #expect(parsed?.count == 9)
        #expect(Self.same(parsed, Self.reference(bytes)))
        #expect(parsed?.first { $0.start == 0xffff_ffff_ff60_0000 }?.executable == true)
    }

    /// Lines of another shape are passed over, the rest of the map still read.
    @Test func linesOfAnotherShapeArePassedOver() {
        let good = "1000-2000 r-xp 0 0 0 /lib"
        for bad in [
            "", "1000", "1000-", "-2000 r-xp", "1000-2000", "1000-2000 ", "1000-2000 r-", "2000-1000 r-xp",
            "1000-1000 r-xp", "1000-2000-3000 r-xp", "g000-2000 r-xp", "1000 -2000 r-xp",
            "10000000000000000-10000000000000001 r-xp", "1000-2000\tr-xp",
        ] {
            let parsed = ReadableMemory.parse(Array((bad + "\n" + good + "\n").utf8)).regions
            #expect(parsed?.count == 1, "\(bad)")
            #expect(parsed?.first?.start == 0x1000 && parsed?.first?.executable == true, "\(bad)")
        }
    }

    /// Regions the kernel would not list out of order are found all the same.
    @Test func anOutOfOrderMapIsSorted() {
        let memory = ReadableMemory.parse(Array("3000-4000 r--p\n1000-2000 r--p\n2000-3000 r--p\n".utf8))
        #expect(memory.regions?.map(\.start) == [0x1000, 0x2000, 0x3000])
        #expect(memory.readableBytes(from: 0x1800) == 0x2800)
    }
}
