import Foundation
import PathwatchTestSupport
import Testing

/// The edges of the service's life, where a first week under systemd found false signals: a stop,
/// a restart and an upgrade must say nothing is wrong when nothing is, and a configuration the
/// agent cannot start with must leave the unit failed, saying why, rather than restarting forever.
extension Operator {
    /// A configuration whose checks are all ok wherever the tier runs: one probe in process
    /// isolation with thresholds no host reaches, and the sinks the checks read. In a folder of
    /// its own, so that the conf.d fragments beside the installed configuration are not read.
    static let quietConfig = """
        {"agent": {"plugin_dirs": ["/usr/lib/pathwatch/plugins"], "state_dir": "/var/lib/pathwatch"},
         "probes": [{"id": "iso", "plugin": "loadavg", "isolation": "process", "interval": "1s",
                     "config": {"warn_per_cpu": 1000, "crit_per_cpu": 2000}}],
         "sinks": [{"type": "http", "listen": "127.0.0.1:8470"},
                   {"type": "file", "path": "/var/lib/pathwatch/status.json", "on": "every"}]}

        """

    // MARK: 13. stop, restart and upgrade without false warnings

    /// With the quiet configuration and its plug-in child running: `systemctl stop`, `start`,
    /// `restart` and an upgrade to `upgrade` (the package rebuilt with a higher version) leave no
    /// line at warning or worse in the unit's journal. systemd signalling the child along with
    /// the agent (KillMode=control-group) would end it mid-sample, and the agent would report
    /// "plug-in crashed: SIGTERM" at each of them.
    func staysQuietAcrossStopRestartAndUpgrade(to upgrade: URL, version: String) throws {
        try SystemTierTests.write(root, "etc/pathwatch-quiet/config.json", Self.quietConfig)
        try SystemTierTests.write(
            root, "etc/systemd/system/pathwatch.service.d/80-quiet.conf",
            """
            [Service]
            Environment=PATHWATCH_CONFIG=/etc/pathwatch-quiet/config.json

            """)
        defer {
            _ = try? container.shell(
                "rm -rf /etc/pathwatch-quiet /etc/systemd/system/pathwatch.service.d/80-quiet.conf")
            _ = try? container.shell("systemctl daemon-reload && systemctl restart pathwatch")
        }
        try container.must("systemctl daemon-reload && systemctl restart pathwatch")
        try waitForTheIsolatedChild("after switching to the quiet configuration")
        let before = try cursor()

        let stop = try container.shell("systemctl stop pathwatch")
        #expect(stop.status == 0, "systemctl stop: \(stop.stderr)")
        try container.must("systemctl start pathwatch")
        try waitForTheIsolatedChild("after systemctl start")
        let restart = try container.shell("systemctl restart pathwatch")
        #expect(restart.status == 0, "systemctl restart: \(restart.stderr)")
        try waitForTheIsolatedChild("after systemctl restart")

        let pid = try mainPID()
        // Into root's home: the booted system's /tmp is a tmpfs of its own, which hides the root's.
        let copy = root.appendingPathComponent("root/\(upgrade.lastPathComponent)")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: upgrade, to: copy)
        let apt = try container.shell(
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /root/\(upgrade.lastPathComponent)",
            timeout: 300)
        #expect(apt.status == 0, "the upgrade: \(apt.stdout)\(apt.stderr)")
        let installed = try container.must("dpkg-query -W -f '${Version}' pathwatch")
        #expect(installed == version, "installed after the upgrade: \(installed)")
        try waitForTheIsolatedChild("after the upgrade")
        #expect(try mainPID() != pid, "the upgrade did not restart the agent (MainPID \(pid) before and after)")

        let entries = try journal(after: before)
        let loud = entries.filter { Int($0["PRIORITY"] as? String ?? "") ?? 7 <= 4 }.map(Self.message)
        #expect(
            loud.isEmpty,
            "journalctl -u pathwatch -p warning across stop, start, restart and upgrade:\n\(loud.joined(separator: "\n"))"
        )
        let crashes = entries.map(Self.message).filter { $0.contains("crashed") }
        #expect(
            crashes.isEmpty,
            "crash reports across stop, start, restart and upgrade:\n\(crashes.joined(separator: "\n"))")
    }

    /// Waits until the agent runs and its child for the isolated probe `iso` serves it (the
    /// probe's check is ok), so that a stop finds the child in the middle of its work.
    func waitForTheIsolatedChild(_ when: String) throws {
        _ = try waitFor("the agent's plug-in child for `iso` \(when)", timeout: 60, interval: 0.2) { () -> Bool? in
            let pid = try mainPID()
            guard pid > 0, try show("ActiveState")["ActiveState"] == "active" else { return nil }
            let children = try container.shell("ps --ppid \(pid) -o args=").stdout
            guard children.contains("--plugin") else { return nil }
            return try liveDocument()["checks"].flatMap { $0 as? [[String: Any]] }?
                .contains { $0["id"] as? String == "iso/load" && $0["state"] as? String == "ok" } == true ? true : nil
        }
    }

    // MARK: 14. a configuration error

    /// A conf.d fragment the agent refuses: `systemctl restart` fails, the unit ends `failed`
    /// (exit status 78, no automatic restart: RestartPreventExitStatus=78), and `systemctl status`
    /// shows the agent's reason. Restarting could not mend the file; a restart every RestartSec
    /// would only fill the journal. Fixed, the unit starts again.
    func staysFailedOnAConfigurationError() throws {
        let fragment = "etc/pathwatch/conf.d/90-broken.json"
        try SystemTierTests.write(root, fragment, #"{"probes": [{"id": "broken"}]}"# + "\n")
        defer {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(fragment))
            _ = try? container.shell("systemctl reset-failed pathwatch; systemctl start pathwatch")
        }
        let restart = try container.shell("systemctl restart pathwatch")
        #expect(restart.status != 0, "systemctl restart with a broken fragment succeeded")
        do {
            // `failed` is final: systemd schedules no restart from it. A unit that will restart
            // is `activating` (auto-restart) between its attempts instead, and never gets here.
            let state = try waitFor("the unit to end failed", timeout: 60, interval: 0.2) { () -> [String: String]? in
                let state = try show("ActiveState", "SubState", "Result", "NRestarts", "ExecMainStatus")
                return state["ActiveState"] == "failed" ? state : nil
            }
            #expect(
                state["NRestarts"] == "0" && state["ExecMainStatus"] == "78" && state["Result"] == "exit-code",
                "\(state)")
        } catch {
            Issue.record(error, "now: \((try? show("ActiveState", "SubState", "NRestarts")) ?? [:])")
        }
        let status = try container.shell("SYSTEMD_COLORS=0 systemctl status --no-pager --lines=20 pathwatch").stdout
        #expect(
            status.contains("configuration error: /\(fragment): probes[0]") && status.contains("status=78"),
            "systemctl status does not say why:\n\(status)")

        try FileManager.default.removeItem(at: root.appendingPathComponent(fragment))
        let start = try container.shell("systemctl start pathwatch")
        let active = try show("ActiveState")["ActiveState"]
        #expect(
            start.status == 0 && active == "active",
            "with the fragment gone, systemctl start: \(start.stderr); the unit is \(active ?? "?")")
    }

    // MARK: 15. remote_write on a host installed without recommendations

    /// The root's package was installed with --no-install-recommends, and a conf.d fragment adds
    /// a remote_write sink, which opens libsnappy: apt brought it in as a dependency, and the
    /// agent came up at boot with the sink and without an automatic restart.
    func writesRemotelyWithoutRecommendations() throws {
        let snappy = try container.shell("dpkg-query -W -f '${Status}' libsnappy1v5").stdout
        #expect(snappy == "install ok installed", "libsnappy1v5: \(snappy)")
        let state = try show("ActiveState", "NRestarts")
        #expect(state["ActiveState"] == "active" && state["NRestarts"] == "0", "\(state)")
        do {
            let sinks = try liveDocument()["sinks"] as? [[String: Any]] ?? []
            #expect(sinks.contains { $0["type"] as? String == "remote_write" }, "the agent's sinks: \(sinks)")
        } catch {
            Issue.record(error)
        }
    }
}
