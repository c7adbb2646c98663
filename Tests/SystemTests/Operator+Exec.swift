import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 19. an exec check under the unit

    /// Debian's check_dummy (the host's binary, copied in: it needs libc alone, and the root has
    /// no monitoring-plugins package) and a shell script in argv, run by the exec plug-in under
    /// the shipped unit's sandbox and system-call filter: their states and messages reach the
    /// status document, and the script runs as the service's user.
    func runsAnExecCheckUnderTheUnit() throws {
        let plugin = root.appendingPathComponent("usr/lib/nagios/plugins/check_dummy")
        try FileManager.default.createDirectory(
            at: plugin.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: plugin.path) {
            try FileManager.default.copyItem(atPath: "/usr/lib/nagios/plugins/check_dummy", toPath: plugin.path)
        }
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/50-exec.json",
            """
            {"probes": [{"id": "nagios", "plugin": "exec", "interval": "1s", "config": {"commands": [
                {"name": "dummy", "command": ["/usr/lib/nagios/plugins/check_dummy", "1", "hello"]},
                {"name": "whoami", "command": ["/bin/sh", "-c", "echo \\"OK - as $(id -un) | n=1;2;3\\""]}]}}]}

            """)
        try container.must("systemctl reload pathwatch")
        let document = try waitForDocument("the exec checks nagios/dummy and nagios/whoami") {
            $0.checks["nagios/dummy"]?["state"] != nil && $0.checks["nagios/whoami"]?["state"] != nil
        }
        let dummy = document.checks["nagios/dummy"] ?? [:]
        let whoami = document.checks["nagios/whoami"] ?? [:]
        #expect(dummy["state"] as? String == "warning" && dummy["message"] as? String == "WARNING: hello", "\(dummy)")
        #expect(whoami["state"] as? String == "ok" && whoami["message"] as? String == "OK - as pathwatch", "\(whoami)")
        let metrics = whoami["metrics"] as? [String: Any] ?? [:]
        #expect(
            (metrics["n"] as? NSNumber)?.doubleValue == 1 && (metrics["n_crit"] as? NSNumber)?.doubleValue == 3,
            "\(metrics)")
        #expect(document.probes["nagios"]?["isolation"] as? String == "process", "\(document.probes["nagios"] ?? [:])")
    }

    // MARK: 23. a hung exec command does not hold the start

    /// An exec command that hangs until its timeout (10 s) does not hold `systemctl restart`:
    /// READY comes after `agent.ready_timeout` (2 s), and `systemctl status` names the probe
    /// still awaited. Had READY waited for every first sample, the hung probe would have
    /// reported (its timeout) by the time the restart returned, and be awaited no more. Before,
    /// every start and restart took 10.3 s.
    func startsWithoutWaitingForAHungCommand() throws -> Double? {
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/51-hung.json",
            """
            {"probes": [{"id": "hung", "plugin": "exec", "interval": "30s", "timeout": "10s", "config": {"commands": [
                {"name": "sleep", "command": ["/bin/sleep", "30"]}]}}]}

            """)
        defer { _ = try? container.shell("rm -f /etc/pathwatch/conf.d/51-hung.json; systemctl reload pathwatch") }
        let (restart, seconds) = try timed("systemctl restart pathwatch")
        let status = try container.shell("systemctl status pathwatch --no-pager").stdout
        #expect(restart.status == 0, "systemctl restart: \(restart.stderr)")
        #expect(try show("ActiveState")["ActiveState"] == "active", "\(status)")
        #expect(status.contains("waiting for first samples: hung"), "systemctl status:\n\(status)")
        return seconds
    }
}
