import Foundation
import PathwatchTestSupport
import Testing

/// The package as an operator meets it: `make deb` installed with apt into a Debian 12 root,
/// booted under its own systemd (systemd-nspawn, a private network with only loopback), and
/// checked from a shell inside with systemctl, journalctl, curl, `pathwatch status` and a real
/// browser — the service as shipped (its own user, no capabilities, the unit's sandbox and
/// system-call filter), with only the drop-ins an operator would write. Nothing leaves the
/// container's network: every address the agent or the test talks to is 127.0.0.1 inside it.
///
/// One boot serves every check (a boot costs more than all the checks together); each check is a
/// `#expect` of its own that names what it saw, so one failure does not hide the others. The
/// figures an operator would ask about (start to READY, reload, a watchdog restart, stop) are
/// printed on one line, `system tier figures: …`.
@Suite(.enabled(if: systemTierUnavailable == nil, "\(systemTierUnavailable ?? "")"), .onItsOwnThread)
struct SystemTierTests {
    /// The http sink the installed config.json enables (README: one fixed port on loopback).
    static let agentURL = "http://127.0.0.1:8470"
    /// The secret only the service's environment carries (its drop-in), referenced by a conf.d webhook.
    static let hookToken = "pw-system-tier-4f1c9d"

    @Test func thePackageBootedUnderSystemd() throws {
        let began = Date()
        var figures = Figures()
        var timeline: [String] = []
        // Each check records its own failures; one that cannot go on (it throws) is recorded
        // and the next one runs. How long each took is printed at the end (where the time goes).
        func step<T>(_ name: String, _ body: () throws -> T) -> T? {
            let start = Date()
            defer { timeline.append(String(format: "%@ %.1f s", name, Date().timeIntervalSince(start))) }
            do {
                return try body()
            } catch {
                Issue.record(error)
                return nil
            }
        }
        defer {
            figures.total = Date().timeIntervalSince(began)
            print(figures.line)
            print("system tier steps: " + timeline.joined(separator: ", "))
        }
        guard let deb = step("make deb", { try Distribution.sharedDeb() }),
            let root = step("root with the package", { try DebianRoot.copy(named: "system", installing: deb) })
        else { return }
        defer { _ = step("remove the root") { DebianRoot.remove(root) } }
        // The same build packaged again with a higher version, for the upgrade.
        let upgradeVersion = "\(Distribution.version)+1"
        let upgradeFolder = DebianRoot.folder.appendingPathComponent("upgrade-\(getpid())")
        defer { try? FileManager.default.removeItem(at: upgradeFolder) }
        let upgrade = step("make the upgrade deb") {
            try Distribution.makeDeb(into: upgradeFolder, version: upgradeVersion)
        }
        try Self.prepare(root)

        guard let container = step("boot", { try BootedContainer(root: root) }) else { return }
        defer { _ = step("power off") { container.shutDown() } }
        let host = Operator(container: container, root: root)
        let failedUnits = try container.shell("systemctl --failed --no-legend --plain").stdout
        #expect(container.bootState == "running", "failed units: \(failedUnits)")
        let bootLog = try container.shell("systemctl status pathwatch; journalctl -b -u pathwatch --no-pager").stdout
        try #require(
            try host.show("ActiveState")["ActiveState"] == "active", "pathwatch did not start at boot:\n\(bootLog)")

        step("11 security") { try host.securityExposure() }
        step("15 remote_write") { try host.writesRemotelyWithoutRecommendations() }
        figures.stop = step("7 stop") { try host.stopsCleanly() }
        figures.start = step("1 start") { try host.startsAndReportsReady() }
        figures.firstEvent = step("2 endpoints") { try host.servesEveryEndpoint() } ?? nil
        step("2 browser") { try host.showsThePathBannerInABrowser() }
        step("3 status") { try host.answersStatusWithoutTheServiceEnvironment() }
        step("4 isolation") { try host.runsAProcessIsolatedProbe() }
        step("19 exec") { try host.runsAnExecCheckUnderTheUnit() }
        figures.hungStart = step("23 hung exec start") { try host.startsWithoutWaitingForAHungCommand() } ?? nil
        step("21 hostile plug-in") { try host.refusesAHostilePluginUnderTheUnit() }
        step("9 disk") { try host.measuresTheMountsDfShows() }
        step("8 journal") { try host.writesOneJournalLinePerChange() }
        figures.reload = step("5 reload") { try host.reloadsANewFragment() } ?? nil
        step("18 reload under scrape") { try host.keepsItsSeriesAcrossReloadsUnderPrometheus() }
        step("22 reload of the http sink") { try host.servesTheCurrentDocumentAcrossReloadsOfItsOwnEntry() }
        step("20 tls") { try host.servesTLSWithAKeyOnlyTheServiceReads() }
        step("10 ping") { try host.pingsWithTheDocumentedDropIn() }
        step("16 textfile") { try host.feedsNodeExportersTextfileCollector() }
        if let upgrade {
            step("13 quiet edges") {
                try host.staysQuietAcrossStopRestartAndUpgrade(to: upgrade, version: upgradeVersion)
            }
        }
        step("14 configuration error") { try host.staysFailedOnAConfigurationError() }
        figures.watchdog = step("6 watchdog") { try host.restartsAFrozenAgent() } ?? nil
        step("17 no runtime noise") { try host.logsNoThreadPriorityFailures() }
        step("12 remove") { try host.removesAndPurges() }
    }

    /// What the operator puts in place before the first boot: a conf.d webhook whose header needs
    /// a secret only the service's drop-in sets, a remote_write sink (libsnappy, on a host
    /// installed without recommendations), a probe in process isolation, and a ping probe (which
    /// needs the ping drop-in, added later).
    static func prepare(_ root: URL) throws {
        try write(
            root, "etc/systemd/system/pathwatch.service.d/50-hook-token.conf",
            """
            [Service]
            Environment=PW_HOOK_TOKEN=\(hookToken)

            """)
        // Port 9 on loopback: nothing listens, so deliveries fail and wait in the queue.
        try write(
            root, "etc/pathwatch/conf.d/20-hook.json",
            """
            {"sinks": [{"type": "webhook", "url": "http://127.0.0.1:9/hook", "on": "change",
                        "headers": {"Authorization": "Bearer ${env:PW_HOOK_TOKEN}"}}]}

            """)
        // Port 9 again: the sink opens libsnappy when its configuration is checked, at start.
        try write(
            root, "etc/pathwatch/conf.d/25-remote-write.json",
            """
            {"sinks": [{"type": "remote_write", "url": "http://127.0.0.1:9/api/v1/write"}]}

            """)
        // Thresholds no host reaches: the check is about where the plug-in runs, not the load.
        try write(
            root, "etc/pathwatch/conf.d/30-isolated.json",
            """
            {"probes": [{"id": "iso", "plugin": "loadavg", "isolation": "process", "interval": "1s",
                         "config": {"warn_per_cpu": 1000, "crit_per_cpu": 2000}}]}

            """)
        try write(
            root, "etc/pathwatch/conf.d/40-ping.json",
            """
            {"probes": [{"id": "ping", "plugin": "ping", "interval": "2s",
                         "config": {"targets": [{"name": "lo", "host": "127.0.0.1", "count": 3, "interval": "100ms", "timeout": "500ms"}]}}]}

            """)
    }

    /// Writes a file into the root (mode 0644, folders 0755): before the boot, or while it runs
    /// (the container's `/` is this folder).
    static func write(_ root: URL, _ path: String, _ text: String) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        try text.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    }
}

/// Why the system tier cannot run here (no release build or man page, not root, no
/// systemd-nspawn or debootstrap), or nil.
let systemTierUnavailable: String? =
    Distribution.missingInputs ?? BootedContainer.missingTools ?? DebianRoot.missingTools

/// The figures of one run, for the README's benchmark table.
struct Figures {
    var start: Double?
    var hungStart: Double?
    var reload: Double?
    var watchdog: (seconds: Double, restartSec: String)?
    var stop: Double?
    var firstEvent: Double?
    var total: Double?

    var line: String {
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "not measured" }
        return "system tier figures: systemctl start → READY \(seconds(start)); "
            + "restart with an exec command hung until its 10 s timeout → READY \(seconds(hungStart)); systemctl reload \(seconds(reload)); "
            + "watchdog restart (WatchdogSec=3s, RestartSec=\(watchdog?.restartSec ?? "?"); SIGSTOP → new MainPID) \(seconds(watchdog?.seconds)); "
            + "systemctl stop \(seconds(stop)); /events first event \(seconds(firstEvent)); the whole tier \(seconds(total))"
    }
}
