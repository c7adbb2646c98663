import Foundation
import PathwatchTestSupport
import Testing

/// The real agent, run inside the topology's namespace with the built plug-in, observed through
/// its stdout sink and `pathwatch once`, compared with `ip -j`.
@Suite("linkstate through the agent", .serialized, .onItsOwnThread)
struct LinkStateAgentTests {
    /// A configuration loading the built plug-ins, with the linkstate probe as `link`.
    func writeConfig(in directory: URL, probeConfig: String = "{}", interval: String = "2s") throws -> String {
        let path = directory.appendingPathComponent("config.json").path
        try """
        {
          "agent": { "name": "ls-test", "interval": "\(interval)",
                     "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                     "state_dir": "\(directory.path)/state" },
          "probes": [ { "id": "link", "plugin": "linkstate", "config": \(probeConfig) } ],
          "sinks": [ { "type": "stdout", "format": "json", "on": "change" } ]
        }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.needsNamespaces) func onceReportsEveryInterfaceAndThePathLikeIP() throws {
        let topology = try LinkStateTopology()
        defer { topology.delete() }
        let directory = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let config = try writeConfig(in: directory)

        let result = try run([
            "ip", "netns", "exec", topology.ns.name, TestEnvironment.pathwatchBinary.path,
            "once", "--config", config, "--format", "json",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let document = try parseJSONObject(result.stdout)
        let checks = try #require(document["checks"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: checks.compactMap { c in (c["id"] as? String).map { ($0, c) } })
        let links = try topology.links()
        #expect(
            Set(byID.keys) == Set(links.compactMap { $0["ifname"] as? String }.map { "link/\($0)" } + ["link/path"]))
        for link in links {
            let name = try #require(link["ifname"] as? String)
            let check = try #require(byID["link/\(name)"])
            let metrics = check["metrics"] as? [String: Any] ?? [:]
            let labels = check["labels"] as? [String: Any] ?? [:]
            let flags = link["flags"] as? [String] ?? []
            #expect(check["state"] as? String == "ok", "\(name)")
            #expect(metrics["up"] as? Int == (flags.contains("UP") ? 1 : 0), "\(name) up")
            #expect(metrics["carrier"] as? Int == (flags.contains("LOWER_UP") ? 1 : 0), "\(name) carrier")
            #expect(metrics["mtu"] as? Int == link["mtu"] as? Int, "\(name) mtu")
            #expect(labels["mac"] as? String == link["address"] as? String, "\(name) mac")
            #expect(
                labels["kind"] as? String == (link["linkinfo"] as? [String: Any])?["info_kind"] as? String,
                "\(name) kind")
            #expect(labels["type"] as? String == "ethernet", "\(name) type")
            // The well-known path labels are the host's, not published.
            #expect(!labels.keys.contains { $0.hasPrefix("pathwatch.") }, "\(name) labels")
        }
        let path = try #require(document["path"] as? [String: Any])
        let device = try #require(try topology.defaultRouteDevice())
        #expect(path["status"] as? String == "satisfied")
        #expect(path["interface"] as? String == device)
        #expect(path["type"] as? String == "ethernet")
        #expect(path["expensive"] as? Bool == false)
        #expect(path["description"] as? String == "Connected via Ethernet (\(device))")
        #expect(byID["link/path"]?["message"] as? String == "Connected via Ethernet (\(device))")
    }

    @Test(.needsNamespaces) func onceWhileOfflineIsCriticalAndMeteredPathIsExpensive() throws {
        let topology = try LinkStateTopology()
        defer { topology.delete() }
        let directory = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let argv = { (config: String) in
            [
                "ip", "netns", "exec", topology.ns.name, TestEnvironment.pathwatchBinary.path, "once", "--config",
                config, "--format", "json",
            ]
        }

        let metered = try run(argv(try writeConfig(in: directory, probeConfig: #"{"metered": ["vA"]}"#)))
        let meteredPath = try #require(try parseJSONObject(metered.stdout)["path"] as? [String: Any])
        #expect(meteredPath["expensive"] as? Bool == true)

        try topology.ns.ip("route del default")
        let offline = try run(argv(try writeConfig(in: directory)))
        #expect(offline.status == 2)
        let document = try parseJSONObject(offline.stdout)
        let path = try #require(document["path"] as? [String: Any])
        #expect(path["status"] as? String == "unsatisfied")
        #expect(path["description"] as? String == "Offline - No internet connection")
        let checks = try #require(document["checks"] as? [[String: Any]])
        let pathCheck = try #require(checks.first { $0["id"] as? String == "link/path" })
        #expect(pathCheck["state"] as? String == "critical")
        #expect(pathCheck["message"] as? String == "Offline - No internet connection")
    }

    /// A host whose only link is an ignored one (a container before its veth arrives) is
    /// offline, in the document's path as in the `link/path` check, not "not monitored".
    @Test(.needsNamespaces) func onlyAnIgnoredLoopbackIsOfflineNotUnmonitored() throws {
        let ns = try LinkStateNamespace("lo-only")
        defer { ns.delete() }
        let directory = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let config = try writeConfig(in: directory, probeConfig: #"{"ignore": ["lo"]}"#)

        let result = try run(
            ["ip", "netns", "exec", ns.name] + Unprivileged.pathwatch(["once", "--config", config, "--format", "json"]))
        #expect(result.status == 2, "stderr: \(result.stderr)")
        let document = try parseJSONObject(result.stdout)
        let path = try #require(document["path"] as? [String: Any])
        #expect(path["status"] as? String == "unsatisfied")
        #expect(path["type"] as? String == "none")
        #expect(path["description"] as? String == "Offline - No internet connection")
        let checks = try #require(document["checks"] as? [[String: Any]])
        #expect(checks.compactMap { $0["id"] as? String } == ["link/path"])
        #expect(checks.first?["message"] as? String == "Offline - No internet connection")
    }

    @Test(.needsNamespaces) func badConfigIsRefusedWithItsPath() throws {
        let directory = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let config = try writeConfig(in: directory, probeConfig: #"{"sysfs_root": "sys"}"#)
        let result = try run([TestEnvironment.pathwatchBinary.path, "check-config", "--config", config])
        #expect(result.status == 78)
        #expect((result.stdout + result.stderr).contains("probes[0].config.sysfs_root"))
    }

    /// One transition per step, each raising exactly its change events (contract §4) and path state.
    @Test(.needsNamespaces) func runRaisesExactlyTheExpectedChangeEvents() throws {
        let topology = try LinkStateTopology()
        defer { topology.delete() }
        let directory = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let config = try writeConfig(in: directory)
        let agent = try BackgroundProcess([
            "ip", "netns", "exec", topology.ns.name, TestEnvironment.pathwatchBinary.path, "run", "--config", config,
        ])
        defer { agent.stop() }
        try waitUntilStarted(agent)
        // Everything is ok at start: a check first seen ok raises no event.
        #expect(try changes(of: agent, after: {}, expecting: 0).isEmpty)
        let (ns, peer) = (topology.ns, topology.peer)

        var events = try changes(of: agent, after: { try peer.ip("link set vB down") }, expecting: 2)
        #expect(Set(events.map(\.summary)) == ["link/vA ok→critical", "link/path ok→critical"])
        #expect(events.allSatisfy { $0.pathStatus == "unsatisfied" })

        events = try changes(of: agent, after: { try peer.ip("link set vB up") }, expecting: 2)
        #expect(Set(events.map(\.summary)) == ["link/vA critical→ok", "link/path critical→ok"])
        #expect(events.allSatisfy { $0.pathStatus == "satisfied" })

        events = try changes(of: agent, after: { try ns.ip("route del default") }, expecting: 1)
        #expect(events.map(\.summary) == ["link/path ok→critical"])
        #expect(events.first?.message == "Offline - No internet connection")

        events = try changes(
            of: agent, after: { try ns.ip("route add default via 10.80.0.2 dev vA metric 100") }, expecting: 1)
        #expect(events.map(\.summary) == ["link/path critical→ok"])
        #expect(events.first?.message == "Connected via Ethernet (vA)")

        events = try changes(of: agent, after: { try ns.ip("link del vA") }, expecting: 2)
        #expect(Set(events.map(\.summary)) == ["link/vA ok→unknown", "link/path ok→critical"])

        events = try changes(of: agent, after: { try topology.recreateUplink() }, expecting: 2)
        #expect(Set(events.map(\.summary)) == ["link/vA unknown→ok", "link/path critical→ok"])
        // vA may be announced before its route exists; the path's own event is satisfied.
        #expect(events.first { $0.check == "link/path" }?.pathStatus == "satisfied")

        events = try changes(of: agent, after: { try ns.ip("link del vE") }, expecting: 1)
        #expect(events.map(\.summary) == ["link/vE ok→unknown"])
        events = try changes(
            of: agent, after: { try ns.ip("link add vE type veth peer name vF netns \(peer.name)") }, expecting: 1)
        #expect(events.map(\.summary) == ["link/vE unknown→ok"])
    }

    struct Change {
        var check: String
        var from: String
        var to: String
        var message: String
        var pathStatus: String
        var summary: String { "\(check) \(from)→\(to)" }
    }

    func waitUntilStarted(_ agent: BackgroundProcess) throws {
        _ = waitUntil(timeout: 15) { agent.errorOutput.contains("started") || !agent.isRunning }
        guard agent.errorOutput.contains("started") else {
            throw TestFailure("agent did not start: \(agent.errorOutput)")
        }
    }

    /// Runs `action`, waits for `expecting` change events, then a little longer so that any
    /// unexpected extra event is caught too; returns every change event printed meanwhile.
    func changes(of agent: BackgroundProcess, after action: () throws -> Void, expecting count: Int) throws -> [Change]
    {
        let start = agent.outputLines.count
        try action()
        _ = waitUntil(timeout: 5, interval: 0.002) { agent.outputLines.count - start >= count }
        usleep(700_000)  // an extra event is an absence until it comes: only real time can show it
        return try agent.outputLines.dropFirst(start).map(parseJSONObject).filter { $0["type"] as? String == "change" }
            .map { event in
                Change(
                    check: event["check"] as? String ?? "?", from: event["from"] as? String ?? "?",
                    to: event["to"] as? String ?? "?",
                    message: event["message"] as? String ?? "",
                    pathStatus: (event["path"] as? [String: Any])?["status"] as? String ?? "?")
            }
    }
}
