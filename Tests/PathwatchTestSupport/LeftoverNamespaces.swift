import Foundation

/// Namespaces a killed test run left behind. A test deletes what it creates in a `defer`, which
/// a SIGKILL or SIGTERM of the test process skips; the next run would then find veths, routes and
/// addresses of a dead run still configured. Every test namespace is named `pw…` with the pid of
/// the process that made it as its first digits (`pwcn4711n2`, `pwbw-4711-rate-s`), so the first
/// namespace a run creates deletes those whose process is gone. A live process's are left alone,
/// whoever runs it.
public enum LeftoverNamespaces {
    private static let swept: Void = sweepNow()

    /// Runs once per process, before its first namespace is made.
    public static func sweep() { _ = swept }

    /// Deletes every `pw…` namespace whose process has exited.
    public static func sweepNow() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        for name in names where name.hasPrefix("pw") {
            guard let pid = owner(of: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? run(["ip", "netns", "del", name])
        }
    }

    /// The first run of digits after `pw`: the pid of the process that named it.
    public static func owner(of name: String) -> pid_t? {
        let digits = name.dropFirst(2).drop { !$0.isASCII || !$0.isNumber }.prefix { $0.isASCII && $0.isNumber }
        return pid_t(digits)
    }
}
