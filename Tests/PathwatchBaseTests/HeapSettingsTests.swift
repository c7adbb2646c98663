import Foundation
import Testing

@testable import PathwatchBase

/// With the agent's heap settings, a buffer over the threshold is mapped on its own, so freeing
/// it gives it back to the kernel, even after a larger one was freed (where glibc, left to
/// itself, raises the threshold past it and serves it from an arena). Read from the process's
/// own mappings, in a process of its own: in the test runner, other tests' freed memory left in
/// an arena may serve the buffer, as glibc serves any request that free space fits.
struct HeapSettingsTests {
    @Test func aLargeBufferIsMappedOnItsOwnAfterALargerOneWasFreed() async {
        await #expect(processExitsWith: .success) {
            HeapSettings.apply()
            free(malloc(8 << 20))
            let size = 4 << 20
            guard let buffer = malloc(size) else { exit(2) }
            // glibc puts a mapped buffer 16 bytes after the start of its own mapping.
            let mappingStart = UInt(bitPattern: buffer) - 16
            guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { exit(3) }
            let own = maps.split(separator: "\n").contains { line in
                let range = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
                return range.count == 2 && range[0] == mappingStart && range[1] - range[0] >= size
            }
            free(buffer)
            exit(own ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    @Test func anOperatorsOwnSettingIsLeftAsTheyMadeIt() {
        #expect(HeapSettings.left(byEnvironment: { _ in nil }) == [.mmapThreshold, .arenaMax])
        let variable = ["MALLOC_ARENA_MAX": "4"]
        #expect(HeapSettings.left(byEnvironment: { variable[$0] }) == [.mmapThreshold])
        let tunable = ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=65536"]
        #expect(HeapSettings.left(byEnvironment: { tunable[$0] }) == [.arenaMax])
    }

    /// A tunable counts when it is given a value under its own name, wherever it stands among
    /// the others; not a name inside another, nor a name with no value (glibc ignores both).
    @Test(arguments: [
        ("glibc.malloc.arena_max=4", true), ("a=1:glibc.malloc.arena_max=4", true),
        ("glibc.malloc.arena_max=4:b=2", true), ("::glibc.malloc.arena_max=", true),
        ("glibc.malloc.arena_max", false), ("glibc.malloc.arena_max_x=4", false), ("xglibc.malloc.arena_max=4", false),
        ("glibc.malloc.mmap_threshold=1", false), ("", false), ("a=glibc.malloc.arena_max=4", false),
    ])
    func aTunableIsSetByItsWholeNameWithAValue(tunables: String, set: Bool) {
        #expect(HeapSettings.sets("glibc.malloc.arena_max", in: tunables) == set)
    }

    /// A plug-in child is handed the cache limit ahead of the operator's own tunables, and finds
    /// the operator's value again, byte for byte, however it began.
    @Test(arguments: [
        "a=1", "glibc.malloc.tcache_max=200", HeapSettings.childTunable, HeapSettings.childTunable + ":b=2", ":",
    ])
    func aChildFindsTheOperatorsTunablesAgain(given: String) {
        let entry = HeapSettings.childTunables(given: given)
        #expect(entry == "GLIBC_TUNABLES=" + HeapSettings.childTunable + ":" + given)
        let value = String(entry.dropFirst("GLIBC_TUNABLES=".count))
        #expect(HeapSettings.inherited(from: value) == given)
    }

    @Test func withoutTunablesOfItsOwnTheAgentHandsTheLimitAlone() {
        #expect(HeapSettings.childTunables(given: nil) == "GLIBC_TUNABLES=" + HeapSettings.childTunable)
        #expect(HeapSettings.childTunables(given: "") == "GLIBC_TUNABLES=" + HeapSettings.childTunable)
        #expect(HeapSettings.inherited(from: HeapSettings.childTunable) == nil)
        #expect(HeapSettings.inherited(from: "a=1") == nil)
    }

    /// In a process of its own (the environment is the process's): restored to the operator's
    /// value, unset when the operator had none, left alone when the agent did not set it.
    @Test func aChildRestoresTheEnvironmentItWasStartedFrom() async {
        await #expect(processExitsWith: .success) {
            func restored(from value: String) -> String? {
                setenv("GLIBC_TUNABLES", value, 1)
                HeapSettings.restoreTunables()
                return getenv("GLIBC_TUNABLES").map { String(cString: $0) }
            }
            let results = [
                restored(from: HeapSettings.childTunable + ":glibc.malloc.arena_max=3") == "glibc.malloc.arena_max=3",
                restored(from: HeapSettings.childTunable) == nil,
                restored(from: "glibc.malloc.arena_max=3") == "glibc.malloc.arena_max=3",
            ]
            exit(results.allSatisfy { $0 } ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }
}
