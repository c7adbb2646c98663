import Foundation
import PathwatchTestSupport
import Testing

/// An event-driven plug-in whose handle_event never reads its descriptor (an eventfd left
/// signalled: Tests/Fixtures/plugins/event_probe.c) must not spin its thread, and the agent's
/// with it, unseen. In either isolation the agent throttles it to once a second, says so in the
/// probe's health and once in its log; when the plug-in drains it again, both clear.
@Suite(.serialized, .onItsOwnThread) struct UndrainedDescriptorTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path
    static let problem =
        "event descriptor stays readable after handle_event: the plug-in does not drain it; served once a second"

    @Test(arguments: ["process", "inline"])
    func anUndrainedDescriptorIsThrottledReportedAndClearedWhenDrained(isolation: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("event_probe.c", as: "eventprobe", into: dir)
        let drainNow = dir.appendingPathComponent("drain-now")
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s", "isolation": "\(isolation)"},
             "probes": [{"id": "ev", "plugin": "eventprobe", "config": {"drain": false, "drain_when": "\(drainNow.path)"}}],
             "sinks": [{"type": "file", "path": "status.json", "pretty": false}]}
            """, in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        let document = dir.appendingPathComponent("status.json")
        func probe() -> [String: Any]? {
            guard let text = try? String(contentsOf: document, encoding: .utf8), let doc = try? parseJSONObject(text)
            else { return nil }
            return (doc["probes"] as? [[String: Any]])?.first { $0["id"] as? String == "ev" }
        }
        func events() -> Double? {
            guard let text = try? String(contentsOf: document, encoding: .utf8), let doc = try? parseJSONObject(text)
            else { return nil }
            let check = (doc["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "ev/event" }
            return (check?["metrics"] as? [String: Any])?["events"] as? Double
        }

        _ = try waitFor("the probe's health to say its descriptor is not drained", timeout: 30) {
            probe()?["last_error"] as? String == Self.problem ? true : nil
        }
        #expect(agent.isRunning, "\(agent.errorOutput.suffix(2_000))")
        let tree = processTree(agent.processIdentifier)
        if isolation == "process" { #expect(tree.count >= 2, "no plug-in child under the agent: \(tree)") }
        // CPU of the agent and its child over two seconds once throttled: a rate over a window,
        // so a fixed interval. Spinning, it is 50–100 % of a core; throttled, next to nothing.
        let before = tree.compactMap(ProcessUsage.cpuSeconds).reduce(0, +)
        let eventsBefore = events() ?? 0
        Thread.sleep(forTimeInterval: 2)
        let used = tree.compactMap(ProcessUsage.cpuSeconds).reduce(0, +) - before
        #expect(used / 2 < 0.2, "\(isolation): \(Int(used / 2 * 100)) % of a core while throttled")
        // Still served, about once a second, not dropped.
        _ = try waitFor("events to be served while throttled", timeout: 10) {
            (events() ?? 0) > eventsBefore ? true : nil
        }
        #expect(
            occurrences(of: "probe ev: \(Self.problem)", in: agent.errorOutput) == 1,
            "\(agent.errorOutput.suffix(2_000))")

        // The plug-in drains it again: the throttle and the problem clear.
        try Data().write(to: drainNow)
        _ = try waitFor("the probe's health to clear", timeout: 30) { () -> Bool? in
            guard let p = probe() else { return nil }
            return p["last_error"] == nil || p["last_error"] is NSNull ? true : nil
        }
        #expect(
            agent.errorOutput.contains("probe ev: its event descriptor drains again"),
            "\(agent.errorOutput.suffix(2_000))")
        #expect(agent.isRunning)
    }

    func occurrences(of needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }
}
