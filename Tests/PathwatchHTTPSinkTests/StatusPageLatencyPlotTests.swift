import Foundation
import PathwatchTestSupport
import Testing

/// The page's plots follow what the plug-ins declared, not their metrics' names: the shipped
/// `config.json` (link, disk, bandwidth, load) plus a ping probe and a reachability probe, the
/// real agent, and headless Chromium. The latency plot shows the round trips and the responses,
/// and never the bandwidth probe's 5 s sampling window (`window_ms`), which a plot chosen by the
/// `_ms` ending drew as a latency.
@Suite("Latency plot in Chromium", .serialized, .onItsOwnThread)
struct StatusPageLatencyPlotTests {
    @Test(.needsChromium) func theLatencyPlotShowsRoundTripsAndResponsesNeverASamplingWindow() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        for product in [
            "pathwatch_linkstate", "pathwatch_disk", "pathwatch_bandwidth", "pathwatch_loadavg", "pathwatch_ping",
            "pathwatch_reachability",
        ] {
            try FileManager.default.copyItem(
                at: TestEnvironment.plugin(product), to: dir.appendingPathComponent("lib\(product).so"))
        }
        // The shipped configuration as it stands, with its folders and port made the test's, and
        // two probes added: ping to this host's loopback, and a request to the agent's own
        // /healthz. Root, for ping's raw socket: Debian's default ping_group_range lets no
        // group use unprivileged ICMP sockets.
        let shipped = try JSONSerialization.jsonObject(
            with: Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("config.json")))
        let agent = try LiveAgent(in: dir, asRoot: true) { port in
            var config = shipped as! [String: Any]
            var agentSection = config["agent"] as! [String: Any]
            agentSection["plugin_dirs"] = ["."]
            agentSection["state_dir"] = "queues"
            agentSection["interval"] = "1s"
            config["agent"] = agentSection
            var probes = config["probes"] as! [[String: Any]]
            probes.append([
                "id": "ping", "plugin": "ping",
                "config": ["targets": [["name": "lo", "host": "127.0.0.1", "count": 2, "interval": "50ms"]]],
            ])
            probes.append([
                "id": "api", "plugin": "reachability",
                "config": ["targets": [["name": "self", "url": "http://127.0.0.1:\(port)/healthz"]]],
            ])
            config["probes"] = probes
            config["sinks"] = (config["sinks"] as! [[String: Any]]).map { sink in
                var sink = sink
                if sink["type"] as? String == "http" { sink["listen"] = "127.0.0.1:\(port)" }
                if sink["type"] as? String == "file" { sink["path"] = dir.appendingPathComponent("status.json").path }
                return sink
            }
            return String(decoding: try! JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        }
        defer { agent.stop() }
        // The bandwidth probe reports its window once it has two readings.
        #expect(
            waitUntil(timeout: 30) { ((try? agent.request("/status").body) ?? "").contains("\"window_ms\"") },
            "no window_ms reported")

        let browser = try Browser()
        defer { browser.close() }
        try browser.open(agent.base + "/")
        let legend = try #require(
            try browser.wait(
                for: #"""
                    (() => { const items = [...document.querySelectorAll("#plot-latency .legend li .label")].map((li) => li.textContent);
                             return items.includes("ping/lo") && items.includes("api/self") && items; })()
                    """#) as? [String])
        #expect(Set(legend) == ["ping/lo", "api/self"], "the latency plot shows \(legend)")
        #expect(!legend.contains { $0.hasPrefix("bw/") })
        let report = try browser.report()
        #expect(report.exceptions.isEmpty, "\(report.exceptions)")
    }
}
