import Foundation
import Testing

@testable import PathwatchBase

/// With the agent's heap settings, a buffer over the threshold is mapped on its own, so freeing
/// it gives it back to the kernel, even after a larger one was freed (where glibc, left to
/// itself, raises the threshold past it and serves it from an arena). Read from the process's
/// own mappings: no other thread's allocations can make it pass or fail.
struct HeapSettingsTests {
    @Test func aLargeBufferIsMappedOnItsOwnAfterALargerOneWasFreed() throws {
        HeapSettings.apply()
        free(malloc(8 << 20))
        let size = 4 << 20
        let buffer = try #require(malloc(size))
        defer { free(buffer) }
        // glibc puts a mapped buffer 16 bytes after the start of its own mapping.
        let mappingStart = UInt(bitPattern: buffer) - 16
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        let own = maps.split(separator: "\n").first { line in
            let range = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
            return range.count == 2 && range[0] == mappingStart && range[1] - range[0] >= size
        }
        #expect(own != nil, "the \(size)-byte buffer at \(String(mappingStart, radix: 16)) is not a mapping of its own")
    }

    @Test func anOperatorsOwnSettingIsLeftAsTheyMadeIt() {
        #expect(HeapSettings.left(byEnvironment: { _ in nil }) == [.mmapThreshold, .arenaMax])
        let variable = ["MALLOC_ARENA_MAX": "4"]
        #expect(HeapSettings.left(byEnvironment: { variable[$0] }) == [.mmapThreshold])
        let tunable = ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=65536"]
        #expect(HeapSettings.left(byEnvironment: { tunable[$0] }) == [.arenaMax])
    }
}
