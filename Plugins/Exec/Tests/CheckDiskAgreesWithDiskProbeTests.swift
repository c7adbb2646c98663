import Foundation
import PathwatchTestSupport
import Testing

/// Debian's `check_disk` through the exec probe and the bundled `disk` probe, in one `pathwatch
/// once` of the real agent, on a tmpfs of known size in a private mount namespace: both read the
/// same statfs at the same moment (nothing writes between), so used and total must agree.
@Suite(
    .serialized, .onItsOwnThread,
    .enabled(
        if: ExecTesting.hasMonitoringPlugins && TestEnvironment.canUseNamespaces,
        "needs root and namespaces (a tmpfs), and \(ExecTesting.needsPlugins)"))
struct CheckDiskAgreesWithDiskProbeTests {
    @Test func checkDiskAndTheDiskProbeAgreeOnATmpfs() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-exec-disk")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // Searchable by the unprivileged user the agent runs as.
        chmod(dir.path, 0o755)
        let mount = dir.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: false)
        let mountPoint = mount.resolvingSymlinksInPath().path
        let config: [String: Any] = [
            "agent": ["name": "exec-disk", "interval": "10s", "plugin_dirs": [TestEnvironment.productsDirectory.path]],
            "probes": [
                ["id": "disk", "plugin": "disk", "timeout": "10s", "config": ["mounts": [mountPoint]]],
                [
                    "id": "nagios", "plugin": "exec", "timeout": "10s",
                    "config": [
                        "commands": [
                            [
                                "name": "disk",
                                "command": [
                                    ExecTesting.plugins + "/check_disk", "-w", "10%", "-c", "5%", "-p", mountPoint,
                                ],
                            ]
                        ]
                    ],
                ],
            ],
            "sinks": [["type": "stdout", "format": "json", "on": "every"]],
        ]
        let configFile = dir.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        chmod(configFile.path, 0o644)
        // 20 MiB of 64 MiB used: well clear of the thresholds, and not a round share of the size.
        let script = """
            mount -t tmpfs -o size=64M pathwatch-test "$MNT"
            fallocate -l 20MiB "$MNT/a"
            $RUNAS "$AGENT" once --config "$CFG" --format json
            """
        let result = try run(
            ["unshare", "-m", "--propagation", "private", "bash", "-euo", "pipefail", "-c", script],
            environment: [
                "MNT": mountPoint, "AGENT": TestEnvironment.pathwatchBinary.path, "CFG": configFile.path,
                "RUNAS": Unprivileged.command([]).joined(separator: " "),
            ],
            timeout: 120)
        #expect(result.status == 0, "once: \(result.status) \(result.stderr)")
        let document = try parseJSONObject(result.stdout)
        let checks = document["checks"] as? [[String: Any]] ?? []
        func check(_ id: String) throws -> [String: Any] {
            try #require(checks.first { $0["id"] as? String == id }, "no \(id) in \(checks.map { $0["id"] ?? "?" })")
        }
        let probe = try check("disk/\(mountPoint)")
        let exec = try check("nagios/disk")
        #expect(
            probe["state"] as? String == "ok" && exec["state"] as? String == "ok",
            "\(probe["message"] ?? "") / \(exec["message"] ?? "")")
        let message = exec["message"] as? String ?? ""
        #expect(message.hasPrefix("DISK OK - free space: \(mountPoint) 44MiB (68%"), "\(message)")
        let diskMetrics = try #require(probe["metrics"] as? [String: Any])
        let execMetrics = try #require(exec["metrics"] as? [String: Any])
        func number(_ metrics: [String: Any], _ name: String) throws -> Double {
            try #require((metrics[name] as? NSNumber)?.doubleValue, "no \(name) in \(metrics.keys.sorted())")
        }
        // check_disk's perfdata: '<mount>=<used>B;<warn>;<crit>;0;<total>', named from the mount.
        let used = try #require(
            execMetrics.keys.first { $0.hasSuffix("_mnt_bytes") }, "no used bytes in \(execMetrics.keys.sorted())")
        let total = used.replacingOccurrences(of: "_bytes", with: "_max_bytes")
        #expect(try number(execMetrics, used) == number(diskMetrics, "used_bytes"))
        #expect(try number(execMetrics, total) == number(diskMetrics, "size_bytes"))
        #expect(try number(diskMetrics, "size_bytes") == 64 * 1024 * 1024)
        #expect(try number(diskMetrics, "used_bytes") == 20 * 1024 * 1024)
        // The free space check_disk rounds to MiB in its message is the probe's avail, rounded.
        #expect(try (number(diskMetrics, "avail_bytes") / 1_048_576).rounded() == 44)
    }
}
