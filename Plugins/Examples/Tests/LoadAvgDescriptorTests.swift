import CPathwatchProbe
import Foundation
import PathwatchProbeTesting
import PathwatchTestSupport
import PluginTestSupport
import Testing

/// The C example keeps its instance's descriptors of /proc/loadavg from `create` to `destroy`
/// and reads the file afresh with `pread` each sample, instead of opening it every time.
@Suite(.onItsOwnThread) struct LoadAvgDescriptorTests {
    @Test func anInstanceHoldsItsOwnCloseOnExecDescriptorUntilItIsDestroyed() throws {
        let build = try ExampleBuild()
        defer { build.cleanUp() }
        let library = build.pluginDirectory.appendingPathComponent("libpathwatch_loadavg.so").path
        let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL), "\(String(cString: dlerror()))")
        defer { dlclose(handle) }
        let entry = unsafeBitCast(try #require(dlsym(handle, PW_PROBE_ENTRY_SYMBOL)), to: pw_probe_entry_fn.self)
        let descriptor = try #require(entry())

        // Other tests of this process may hold /proc/loadavg open for a moment: only the
        // descriptors that appear with the instance are its own.
        let before = Self.descriptors(of: "/proc/loadavg")
        var tester: ProbeTester? = try ProbeTester(descriptor: descriptor)
        let held = Self.descriptors(of: "/proc/loadavg").subtracting(before)
        #expect(!held.isEmpty, "the instance opened no descriptor of /proc/loadavg")
        for fd in held {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { #expect(flags & FD_CLOEXEC != 0, "descriptor \(fd) is inherited by exec") }
        }

        // Samples read through the same descriptors: they report, and leave none behind.
        for _ in 0..<3 {
            let emitted = try #require(tester).sample()
            #expect(emitted.count == 1)
        }
        #expect(Self.descriptors(of: "/proc/loadavg").subtracting(before).subtracting(held).isEmpty)

        tester = nil
        #expect(Self.descriptors(of: "/proc/loadavg").intersection(held).isEmpty, "destroy left them open")
    }

    /// This process's descriptors that name `path` now.
    private static func descriptors(of path: String) -> Set<Int32> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            names.compactMap { name -> Int32? in
                guard let fd = Int32(name),
                    let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                    target == path
                else { return nil }
                return fd
            })
    }
}
