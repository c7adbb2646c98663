import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Counters from `/proc/net/dev`, the fallback when netlink is unavailable. The file has no
/// ifindex, so it is read from `<sysfs>/<ifname>/ifindex` for each selected interface, which
/// lets a re-created interface be told apart even when its new counters happen to be larger.
package final class ProcNetDevSource: CounterSource {
    package let kind = "procfs"
    package let width: CounterWidth
    let path: String
    let sysfsPath: String
    private var buffer: [UInt8] = []

    package init(path: String, sysfsPath: String, width: CounterWidth = ProcNetDevSource.kernelCounterWidth()) {
        self.path = path
        self.sysfsPath = sysfsPath
        self.width = width
    }

    package func read(selecting selected: (String) -> Bool) throws -> CounterSnapshot {
        let before = MonotonicInstant.now()
        try KernelFile.readAll(path, into: &buffer)
        let after = MonotonicInstant.now()
        var readings: [InterfaceReading]
        do {
            readings = try ProcNetDevParser.parse(buffer).filter { selected($0.name) }
        } catch {
            throw ProbeSampleError("\(path): \(error)")
        }
        for i in readings.indices {
            readings[i].index = KernelFile.attribute("\(sysfsPath)/\(readings[i].name)/ifindex").flatMap { Int32($0) }
        }
        return CounterSnapshot(readings: readings, time: .midpoint(before, after))
    }

    /// `/proc/net/dev` prints `unsigned long` driver counters, which are 32 bits on a 32-bit
    /// kernel. uname(2) names the kernel's machine, not this process's, so a 32-bit agent on a
    /// 64-bit kernel still gets 64-bit treatment.
    package static func kernelCounterWidth() -> CounterWidth {
        var names = utsname()
        guard uname(&names) == 0 else { return .bits64 }
        let machine = withUnsafeBytes(of: &names.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return machineHas64BitCounters(machine) ? .bits64 : .bits32Wrapping
    }

    /// 64-bit machines name themselves with "64" (x86_64, aarch64, ppc64le, riscv64, ...), except
    /// s390x and alpha. The "64" is looked for in the name's bytes: `String.contains` of a String
    /// is the regex library's, set up at its first use, a cost the probe's first sample paid.
    static func machineHas64BitCounters(_ machine: String) -> Bool {
        let bytes = Array(machine.utf8)
        let has64 = bytes.indices.dropLast().contains {
            bytes[$0] == UInt8(ascii: "6") && bytes[$0 + 1] == UInt8(ascii: "4")
        }
        return has64 || machine == "s390x" || machine == "alpha"
    }
}
