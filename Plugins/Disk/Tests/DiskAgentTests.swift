import Foundation
import PathwatchTestSupport
import Testing

/// The acceptance tests: the real agent loads the real plug-in and reports on a real tmpfs of
/// known size in a private mount namespace; its numbers must equal df's, not approximate them.
@Suite(.serialized) struct DiskAgentTests {
    static let rootOnly = TestEnvironment.canUseNamespaces

    @Test(.enabled(if: rootOnly, Comment(rawValue: TestEnvironment.needsRootReason)))
    func tmpfsFilledPastEachThresholdMatchesDfAtEveryStep() throws {
        let usage = "usage", full = "full"
        // Two probes on one mount: percentages (warn 50, crit 75) and the storage-full check
        // alone (min_free 8 MiB, percentages out of the way at 100).
        let h = try DiskAgentHarness { mount in
            [
                ["id": usage, "plugin": "disk", "timeout": "10s",
                 "config": ["mounts": [mount], "warn_used_percent": 50, "crit_used_percent": 75]],
                ["id": full, "plugin": "disk", "timeout": "10s",
                 "config": ["mounts": [mount], "warn_used_percent": 100, "crit_used_percent": 100, "min_free": "8MiB"]],
            ]
        }
        defer { h.cleanUp() }
        let steps = try h.run(
            """
            mount -t tmpfs -o size=64M,nr_inodes=4096 pathwatch-test "$MNT"
            step empty
            fallocate -l 40MiB "$MNT/a"; step warning
            fallocate -l 10MiB "$MNT/b"; step critical
            fallocate -l 10MiB "$MNT/c"; step minfree
            mount -o remount,ro "$MNT"; step readonly
            """)
        let expected: [(step: String, exit: Int32, usage: String, full: String)] = [
            ("empty", 0, "ok", "ok"),
            ("warning", 1, "warning", "ok"),
            ("critical", 2, "critical", "ok"),
            ("minfree", 2, "critical", "critical"),
            ("readonly", 2, "critical", "critical"),
        ]
        for (name, exit, usageState, fullState) in expected {
            let step = try #require(steps[name], "step \(name) did not run")
            #expect(step.exitStatus == exit, "\(name): exit \(step.exitStatus), stderr: \(step.stderr)")
            let usageCheck = try step.check("\(usage)/\(h.mountPoint)")
            let fullCheck = try step.check("\(full)/\(h.mountPoint)")
            #expect(usageCheck["state"] as? String == usageState, "\(name): \(usageCheck["message"] ?? "")")
            #expect(fullCheck["state"] as? String == fullState, "\(name): \(fullCheck["message"] ?? "")")
            for check in [usageCheck, fullCheck] {
                let metrics = try #require(check["metrics"] as? [String: Any])
                #expect(DfRow(metrics: metrics) == step.df, "\(name): probe \(metrics) vs df \(step.df)")
                #expect((metrics["readonly"] as? NSNumber)?.intValue == (name == "readonly" ? 1 : 0))
                let labels = check["labels"] as? [String: String]
                #expect(labels == ["mount": h.mountPoint, "fstype": "tmpfs", "device": "pathwatch-test"])
            }
        }
        // The size is the one asked for, so df and the probe are not merely agreeing on nonsense.
        #expect(steps["empty"]?.df.size == 64 * 1024 * 1024)
        #expect(try steps["warning"]?.check("\(usage)/\(h.mountPoint)")["message"] as? String == "warning: 63% used (warn 50%)")
        #expect(try steps["critical"]?.check("\(usage)/\(h.mountPoint)")["message"] as? String == "critical: 79% used (crit 75%)")
        #expect(try steps["minfree"]?.check("\(full)/\(h.mountPoint)")["message"] as? String == "critical: 4 MiB free, below min_free 8 MiB")
        #expect(try steps["readonly"]?.check("\(full)/\(h.mountPoint)")["message"] as? String
            == "critical: read-only; 4 MiB free, below min_free 8 MiB")
    }
}
