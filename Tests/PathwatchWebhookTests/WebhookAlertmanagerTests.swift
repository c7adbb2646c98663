import Foundation
import PathwatchTestSupport
import Testing

/// The `alertmanager` format against a real Alertmanager (Debian's `prometheus-alertmanager`),
/// started on 127.0.0.1 with a throwaway configuration and storage, no clustering.
@Suite(.onItsOwnThread) struct WebhookAlertmanagerTests {
    /// Debian's `prometheus-alertmanager`, which `make test-deps` installs.
    static func unavailable() -> String? { Alertmanager.unavailable() }

    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = formatter.date(from: text) { return d }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    @Test(
        .enabled(if: unavailable() == nil, "needs prometheus-alertmanager (apt-get install -y prometheus-alertmanager)")
    )
    func aCriticalCheckIsAnActiveAlertThatStaysFiringAndIsResolvedOnRecovery() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // A short resolve_timeout: without the sink's re-sends the alert would end on its own.
        let manager = try Alertmanager(in: dir, resolveTimeout: "4s")
        let probeDir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(probeDir) }
        let stateFile = probeDir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-test", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "webhook", "url": "\(manager.api)/alerts", "format": "alertmanager", "resend_every": "1s",
                        "retry": {"initial": "100ms", "max": "1s"}}]}
            """, in: probeDir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }

        try "critical HTTP 503 in 41 ms\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let fired = try #require(agent.waitForLine(timeout: 10) { $0.contains(#""to":"critical""#) })
        let event = try parseJSONObject(fired.line)
        #expect(waitUntil(timeout: 20) { manager.alert(check: "api/c0") != nil }, "\(agent.errorOutput)")
        let alert = try #require(manager.alert(check: "api/c0"))
        #expect(
            alert["labels"] as? [String: String] == [
                "alertname": "PathwatchCheck", "check": "api/c0", "probe": "api", "agent": "web-test",
                "severity": "critical",
            ])
        #expect((alert["annotations"] as? [String: String])?["message"] == "HTTP 503 in 41 ms")
        #expect((alert["status"] as? [String: Any])?["state"] as? String == "active")
        #expect(Self.date(alert["startsAt"] as? String) == Self.date(event["at"] as? String))

        // Past the end Alertmanager gave it on arrival (one resolve timeout on), it is still firing,
        // thanks to the re-sends. Real time, up to that instant and a second beyond it: what is
        // tested is an absence, that the alert does not end when it would have without re-sends.
        let firstEnd = try #require(Self.date(alert["endsAt"] as? String), "\(alert)")
        _ = waitUntil(timeout: 30, interval: 0.1) { Date() > firstEnd.addingTimeInterval(1) }
        let still = try #require(manager.alert(check: "api/c0"), "the alert ended although the check is still critical")
        #expect((still["status"] as? [String: Any])?["state"] as? String == "active")
        #expect((Self.date(still["endsAt"] as? String) ?? .distantPast) > Date())
        #expect((Self.date(still["endsAt"] as? String) ?? .distantPast) > firstEnd, "a re-send moved its end on")
        #expect(Self.date(still["startsAt"] as? String) == Self.date(event["at"] as? String), "re-sends keep the start")

        try "ok recovered\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(agent.waitForLine(timeout: 10) { $0.contains(#""to":"ok""#) } != nil)
        #expect(waitUntil(timeout: 20) { manager.alert(check: "api/c0") == nil }, "recovery resolves the alert")
        #expect(manager.alerts().isEmpty)
    }
}
