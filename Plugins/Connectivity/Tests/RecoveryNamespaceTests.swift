import Foundation
import PathwatchTestSupport
import Testing

/// "Retry when the connection is restored" (contract §7): when the uplink's carrier returns, the agent
/// samples its network-dependent probes at once — an endpoint with a 60 s interval is green again
/// within moments, not a minute — and the webhook sends what it held while offline at once.
@Suite(.serialized, .onItsOwnThread) struct RecoveryNamespaceTests {
    /// The endpoint and the held deliveries, after the carrier returns, come well inside the
    /// endpoint's 60 s interval: only the sample the path's return triggers (and its one
    /// follow-up, when a neighbour entry was still resolving) can bring them that soon. The
    /// bound is not a speed figure: on a busy machine the few hops can take seconds; a run at
    /// rest prints about 0.1–1.5 s.
    static let recoveryBound = 10.0

    func config(in directory: URL, connectivity: Bool) throws -> URL {
        let isp = "http://\(ISPTopology.ispAddress):\(ISPTopology.port)"
        let net =
            connectivity
            ? #"{"id": "net", "plugin": "connectivity", "interval": "30s", "config": {"url": "\#(isp)/generate_204", "timeout": "2s"}},"#
            : ""
        return try writeConfig(
            """
            {"agent": {"name": "recovery-test", "interval": "60s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(directory.path)/state"},
             "probes": [
               {"id": "link", "plugin": "linkstate"},
               \(net)
               {"id": "api", "plugin": "reachability", "interval": "60s",
                "config": {"targets": [{"name": "isp-api", "url": "\(isp)/api", "timeout": "2s"}]}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "pretty": false},
                       {"type": "webhook", "url": "\(isp)/hook"}]}
            """, in: directory)
    }

    func recover(connectivity: Bool) throws {
        let topology = try ISPTopology()
        defer { topology.delete() }
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-recovery")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let server = try topology.startServer(in: directory)
        defer { server.stop() }
        // The host starts with its cable pulled: addresses and routes in place, no carrier.
        try topology.carrier(false)
        let agent = try NamespacedAgent(
            config: config(in: directory, connectivity: connectivity), namespace: topology.host, directory: directory)
        defer { agent.stop() }

        let offline = agent.waitFor(timeout: 15) {
            agent.path["status"] as? String == "unsatisfied"
                && agent.check("api/isp-api")?["state"] as? String == "critical"
                && agent.changes().contains { $0["check"] as? String == "link/isp0" }
        }
        try #require(
            offline != nil,
            "path \(agent.path); api \(String(describing: agent.check("api/isp-api"))); \(agent.process.errorOutput)")
        // The link's events are queued and held, not tried: the receiver is only reachable over the link.
        #expect(agent.waitFor(timeout: 5) { agent.process.errorOutput.contains("holding deliveries") } != nil)
        usleep(500_000)
        #expect(server.hooks().isEmpty)

        let returned = Date()
        try topology.carrier(true)
        let endpoint = agent.waitFor(timeout: 10) { agent.check("api/isp-api")?["state"] as? String == "ok" }
        let delivered = agent.waitFor(timeout: 10) { !server.hooks().isEmpty }
        try #require(
            endpoint != nil && delivered != nil,
            "api \(String(describing: agent.check("api/isp-api"))); \(agent.process.errorOutput)")
        let endpointSeconds = endpoint!
        let firstHook = server.hooks().map(\.at).min()! - returned.timeIntervalSince1970
        print(
            "recovery (connectivity probe: \(connectivity)): endpoint ok after \(endpointSeconds) s, first held delivery after \(firstHook) s"
        )
        #expect(endpointSeconds <= Self.recoveryBound, "the 60 s endpoint took \(endpointSeconds) s to recover")
        #expect(firstHook <= Self.recoveryBound, "the first held delivery came \(firstHook) s after the carrier")
        // The held events arrive, the oldest (the link going down at start) first.
        let first = server.hooks().sorted { $0.at < $1.at }.first?.body
        #expect(
            first?["check"] as? String == "link/isp0" || first?["check"] as? String == "link/path",
            "\(String(describing: first))")
        #expect(first?["to"] as? String == "critical")
    }

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func endpointAndHeldDeliveriesRecoverAtOnceWithTheLinkAlone() throws {
        try recover(connectivity: false)
    }

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func endpointAndHeldDeliveriesRecoverAtOnceBehindAConnectivityCheck() throws {
        try recover(connectivity: true)
    }
}
