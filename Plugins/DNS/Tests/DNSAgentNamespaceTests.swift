import Foundation
import PathwatchTestSupport
import Testing

/// The agent, run as an ordinary user in the host namespace, with a link probe, a connectivity
/// check by address, a ping of the gateway and the dns probe: when the ISP's resolver stops or
/// fails while the gateway still answers, the path says DNS is what broke, in one alert.
@Suite(
    .serialized, .onItsOwnThread,
    .enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
final class DNSAgentNamespaceTests {
    /// The probes' interval and the dns probe's wait: a state must show within one interval of
    /// the sample that first sees it.
    static let interval = 1.0
    static let dnsTimeout = 0.8

    let topology: DNSTopology
    var processes: [BackgroundProcess] = []

    init() throws { topology = try DNSTopology() }

    deinit {
        for process in processes { _ = process.stop() }
        topology.delete()
    }

    /// The connectivity check answers in milliseconds; its generous timeout keeps a busy
    /// machine's slow scheduling from failing it while the resolver is what the test breaks.
    func config() throws -> URL {
        let directory = topology.directory
        return try writeConfig(
            """
            {"agent": {"name": "dns-test", "interval": "1s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(directory.path)/state"},
             "probes": [
               {"id": "link", "plugin": "linkstate"},
               {"id": "net", "plugin": "connectivity", "timeout": "4s", "config": {"url": "http://\(DNSTopology.ispAddress):8080/", "expect_status": 200, "timeout": "3s"}},
               {"id": "gw", "plugin": "ping", "config": {"targets": [{"name": "gateway", "host": "\(DNSTopology.ispAddress)", "count": 2, "interval": "50ms", "timeout": "300ms"}]}},
               {"id": "dns", "plugin": "dns", "config": {"resolvers": ["\(DNSTopology.ispAddress)"], "affects_path": true, "timeout": "800ms",
                 "warn_latency": "150ms", "queries": [{"name": "www.test", "expect": ["\(ISPResolver.address)"]}]}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}, {"type": "file", "path": "status.json", "pretty": false}]}
            """, in: directory)
    }

    func status() -> [String: Any]? {
        guard
            let text = try? String(
                contentsOf: topology.directory.appendingPathComponent("status.json"), encoding: .utf8)
        else { return nil }
        return try? parseJSONObject(text)
    }

    func check(_ id: String) -> [String: Any]? {
        (status()?["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    func changes(of agent: BackgroundProcess) -> [[String: Any]] {
        agent.outputLines.compactMap { try? parseJSONObject($0) }.filter { $0["type"] as? String == "change" }
    }

    /// Waits for the state; returns how long after `since` (the old resolver's end) the test saw it.
    func waitFor(_ what: String, after since: Date, _ condition: ([String: Any]) -> Bool) throws -> Double {
        let seen = waitUntilValue(timeout: 20) { () -> [String: Any]? in
            guard let document = status(), condition(document) else { return nil }
            return document
        }
        guard seen != nil else {
            throw TestFailure(
                "\(what) not seen; last document: \(String(describing: status())); stderr: \(processes.last?.errorOutput ?? "")"
            )
        }
        return Date().timeIntervalSince(since)
    }

    func path(_ document: [String: Any]) -> [String: Any] { document["path"] as? [String: Any] ?? [:] }

    func state(_ document: [String: Any], _ id: String) -> String? {
        (document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }?["state"] as? String
    }

    func message(_ document: [String: Any], _ id: String) -> String? {
        (document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }?["message"] as? String
    }

    @Test func thePathSaysDNSBrokeWhileTheGatewayAnswers() throws {
        try topology.host.exec("sysctl -qw net.ipv4.ping_group_range='0 2147483647'")
        try topology.resolver.set(.normal)
        let site = topology.directory.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        processes.append(
            try BackgroundProcess(
                [
                    "ip", "netns", "exec", topology.isp.name, "python3", "-m", "http.server", "8080", "--bind",
                    DNSTopology.ispAddress, "--directory", site.path,
                ]))
        let configFile = try config()
        try Unprivileged.own(topology.directory)
        let agent = try BackgroundProcess(
            ["ip", "netns", "exec", topology.host.name] + Unprivileged.pathwatch(["run", "--config", configFile.path]))
        processes.append(agent)

        _ = try waitFor("a satisfied path", after: Date()) { document in
            path(document)["status"] as? String == "satisfied" && path(document)["internet"] as? String == "full"
                && state(document, "dns/resolvers") == "ok" && state(document, "gw/gateway") == "ok"
        }

        // The resolver stops: the gateway still pings, the check URL still answers by address.
        var mark = changes(of: agent).count
        var switched = try topology.resolver.set(.stopped)
        let stopped = try waitFor("DNS not answering", after: switched) { document in
            path(document)["description"] as? String == "Connected via Ethernet (isp0), DNS not answering"
        }
        var document = try #require(status())
        #expect(
            path(document)["internet"] as? String == "limited" && path(document)["status"] as? String == "unsatisfied")
        #expect(state(document, "gw/gateway") == "ok", "the gateway still answers")
        #expect(state(document, "dns/10.86.0.2/www.test") == "critical")
        // A query sent before the resolver stopped finds no answer within the timeout; the next
        // sample finds its port closed.
        let refused = "not answering: connection refused (DNS not answering)"
        #expect(
            waitUntil(timeout: 10) { message(status() ?? [:], "dns/10.86.0.2/www.test") == refused },
            "\(String(describing: check("dns/10.86.0.2/www.test")))")
        // The stdout sink's line comes on its own lane, not with the file the wait read.
        _ = waitUntil(timeout: 5) { self.changes(of: agent).count > mark }
        let alerts = changes(of: agent).dropFirst(mark).compactMap { $0["check"] as? String }
        #expect(alerts == ["dns/resolvers"], "one alert for the path: \(alerts)")
        print("dns acceptance: stopped seen \(stopped) s after the switch")
        #expect(stopped <= Self.interval + Self.dnsTimeout + 1, "seen \(stopped) s after the switch")

        switched = try topology.resolver.set(.servfail)
        let failing = try waitFor("DNS failing", after: switched) { document in
            path(document)["description"] as? String == "Connected via Ethernet (isp0), DNS failing: SERVFAIL"
        }
        print("dns acceptance: SERVFAIL seen \(failing) s after the switch")

        switched = try topology.resolver.set(.normal)
        _ = try waitFor("the path satisfied again", after: switched) { document in
            path(document)["status"] as? String == "satisfied" && state(document, "dns/10.86.0.2/www.test") == "ok"
        }

        // A hijacked answer: the resolver works, so the path is fine, and the name's check alerts.
        mark = changes(of: agent).count
        switched = try topology.resolver.set(.hijacked)
        // `set` stops the old resolver before the new one listens: a sample in that gap finds
        // nothing answering (critical, path unsatisfied). The hijack is the answer it names.
        let hijacked = try waitFor("the hijack", after: switched) { document in
            state(document, "dns/10.86.0.2/www.test") == "critical"
                && message(document, "dns/10.86.0.2/www.test")?.hasPrefix("unexpected answer") == true
        }
        document = try #require(status())
        #expect(path(document)["status"] as? String == "satisfied")
        #expect(
            (check("dns/10.86.0.2/www.test")?["message"] as? String)?.hasPrefix(
                "unexpected answer 10.66.6.6 (expected 10.0.0.5)") == true)
        #expect(
            waitUntil(timeout: 5) {
                self.changes(of: agent).dropFirst(mark).contains { $0["check"] as? String == "dns/10.86.0.2/www.test" }
            })
        print("dns acceptance: hijack seen \(hijacked) s after the switch")

        switched = try topology.resolver.set(.delayed(milliseconds: 300))
        let slow = try waitFor("the slow resolver", after: switched) { document in
            state(document, "dns/10.86.0.2/www.test") == "warning"
        }
        print("dns acceptance: 300 ms delay seen \(slow) s after the switch")
    }
}
