import Foundation
import Synchronization

/// A private network namespace for link-state and netlink tests: created with `ip netns add`
/// under a name unique to this process, and deleted (with everything inside) by `delete()`,
/// which callers run in a `defer` so a failing test still cleans up.
public final class LinkStateNamespace: @unchecked Sendable {
    private static let counter = Atomic<Int>(0)

    public let name: String
    private let deleted = Atomic<Bool>(false)

    /// Creates `pw<label><pid>n<k>`; namespace names become file names, so keep `label` short.
    public init(_ label: String) throws {
        LeftoverNamespaces.sweep()
        let serial = Self.counter.add(1, ordering: .relaxed).newValue
        name = "pw\(label)\(getpid())n\(serial)"
        try Self.check(run(["ip", "netns", "add", name]), "ip netns add \(name)")
        // Loopback up, as on any host; IPv6 off so no router or neighbour chatter moves counters.
        try exec("ip link set lo up; sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
    }

    /// Deletes the namespace; safe to call twice.
    public func delete() {
        guard !deleted.exchange(true, ordering: .relaxed) else { return }
        _ = try? run(["ip", "netns", "del", name])
    }

    deinit { delete() }

    /// Runs `ip -n NS <arguments>` and fails the test with its stderr when it fails.
    @discardableResult
    public func ip(_ arguments: String) throws -> String {
        let argv = ["ip", "-n", name] + arguments.split(separator: " ").map(String.init)
        return try Self.check(run(argv), argv.joined(separator: " ")).stdout
    }

    /// `ip -n NS -j <arguments>`, parsed.
    public func ipJSON(_ arguments: String) throws -> [[String: Any]] {
        let text = try ip("-j " + arguments)
        guard let array = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else {
            throw TestFailure("ip -j \(arguments) did not print a JSON array: \(text.prefix(200))")
        }
        return array
    }

    /// Runs a bash script inside the namespace (`ip netns exec NS bash -c`).
    @discardableResult
    public func exec(_ script: String, timeout: Double = 60) throws -> String {
        try Self.check(
            run(["ip", "netns", "exec", name, "bash", "-euo", "pipefail", "-c", script], timeout: timeout),
            "in \(name): \(script)"
        ).stdout
    }

    /// Runs `body` on the calling thread while that thread is inside the namespace, then moves
    /// the thread back. Sockets opened in `body` stay in the namespace for their whole life,
    /// which is how a test opens a netlink socket there from its own process. `body` must not
    /// suspend or hop threads.
    public func entered<T>(_ body: () throws -> T) throws -> T {
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        guard original >= 0 else { throw TestFailure("cannot open this thread's network namespace: errno \(errno)") }
        defer { close(original) }
        let target = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        guard target >= 0 else { throw TestFailure("cannot open namespace \(name): errno \(errno)") }
        defer { close(target) }
        guard Self.setns(target, Self.cloneNewNet) == 0 else {
            throw TestFailure("setns into \(name) failed: errno \(errno)")
        }
        defer {
            if Self.setns(original, Self.cloneNewNet) != 0 {
                fatalError("could not move the test thread back to its network namespace")
            }
        }
        return try body()
    }

    /// Mounts a sysfs instance that shows this namespace's interfaces at `path` (sysfs takes the
    /// network namespace of the process that mounts it). Undo with `unmount(_:)`.
    public func mountSysfs(at path: String) throws {
        try Self.check(
            run(["nsenter", "--net=/run/netns/\(name)", "mount", "-t", "sysfs", "sysfs", path]),
            "mount sysfs for \(name)")
    }

    public func unmount(_ path: String) {
        _ = try? run(["umount", "-l", path])
    }

    private static let cloneNewNet: Int32 = 0x4000_0000
    private typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
    // Glibc's module map does not export setns(2); it is in libc all the same.
    private static let setns: SetNamespace = {
        guard let symbol = dlsym(nil, "setns") else { fatalError("libc has no setns") }
        return unsafeBitCast(symbol, to: SetNamespace.self)
    }()

    @discardableResult
    private static func check(_ result: ProcessResult, _ what: String) throws -> ProcessResult {
        guard result.status == 0, !result.timedOut else {
            throw TestFailure("\(what) failed (status \(result.status)): \(result.stderr)")
        }
        return result
    }
}
